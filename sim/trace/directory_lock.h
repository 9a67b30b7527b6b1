#pragma once
// One trace at a time per results directory: an exclusive flock on the directory itself, held for
// the whole trace and released by the kernel when the process ends, however it ends. Locking the
// directory (not a file in it) leaves nothing behind and survives --overwrite emptying it.

#include <chrono>
#include <string>

namespace reusesim::trace {

class DirectoryLock {
 public:
  // exclusive: one trace, a submission (--slurm) or a --collect. shared: the shards of one trace,
  // running side by side (docs/slurm.md, "Locks").
  enum class Mode { exclusive, shared };
  // Creates `directory` if it is missing and locks it, trying for up to `wait`. Throws
  // std::runtime_error when another process still holds it then, naming that process.
  explicit DirectoryLock(const std::string& directory, Mode mode = Mode::exclusive,
                         std::chrono::milliseconds wait = std::chrono::milliseconds(0));
  ~DirectoryLock();
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;

 private:
  int fd_ = -1;
};

// The process holding a flock on the file with this device and inode, from the kernel's lock
// table (/proc/locks), or -1 when none is listed.
long flock_holder(unsigned long device_major, unsigned long device_minor, unsigned long inode,
                  const std::string& lock_table);

}  // namespace reusesim::trace
