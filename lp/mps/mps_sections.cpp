// The MPS reader's data lines, section by section (see mps_parser.hpp). Each
// parse_* only reads fields (a line may be read twice: free, then by the
// fixed columns); the *_line functions then record what was read, and fail
// on what no reading of the line can mend (a duplicate, a RANGES entry on an
// N row, an infinite lower bound).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "lp/mps/mps_parser.hpp"

namespace balsa::mps {

using mtx::iequal;
using mtx::quote;
using mtx::str;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNone = std::numeric_limits<double>::quiet_NaN();

}  // namespace

// ---- ROWS ---------------------------------------------------------------------

bool Parser::parse_row(const Fields& f, char& type, std::string_view& name, std::string& err) const {
  if (f.size() != 2) {
    err = f.size() < 2 ? "missing row name: expected 'type name' (type N, E, L or G)"
                       : "too many fields on a ROWS line: expected 'type name'";
    return false;
  }
  const char t = f[0].size() == 1 ? static_cast<char>(std::toupper(static_cast<unsigned char>(f[0][0]))) : '?';
  if (t != 'N' && t != 'E' && t != 'L' && t != 'G') {
    err = "unknown row type " + quote(f[0]) + " (N, E, L or G)";
    return false;
  }
  type = t;
  name = f[1];
  return true;
}

void Parser::rows_line() {
  char type = 0;
  std::string_view name;
  read_fields([&](const Fields& f, std::string& err) { return parse_row(f, type, name, err); });
  const bool objective = type == 'N' && lp_.objective_name.empty();
  const std::size_t m = row_type_.size();
  if (type != 'N' && m == std::size_t(max_index))
    throw IndexOverflow(name_ + ":" + str(line_) + ": more than " + str(max_index) +
                        " rows do not fit balsa's 32-bit index type");
  const index_t code = type == 'N' ? (objective ? kObjectiveRow : kDroppedRow) : index_t(m);
  if (!rows_.try_emplace(std::string(name), code).second) fail("row " + quote(name) + " is defined twice");
  if (objective) {
    lp_.objective_name = name;
  } else if (type == 'N') {
    ++lp_.free_rows_dropped;
  } else {
    row_type_.push_back(type);
    lp_.row_names.emplace_back(name);
  }
}

void Parser::close_rows() {
  if (rows_closed_) return;
  rows_closed_ = true;
  const std::size_t m = row_type_.size();
  rhs_.assign(m, 0.0);
  range_.assign(m, kNone);
  rhs_line_.assign(m, 0);
  range_line_.assign(m, 0);
  marks_.assign(m, -1);
}

// ---- COLUMNS, RHS, RANGES -----------------------------------------------------

// The (row, value) pairs of f[first], f[first + 1], ... (an even count).
bool Parser::parse_entries(const Fields& f, std::size_t first, const char* section, VectorLine& v,
                           std::string& err) const {
  v.entries = 0;
  for (std::size_t i = first; i + 1 < f.size(); i += 2) {
    const index_t* row = find(rows_, f[i]);
    if (!row) {
      err = "unknown row " + quote(f[i]) + " in " + section + " (not in ROWS)";
      return false;
    }
    Entry& e = v.entry[v.entries++];
    e.row = *row;
    e.name = f[i];
    if (!number(f[i + 1], e.value, err)) return false;
  }
  return true;
}

bool Parser::parse_columns(const Fields& f, VectorLine& v, std::string& err) const {
  if (f.size() != 3 && f.size() != 5) {
    err = f.size() < 3    ? "missing value: expected 'column row value [row value]'"
          : f.size() == 4 ? "missing value after row " + quote(f[3])
                          : "too many fields on a COLUMNS line: expected 'column row value [row value]'";
    return false;
  }
  v.set = f[0];
  return parse_entries(f, 1, "COLUMNS", v, err);
}

void Parser::open_column(std::string_view name) {
  close_column();
  const std::size_t n = lp_.col_names.size();
  if (n == std::size_t(max_index))
    throw IndexOverflow(name_ + ":" + str(line_) + ": more than " + str(max_index) +
                        " columns do not fit balsa's 32-bit index type");
  const auto [it, fresh] = cols_.try_emplace(std::string(name), index_t(n));
  if (!fresh)
    fail("column " + quote(name) + " appears again after other columns (first at line " +
         str(column_line_[std::size_t(it->second)]) + "): a column's entries must be contiguous");
  lp_.col_names.emplace_back(name);
  lp_.cost.push_back(0.0);
  lp_.col_lower.push_back(0.0);
  lp_.col_upper.push_back(kInf);
  lp_.integer.push_back(integer_mode_ ? 1 : 0);
  lower_given_.push_back(0);
  column_line_.push_back(line_);
  column_ = index_t(n);
  column_open_ = true;
  cost_given_ = false;
}

