// The balsa command's subcommands, in the order `balsa --help` lists them
// (apps/main.cpp and the CLI's fuzzer, fuzz/fuzz_cli.cpp, register these).
#include "common.hpp"

namespace balsa::app {

void add_balsa_commands(CLI::App& app) {
  add_run_command(app);
  add_info_command(app);
  add_gen_command(app);
  add_convert_command(app);
  add_trsv_command(app);
  add_solve_command(app);
  add_qr_commands(app);
  add_reorder_command(app);
  add_lp_command(app);
}

}  // namespace balsa::app
