// Shared pieces of the balsa command: reading and writing matrices, the
// options every command spells the same way, exit codes. The command is a
// client of the public API only (include/balsa/*.hpp).
#pragma once

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <span>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "balsa/balsa.hpp"
#include "fields_json.hpp"
#include "number_format.hpp"
#include "progress.hpp"

namespace balsa::app {

// Exit codes (README, "Exit codes"; `balsa --help` prints kExitCodesHelp):
// 0 done; 1 bad input or a failed computation (the message says which); 2 a
// usage error (unknown command or option, a bad value); 3 a limit reached
// (iterations, time: the solve did not converge) or an LP with no optimum
// (infeasible, unbounded).
inline constexpr int kExitError = 1, kExitUsage = 2, kExitNotConverged = 3;
inline constexpr const char* kExitCodesHelp =
    "Exit codes: 0 done; 1 bad input or a failed computation; 2 usage error; 3 a limit reached (iterations, time: "
    "not converged) or an infeasible or unbounded linear program.";

// A solve that ran and did not reach an answer: a limit reached, or an LP
// with no optimum (exit code 3).
class NotConverged : public Error {
 public:
  using Error::Error;
};

// Wall-clock stopwatch (seconds).
class Stopwatch {
 public:
  Stopwatch() : start_(std::chrono::steady_clock::now()) {}
  double seconds() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count(); }

 private:
  std::chrono::steady_clock::time_point start_;
};

// --json [FILE]'s value: `path` empty without the option, "-" for standard
// output.
struct JsonOutput {
  std::string path;
  explicit operator bool() const { return !path.empty(); }
  bool to_stdout() const { return path == "-"; }
};

double median(std::vector<double> v);
// Every value of v is zero (a zero right-hand side: x = 0, said as such).
template <class T>
bool all_zero(std::span<const T> v) {
  return std::all_of(v.begin(), v.end(), [](T x) { return x == T(0); });
}

// ---- files ---------------------------------------------------------------------
// Every input path may be "-" (standard input) or gzip-compressed; every
// output path may be "-" (standard output).

// A matrix file read as triplets, with what the file said and the census of
// its entries (balsa::entry_census): nothing sized by the declared rows and
// columns is allocated yet.
template <class T>
struct LoadedTriplets {
  Coo<T> coo;
  MtxHeader header;
  EntryCensus census;
  double read_seconds = 0.0;  // parse time
  std::uintmax_t bytes = 0;   // file size (0 for a stream)
};
template <class T>
LoadedTriplets<T> load_triplets(const std::string& path, const MtxReadOptions& options = {});

// "<path>: a <rows> x <cols> matrix with <n> entries", the subject of a
// command's memory plan.
std::string matrix_subject(const std::string& path, const EntryCensus& c);

// A command's look at the census before the conversion to CSR: it throws on
// structural facts that make the work pointless (an empty row for a solve),
// and adds to `plan` the steps it will hold beside A's CSR (work vectors,
// factors, outputs).
using CensusCheck = std::function<void(const EntryCensus&, MemoryPlan& plan)>;

// A matrix read from a file with what the file said.
template <class T>
struct LoadedMatrix {
  Csr<T> A;
  MtxHeader header;
  EntryCensus census;
  double read_seconds = 0.0;   // parse time
  double total_seconds = 0.0;  // parse + conversion to CSR
  std::uintmax_t bytes = 0;    // file size (0 for a stream)
};
// load_triplets, then `check` (if given), then the memory plan (the CSR
// conversion and check's steps) against the limit (balsa::require_memory:
// --memory-limit, else the memory available), then the conversion to CSR.
template <class T>
LoadedMatrix<T> load_matrix(const std::string& path, const MtxReadOptions& options = {},
                            const CensusCheck& check = {});
// The same from triplets already read.
template <class T>
LoadedMatrix<T> to_loaded_matrix(const std::string& path, LoadedTriplets<T> t, const CensusCheck& check = {});

// MatrixError unless every row and column of the census holds an entry:
// "<path>: the matrix is structurally singular, structural rank at most r
// (<work> needs an entry in every row and column): row 2 (1-based, as in the
// file) holds none (k of n rows are empty)".
void require_no_empty_lines(const std::string& path, const EntryCensus& c, const char* work);

// A file position for users: "row 7 (1-based, as in the file)".
std::string file_row(index_t i);
std::string file_column(index_t j);

// Right-hand sides: a Matrix Market file (array or coordinate) of `rows`
// rows and any number of columns; DimensionError naming the file otherwise
// (checked before any array of its declared size is made, and its dense
// values against the memory limit).
DenseMatrix<double> load_columns(const std::string& path, index_t rows, const char* what = "right-hand side");

