// The set-up timeline (core/setup_trace.hpp).
#include "core/setup_trace.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace balsa::trace {

namespace {
using Clock = std::chrono::steady_clock;

struct Sink {
  std::mutex m;
  std::FILE* out = nullptr;
  int threads = 0;
  Clock::time_point t0 = Clock::now();
  Sink() {
    const char* e = std::getenv("BALSA_SETUP_TRACE");
    if (!e || !*e || std::strcmp(e, "0") == 0) return;
    out = std::strcmp(e, "1") == 0 ? stderr : std::fopen(e, "a");
    if (!out) std::fprintf(stderr, "BALSA_SETUP_TRACE: cannot open %s; no trace\n", e);
  }
};

Sink& sink() {
  static Sink s;
  return s;
}

int thread_number() {
  thread_local int number = -1;
  if (number < 0) {
    Sink& s = sink();
    const std::scoped_lock lock(s.m);
    number = s.threads++;
  }
  return number;
}
}  // namespace

bool enabled() {
  static const bool on = sink().out != nullptr;
  return on;
}

double now_ms() { return std::chrono::duration<double, std::milli>(Clock::now() - sink().t0).count(); }

void record(const char* name, double start_ms, double end_ms) {
  const int t = thread_number();
  Sink& s = sink();
  const std::scoped_lock lock(s.m);
  std::fprintf(s.out, "setup-trace %d %.3f %.3f %s\n", t, start_ms, end_ms, name);
  std::fflush(s.out);
}

}  // namespace balsa::trace
