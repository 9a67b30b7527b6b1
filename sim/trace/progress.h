#pragma once
// Progress of a batch trace: on a terminal, one bar redrawn in place (jobs done, running and
// failed, elapsed and remaining time); otherwise one plain line per finished job, for logs.

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

namespace reusesim::trace {

class Progress {
 public:
  // `total` jobs, of which `skipped` were already finished (--resume).
  Progress(std::ostream& out, bool terminal, std::size_t total, std::size_t skipped);

  void job_started();
  void job_done(const std::string& id, double seconds);
  void job_failed(const std::string& id, const std::string& error);
  void job_stopped();  // interrupted: neither done nor failed
  void tick();         // redraws the bar now and then (terminal only)
  void close();

 private:
  void line(const std::string& text);  // a line above the bar, or a plain line
  void redraw();
  std::string counter() const;
  double elapsed_seconds() const;

  std::ostream& out_;
  bool terminal_;
  std::size_t total_, skipped_, done_ = 0, failed_ = 0, running_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_draw_{};
};

// 75 -> "1:15", 3725 -> "1:02:05".
std::string clock_text(double seconds);

}  // namespace reusesim::trace
