// The balsa program's frame (apps/common.hpp, "the program"): the OpenMP
// wait policy, the App's set-up, the parse and the mapping of errors to exit
// codes; and two small shared helpers. Files, options and messages in the
// CLI's terms are in files.cpp, options.cpp and cli_terms.cpp.
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
  app.footer(std::string("\n") + kExitCodesHelp);
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
