// The set-up timeline (core/setup_trace.hpp) and balsa::set_setup_trace
// (include/balsa/setup_trace.hpp), which turns it on and off. The one file
// balsa writes in place, not through core/atomic_file.hpp: a log appended
// to line by line (each line flushed), so that a run that fails or is killed
// keeps the lines before it.
#include "core/setup_trace.hpp"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>

#include "balsa/error.hpp"
#include "balsa/setup_trace.hpp"

namespace balsa {

namespace trace {
namespace {
using Clock = std::chrono::steady_clock;

struct Sink {
  std::mutex m;
  std::FILE* out = nullptr;  // null: off
  int threads = 0;
  std::atomic<Clock::rep> t0{Clock::now().time_since_epoch().count()};  // when the trace was set
  std::atomic<bool> on{false};
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

bool enabled() { return sink().on.load(std::memory_order_relaxed); }

double now_ms() {
  const Clock::time_point t0{Clock::duration(sink().t0.load(std::memory_order_relaxed))};
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

void record(const char* name, double start_ms, double end_ms) {
  const int t = thread_number();
  Sink& s = sink();
  const std::scoped_lock lock(s.m);
  if (!s.out) return;  // stopped since the span began
  std::fprintf(s.out, "setup-trace %d %.3f %.3f %s\n", t, start_ms, end_ms, name);
  std::fflush(s.out);
}

}  // namespace trace

void set_setup_trace(const std::string& destination) {
  std::FILE* out = nullptr;
  if (destination == "-") {
    out = stderr;
  } else if (!destination.empty()) {
    out = std::fopen(destination.c_str(), "a");
    if (!out) throw Error("set_setup_trace: cannot open '" + destination + "' for appending");
  }
  trace::Sink& s = trace::sink();
  const std::scoped_lock lock(s.m);
  if (s.out && s.out != stderr) std::fclose(s.out);
  if (out && !s.out) s.t0.store(trace::Clock::now().time_since_epoch().count(), std::memory_order_relaxed);
  s.out = out;
  s.on.store(out != nullptr, std::memory_order_relaxed);
}

}  // namespace balsa