// --rhs, the same on solve, trsv and lsq: a Matrix Market file, or one of
// the generated right-hand sides: random (the default: entries uniform in
// [-1, 1) from --seed; a singular A then has no x, and the solve says so),
// ones, or ax (b = A x_true for a random x_true: the error of x is reported,
// but a singular A then has solutions, so this b hides it). A file named
// like one of these is given with its folder (a path with a slash).
CLI::Option* add_rhs_option(CLI::App* cmd, std::string& rhs, const std::string& shape);
// Whether `rhs` names a generated right-hand side (random, ones, ax), not a file.
bool generated_rhs(const std::string& rhs);
// A generated b of `rows` rows: random (from `seed`) or ones (not ax: the caller forms A x_true).
std::vector<double> generated_b(const std::string& rhs, index_t rows, std::uint64_t seed);

// Outputs are written whole or not at all (balsa/atomic_file.hpp): a file
// path gets a temporary file renamed over it at the end, so a failed run
// leaves the old file; "-" writes to standard output directly.
template <class T>
void save_matrix(const std::string& path, const Csr<T>& A, const MtxWriteOptions& options = {});
void save_matrix(const std::string& path, const DenseMatrix<double>& X, const MtxWriteOptions& options = {});
// Triplets, written sorted with duplicates summed (nothing sized by the declared rows).
void save_matrix(const std::string& path, const Coo<double>& A, const MtxWriteOptions& options = {});
// JSON to standard output, or to `path` when not empty and not "-"; an
// object gets the key "balsa_version" (every command's JSON carries it).
void print_json(nlohmann::json j, const std::string& path = "-");
// Whether two paths name one file ("" and "-" name none): the same file now
// (std::filesystem::equivalent: links, "./" and ".." spellings), or the
// same absolute path once the links of its folders are resolved (an output
// not written yet). A device or a pipe (/dev/stdout) is never the same
// file: writing to it overwrites nothing.
bool same_file(const std::string& a, const std::string& b);
// Before any work: a usage error (CLI::ValidationError, exit code 2) when an
// output names the same file as an input (`balsa convert a.mtx a.mtx`, also
// spelled another way or through a link), or two outputs name one file; the
// --setup-trace file counts as an output.
void refuse_overwriting(const std::vector<std::string>& inputs, std::vector<std::string> outputs);
// balsa::solve's Auto predictions (SolveReport::plan), fastest first, one
// line each ("predicted <method> on <device>: <s> (<basis>)").
void print_predictions(std::FILE* out, const SolveReport& r);
// Where a command's report goes when its result x goes to `output`:
// standard error when x takes standard output ("-"), else standard output.
// JSON on standard output with -o - is a usage error (both would write there).
std::FILE* report_stream(const JsonOutput& json, const std::string& output);

// ---- options ---------------------------------------------------------------------

// Help text without CLI11's type names and validator internals: "--tol X
// ... (default: 1e-08)".
void use_plain_help(CLI::App& app);

// An option naming a value of a balsa enum (include/balsa/core.hpp): its
// names are the library's (enum_names<E>()), listed in the help with the
// default (`value` as given; show_default false: the option has none, e.g.
// "keep only this triangle"); `names` restricts them (empty: all).
template <NamedEnum E>
CLI::Option* add_enum_option(CLI::App* cmd, const std::string& flags, E& value, const std::string& help,
                             std::vector<E> names = {}, bool show_default = true);
// --device auto|cpu|cuda.
CLI::Option* add_device_option(CLI::App* cmd, Device& device);
// --json [FILE], the same on every command: `path` stays empty without it;
// "-" (no FILE, or '-') is standard output. A FILE is replaced whole
// (print_json). CLI11 leaves a word a positional argument still needs to
// that argument: `balsa info --json A.mtx` reads A.mtx.
CLI::Option* add_json_option(CLI::App* cmd, JsonOutput& json, const std::string& what = "Print the result as JSON");
// An option's old name (`old_name`), hidden from the help: given, a usage
// error (exit 2) "--maxit was renamed --max-iterations (CHANGELOG, issue 41)".
void add_renamed_option(CLI::App* cmd, const std::string& old_name, const std::string& new_name);
// SciPy's residual tolerances of an iterative solve, the same on every
// command: --rtol (rtol), --atol (atol) and the old --tol's rename error.
void add_tolerance_options(CLI::App* cmd, double& rtol, double& atol);
// One warning line on stderr: "balsa: warning: <text>".
void warn(const std::string& text);
// The device to run on: Auto resolved (balsa::resolve_device); Cuda
// without a usable GPU is an Error saying why.
Device usable_device(Device requested);

