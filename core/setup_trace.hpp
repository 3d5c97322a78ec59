// Internal: a timeline of a set-up's phases (balsa::set_setup_trace,
// include/balsa/setup_trace.hpp). The set-up of a preconditioned Krylov solver runs
// host analyses on several threads at once (krylov/preconditioner.cpp), so
// per-object seconds in the stats cannot say what is on the critical path;
// this can. While a trace is set, every Span prints, when it ends, one line:
// "setup-trace <thread> <start ms> <end ms> <name>", times from the
// set_setup_trace call, threads numbered in order of their first span.
// Unset, a Span costs one relaxed atomic load.
#pragma once

namespace balsa::trace {

bool enabled();
// The time (ms since the trace was set) and one line per ended span.
double now_ms();
void record(const char* name, double start_ms, double end_ms);

class Span {
 public:
  explicit Span(const char* name) : name_(name), start_(enabled() ? now_ms() : -1.0) {}
  ~Span() { end(); }
  // Ends the span early (the destructor then does nothing).
  void end() {
    if (start_ >= 0.0) record(name_, start_, now_ms());
    start_ = -1.0;
  }
  Span(const Span&) = delete;
  Span& operator=(const Span&) = delete;

 private:
  const char* name_;
  double start_;
};

}  // namespace balsa::trace
