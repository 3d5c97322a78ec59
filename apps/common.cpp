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

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

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

template <class T>
void save_matrix(const std::string& path, const Csr<T>& A, const MtxWriteOptions& options) {
  if (path == "-")
    write_matrix_market(std::cout, A, options);
  else
    write_matrix_market(std::filesystem::path(path), A, options);
}

void save_matrix(const std::string& path, const Coo<double>& A, const MtxWriteOptions& options) {
  if (path == "-")
    write_matrix_market(std::cout, A, options);
  else
    write_matrix_market(std::filesystem::path(path), A, options);
}

void save_matrix(const std::string& path, const DenseMatrix<double>& X, const MtxWriteOptions& options) {
  if (path == "-")
    write_matrix_market(std::cout, X, options);
  else
    write_matrix_market(std::filesystem::path(path), X, options);
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

std::FILE* report_stream(bool json, const std::string& output) {
  if (json && output == "-")
    throw CLI::ValidationError("--json and -o - would both write to standard output; give -o a file");
  return output == "-" ? stderr : stdout;
}

void add_threads_option(CLI::App& app) {
  const int most = hardware_threads();
  const CLI::Validator in_range(
      [most](std::string& text) {
        int v = 0;
        std::istringstream in(text);
        if (!(in >> v) || !in.eof() || v < 1 || v > most)
          return "must be 1 to " + std::to_string(most) + " (this machine's hardware threads), got '" + text + "'";
        return std::string();
      },
      "", "threads");
  for (CLI::App* sub : app.get_subcommands({})) {
    sub->add_option_function<int>("--threads", [](const int& n) { set_threads(n); },
                                  "CPU threads of the whole run, OpenMP and OpenBLAS (default: OMP_NUM_THREADS, else " +
                                      std::to_string(most) + ")")
        ->check(in_range)
        ->option_text(" N");
    add_threads_option(*sub);
  }
}

void add_memory_limit_option(CLI::App& app) {
  const CLI::Validator bytes(
      [](std::string& text) {
        try {
          parse_byte_count(text);
        } catch (const Error&) {
          return "must be bytes, with an optional suffix K, M, G or T (powers of 1024, e.g. 512M, 4G), got '" + text +
                 "'";
        }
        return std::string();
      },
      "", "bytes");
  for (CLI::App* sub : app.get_subcommands({})) {
    sub->add_option_function<std::string>(
           "--memory-limit", [](const std::string& text) { set_host_memory_limit(parse_byte_count(text)); },
           "Refuse, before allocating, work whose estimated memory passes BYTES (suffixes K, M, G, T; default: the "
           "memory available)")
        ->check(bytes)
        ->option_text(" BYTES");
    add_memory_limit_option(*sub);
  }
}

void add_setup_trace_option(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({})) {
    sub->add_option_function<std::string>("--setup-trace", use_setup_trace,
                                          "Print the set-ups' timeline to FILE (appended; --setup-trace=-: stderr)")
        ->option_text(" FILE");
    add_setup_trace_option(*sub);
  }
}

namespace {

// CLI11's help, less its type names, validator descriptions and
// "REQUIRED" labels: the option's metavariable (its option_text, or one
// from the type: N, X, VALUE), "(required)" and the default in words.
class PlainFormatter : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* opt) const override {
    if (!opt->get_option_text().empty()) return opt->get_option_text();
    if (opt->get_type_size() == 0 || opt->get_expected_max() == 0) return "";  // a flag
    const std::string type = opt->get_type_name();
    std::string label = type.rfind("INT", 0) == 0 || type.rfind("UINT", 0) == 0 ? "N"
                        : type.rfind("FLOAT", 0) == 0                            ? "X"
                                                                                 : "VALUE";
    if (opt->get_expected_max() > 1) label += ",...";
    return " " + label;
  }
  std::string make_option_desc(const CLI::Option* opt) const override {
    std::string d = opt->get_description();
    if (opt->get_required()) d += " (required)";
    if (!opt->get_default_str().empty() && d.find("default") == std::string::npos)
      d += " (default: " + opt->get_default_str() + ")";
    return d;
  }
};

