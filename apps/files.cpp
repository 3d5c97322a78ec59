// The balsa command's files (apps/common.hpp, "files"): matrices read with
// their entry census and memory plan first, right-hand sides, outputs written
// whole (balsa/atomic_file.hpp) and never over an input, JSON, --setup-trace.
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

template <class T>
LoadedTriplets<T> load_triplets(const std::string& path, const MtxReadOptions& options) {
  LoadedTriplets<T> t;
  Stopwatch clock;
  if (path == "-") {
    t.coo = read_matrix_market<T>(std::cin, "<stdin>", options, &t.header);
  } else {
    std::error_code ec;
    t.bytes = std::filesystem::file_size(path, ec);
    t.coo = read_matrix_market<T>(path, options, &t.header);
  }
  t.census = entry_census(t.coo);
  t.read_seconds = clock.seconds();
  return t;
}

std::string matrix_subject(const std::string& path, const EntryCensus& c) {
  return fmt::format("{}: a {} x {} matrix with {} entr{}", path, c.rows, c.cols, c.entries,
                     c.entries == 1 ? "y" : "ies");
}

template <class T>
LoadedMatrix<T> to_loaded_matrix(const std::string& path, LoadedTriplets<T> t, const CensusCheck& check) {
  Stopwatch clock;
  MemoryPlan plan{matrix_subject(path, t.census), {}};
  plan.add("its conversion to CSR", coo_to_csr_bytes(t.census.rows, t.census.entries, sizeof(T)));
  if (check) check(t.census, plan);
  require_memory(plan);
  LoadedMatrix<T> m{to_csr(t.coo), t.header, t.census, t.read_seconds, 0.0, t.bytes};
  m.total_seconds = t.read_seconds + clock.seconds();
  return m;
}

template <class T>
LoadedMatrix<T> load_matrix(const std::string& path, const MtxReadOptions& options, const CensusCheck& check) {
  return to_loaded_matrix(path, load_triplets<T>(path, options), check);
}

std::string file_row(index_t i) { return fmt::format("row {} (1-based, as in the file)", std::int64_t(i) + 1); }
std::string file_column(index_t j) { return fmt::format("column {} (1-based, as in the file)", std::int64_t(j) + 1); }

void require_no_empty_lines(const std::string& path, const EntryCensus& c, const char* work) {
  const bool row = c.first_empty_row >= 0;
  if (!row && c.first_empty_col < 0) return;
  throw MatrixError(fmt::format(
      "{}: the matrix is structurally singular, structural rank at most {} ({} needs an entry in every row and "
      "column): {} holds none ({} of {} {} are empty)",
      path, std::min(c.occupied_rows, c.occupied_cols), work,
      row ? file_row(c.first_empty_row) : file_column(c.first_empty_col), row ? c.empty_rows() : c.empty_cols(),
      row ? c.rows : c.cols, row ? "rows" : "columns"));
}

DenseMatrix<double> load_columns(const std::string& path, index_t rows, const char* what) {
  LoadedTriplets<double> t = load_triplets<double>(path);
  if (t.census.rows != rows)
    throw DimensionError(fmt::format("{}: the {} has {} rows, the matrix {}", path, what, t.census.rows, rows));
  const CensusCheck dense = [what](const EntryCensus& c, MemoryPlan& plan) {
    plan.add(fmt::format("the {} as {} dense columns", what, c.cols), vectors_bytes(c.cols, c.rows, sizeof(double)));
  };
  return to_dense(to_loaded_matrix(path, std::move(t), dense).A);
}

CLI::Option* add_rhs_option(CLI::App* cmd, std::string& rhs, const std::string& shape) {
  return cmd
      ->add_option("--rhs", rhs,
                   "Right-hand sides: a Matrix Market file (" + shape +
                       "), or random (from --seed; the default: a singular matrix cannot hide), ones, or ax (b = A "
                       "x_true, the error of x reported)")
      ->option_text(" FILE|random|ones|ax")
      ->capture_default_str();
}

bool generated_rhs(const std::string& rhs) { return rhs == "random" || rhs == "ones" || rhs == "ax"; }

std::vector<double> generated_b(const std::string& rhs, index_t rows, std::uint64_t seed) {
  if (rhs == "ones") return std::vector<double>(std::size_t(rows), 1.0);
  return random_vector<double>(rows, seed);
}

