#include "common.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace balsa::app {

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

template <class T>
LoadedMatrix<T> load_matrix(const std::string& path, const MtxReadOptions& options) {
  LoadedMatrix<T> m;
  Stopwatch total;
  Coo<T> coo;
  if (path == "-") {
    coo = read_matrix_market<T>(std::cin, "<stdin>", options, &m.header);
  } else {
    std::error_code ec;
    m.bytes = std::filesystem::file_size(path, ec);
    coo = read_matrix_market<T>(path, options, &m.header);
  }
  m.read_seconds = total.seconds();
  m.A = to_csr(coo);
  m.total_seconds = total.seconds();
  return m;
}

DenseMatrix<double> load_columns(const std::string& path, index_t rows, const char* what) {
  const Csr<double> B = load_matrix<double>(path).A;
  if (B.rows != rows)
    throw DimensionError(fmt::format("{}: the {} has {} rows, the matrix {}", path, what, B.rows, rows));
  return to_dense(B);
}

template <class T>
void save_matrix(const std::string& path, const Csr<T>& A, const MtxWriteOptions& options) {
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

void print_json(const nlohmann::json& j, const std::string& path) {
  if (path.empty() || path == "-") {
    std::cout << j.dump(2) << "\n";
    return;
  }
  std::ofstream out(path);
  out << j.dump(2) << "\n";
  out.close();
  if (!out) throw Error("cannot write " + path);
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

void add_setup_trace_option(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands({})) {
    sub->add_option_function<std::string>("--setup-trace", [](const std::string& to) { set_setup_trace(to); },
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

CLI::Validator positive() {
  return CLI::Validator(
      [](std::string& text) {
        double v = 0;
        std::istringstream in(text);
        if (!(in >> v) || !(v > 0) || !std::isfinite(v)) return "must be a positive number, got '" + text + "'";
        return std::string();
      },
      "", "positive");
}

CLI::Validator at_least(double minimum) {
  return CLI::Validator(
      [minimum](std::string& text) {
        double v = 0;
        std::istringstream in(text);
        if (!(in >> v) || !(v >= minimum)) return "must be at least " + number(minimum) + ", got '" + text + "'";
        return std::string();
      },
      "", "at_least");
}

CLI::Validator between(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& text) {
        double v = 0;
        std::istringstream in(text);
        if (!(in >> v) || !(v >= lo && v <= hi))
          return "must be between " + number(lo) + " and " + number(hi) + ", got '" + text + "'";
        return std::string();
      },
      "", "between");
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

template LoadedMatrix<double> load_matrix<double>(const std::string&, const MtxReadOptions&);
template LoadedMatrix<float> load_matrix<float>(const std::string&, const MtxReadOptions&);
template void save_matrix<double>(const std::string&, const Csr<double>&, const MtxWriteOptions&);
template void save_matrix<float>(const std::string&, const Csr<float>&, const MtxWriteOptions&);


}  // namespace balsa::app

namespace balsa::app {

nlohmann::json plan_json(const SolveReport& r) {
  nlohmann::json j = nlohmann::json::array();
  for (const SolvePrediction& p : r.plan)
    j.push_back({{"method", to_string(p.method)}, {"device", to_string(p.device)}, {"predicted_seconds", p.seconds},
                 {"basis", p.basis}});
  return j;
}

void print_predictions(std::FILE* out, const SolveReport& r) {
  for (const SolvePrediction& p : r.plan)
    fmt::print(out, "  predicted {:>18} on {:4}: {} ({})\n", to_string(p.method), to_string(p.device),
               p.seconds < 0 ? std::string("-") : fmt::format("{:.4g} s", p.seconds), p.basis);
}

}  // namespace balsa::app
