#pragma once
// One trace at a time per results directory: an exclusive flock on the directory itself, held for
// the whole trace and released by the kernel when the process ends, however it ends. Locking the
// directory (not a file in it) leaves nothing behind and survives --overwrite emptying it.

#include <string>

namespace reusesim::trace {

class DirectoryLock {
 public:
  // Creates `directory` if it is missing and locks it. Throws std::runtime_error at once when
  // another process holds it, naming that process.
  explicit DirectoryLock(const std::string& directory);
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