namespace {
// `M` (Csr, Coo or DenseMatrix) to standard output ("-") or to a file.
template <class M>
void write_to(const std::string& path, const M& A, const MtxWriteOptions& options) {
  if (path == "-")
    write_matrix_market(std::cout, A, options);
  else
    write_matrix_market(std::filesystem::path(path), A, options);
}
}  // namespace

template <class T>
void save_matrix(const std::string& path, const Csr<T>& A, const MtxWriteOptions& options) {
  write_to(path, A, options);
}
void save_matrix(const std::string& path, const Coo<double>& A, const MtxWriteOptions& options) {
  write_to(path, A, options);
}
void save_matrix(const std::string& path, const DenseMatrix<double>& X, const MtxWriteOptions& options) {
  write_to(path, X, options);
}

void print_json(nlohmann::json j, const std::string& path) {
  if (j.is_object()) j["balsa_version"] = BALSA_VERSION;
  if (path.empty() || path == "-") {
    std::cout << j.dump(2) << "\n";
    return;
  }
  write_file_atomically(path, [&j](std::ostream& out) { out << j.dump(2) << "\n"; });
}

namespace {
// The --setup-trace file of this run ("" none, "-" standard error): an
// output of every command, appended to (refuse_overwriting checks it too).
std::string& setup_trace_file() {
  static std::string file;
  return file;
}

void use_setup_trace(const std::string& to) {
  set_setup_trace(to);
  setup_trace_file() = to;
}

// A path that names a file written in place (a device, a pipe), not replaced.
bool is_special_file(const std::string& path) {
  std::error_code ec;
  const std::filesystem::file_status st = std::filesystem::status(path, ec);
  return !ec && std::filesystem::exists(st) && !std::filesystem::is_regular_file(st) &&
         !std::filesystem::is_directory(st);
}
}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  if (a.empty() || a == "-" || b.empty() || b == "-" || is_special_file(a) || is_special_file(b)) return false;
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec)) return true;
  const std::filesystem::path ca = std::filesystem::weakly_canonical(a, ec);
  if (ec) return false;
  const std::filesystem::path cb = std::filesystem::weakly_canonical(b, ec);
  return !ec && ca == cb;
}

void refuse_overwriting(const std::vector<std::string>& inputs, std::vector<std::string> outputs) {
  outputs.push_back(setup_trace_file());
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    for (const std::string& input : inputs)
      if (same_file(outputs[k], input))
        throw CLI::ValidationError(
            fmt::format("the output '{}' is the input '{}': balsa does not overwrite its input; write to another file",
                        outputs[k], input));
    for (std::size_t l = k + 1; l < outputs.size(); ++l)
      if (same_file(outputs[k], outputs[l]))
        throw CLI::ValidationError(
            fmt::format("two outputs name one file: '{}' and '{}'; give them different files", outputs[k], outputs[l]));
  }
}

std::FILE* report_stream(const JsonOutput& json, const std::string& output) {
  if (json.to_stdout() && output == "-")
    throw CLI::ValidationError("--json and -o - would both write to standard output; give -o a file");
  return output == "-" ? stderr : stdout;
}

void add_setup_trace_option(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({})) {
    sub->add_option_function<std::string>("--setup-trace", use_setup_trace,
                                          "Print the set-ups' timeline to FILE (appended; --setup-trace=-: stderr)")
        ->option_text(" FILE");
    add_setup_trace_option(*sub);
  }
}


template LoadedTriplets<double> load_triplets<double>(const std::string&, const MtxReadOptions&);
template LoadedTriplets<float> load_triplets<float>(const std::string&, const MtxReadOptions&);
template LoadedMatrix<double> load_matrix<double>(const std::string&, const MtxReadOptions&, const CensusCheck&);
template LoadedMatrix<float> load_matrix<float>(const std::string&, const MtxReadOptions&, const CensusCheck&);
template LoadedMatrix<double> to_loaded_matrix<double>(const std::string&, LoadedTriplets<double>, const CensusCheck&);
template LoadedMatrix<float> to_loaded_matrix<float>(const std::string&, LoadedTriplets<float>, const CensusCheck&);
template void save_matrix<double>(const std::string&, const Csr<double>&, const MtxWriteOptions&);
template void save_matrix<float>(const std::string&, const Csr<float>&, const MtxWriteOptions&);

}  // namespace balsa::app
