// The balsa command: sparse solvers on the GPU (CPU without one).
#include <fmt/core.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <new>
#include <string>

#include "common.hpp"

namespace {

// A matrix error names rows and columns as the library counts them, from
// 0; users read them against a Matrix Market file, which counts from 1.
std::string with_base_note(const balsa::MatrixError& e) {
  const std::string what = e.what();
  if (what.find("0-based") != std::string::npos || what.find("1-based") != std::string::npos) return what;
  const bool positions = what.find("row") != std::string::npos || what.find("column") != std::string::npos ||
                         what.find("entry") != std::string::npos || what.find("A(") != std::string::npos;
  return positions ? what + "\n  (rows and columns above count from 0; a Matrix Market file counts from 1)" : what;
}

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

int main(int argc, char** argv) {
  using namespace balsa::app;
  use_passive_wait_policy(argv);
  CLI::App app{"balsa " BALSA_VERSION ": balanced sparse algorithms on NVIDIA GPUs (CPU path for everything)", "balsa"};
  use_plain_help(app);
  app.set_version_flag("--version", BALSA_VERSION);
  app.require_subcommand(1);
  add_run_command(app);
  add_info_command(app);
  add_gen_command(app);
  add_convert_command(app);
  add_bench_command(app);
  add_trsv_command(app);
  add_solve_command(app);
  add_qr_commands(app);
  add_reorder_command(app);
  add_lp_command(app);
  add_threads_option(app);
  add_setup_trace_option(app);
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
      fmt::print(stderr, "balsa: error: unknown command '{}' (commands: {}; see balsa --help)\n", argv[1], names);
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
    fmt::print(stderr, "balsa: error: {}\n(see balsa {}--help)\n", e.what(),
               argc > 1 && argv[1][0] != '-' ? std::string(argv[1]) + " " : "");
    return kExitUsage;
  } catch (const NotConverged& e) {
    fmt::print(stderr, "balsa: error: {}\n", e.what());
    return kExitNotConverged;
  } catch (const balsa::MatrixError& e) {
    fmt::print(stderr, "balsa: error: {}\n", with_base_note(e));
    return kExitError;
  } catch (const balsa::Error& e) {
    fmt::print(stderr, "balsa: error: {}\n", e.what());
    return kExitError;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "balsa: error: out of host memory\n");
    return kExitError;
  } catch (const std::exception& e) {
    fmt::print(stderr, "balsa: error: {}\n", e.what());
    return kExitError;
  }
  return 0;
}
