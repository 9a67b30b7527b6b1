#pragma once
// Child processes for the trace runner: start one with its output sent to files, and collect
// the ones that have ended. POSIX only (posix_spawn, waitpid).

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

namespace reusesim::trace {

struct ProcessExit {
  bool signalled = false;
  int status = 0;  // the exit code, or the signal that ended the process

  bool ok() const { return !signalled && status == 0; }
  std::string describe() const;  // "exit status 2", "killed by signal 9 (Killed)"
};

// Starts `program` with `arguments` (argv[1..]); stdout and stderr go to the given files (created,
// or truncated). A worker is a reusesim that ends when this process does, even by SIGKILL (see
// end_with_parent_if_worker), so no orphan goes on writing into a results directory.
// Throws std::runtime_error when the process cannot be started.
enum class ChildKind { program, worker };
pid_t start_process(const std::string& program, const std::vector<std::string>& arguments,
                    const std::string& stdout_path, const std::string& stderr_path,
                    ChildKind kind = ChildKind::program);

// Called first thing by reusesim: in a worker, asks the kernel to kill this process when the
// process that started it dies, and exits at once if that already happened.
void end_with_parent_if_worker();

// A child that has ended, if any (without waiting).
std::optional<std::pair<pid_t, ProcessExit>> collect_ended_child();

// Waits for `pid` to end.
ProcessExit wait_for_process(pid_t pid);

// Runs `program` with `arguments` to its end, stdin from /dev/null, and gives what it wrote to
// stdout and stderr together. Throws std::runtime_error when it cannot be started.
std::pair<ProcessExit, std::string> run_capturing_output(const std::string& program,
                                                         const std::vector<std::string>& arguments);

// The running program's own binary, for starting workers of the same build.
std::string own_executable();

}  // namespace reusesim::trace
