// Internal: a timeline of a set-up's phases (BALSA_SETUP_TRACE). The set-up
// of a preconditioned Krylov solver runs host analyses on several threads
// at once (krylov/preconditioner.cpp), so per-object seconds in the stats
// cannot say what is on the critical path; this can. With
// BALSA_SETUP_TRACE=1 (stderr) or =file (appended), every Span prints, when
// it ends, one line: "setup-trace <thread> <start ms> <end ms> <name>",
// times from the first span of the process, threads numbered in order of
// their first span. Unset, a Span costs one branch on a cached flag.
#pragma once

namespace balsa::trace {

bool enabled();
// The time (ms since the first span) and one line per ended span.
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
