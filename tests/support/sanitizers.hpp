// Whether the tests run under AddressSanitizer (BALSA_SANITIZE=address,
// scripts/sanitize.sh; GCC defines __SANITIZE_ADDRESS__, clang answers
// __has_feature). Under it a failed allocation ends the process (ASan's
// operator new reports it, allocator_may_return_null or not) instead of
// throwing std::bad_alloc, so the tests of that translation skip.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define BALSA_TEST_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BALSA_TEST_UNDER_ASAN 1
#endif
#endif
