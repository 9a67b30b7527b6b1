#include "trace/process.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

extern char** environ;

namespace reusesim::trace {

namespace {

ProcessExit decode(int status) {
  if (WIFSIGNALED(status)) return ProcessExit{true, WTERMSIG(status)};
  return ProcessExit{false, WEXITSTATUS(status)};
}

}  // namespace

std::string ProcessExit::describe() const {
  if (signalled) return "killed by signal " + std::to_string(status) + " (" + strsignal(status) + ")";
  return "exit status " + std::to_string(status);
}

pid_t start_process(const std::string& program, const std::vector<std::string>& arguments,
                    const std::string& stdout_path, const std::string& stderr_path) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  std::vector<std::string> words{program};
  words.insert(words.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) throw std::runtime_error("cannot start " + program + ": " + std::strerror(error));
  return pid;
}

std::optional<std::pair<pid_t, ProcessExit>> collect_ended_child() {
  int status = 0;
  pid_t pid = 0;
  do {
    pid = waitpid(-1, &status, WNOHANG);
  } while (pid < 0 && errno == EINTR);
  if (pid <= 0) return std::nullopt;
  return std::make_pair(pid, decode(status));
}

ProcessExit wait_for_process(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw std::runtime_error(std::string("waiting for a child process: ") + std::strerror(errno));
  }
  return decode(status);
}

std::string own_executable() {
  std::error_code error;
  const std::filesystem::path path = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw std::runtime_error("cannot find the reusesim binary (/proc/self/exe): " + error.message());
  return path.string();
}

}  // namespace reusesim::trace
