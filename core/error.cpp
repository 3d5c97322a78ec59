#include "balsa/error.hpp"

#include <new>
#include <stdexcept>
#include <string>

#include "balsa/sparse.hpp"
#include "core/exceptions.hpp"

namespace balsa {

ParseError::ParseError(std::string file, std::int64_t line, std::string_view what)
    : Error(file + ":" + std::to_string(line) + ": " + std::string(what)), file_(std::move(file)), line_(line) {}

index_t checked_index(std::int64_t n, std::string_view what) {
  if (n < 0) throw Error(std::string(what) + " is negative (" + std::to_string(n) + ")");
  if (n > max_index)
    throw IndexOverflow(std::string(what) + " = " + std::to_string(n) +
                        " does not fit balsa's 32-bit index type (max " + std::to_string(max_index) + ")");
  return static_cast<index_t>(n);
}

void rethrow_as_balsa_error(const char* where) {
  try {
    throw;
  } catch (const Error&) {
    throw;
  } catch (const std::bad_alloc&) {
    throw HostOutOfMemory(std::string(where) + ": out of host memory");
  } catch (const std::length_error& e) {
    throw HostOutOfMemory(std::string(where) + ": out of host memory (a size beyond what memory can hold: " + e.what() +
                          ")");
  } catch (const std::exception& e) {
    throw Error(std::string(where) + ": " + e.what());
  } catch (...) {
    throw Error(std::string(where) + ": unknown exception");
  }
}

}  // namespace balsa
