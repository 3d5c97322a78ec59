// The progress line (apps/progress.hpp): a ticker thread that redraws one
// line of standard error.
#include "progress.hpp"

#include <fmt/core.h>
#include <unistd.h>

#include <cstdio>

namespace balsa::app {

namespace {
constexpr auto kTick = std::chrono::milliseconds(250);  // about four redraws a second
constexpr double kQuietSeconds = 1.0;                    // a terminal sees no line for shorter runs
}  // namespace

CLI::Option* add_progress_option(CLI::App* cmd, bool& forced) {
  return cmd->add_flag("--progress", forced,
                       "Show the progress line even when stderr is not a terminal (on a terminal it shows after 1 s)");
}

ProgressLine::ProgressLine(bool forced, bool quiet)
    : forced_(forced), terminal_(isatty(fileno(stderr)) != 0), start_(std::chrono::steady_clock::now()) {
  live_ = forced_ || (!quiet && terminal_);
  if (live_) ticker_ = std::thread([this] { run(); });
}

ProgressLine::~ProgressLine() { stop(); }

void ProgressLine::phase(const std::string& name) {
  const std::lock_guard<std::mutex> lock(mutex_);
  phase_ = name;
  detail_.clear();
}

void ProgressLine::detail(const std::string& text) {
  const std::lock_guard<std::mutex> lock(mutex_);
  detail_ = text;
}

void ProgressLine::stop() {
  if (!ticker_.joinable()) return;
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  ticker_.join();
  const std::lock_guard<std::mutex> lock(mutex_);
  if (forced_ && !terminal_) {
    draw(true);
    std::fputc('\n', stderr);
  } else if (shown_) {
    std::fputs("\r\x1b[K", stderr);  // clear the line for what follows
  }
  std::fflush(stderr);
}

void ProgressLine::run() {
  std::unique_lock<std::mutex> lock(mutex_);
  while (!wake_.wait_for(lock, kTick, [this] { return stopping_; })) draw(false);
}

// Called with mutex_ held.
void ProgressLine::draw(bool final) {
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (!final && !forced_ && elapsed < kQuietSeconds) return;
  const std::string text = fmt::format("  {:.1f} s  {}{}{}", elapsed, phase_.empty() ? "working" : phase_,
                                       detail_.empty() ? "" : ": ", detail_);
  fmt::print(stderr, "\r{}{}", text, terminal_ ? "\x1b[K" : "");
  std::fflush(stderr);
  shown_ = true;
}

}  // namespace balsa::app
