// Library messages in the command line's terms (apps/common.hpp): positions
// counted from 1 as in the input file, the CLI's option names for the
// library's, and the check that a result is finite.
#include "common.hpp"

#include <fmt/core.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <optional>
#include <regex>
#include <iostream>
#include <new>
#include <sstream>


namespace balsa::app {

namespace {

// `text` with each number that `pattern`'s groups 2 and up match raised by one.
std::string add_one(const std::string& text, const std::regex& pattern) {
  std::string out;
  auto last = text.cbegin();
  for (std::sregex_iterator m(text.begin(), text.end(), pattern), end; m != end; ++m) {
    for (std::size_t g = 2; g < m->size(); ++g) {
      const std::string digits = (*m)[g].str();
      out.append(last, (*m)[g].first);
      out += digits.size() < 18 ? std::to_string(std::stoll(digits) + 1) : digits;
      last = (*m)[g].second;
    }
  }
  out.append(last, text.cend());
  return out;
}

// A row, column or index position named by number.
const std::regex& position_pattern() {
  static const std::regex p(R"(\b(row|column|index) (\d+))");
  return p;
}
// An entry named by its (row, column) pair: "A(2, 0)", "a(2, 0)", "entry (2, 0)", "at (2, 0)".
const std::regex& pair_pattern() {
  static const std::regex p(R"(\b(A|a|entry|at) ?\((\d+), (\d+)\))");
  return p;
}

// The library's names of its options, and what a user of the command line
// sets instead.
struct CliTerm {
  const char* library;
  const char* cli;
};
constexpr CliTerm kCliTerms[] = {
    {"Device::Cuda", "--device cuda"},
    {"iterations (max_iterations)", "iterations (--max-iterations)"},
    {"iterations (stagnation_window)", "iterations (the stagnation window)"},
    {"use GMRES or a BiCGStab method, or set KrylovOptions::check_symmetry = false",
     "use --method gmres-ilu0 or bicgstab-ilu0 (or another GMRES or BiCGStab method) or --method auto"},
    {"PivotBreakdown::Shift would retry on A + alpha diag(A)",
     "without --no-shift it would retry on A + alpha diag(A)"},
    {"enable pivot boosting or reorder the matrix", "leave out --no-shift (pivot boosting) or reorder the matrix"},
};

}  // namespace

std::string in_cli_terms(std::string text) {
  for (const CliTerm& t : kCliTerms) {
    const std::size_t from = std::strlen(t.library), to = std::strlen(t.cli);
    for (std::size_t at = text.find(t.library); at != std::string::npos; at = text.find(t.library, at + to))
      text.replace(at, from, t.cli);
  }
  if (text.find("1-based") != std::string::npos) return text;
  return add_one(add_one(text, position_pattern()), pair_pattern());
}

std::string with_numbering_note(const std::string& text) {
  if (text.find("1-based") != std::string::npos) return text;  // the text says its numbering itself
  const bool positions = std::regex_search(text, position_pattern()) || std::regex_search(text, pair_pattern());
  return positions ? text + "\n  (rows, columns and indices count from 1, as in the input file)" : text;
}

namespace {
template <class T>
void require_finite_values(std::span<const T> x, double true_residual, const std::string& what) {
  require_finite(x, what);  // "NaN in <what> at index i"
  if (!std::isfinite(true_residual))
    throw Error(fmt::format("the true residual of {} is {}; the result is unusable", what, true_residual));
}
}  // namespace

void require_finite_result(std::span<const double> x, double true_residual, const std::string& what) {
  require_finite_values(x, true_residual, what);
}
void require_finite_result(std::span<const float> x, double true_residual, const std::string& what) {
  require_finite_values(x, true_residual, what);
}

}  // namespace balsa::app