std::string number(double v) { return fmt::format("{:g}", v); }

}  // namespace

void use_plain_help(CLI::App& app) {
  app.formatter(std::make_shared<PlainFormatter>());
  app.get_formatter()->column_width(28);
}

CLI::Option* add_device_option(CLI::App* cmd, Device& device) {
  return add_enum_option(cmd, "--device", device, "Where to run: auto is the GPU when one is present, else the CPU");
}

Device usable_device(Device requested) {
  if (requested == Device::Cuda && !cuda::available())
    throw CudaError(cuda::built_with_cuda() ? "--device cuda: no CUDA GPU found"
                                            : "--device cuda: balsa was built without CUDA");
  return resolve_device(requested);
}

CLI::Validator one_of(const std::vector<std::string>& names) {
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  return CLI::Validator(
      [names, list](std::string& text) {
        return std::find(names.begin(), names.end(), text) != names.end()
                   ? std::string()
                   : "unknown value '" + text + "' (one of: " + list + ")";
      },
      "", "one_of");
}

namespace {

// The number `text` spells whole (strtod's syntax: "1e-8", "nan", "inf"),
// or nullopt when it spells none.
std::optional<double> parse_number(const std::string& text) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text.front()))) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size()) return std::nullopt;
  return v;
}

// A validator accepting the finite numbers for which `ok` holds; NaN, Inf
// and anything else are refused with "must be <what>, got '<text>'".
CLI::Validator number_validator(std::function<bool(double)> ok, const std::string& what, const std::string& name) {
  return CLI::Validator(
      [ok, what](std::string& text) {
        const std::optional<double> v = parse_number(text);
        return v && std::isfinite(*v) && ok(*v) ? std::string() : "must be " + what + ", got '" + text + "'";
      },
      "", name);
}

}  // namespace

CLI::Validator finite() {
  return number_validator([](double) { return true; }, "a finite number", "finite");
}

CLI::Validator positive() {
  return number_validator([](double v) { return v > 0; }, "a positive number", "positive");
}

CLI::Validator at_least(double minimum) {
  return number_validator([minimum](double v) { return v >= minimum; }, "a number of at least " + number(minimum),
                          "at_least");
}

CLI::Validator between(double lo, double hi) {
  return number_validator([lo, hi](double v) { return v >= lo && v <= hi; },
                          "a number between " + number(lo) + " and " + number(hi), "between");
}

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
    {"iterations (max_iterations)", "iterations (--maxit)"},
    {"iterations (stagnation_window)", "iterations (the stagnation window)"},
    {"use a BiCGStab method, or set KrylovOptions::check_symmetry = false",
     "use --method bicgstab-ilu0 (or another BiCGStab method) or --method auto"},
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

template LoadedTriplets<double> load_triplets<double>(const std::string&, const MtxReadOptions&);
template LoadedTriplets<float> load_triplets<float>(const std::string&, const MtxReadOptions&);
template LoadedMatrix<double> load_matrix<double>(const std::string&, const MtxReadOptions&, const CensusCheck&);
template LoadedMatrix<float> load_matrix<float>(const std::string&, const MtxReadOptions&, const CensusCheck&);
template LoadedMatrix<double> to_loaded_matrix<double>(const std::string&, LoadedTriplets<double>, const CensusCheck&);
template LoadedMatrix<float> to_loaded_matrix<float>(const std::string&, LoadedTriplets<float>, const CensusCheck&);
template void save_matrix<double>(const std::string&, const Csr<double>&, const MtxWriteOptions&);
template void save_matrix<float>(const std::string&, const Csr<float>&, const MtxWriteOptions&);


}  // namespace balsa::app

