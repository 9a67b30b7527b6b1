#pragma once
// Result files are written whole or not at all: each goes to a temporary name in the same
// directory and is renamed into place, so an interrupted run never leaves a file that looks complete.

#include <string>
#include <utility>
#include <vector>

namespace reusesim::report {

// One file at `path`, written to `path`.partial and renamed into place (the directory must exist);
// throws std::runtime_error naming the file on any failure, leaving no .partial behind.
void write_output_file(const std::string& path, const std::string& contents);

// The same, returning what went wrong ("" when all is written) instead of throwing: for code that
// runs after a SystemC simulation, where GCC's ASan mistakes any throw for a stack overflow.
std::string output_file_problem(const std::string& path, const std::string& contents);
// Creates `directory` if needed and writes each (name, contents) into it as output_file_problem
// does, stopping at the first problem.
std::string output_files_problem(const std::string& directory,
                                 const std::vector<std::pair<std::string, std::string>>& files);

// Throws what write_output_file would if `path`.partial cannot be created, and leaves nothing
// behind: for a file written only after a long simulation.
void check_output_file(const std::string& path);

}  // namespace reusesim::report
