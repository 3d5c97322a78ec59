// The balsa command: sparse solvers on the GPU (CPU without one).
#include <iostream>
#include <string>
#include <new>

#include <fmt/core.h>

#include "balsa/config.hpp"
#include "common.hpp"

int main(int argc, char** argv) {
  CLI::App app{"balsa " BALSA_VERSION ": balanced sparse algorithms on NVIDIA GPUs (CPU path for everything)", "balsa"};
  app.set_version_flag("--version", BALSA_VERSION);
  app.require_subcommand(1);
  balsa::app::add_run_command(app);
  balsa::app::add_info_command(app);
  balsa::app::add_gen_command(app);
  balsa::app::add_convert_command(app);
  balsa::app::add_bench_command(app);
  balsa::app::add_trsv_command(app);
  balsa::app::add_solve_command(app);
  balsa::app::add_qr_commands(app);
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
      return 2;
    }
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);  // usage errors: message on stderr, exit code != 0
  } catch (const balsa::app::NotConverged& e) {
    fmt::print(stderr, "balsa: error: {}\n", e.what());
    return 3;  // the solve ran and did not converge
  } catch (const balsa::Error& e) {
    fmt::print(stderr, "balsa: error: {}\n", e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "balsa: error: out of host memory\n");
    return 1;
  } catch (const std::exception& e) {
    fmt::print(stderr, "balsa: error: {}\n", e.what());
    return 1;
  }
  return 0;
}