namespace balsa::app {

void print_predictions(std::FILE* out, const SolveReport& r) {
  for (const SolvePrediction& p : r.plan)
    fmt::print(out, "  predicted {:>18} on {:4}: {} ({})\n", to_string(p.method), to_string(p.device),
               p.seconds < 0 || !std::isfinite(p.seconds) ? std::string("-") : fmt::format("{:.4g} s", p.seconds),
               p.basis);
}

// ---- the program ---------------------------------------------------------------

namespace {

// The OpenMP wait policy of the program (README, "Threads"). libgomp (GCC 12)
// reads OMP_WAIT_POLICY once, in its initialiser, before main; unset, a
// thread that waits at a barrier or for the next parallel region spins
// (GOMP_SPINCOUNT: 300,000 rounds) before it sleeps. On cores another busy
// process shares, the spinning threads take the time of the thread that has
// the work: `balsa run --device cpu --grid 40 --method cg`, 2 cores with two
// busy loops and other builds, 39.3 ms an iteration with 2 threads against
// 1.7 with 1; passive (sleep at once): 0.5 against 3.1, and at --grid 100
// 2 threads stay at or below 1 thread's time (bench/results/
// 2026-11-29-threads-loaded.md). So, unless the user chose (OMP_WAIT_POLICY
// or GOMP_SPINCOUNT set), the program sets it passive and executes itself
// again, once, before any work: a second start with the CUDA libraries,
// `balsa --version` 0.19 s against 0.10 s (medians of 30, load 3; 0.91
// against 0.54 s on the loaded machine). Setting it from an initialiser of the program's own
// (.preinit_array) comes too late: libgomp still spins (OMP_DISPLAY_ENV=
// verbose: GOMP_SPINCOUNT 300000). The library reads no environment variable.
void use_passive_wait_policy(char** argv) {
  if (std::getenv("OMP_WAIT_POLICY") != nullptr || std::getenv("GOMP_SPINCOUNT") != nullptr) return;
  if (setenv("OMP_WAIT_POLICY", "passive", 1) != 0) return;
  execv("/proc/self/exe", argv);  // returns only when it failed: run on with libgomp's default
}

}  // namespace

void configure_app(CLI::App& app, void (*add_commands)(CLI::App&)) {
  use_plain_help(app);
  app.set_version_flag("--version", BALSA_VERSION);
  app.require_subcommand(1);
  add_commands(app);
  add_threads_option(app);
  add_memory_limit_option(app);
  add_setup_trace_option(app);
}

int run_app(CLI::App& app, int argc, char** argv, void (*add_commands)(CLI::App&)) {
  use_passive_wait_policy(argv);
  const std::string program = app.get_name();
  configure_app(app, add_commands);
  // CLI11 answers an unknown first word with "a subcommand is required";
  // name the word instead.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    std::string names;
    for (const CLI::App* sub : app.get_subcommands({})) {
      known = known || sub->get_name() == argv[1];
      names += (names.empty() ? "" : ", ") + sub->get_name();
    }
    if (!known) {
      fmt::print(stderr, "{}: error: unknown command '{}' (commands: {}; see {} --help)\n", program, argv[1], names, program);
      return kExitUsage;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {  // a usage error
    fmt::print(stderr, "{}: error: {}\n(see {} {}--help)\n", program, e.what(), program,
               argc > 1 && argv[1][0] != '-' ? std::string(argv[1]) + " " : "");
    return kExitUsage;
  } catch (const NotConverged& e) {  // its text in the command's words already
    fmt::print(stderr, "{}: error: {}\n", program, with_numbering_note(e.what()));
    return kExitNotConverged;
  } catch (const balsa::ParseError& e) {  // a file's lines, rows and columns: from 1 already
    fmt::print(stderr, "{}: error: {}\n", program, e.what());
    return kExitError;
  } catch (const balsa::Error& e) {
    fmt::print(stderr, "{}: error: {}\n", program, with_numbering_note(in_cli_terms(e.what())));
    return kExitError;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "{}: error: out of host memory\n", program);
    return kExitError;
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}: error: {}\n", program, e.what());
    return kExitError;
  }
  return 0;
}

}  // namespace balsa::app
