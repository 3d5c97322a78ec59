// Internal: the boundary of balsa's public functions. No std:: exception
// leaves one: each public function's body is a function-try-block whose
// handler calls rethrow_as_balsa_error(where), which lets a balsa::Error
// pass unchanged and turns the rest into balsa errors:
//   std::bad_alloc, std::length_error  -> HostOutOfMemory ("<where>: out of host memory ...")
//   any other std::exception           -> Error ("<where>: <what()>")
//   anything else                      -> Error ("<where>: unknown exception")
#pragma once

namespace balsa {

// Call only inside a catch handler.
[[noreturn]] void rethrow_as_balsa_error(const char* where);

}  // namespace balsa
