// The progress line of every balsa command (apps/progress.cpp): one line on
// standard error, rewritten in place about four times a second with the
// elapsed time, the phase ("reading", "factorising", "solving") and what a
// solver's hook last reported ("iteration 120, residual 3.2e-05"), and
// cleared at the end. Shown on a terminal (isatty(stderr)) once the run has
// taken a second; never when standard error is piped, unless --progress
// forces it (then from the start, and its last state is kept as a line).
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include <CLI/CLI.hpp>

namespace balsa::app {

// --progress on `cmd`: show the line even when standard error is not a terminal.
CLI::Option* add_progress_option(CLI::App* cmd, bool& forced);

class ProgressLine {
 public:
  // `forced`: --progress; `quiet`: the command prints no progress (-q, or
  // JSON on standard output, which keeps the terminal to the result).
  ProgressLine(bool forced, bool quiet);
  ~ProgressLine();  // stop()
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // The phase shown from now on (its detail cleared).
  void phase(const std::string& name);
  // A solver hook's detail, shown beside the phase (cheap: stored, printed by the ticker).
  void detail(const std::string& text);
  // Whether the line is shown at all (a hook not worth calling otherwise).
  bool live() const { return live_; }
  // Stops the ticker; on a terminal clears the line, when forced prints its last state as a line.
  void stop();

 private:
  void run();
  void draw(bool final);

  bool live_ = false, forced_ = false, terminal_ = false, shown_ = false, stopping_ = false;
  std::chrono::steady_clock::time_point start_;
  std::string phase_, detail_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::thread ticker_;
};

}  // namespace balsa::app
