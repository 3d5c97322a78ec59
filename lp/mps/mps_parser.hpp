// Internal to the MPS reader (not installed): the parser's state. The driver
// (sections, end of input, the public read functions) is mps_reader.cpp; the
// data lines of each section are mps_sections.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "balsa/lp.hpp"
#include "lp/mps/mps_fields.hpp"
#include "sparse/io/matrix_market_lines.hpp"

namespace balsa::mps {

// Row codes besides the constraint rows 0, 1, ...: the objective (the first
// N row) and the further N rows, which are dropped.
inline constexpr index_t kObjectiveRow = -1;
inline constexpr index_t kDroppedRow = -2;

enum class Section { None, Name, ObjSense, Rows, Columns, Rhs, Ranges, Bounds, End };

class Parser {
 public:
  explicit Parser(const std::string& name) : name_(name) {}
  // Reads the whole input; every error a ParseError "name:line: ...".
  LinearProgram run(mtx::LineReader& lr);

 private:
  // A (row, value) pair of COLUMNS, RHS or RANGES; row is a row code.
  struct Entry {
    std::string_view name;  // the row's, as the line spells it
    index_t row = 0;
    double value = 0.0;
  };
  // One data line of COLUMNS (set = the column), RHS or RANGES.
  struct VectorLine {
    std::string_view set;  // may be empty (RHS and RANGES)
    Entry entry[2];
    int entries = 0;
  };
  struct BoundLine {
    std::string_view type, set;
    index_t col = 0;
    double value = 0.0;
  };

  [[noreturn]] void fail(const std::string& what) const;
  void header(const char* b, const char* e);
  void data(const char* b, const char* e);
  LinearProgram finish();

  // Sections (mps_sections.cpp). Each parse_* reads fields without changing
  // the state (false and `err` when they do not fit), so that a line can be
  // read again by the fixed columns; the apply step then records it.
  void rows_line();
  bool parse_row(const Fields& f, char& type, std::string_view& name, std::string& err) const;
  void columns_line();
  bool parse_entries(const Fields& f, std::size_t first, const char* section, VectorLine& v, std::string& err) const;
  bool parse_columns(const Fields& f, VectorLine& v, std::string& err) const;
  bool parse_rhs(const Fields& f, const char* section, VectorLine& v, std::string& err) const;
  void rhs_line(const VectorLine& v);
  void ranges_line(const VectorLine& v);
  bool parse_bound(const Fields& f, BoundLine& bl, std::string& err) const;
  void bounds_line(const BoundLine& bl);
  void bounds_data();
  void objsense(std::string_view word);
  static bool in_set(std::optional<std::string>& chosen, std::string_view set);

  // Reads the current line's fields with parse(fields, err): the free
  // reading first, then the fixed columns; fails with the first's reason.
  template <class Parse>
  void read_fields(Parse&& parse) {
    std::string err, ignored;
    if (parse(fields_, err)) return;
    if (split_fixed(line_begin_, line_end_, fixed_) && parse(fixed_, ignored)) return;
    fail(err);
  }

  void close_rows();
  void open_column(std::string_view name);
  void close_column();

  const std::string& name_;
  std::int64_t line_ = 0;
  const char* line_begin_ = nullptr;  // the current line, for the fixed-format reading
  const char* line_end_ = nullptr;
  Fields fields_, fixed_;
  Section section_ = Section::None;
  bool rows_seen_ = false, rows_closed_ = false, columns_seen_ = false;
  std::int64_t columns_line_ = 0;  // where the COLUMNS section began

  LinearProgram lp_;
  NameMap rows_, cols_;
  std::vector<char> row_type_;  // 'E', 'L', 'G' per constraint row
  // RHS and RANGES per row (NaN: none), the line that gave them (duplicates).
  std::vector<double> rhs_, range_;
  std::vector<std::int64_t> rhs_line_, range_line_;
  std::int64_t objective_rhs_line_ = 0;
  std::optional<std::string> rhs_set_, ranges_set_, bounds_set_;  // the first set name of each section

  // The column being read: its index, the nonzeros' start, where it began;
  // marks_[r] == its index when row r already has an entry in it.
  index_t column_ = -1;
  bool column_open_ = false, cost_given_ = false, integer_mode_ = false;
  std::vector<index_t> marks_;
  std::vector<std::int64_t> column_line_;  // per column: the line of its first entry
  std::vector<std::uint8_t> lower_given_;  // per column: a bound line set its lower bound
};

}  // namespace balsa::mps
