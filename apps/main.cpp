// The balsa command: sparse solvers on the GPU (CPU without one).
#include <fmt/core.h>

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

}  // namespace

int main(int argc, char** argv) {
  using namespace balsa::app;
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
