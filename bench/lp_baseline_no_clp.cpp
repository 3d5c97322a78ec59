// The CLP baseline of `balsa-bench lp` in a build without CLP (CMake did not
// find coinor-libclp-dev): not run.
#include "lp_baselines.hpp"

namespace balsa::bench {

bool clp_available() { return false; }

std::string clp_version() { return "not built with CLP"; }

LpBaselineResult run_clp(const LinearProgram&, int, bool) {
  LpBaselineResult r;
  r.status = "not_run";
  r.error = "not built with CLP";
  return r;
}

}  // namespace balsa::bench
