// balsa: a timeline of the set-ups' phases, for finding what is on a
// set-up's critical path (the Krylov solvers and their preconditioners, the
// triangular solvers and QR run host analyses on several threads at once,
// so per-object seconds in the stats cannot say).
//
//   balsa::set_setup_trace("-");          // to stderr ("" stops it)
//   balsa::KrylovSolver<double> s(A, o);  // setup-trace 0 0.012 2.301 krylov: checks ...
//
// Each phase prints, when it ends, one line
// "setup-trace <thread> <start ms> <end ms> <name>": times from the
// set_setup_trace call, threads numbered in the order of their first phase.
// Process-wide; the command line's --setup-trace FILE.
#pragma once

#include <string>

namespace balsa {

// destination: a file (appended), "-" for stderr, "" to stop. Error when
// the file cannot be opened.
void set_setup_trace(const std::string& destination);

}  // namespace balsa
