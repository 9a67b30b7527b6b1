#include "trace/process.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <stdexcept>

extern char** environ;

namespace reusesim::trace {

namespace {

// Set in a worker's environment to the pid of the trace that started it.
constexpr const char* kWorkerOf = "REUSESIM_WORKER_OF";

ProcessExit decode(int status) {
  if (WIFSIGNALED(status)) return ProcessExit{true, WTERMSIG(status)};
  return ProcessExit{false, WEXITSTATUS(status)};
}

}  // namespace

std::string ProcessExit::describe() const {
  if (signalled) return "killed by signal " + std::to_string(status) + " (" + strsignal(status) + ")";
  return "exit status " + std::to_string(status);
}

namespace {

// Starts `program` with `arguments` and the file actions given; see start_process for `kind`.
pid_t spawn(const std::string& program, const std::vector<std::string>& arguments,
            const posix_spawn_file_actions_t& actions, ChildKind kind) {
  std::vector<std::string> words{program};
  words.insert(words.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (std::string& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);
  std::vector<std::string> environment;
  for (char** variable = environ; *variable != nullptr; ++variable) {
    if (std::strncmp(*variable, kWorkerOf, std::strlen(kWorkerOf)) != 0) environment.emplace_back(*variable);
  }
  if (kind == ChildKind::worker) environment.push_back(std::string(kWorkerOf) + "=" + std::to_string(getpid()));
  std::vector<char*> envp;
  for (std::string& variable : environment) envp.push_back(variable.data());
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int error = posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), envp.data());
  if (error != 0) throw std::runtime_error("cannot start " + program + ": " + std::strerror(error));
  return pid;
}

}  // namespace

pid_t start_process(const std::string& program, const std::vector<std::string>& arguments,
                    const std::string& stdout_path, const std::string& stderr_path, ChildKind kind) {
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  try {
    const pid_t pid = spawn(program, arguments, actions, kind);
    posix_spawn_file_actions_destroy(&actions);
    return pid;
  } catch (const std::runtime_error&) {
    posix_spawn_file_actions_destroy(&actions);
    throw;
  }
}

std::pair<ProcessExit, std::string> run_capturing_output(const std::string& program,
                                                         const std::vector<std::string>& arguments) {
  int pipe_ends[2];
  if (pipe2(pipe_ends, O_CLOEXEC) != 0) throw std::runtime_error(std::string("cannot make a pipe: ") + std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, pipe_ends[1], STDERR_FILENO);
  pid_t pid = 0;
  try {
    pid = spawn(program, arguments, actions, ChildKind::program);
  } catch (const std::runtime_error&) {
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_ends[0]);
    close(pipe_ends[1]);
    throw;
  }
  posix_spawn_file_actions_destroy(&actions);
  close(pipe_ends[1]);
  std::string output;
  char buffer[4096];
  for (;;) {
    const ssize_t count = read(pipe_ends[0], buffer, sizeof buffer);
    if (count < 0 && errno == EINTR) continue;
    if (count <= 0) break;
    output.append(buffer, static_cast<std::size_t>(count));
  }
  close(pipe_ends[0]);
  return {wait_for_process(pid), output};
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

void end_with_parent_if_worker() {
  const char* parent = std::getenv(kWorkerOf);
  if (parent == nullptr) return;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // The parent may have died before the request above: then this process was already adopted.
  if (std::to_string(getppid()) != parent) _exit(128 + SIGKILL);
}

std::string own_executable() {
  std::error_code error;
  const std::filesystem::path path = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw std::runtime_error("cannot find the reusesim binary (/proc/self/exe): " + error.message());
  return path.string();
}

}  // namespace reusesim::trace
