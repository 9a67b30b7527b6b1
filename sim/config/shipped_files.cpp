#include "config/shipped_files.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>

namespace reusesim::config {

std::string shipped_files_directory() {
  namespace fs = std::filesystem;
  std::error_code error;
  const fs::path binary_directory = fs::canonical("/proc/self/exe", error).parent_path();
  // The build tree's binaries use the source tree, so a build needs no install to run; anywhere
  // else only what was installed beside the binary counts, never a source tree that may be gone.
  if (!error && binary_directory == fs::weakly_canonical(REUSESIM_BUILD_DIR, error)) return REUSESIM_SOURCE_DIR;
  return (binary_directory / REUSESIM_DATA_FROM_BINARY).lexically_normal().string();
}

std::string environment_or(const char* variable, const std::string& fallback) {
  const char* value = std::getenv(variable);
  return value != nullptr && *value != '\0' ? value : fallback;
}

std::string shipped_directory(const char* variable, const std::string& relative) {
  return environment_or(variable, shipped_files_directory() + "/" + relative);
}

std::string scripts_directory() { return shipped_directory(kScriptsDirVariable, "scripts"); }

}  // namespace reusesim::config
