#include "trace/progress.h"

#include <cstdio>

namespace reusesim::trace {

namespace {

constexpr int kBarWidth = 30;

std::string fixed1(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f", value);
  return text;
}

}  // namespace

std::string clock_text(double seconds) {
  const auto whole = static_cast<long long>(seconds + 0.5);
  char text[32];
  if (whole >= 3600) {
    std::snprintf(text, sizeof text, "%lld:%02lld:%02lld", whole / 3600, whole / 60 % 60, whole % 60);
  } else {
    std::snprintf(text, sizeof text, "%lld:%02lld", whole / 60, whole % 60);
  }
  return text;
}

Progress::Progress(std::ostream& out, bool terminal, std::size_t total, std::size_t skipped)
    : out_(out), terminal_(terminal), total_(total), skipped_(skipped) {}

double Progress::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

std::string Progress::counter() const {
  const std::string total = std::to_string(total_);
  std::string finished = std::to_string(skipped_ + done_ + failed_);
  return "[" + std::string(total.size() - finished.size(), ' ') + finished + "/" + total + "]";
}

void Progress::line(const std::string& text) {
  if (terminal_) out_ << "\r\033[K";
  out_ << text << "\n";
  if (terminal_) redraw();
  out_.flush();
}

void Progress::redraw() {
  const std::size_t finished = skipped_ + done_ + failed_;
  const int filled = total_ == 0 ? kBarWidth : static_cast<int>(kBarWidth * finished / total_);
  std::string bar = "[" + std::string(static_cast<std::size_t>(filled), '#') +
                    std::string(static_cast<std::size_t>(kBarWidth - filled), '.') + "]";
  const double elapsed = elapsed_seconds();
  const std::size_t ran = done_ + failed_;
  const std::size_t left = total_ - finished;
  const std::string remaining = ran == 0 ? "?" : "~" + clock_text(elapsed / static_cast<double>(ran) * static_cast<double>(left));
  out_ << "\r\033[K" << bar << " " << finished << "/" << total_ << " done, " << running_ << " running, " << failed_
       << " failed | " << clock_text(elapsed) << " elapsed, " << remaining << " left";
  out_.flush();
  last_draw_ = std::chrono::steady_clock::now();
}

void Progress::job_started() {
  ++running_;
  if (terminal_) redraw();
}

void Progress::job_done(const std::string& id, double seconds) {
  --running_;
  ++done_;
  if (terminal_) {
    redraw();
  } else {
    line(counter() + " done   " + id + " (" + fixed1(seconds) + " s)");
  }
}

void Progress::job_failed(const std::string& id, const std::string& error) {
  --running_;
  ++failed_;
  line(counter() + " FAILED " + id + ": " + error);
}

void Progress::job_stopped() {
  --running_;
  if (terminal_) redraw();
}

void Progress::tick() {
  if (terminal_ && std::chrono::steady_clock::now() - last_draw_ > std::chrono::milliseconds(250)) redraw();
}

void Progress::close() {
  if (terminal_) {
    redraw();
    out_ << "\n";
  }
  out_.flush();
}

}  // namespace reusesim::trace
