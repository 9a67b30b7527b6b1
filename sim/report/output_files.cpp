#include "report/output_files.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace reusesim::report {

void write_output_files(const std::string& directory, const std::vector<std::pair<std::string, std::string>>& files) {
  namespace fs = std::filesystem;
  std::error_code error;
  fs::create_directories(directory, error);
  if (error) throw std::runtime_error("cannot create output directory " + directory + ": " + error.message());
  for (const auto& [name, contents] : files) write_output_file((fs::path(directory) / name).string(), contents);
}

namespace {

// Writes `path`.partial and returns its name; on failure removes it and throws.
std::filesystem::path write_partial(const std::string& path, const std::string& contents) {
  const std::filesystem::path temporary(path + ".partial");
  errno = 0;
  std::ofstream stream(temporary, std::ios::binary | std::ios::trunc);
  stream << contents;
  stream.flush();
  if (!stream) {
    // The stream keeps no reason; errno still holds the one of the call that failed (ENOSPC ...).
    const std::string reason = errno != 0 ? std::string(": ") + std::strerror(errno) : "";
    stream.close();
    std::error_code error;
    std::filesystem::remove(temporary, error);
    throw std::runtime_error("cannot write " + temporary.string() + reason);
  }
  return temporary;
}

}  // namespace

void check_output_file(const std::string& path) {
  std::error_code error;
  std::filesystem::remove(write_partial(path, ""), error);
}

void write_output_file(const std::string& path, const std::string& contents) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  const fs::path temporary = write_partial(path, contents);
  std::error_code error;
  fs::rename(temporary, target, error);
  if (error) {
    const std::string reason = error.message();
    fs::remove(temporary, error);
    throw std::runtime_error("cannot move " + temporary.string() + " to " + target.string() + ": " + reason);
  }
}

}  // namespace reusesim::report
