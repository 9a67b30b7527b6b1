// Replays inputs through one fuzz target (tests/fuzz/fuzz_<target>.cpp, linked in) the way libFuzzer
// runs a crash file, so that a normal build and CI re-check past findings without clang.
// Usage: fuzz_replay_<target> PATH... where a PATH is a file or a directory of files (not
// recursive). Fails when a PATH is missing or empty, or when the target lets an exception escape.

#include <algorithm>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace fs = std::filesystem;

int main(int argc, char** argv) {
  std::vector<fs::path> inputs;
  for (int i = 1; i < argc; ++i) {
    const fs::path path(argv[i]);
    std::vector<fs::path> found;
    if (fs::is_directory(path)) {
      for (const auto& entry : fs::directory_iterator(path)) {
        if (entry.is_regular_file()) found.push_back(entry.path());
      }
      std::sort(found.begin(), found.end());
    } else if (fs::is_regular_file(path)) {
      found.push_back(path);
    }
    if (found.empty()) {
      std::cerr << path.string() << ": no input files\n";
      return 1;
    }
    inputs.insert(inputs.end(), found.begin(), found.end());
  }
  int failures = 0;
  for (const fs::path& input : inputs) {
    std::ifstream stream(input, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
    try {
      LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    } catch (const std::exception& error) {
      std::cerr << input.string() << ": escaped " << error.what() << "\n";
      ++failures;
    }
  }
  std::cout << inputs.size() << " inputs, " << failures << " failed\n";
  return failures == 0 ? 0 : 1;
}
