#include "report/output_files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace reusesim::report {

namespace {

namespace fs = std::filesystem;

// Writes `path`.partial; returns what went wrong (having removed it), or "".
std::string write_partial(const std::string& path, const std::string& contents) {
  const fs::path temporary(path + ".partial");
  errno = 0;
  std::ofstream stream(temporary, std::ios::binary | std::ios::trunc);
  stream << contents;
  stream.flush();
  if (stream) return "";
  // The stream keeps no reason; errno still holds the one of the call that failed (ENOSPC ...).
  const std::string reason = errno != 0 ? std::string(": ") + std::strerror(errno) : "";
  stream.close();
  std::error_code error;
  fs::remove(temporary, error);
  return "cannot write " + temporary.string() + reason;
}

void throw_if(const std::string& problem) {
  if (!problem.empty()) throw std::runtime_error(problem);
}

}  // namespace

std::string output_file_problem(const std::string& path, const std::string& contents) {
  if (std::string problem = write_partial(path, contents); !problem.empty()) return problem;
  const fs::path temporary(path + ".partial");
  std::error_code error;
  fs::rename(temporary, path, error);
  if (!error) return "";
  const std::string reason = error.message();
  fs::remove(temporary, error);
  return "cannot move " + temporary.string() + " to " + path + ": " + reason;
}

std::string output_files_problem(const std::string& directory,
                                 const std::vector<std::pair<std::string, std::string>>& files) {
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) return "cannot create output directory " + directory + ": " + error.message();
  for (const auto& [name, contents] : files) {
    if (std::string problem = output_file_problem((fs::path(directory) / name).string(), contents); !problem.empty()) {
      return problem;
    }
  }
  return "";
}

void write_output_file(const std::string& path, const std::string& contents) {
  throw_if(output_file_problem(path, contents));
}

void check_output_file(const std::string& path) {
  throw_if(write_partial(path, ""));
  std::error_code error;
  fs::remove(path + ".partial", error);
}

}  // namespace reusesim::report
