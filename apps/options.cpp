// The options every command spells the same way (apps/common.hpp, "options"):
// --threads, --memory-limit, --device, the plain help and the validators
// (NaN and Inf refused with the option's name).
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


namespace {

// CLI11's help, less its type names, validator descriptions and
// "REQUIRED" labels: the option's metavariable (its option_text, or one
// from the type: N, X, VALUE), "(required)" and the default in words.
class PlainFormatter : public CLI::Formatter {
 public:
  // The names without CLI11's "{default}" of a flag with a default value
  // ("--no-baselines{false}" is "--no-baselines").
  std::string make_option_name(const CLI::Option* opt, bool is_positional) const override {
    std::string name = CLI::Formatter::make_option_name(opt, is_positional);
    for (std::size_t open = name.find('{'); open != std::string::npos; open = name.find('{', open)) {
      const std::size_t close = name.find('}', open);
      if (close == std::string::npos) break;
      name.erase(open, close - open + 1);
    }
    return name;
  }
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
    const bool optional_value = opt->get_expected_min() == 0 && opt->get_expected_max() == 1;  // --json [FILE]
    if (!optional_value && !opt->get_default_str().empty() && d.find("default") == std::string::npos)
      d += " (default: " + opt->get_default_str() + ")";
    return d;
  }
};

std::string number(double v) { return fmt::format("{:g}", v); }

}  // namespace

void use_plain_help(CLI::App& app) {
  app.formatter(std::make_shared<PlainFormatter>());
  app.get_formatter()->column_width(30);
}

CLI::Option* add_device_option(CLI::App* cmd, Device& device) {
  return add_enum_option(cmd, "--device", device, "Where to run: auto is the GPU when one is present, else the CPU");
}

CLI::Option* add_json_option(CLI::App* cmd, JsonOutput& json, const std::string& what) {
  return cmd->add_option("--json", json.path, what + " (to FILE; no FILE or '-': standard output)")
      ->expected(0, 1)
      ->default_str("-")
      ->option_text(" [FILE]");
}

void add_renamed_option(CLI::App* cmd, const std::string& old_name, const std::string& new_name) {
  const std::string message = old_name + " was renamed " + new_name + " (CHANGELOG.md, issue 41)";
  cmd->add_option_function<std::string>(
         old_name, [message](const std::string&) { throw CLI::ValidationError(message); }, message)
      ->expected(0, 1)
      ->group("");
}

void add_tolerance_options(CLI::App* cmd, double& rtol, double& atol) {
  cmd->add_option("--rtol", rtol,
                  "Relative residual tolerance: stop when ||b - A x|| <= max(rtol ||b||, atol) (default: 1e-8 double, "
                  "1e-5 float)")
      ->check(positive());
  cmd->add_option("--atol", atol, "Absolute residual tolerance (0: the relative test alone)")
      ->check(at_least(0))
      ->capture_default_str();
  add_renamed_option(cmd, "--tol", "--rtol");
}

void warn(const std::string& text) { fmt::print(stderr, "balsa: warning: {}\n", text); }

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

}  // namespace balsa::app
