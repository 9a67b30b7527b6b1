// `reusesim search SPACE.yaml`: the design search is Python (python/reusesim/search.py,
// docs/python.md), so this command hands its command line over to scripts/search.py, telling it
// to run this binary, and becomes that process (its output and exit status are the command's).

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "cli/command_line.h"
#include "config/shipped_files.h"

namespace reusesim::cli {

int search_command(const std::vector<std::string>& args) {
  return run_guarded("search", [&]() -> int {
    const std::string python = config::environment_or("REUSESIM_PYTHON", "/usr/bin/python3");
    const std::string script = config::scripts_directory() + "/search.py";
    std::error_code error;
    if (!std::filesystem::is_regular_file(script, error)) {
      throw FileError("the design search's script " + script + " is not there (the shipped scripts directory; " +
                      config::kScriptsDirVariable + " overrides it)");
    }
    // The search runs `reusesim run` for every configuration: this binary, whatever PATH holds.
    const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
    if (error) throw FileError("cannot find this binary's path (/proc/self/exe): " + error.message());
    setenv("REUSESIM", self.c_str(), 1);
    std::vector<std::string> words{python, script};
    words.insert(words.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    execv(python.c_str(), argv.data());
    throw FileError("cannot run " + python + ": " + std::strerror(errno) +
                    "; the design search needs Python 3 with pandas and optuna (Debian: apt-get install "
                    "python3-pandas python3-optuna; REUSESIM_PYTHON names another interpreter)");
  });
}

}  // namespace reusesim::cli
