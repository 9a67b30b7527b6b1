#include "trace/directory_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace reusesim::trace {

namespace {

constexpr std::chrono::milliseconds kRetryInterval{50};

}  // namespace

DirectoryLock::DirectoryLock(const std::string& directory, Mode mode, std::chrono::milliseconds wait) {
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) throw std::runtime_error("cannot create output directory " + directory + ": " + error.message());
  // Close-on-exec: a worker must not inherit the lock and hold it past the trace.
  fd_ = open(directory.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd_ < 0) throw std::runtime_error("cannot open " + directory + ": " + std::strerror(errno));
  const auto deadline = std::chrono::steady_clock::now() + wait;
  const int operation = (mode == Mode::exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB;
  int lock_error = flock(fd_, operation) == 0 ? 0 : errno;
  while (lock_error == EWOULDBLOCK && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(kRetryInterval);
    lock_error = flock(fd_, operation) == 0 ? 0 : errno;
  }
  if (lock_error == 0) return;
  struct stat status {};
  fstat(fd_, &status);
  close(fd_);
  if (lock_error != EWOULDBLOCK) throw std::runtime_error("cannot lock " + directory + ": " + std::strerror(lock_error));
  std::ifstream table("/proc/locks");
  std::ostringstream text;
  text << table.rdbuf();
  const long holder = flock_holder(major(status.st_dev), minor(status.st_dev), status.st_ino, text.str());
  throw std::runtime_error(directory + " is in use by another reusesim trace (" +
                           (holder > 0 ? "process " + std::to_string(holder) : std::string("its process id is unknown")) +
                           "); wait for it to end, or choose another --out directory");
}

DirectoryLock::~DirectoryLock() { close(fd_); }

long flock_holder(unsigned long device_major, unsigned long device_minor, unsigned long inode,
                  const std::string& lock_table) {
  // "1: FLOCK  ADVISORY  WRITE 16187 fe:00:10953058 0 EOF": pid, then major:minor (hex):inode.
  std::istringstream lines(lock_table);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream words(line);
    std::string number, kind, mode, access, file;
    long pid = 0;
    if (!(words >> number >> kind >> mode >> access >> pid >> file) || kind != "FLOCK") continue;
    unsigned long major_seen = 0, minor_seen = 0, inode_seen = 0;
    if (std::sscanf(file.c_str(), "%lx:%lx:%lu", &major_seen, &minor_seen, &inode_seen) != 3) continue;
    if (major_seen == device_major && minor_seen == device_minor && inode_seen == inode) return pid;
  }
  return -1;
}

}  // namespace reusesim::trace
