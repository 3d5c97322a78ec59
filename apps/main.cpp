// The balsa command: sparse solvers on the GPU (CPU without one).
#include <iostream>
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
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);  // usage errors: message on stderr, exit code != 0
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