// Ends the column being read: its rows sorted (the file may list them in any
// order), its end in col_ptr.
void Parser::close_column() {
  if (!column_open_) return;
  column_open_ = false;
  Csc<double>& A = lp_.A;
  const std::size_t from = std::size_t(A.col_ptr.back()), to = A.row_idx.size();
  if (!std::is_sorted(A.row_idx.begin() + std::ptrdiff_t(from), A.row_idx.end())) {
    std::vector<std::pair<index_t, double>> e;
    e.reserve(to - from);
    for (std::size_t k = from; k < to; ++k) e.emplace_back(A.row_idx[k], A.values[k]);
    std::sort(e.begin(), e.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    for (std::size_t k = from; k < to; ++k) std::tie(A.row_idx[k], A.values[k]) = e[k - from];
  }
  A.col_ptr.push_back(index_t(to));
}

void Parser::columns_line() {
  // Integer markers: "name 'MARKER' 'INTORG'" ... "name 'MARKER' 'INTEND'".
  if (fields_.size() >= 2 && iequal(unquote(fields_[1]), "MARKER")) {
    const std::string_view w = fields_.size() == 3 ? unquote(fields_[2]) : std::string_view();
    if (iequal(w, "INTORG"))
      integer_mode_ = true;
    else if (iequal(w, "INTEND"))
      integer_mode_ = false;
    else
      fail("malformed MARKER line: expected \"name 'MARKER' 'INTORG'\" or \"name 'MARKER' 'INTEND'\"");
    return;
  }
  VectorLine v;
  read_fields([&](const Fields& f, std::string& err) { return parse_columns(f, v, err); });
  if (!column_open_ || v.set != lp_.col_names.back()) open_column(v.set);
  Csc<double>& A = lp_.A;
  for (int k = 0; k < v.entries; ++k) {
    const Entry& e = v.entry[k];
    if (e.row == kObjectiveRow) {
      if (cost_given_) fail("column " + quote(v.set) + " has a second entry in the objective row " +
                            quote(lp_.objective_name));
      cost_given_ = true;
      lp_.cost[std::size_t(column_)] = e.value;
    } else if (e.row >= 0) {
      if (marks_[std::size_t(e.row)] == column_)
        fail("column " + quote(v.set) + " has a second entry in row " + quote(lp_.row_names[std::size_t(e.row)]));
      marks_[std::size_t(e.row)] = column_;
      if (A.row_idx.size() == std::size_t(max_index))
        throw IndexOverflow(name_ + ":" + str(line_) + ": more than " + str(max_index) +
                            " nonzeros do not fit balsa's 32-bit index type");
      A.row_idx.push_back(e.row);
      A.values.push_back(e.value);
    }
  }
}

bool Parser::parse_rhs(const Fields& f, const char* section, VectorLine& v, std::string& err) const {
  const std::size_t n = f.size();
  if (n < 2 || n > 5) {
    err = n < 2 ? std::string("missing value: expected '[set] row value [row value]'")
                : std::string("too many fields on a ") + section + " line: expected '[set] row value [row value]'";
    return false;
  }
  // An odd count has the set name first; an even one none ("row value").
  // "set row value row" (a value missing) looks like the latter.
  if (n == 4 && !find(rows_, f[0]) && find(rows_, f[1]) && find(rows_, f[3])) {
    err = "missing value after row " + quote(f[3]);
    return false;
  }
  const std::size_t first = n % 2;
  v.set = first ? f[0] : std::string_view();
  return parse_entries(f, first, section, v, err);
}

// Whether a line of set `set` counts: only the first set named in a section
// does (lines without a set name always count); the others are ignored.
bool Parser::in_set(std::optional<std::string>& chosen, std::string_view set) {
  if (set.empty()) return true;
  if (!chosen) chosen.emplace(set);
  return *chosen == set;
}

void Parser::rhs_line(const VectorLine& v) {
  if (!in_set(rhs_set_, v.set)) return;
  for (int k = 0; k < v.entries; ++k) {
    const Entry& e = v.entry[k];
    if (e.row == kObjectiveRow) {
      if (objective_rhs_line_)
        fail("second RHS for the objective row " + quote(lp_.objective_name) + " (first at line " +
             str(objective_rhs_line_) + ")");
      objective_rhs_line_ = line_;
      lp_.objective_constant = 0.0 - e.value;  // the row reads c^T x - constant_term; 0 stays +0
    } else if (e.row >= 0) {
      const std::size_t r = std::size_t(e.row);
      if (rhs_line_[r]) fail("second RHS for row " + quote(lp_.row_names[r]) + " (first at line " + str(rhs_line_[r]) + ")");
      rhs_line_[r] = line_;
      rhs_[r] = e.value;
    }
  }
}

void Parser::ranges_line(const VectorLine& v) {
  if (!in_set(ranges_set_, v.set)) return;
  for (int k = 0; k < v.entries; ++k) {
    const Entry& e = v.entry[k];
    if (e.row < 0) fail("RANGES entry on the N row " + quote(e.name) + ": ranges apply to E, L and G rows");
    const std::size_t r = std::size_t(e.row);
    if (range_line_[r])
      fail("second RANGES entry for row " + quote(lp_.row_names[r]) + " (first at line " + str(range_line_[r]) + ")");
    range_line_[r] = line_;
    range_[r] = e.value;
  }
}

// ---- BOUNDS -------------------------------------------------------------------

namespace {
bool bound_needs_value(std::string_view t) {
  return iequal(t, "UP") || iequal(t, "LO") || iequal(t, "FX") || iequal(t, "LI") || iequal(t, "UI");
}
bool bound_without_value(std::string_view t) {
  return iequal(t, "FR") || iequal(t, "MI") || iequal(t, "PL") || iequal(t, "BV");
}
}  // namespace

bool Parser::parse_bound(const Fields& f, BoundLine& bl, std::string& err) const {
  const std::size_t n = f.size();
  bl.type = f[0];
  bl.set = {};
  bl.value = 0.0;
  std::string_view col;
  if (bound_needs_value(f[0])) {
    if (n < 3 || n > 4) {
      err = n < 3 ? "missing value: expected 'type [set] column value'"
                  : "too many fields on a BOUNDS line: expected 'type [set] column value'";
      return false;
    }
    if (n == 3 && !find(cols_, f[1]) && find(cols_, f[2])) {  // "type set column"
      err = "missing value after column " + quote(f[2]);
      return false;
    }
    if (n == 4) bl.set = f[1];
    col = f[n - 2];
    if (!number(f[n - 1], bl.value, err, true)) return false;
  } else if (bound_without_value(f[0])) {
    // "type column", "type set column", "type column value" (the value
    // ignored), "type set column value".
    if (n < 2 || n > 4) {
      err = n < 2 ? "missing column: expected 'type [set] column'"
                  : "too many fields on a BOUNDS line: expected 'type [set] column [value]'";
      return false;
    }
    double ignored = 0.0;
    std::string no_number;
    const bool column_value = n == 3 && !find(cols_, f[2]) && find(cols_, f[1]) && number(f[2], ignored, no_number, true);
    if (n == 2 || column_value) {
      col = f[1];
    } else {
      bl.set = f[1];
      col = f[2];
    }
  } else {
    err = "unknown bound type " + quote(f[0]) + " (UP, LO, FX, FR, MI, PL, BV, LI or UI)";
    return false;
  }
  const index_t* c = find(cols_, col);
  if (!c) {
    err = "unknown column " + quote(col) + " in BOUNDS (not in COLUMNS)";
    return false;
  }
  bl.col = *c;
  return true;
}

void Parser::bounds_data() {
  if (iequal(fields_[0], "SC")) fail("semi-continuous bounds are not supported (bound type SC)");
  BoundLine bl;
  read_fields([&](const Fields& f, std::string& err) { return parse_bound(f, bl, err); });
  bounds_line(bl);
}

void Parser::bounds_line(const BoundLine& bl) {
  if (!in_set(bounds_set_, bl.set)) return;
  const std::size_t c = std::size_t(bl.col);
  double& lower = lp_.col_lower[c];
  double& upper = lp_.col_upper[c];
  const double v = bl.value;
  const auto is = [&](const char* type) { return iequal(bl.type, type); };
  const std::string what = " bound of column " + quote(lp_.col_names[c]);
  if ((is("UP") || is("UI")) && v == -kInf) fail("upper" + what + " is -Inf");
  if ((is("LO") || is("LI")) && v == kInf) fail("lower" + what + " is +Inf");
  if (is("FX") && std::isinf(v)) fail("fixed" + what + " is infinite");
  if (is("UP") || is("UI")) {
    upper = v;
    // A negative upper bound with no lower bound given makes the lower bound
    // -Inf (as CPLEX and HiGHS read it) instead of leaving [0, v] empty.
    if (v < 0 && !lower_given_[c]) lower = -kInf;
  } else if (is("LO") || is("LI")) {
    lower = v;
  } else if (is("FX")) {
    lower = upper = v;
  } else if (is("FR")) {
    lower = -kInf;
    upper = kInf;
  } else if (is("MI")) {
    lower = -kInf;
  } else if (is("PL")) {
    upper = kInf;
  } else if (is("BV")) {
    lower = 0.0;
    upper = 1.0;
  }
  if (!is("UP") && !is("UI") && !is("PL")) lower_given_[c] = 1;
  if (is("BV") || is("LI") || is("UI")) lp_.integer[c] = 1;
}

// ---- OBJSENSE -----------------------------------------------------------------

void Parser::objsense(std::string_view word) {
  if (iequal(word, "MIN") || iequal(word, "MINIMIZE"))
    lp_.sense = ObjectiveSense::Minimize;
  else if (iequal(word, "MAX") || iequal(word, "MAXIMIZE"))
    lp_.sense = ObjectiveSense::Maximize;
  else
    fail("unknown objective sense " + quote(word) + ": expected MIN, MAX, MINIMIZE or MAXIMIZE");
}

}  // namespace balsa::mps
