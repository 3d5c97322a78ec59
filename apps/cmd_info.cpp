// balsa info FILE: what the file holds and the structure of the matrix; for
// an MPS file (*.mps, *.mps.gz), the linear program's sizes and kinds of rows
// and bounds.
#include <fmt/core.h>

#include <cctype>
#include <cmath>

#include <nlohmann/json.hpp>

#include "balsa/lp.hpp"
#include "balsa/stats.hpp"
#include "common.hpp"

namespace balsa::app {

namespace {

struct InfoOptions {
  std::string file;
  JsonOutput json;
  bool progress = false;
  bool full = false;  // the analyses sized by the declared rows and columns, whatever they hold
};

// The diagonal's gaps; rows count from 1, as in the file (every command's messages do).
std::string diagonal_text(const DiagonalReport& d) {
  if (d.ok()) return "all present and nonzero";
  std::string s;
  if (d.missing) s += fmt::format("{} missing (first at row {})", d.missing, d.first_missing + 1);
  if (d.zero) s += fmt::format("{}{} zero (first at row {})", s.empty() ? "" : ", ", d.zero, d.first_zero + 1);
  return s;
}

// Whether `file` names an MPS file: *.mps or *.mps.gz, in any case.
bool is_mps(const std::string& file) {
  std::string f;
  for (const char c : file) f += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto ends = [&](const std::string& s) { return f.size() >= s.size() && f.compare(f.size() - s.size(), s.size(), s) == 0; };
  return ends(".mps") || ends(".mps.gz");
}

// The kinds of an LP's rows and column bounds.
struct LpCounts {
  std::int64_t equality = 0, less = 0, greater = 0, ranged = 0, free_rows = 0;
  std::int64_t free_cols = 0, lower_only = 0, upper_only = 0, boxed = 0, fixed = 0;
};

LpCounts count_kinds(const LinearProgram& lp) {
  LpCounts c;
  for (std::size_t i = 0; i < lp.row_lower.size(); ++i) {
    const bool lo = std::isfinite(lp.row_lower[i]), up = std::isfinite(lp.row_upper[i]);
    if (lo && up)
      ++(lp.row_lower[i] == lp.row_upper[i] ? c.equality : c.ranged);
    else
      ++(lo ? c.greater : up ? c.less : c.free_rows);
  }
  for (std::size_t j = 0; j < lp.col_lower.size(); ++j) {
    const bool lo = std::isfinite(lp.col_lower[j]), up = std::isfinite(lp.col_upper[j]);
    if (lo && up)
      ++(lp.col_lower[j] == lp.col_upper[j] ? c.fixed : c.boxed);
    else
      ++(lo ? c.lower_only : up ? c.upper_only : c.free_cols);
  }
  return c;
}

void run_info_mps(const InfoOptions& o) {
  const Stopwatch clock;
  const LinearProgram lp = read_mps(o.file);
  const double seconds = clock.seconds();
  const LpCounts c = count_kinds(lp);
  if (o.json) {
    const nlohmann::json j = {
        {"file", o.file},
        {"format", "mps"},
        {"name", lp.name},
        {"rows", lp.rows()},
        {"cols", lp.cols()},
        {"nnz", lp.A.nnz()},
        {"sense", to_string(lp.sense)},
        {"objective_name", lp.objective_name},
        {"objective_constant", lp.objective_constant},
        {"integer_columns", lp.integer_columns()},
        {"free_rows_dropped", lp.free_rows_dropped},
        {"row_types", {{"equality", c.equality}, {"less", c.less}, {"greater", c.greater}, {"ranged", c.ranged},
                       {"free", c.free_rows}}},
        {"column_bounds", {{"free", c.free_cols}, {"lower_only", c.lower_only}, {"upper_only", c.upper_only},
                           {"boxed", c.boxed}, {"fixed", c.fixed}}},
        {"read_seconds", seconds},
    };
    print_json(j, o.json.path);
    return;
  }
  fmt::print("file         {} (MPS linear program '{}')\n", o.file, lp.name);
  fmt::print("read         {:.2f} ms\n", seconds * 1e3);
  fmt::print("size         {} rows, {} columns, {} nonzeros\n", lp.rows(), lp.cols(), lp.A.nnz());
  fmt::print("objective    {} row '{}', constant {}\n", to_string(lp.sense), lp.objective_name, lp.objective_constant);
  fmt::print("rows         {} equality, {} less, {} greater, {} ranged, {} free ({} further N rows dropped)\n",
             c.equality, c.less, c.greater, c.ranged, c.free_rows, lp.free_rows_dropped);
  fmt::print("bounds       {} free, {} lower only, {} upper only, {} boxed, {} fixed\n", c.free_cols, c.lower_only,
             c.upper_only, c.boxed, c.fixed);
  fmt::print("integer      {} columns\n", lp.integer_columns());
}

// Why the analyses of the CSR (symmetry, levels, rows' counts) are skipped,
// or "" to run them: a declared size past 2^20 rows and columns of which
// more than half are empty takes arrays of that size for little (a 1-entry
// file may declare 2^31 - 1 rows), unless --full.
std::string why_skipped(const InfoOptions& o, const EntryCensus& c) {
  const bool sparse_lines = 2 * std::int64_t(c.empty_rows()) > c.rows || 2 * std::int64_t(c.empty_cols()) > c.cols;
  if (o.full || std::int64_t(c.rows) + c.cols <= (std::int64_t(1) << 20) || !sparse_lines) return "";
  return fmt::format("{} of {} rows and {} of {} columns hold no entry; the rest would take arrays of the declared "
                     "size (--full runs them)", c.empty_rows(), c.rows, c.empty_cols(), c.cols);
}

// The first empty line of a census ("none", or "row 3 (1-based, as in the file)").
std::string first_empty(index_t i, std::string (*name)(index_t)) { return i < 0 ? "none" : name(i); }

// The census as JSON, and as text.
nlohmann::json census_json(const EntryCensus& c) {
  return {{"rows", c.rows}, {"cols", c.cols}, {"entries", c.entries}, {"positions", c.positions},
          {"occupied_rows", c.occupied_rows}, {"occupied_cols", c.occupied_cols}, {"diagonal", c.diagonal},
          {"first_empty_row", c.first_empty_row}, {"first_empty_col", c.first_empty_col},
          {"first_missing_diagonal", c.first_missing_diagonal}, {"nnz_lower", c.below}, {"nnz_diagonal", c.on},
          {"nnz_upper", c.above}, {"lower_bandwidth", c.lower_bandwidth}, {"upper_bandwidth", c.upper_bandwidth}};
}

void print_census(const EntryCensus& c) {
  fmt::print("occupied     {} of {} rows (first empty: {}), {} of {} columns (first empty: {})\n", c.occupied_rows,
             c.rows, first_empty(c.first_empty_row, file_row), c.occupied_cols, c.cols,
             first_empty(c.first_empty_col, file_column));
  fmt::print("bandwidth    lower {}, upper {}\n", c.lower_bandwidth, c.upper_bandwidth);
  fmt::print("entries      {} below, {} on, {} above the diagonal\n", c.below, c.on, c.above);
  fmt::print("diagonal     {} of {} present (first missing: {})\n", c.diagonal, std::min(c.rows, c.cols),
             first_empty(c.first_missing_diagonal, file_row));
}

// The file told from its triplets' census alone.
void run_info_census(const InfoOptions& o, const LoadedTriplets<double>& t, const std::string& why) {
  const EntryCensus& c = t.census;
  if (o.json) {
    print_json({{"file", o.file}, {"format", to_string(t.header.format)}, {"field", to_string(t.header.field)},
                {"symmetry", to_string(t.header.symmetry)}, {"stored_entries", t.header.stored_entries},
                {"bytes", t.bytes}, {"read_seconds", t.read_seconds}, {"rows", c.rows}, {"cols", c.cols},
                {"nnz", c.positions}, {"census", census_json(c)}, {"skipped", why}}, o.json.path);
    return;
  }
  fmt::print("file         {} (matrix {} {} {})\n", o.file, to_string(t.header.format), to_string(t.header.field),
             to_string(t.header.symmetry));
  fmt::print("read         {} bytes in {:.3f} s\n", t.bytes, t.read_seconds);
  fmt::print("size         {} x {}, {} nonzeros ({} stored in the file)\n", c.rows, c.cols, c.positions,
             t.header.stored_entries);
  print_census(c);
  fmt::print("skipped      rows' counts, symmetry, values and levels: {}\n", why);
}

// The analyses' memory beside A's CSR: structure_stats' transpose and level
// arrays (at least 6 indices per row and column).
void plan_analyses(const EntryCensus& c, MemoryPlan& plan) {
  plan.add("the analyses (a transpose and 6 indices per row and column)",
           transpose_bytes(c.cols, c.positions, sizeof(double)) + vectors_bytes(6, std::int64_t(c.rows) + c.cols, 4));
}

void run_info(const InfoOptions& o) {
  if (is_mps(o.file)) return run_info_mps(o);
  ProgressLine progress(o.progress, o.json.to_stdout());
  progress.phase("reading");
  LoadedTriplets<double> t = load_triplets<double>(o.file);
  progress.stop();
  if (const std::string why = why_skipped(o, t.census); !why.empty()) return run_info_census(o, t, why);
  ProgressLine analysing(o.progress, o.json.to_stdout());
  analysing.phase("analysing the structure");
  const LoadedMatrix<double> m = to_loaded_matrix(o.file, std::move(t), plan_analyses);
  const StructureStats s = structure_stats(m.A);
  analysing.stop();
  const double mb = double(m.bytes) / 1e6;
  if (o.json) {
    nlohmann::json j = {
        {"file", o.file},
        {"format", to_string(m.header.format)},
        {"field", to_string(m.header.field)},
        {"symmetry", to_string(m.header.symmetry)},
        {"stored_entries", m.header.stored_entries},
        {"bytes", m.bytes},
        {"read_seconds", m.read_seconds},
        {"read_mb_per_s", m.read_seconds > 0 ? mb / m.read_seconds : 0.0},
    };
    j.update(fields_json(s));
    if (s.rows != s.cols) {  // the levels of a triangular solve: square matrices only
      j.erase("lower_levels");
      j.erase("upper_levels");
    }
    print_json(j, o.json.path);
    return;
  }
  fmt::print("file         {} (matrix {} {} {})\n", o.file, to_string(m.header.format), to_string(m.header.field),
             to_string(m.header.symmetry));
  if (m.bytes > 0)
    fmt::print("read         {:.1f} MB in {:.3f} s ({:.0f} MB/s); CSR built in {:.3f} s\n", mb, m.read_seconds,
               mb / std::max(m.read_seconds, 1e-9), m.total_seconds - m.read_seconds);
  fmt::print("size         {} x {}, {} nonzeros ({} stored in the file)\n", s.rows, s.cols, s.nnz,
             m.header.stored_entries);
  fmt::print("rows' nnz    min {}, max {}, mean {:.2f}, stddev {:.2f}, empty rows {}\n", s.row_nnz_min, s.row_nnz_max,
             s.row_nnz_mean, s.row_nnz_stddev, s.empty_rows);
  fmt::print("bandwidth    lower {}, upper {}\n", s.lower_bandwidth, s.upper_bandwidth);
  fmt::print("entries      {} below, {} on, {} above the diagonal\n", s.nnz_lower, s.nnz_diagonal, s.nnz_upper);
  fmt::print("diagonal     {}\n", diagonal_text(s.diagonal));
  fmt::print("symmetry     pattern {}, values {}\n", s.pattern_symmetric ? "symmetric" : "unsymmetric",
             s.values_symmetric ? "symmetric" : "unsymmetric");
  fmt::print("values       {}\n", s.finite ? "all finite" : "NaN or Inf present");
  if (s.rows == s.cols) {
    for (const auto& [name, l] : {std::pair{"lower", s.lower_levels}, std::pair{"upper", s.upper_levels}})
      fmt::print("levels       {} triangle: {} levels, widest {}, narrowest {}, mean width {:.1f}\n", name, l.levels,
                 l.max_width, l.min_width, l.mean_width);
  }
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto o = std::make_shared<InfoOptions>();
  CLI::App* cmd = app.add_subcommand(
      "info", "Print what a Matrix Market file holds and the matrix's structure, or an MPS file's linear program");
  cmd->add_option("file", o->file, "Matrix Market file ('-' for standard input), or MPS file (*.mps, *.mps.gz)")
      ->required();
  add_json_option(cmd, o->json, "Print JSON instead of text");
  add_progress_option(cmd, o->progress);
  cmd->add_flag("--full", o->full,
                "Run the analyses sized by the declared rows and columns even when most of them are empty");
  cmd->callback([o] { run_info(*o); });
}

}  // namespace balsa::app