// Validators with plain messages ("must be positive, got 0"; "unknown value
// 'x' (one of: a, b)").
CLI::Validator one_of(const std::vector<std::string>& names);
CLI::Validator finite();  // any finite number (NaN and Inf refused, as by the others)
CLI::Validator positive();
CLI::Validator at_least(double minimum);
CLI::Validator between(double lo, double hi);

// --threads N on `app`'s every subcommand (and theirs): balsa::set_threads(N)
// for the whole run (OpenMP and OpenBLAS); N outside 1 to
// balsa::hardware_threads() is a usage error naming the limit.
void add_threads_option(CLI::App& app);
// --memory-limit BYTES on every subcommand of `app` (recursively):
// balsa::set_host_memory_limit for the whole run (suffixes K, M, G, T:
// balsa::parse_byte_count); a bad value is a usage error.
void add_memory_limit_option(CLI::App& app);
// --setup-trace FILE on every subcommand of `app` (recursively): the set-up
// timeline (balsa::set_setup_trace; --setup-trace=-: stderr).
void add_setup_trace_option(CLI::App& app);

// ---- messages ---------------------------------------------------------------------
// The command's messages count rows, columns and indices from 1, as a
// Matrix Market or MPS file does, and name the command's own options.

// A library message (or a reason it gave) in the command's terms: each "row
// i", "column j", "index k", "A(i, j)", "a(i, j)", "entry (i, j)" and "at (i, j)",
// counted from 0 by the library, raised by one; the library's option names
// (Device::Cuda, max_iterations, KrylovOptions::check_symmetry, ...)
// replaced by the command's (--device cuda, --max-iterations, --method, ...). Text saying "1-based" keeps its
// numbers.
std::string in_cli_terms(std::string text);
// `text` with a note saying how positions count, when it names any.
std::string with_numbering_note(const std::string& text);

// ---- results ---------------------------------------------------------------------

// An Error when any value of x, or the true residual, is NaN or Inf: a
// solve whose answer is not finite failed, whatever its status said.
void require_finite_result(std::span<const double> x, double true_residual, const std::string& what);
void require_finite_result(std::span<const float> x, double true_residual, const std::string& what);

// ---- the program ---------------------------------------------------------------
// (balsa and balsa-bench: apps/main.cpp, bench/bench_cli.cpp)

// The program's main: the OpenMP wait policy passive unless the user chose
// one (apps/common.cpp says why; the program executes itself again, once),
// plain help, --version, the subcommands `add_commands` registers and
// --threads on each; then parses and runs the command line. An unknown first
// word, or a usage error, is exit code 2 (kExitUsage), NotConverged 3, any
// other error 1, each message on standard error as "<program>: error: ...".
int run_app(CLI::App& app, int argc, char** argv, void (*add_commands)(CLI::App&));
// What run_app does to `app` before parsing: plain help, --version, one
// subcommand required, the subcommands `add_commands` registers, then
// --threads, --memory-limit and --setup-trace on each (fuzz/fuzz_cli.cpp
// builds its App with this too, so that it parses what balsa parses).
void configure_app(CLI::App& app, void (*add_commands)(CLI::App&));
// The balsa command's subcommands (apps/commands.cpp).
void add_balsa_commands(CLI::App& app);

// Registration of each subcommand.
void add_info_command(CLI::App& app);
void add_gen_command(CLI::App& app);
void add_convert_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_trsv_command(CLI::App& app);
void add_solve_command(CLI::App& app);
void add_qr_commands(CLI::App& app);  // lsq, qr
void add_reorder_command(CLI::App& app);
void add_lp_command(CLI::App& app);

// ---- template definitions ------------------------------------------------------------

template <NamedEnum E>
CLI::Option* add_enum_option(CLI::App* cmd, const std::string& flags, E& value, const std::string& help,
                             std::vector<E> names, bool show_default) {
  if (names.empty())
    for (const EnumName<E>& n : EnumNames<E>::names) names.push_back(n.value);
  std::vector<std::string> spelled;
  std::string list;
  for (const E e : names) {
    spelled.emplace_back(to_string(e));
    list += (list.empty() ? "" : ", ") + spelled.back();
  }
  CLI::Option* o = cmd->add_option_function<std::string>(
      flags, [&value](const std::string& text) { value = from_string<E>(text); },
      help + " (" + list + (show_default ? std::string("; default: ") + to_string(value) : std::string()) + ")");
  o->check(one_of(spelled));
  o->option_text(" NAME");
  return o;
}

}  // namespace balsa::app
