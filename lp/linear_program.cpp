// LinearProgram's checks (include/balsa/lp.hpp): integer_columns and
// validate, which the solver runs on every LP it is given.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "balsa/lp.hpp"
#include "core/exceptions.hpp"

namespace balsa {

std::int64_t LinearProgram::integer_columns() const {
  return std::count_if(integer.begin(), integer.end(), [](std::uint8_t v) { return v != 0; });
}

namespace {

std::string num(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[32];
  return std::string(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);  // the shortest exact form
}

// "column 3 ('x4')", or "column 3" when the LP has no names.
std::string place(const char* kind, std::size_t i, const std::vector<std::string>& names) {
  std::string s = std::string(kind) + " " + std::to_string(i);
  if (i < names.size()) s += " ('" + names[i] + "')";
  return s;
}

void check_size(const std::string& lp, const char* what, std::size_t size, index_t expected, bool may_be_empty = false) {
  if (size == std::size_t(expected) || (may_be_empty && size == 0)) return;
  throw DimensionError(lp + ": " + what + " has " + std::to_string(size) + " entries, expected " +
                       std::to_string(expected) + (may_be_empty ? " (or none)" : ""));
}

// Bounds [lower[i], upper[i]]: no NaN, lower not +Inf, upper not -Inf
// (lower > upper is allowed: an infeasible LP, which the solver reports).
void check_bounds(const std::string& lp, const char* kind, const std::vector<double>& lower,
                  const std::vector<double>& upper, const std::vector<std::string>& names) {
  for (std::size_t i = 0; i < lower.size(); ++i) {
    const double lo = lower[i], up = upper[i];
    if (std::isnan(lo) || std::isnan(up) || lo == lp_infinity || up == -lp_infinity)
      throw Error(lp + ": " + place(kind, i, names) + " has bounds [" + num(lo) + ", " + num(up) +
                  "]: bounds must not be NaN, a lower bound not +Inf, an upper bound not -Inf");
  }
}

}  // namespace

void validate(const LinearProgram& lp) try {
  const std::string what = "LP" + (lp.name.empty() ? std::string() : " '" + lp.name + "'");
  const index_t m = lp.A.rows, n = lp.A.cols;
  validate(lp.A, true);  // sizes, sorted rows without duplicates in each column
  check_size(what, "cost", lp.cost.size(), n);
  check_size(what, "col_lower", lp.col_lower.size(), n);
  check_size(what, "col_upper", lp.col_upper.size(), n);
  check_size(what, "row_lower", lp.row_lower.size(), m);
  check_size(what, "row_upper", lp.row_upper.size(), m);
  check_size(what, "integer", lp.integer.size(), n, true);
  check_size(what, "col_names", lp.col_names.size(), n, true);
  check_size(what, "row_names", lp.row_names.size(), m, true);
  for (index_t j = 0; j < n; ++j)
    for (index_t k = lp.A.col_ptr[j]; k < lp.A.col_ptr[j + 1]; ++k)
      if (!std::isfinite(lp.A.values[k]))
        throw MatrixError(what + ": A has " + num(lp.A.values[k]) + " in " +
                          place("row", std::size_t(lp.A.row_idx[k]), lp.row_names) + ", " +
                          place("column", std::size_t(j), lp.col_names) + ": values must be finite");
  for (std::size_t j = 0; j < lp.cost.size(); ++j)
    if (!std::isfinite(lp.cost[j]))
      throw Error(what + ": the cost of " + place("column", j, lp.col_names) + " is " + num(lp.cost[j]) +
                  ": costs must be finite");
  if (!std::isfinite(lp.objective_constant))
    throw Error(what + ": the objective constant is " + num(lp.objective_constant) + ": it must be finite");
  check_bounds(what, "column", lp.col_lower, lp.col_upper, lp.col_names);
  check_bounds(what, "row", lp.row_lower, lp.row_upper, lp.row_names);
} catch (...) {
  rethrow_as_balsa_error("validate");
}

}  // namespace balsa
