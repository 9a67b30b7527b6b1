#pragma once
// ReuseSim writes only files it created, in places it was told to or directories it owns, and
// deletes only what it wrote:
// - A result file is written whole or not at all: it goes to a temporary name in the same directory
//   (`path`.partial) and is renamed into place, so an interrupted run never leaves a file that looks
//   complete (a .partial already there is reused only when the manifest below lists it). Only a
//   regular file is replaced that way; a device, a FIFO or a symlink given as the path is opened
//   and written through (errors checked), never replaced.
// - A directory ReuseSim owns holds a manifest, kManifestName, naming every entry ReuseSim wrote
//   there (each with its .partial). A file written into such a directory is added first; an entry
//   it does not list is never replaced or removed. ReuseSim creates or adopts (when empty) the
//   directories it owns, never a directory that already holds other files.

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace reusesim::util {

constexpr const char* kManifestName = ".reusesim-manifest";

// One file at `path`, written as above (the directory must exist); throws std::runtime_error naming
// the file on any failure, leaving no .partial behind.
void write_output_file(const std::string& path, const std::string& contents);

// The same, returning what went wrong ("" when all is written) instead of throwing: for code that
// runs after a SystemC simulation, where GCC's ASan mistakes any throw for a stack overflow.
std::string output_file_problem(const std::string& path, const std::string& contents);
// Owns `directory` (own_directory_problem) and writes each (name, contents) into it as
// output_file_problem does, stopping at the first problem.
std::string output_files_problem(const std::string& directory,
                                 const std::vector<std::pair<std::string, std::string>>& files);

// Throws what write_output_file would if `path` cannot be written, and leaves nothing behind: for a
// file written only after a long simulation.
void check_output_file(const std::string& path);

enum class DirectoryOwner { absent, empty, reusesim, other };
// Whether `directory` is missing, empty, holds ReuseSim's manifest, or holds files of someone else
// (or is not a directory).
DirectoryOwner directory_owner(const std::string& directory);

// What is wrong with writing into `directory` ("" when nothing): it is not a directory, or holds
// files but no manifest.
std::string foreign_directory_problem(const std::string& directory);
// Makes `directory` one ReuseSim owns: creates it (and its parents) with an empty manifest, adopts
// it when empty, keeps it when it has a manifest; any other directory is refused ("" when done).
std::string own_directory_problem(const std::string& directory);
// Adds `names` (and their .partial) to the manifest of `directory`, which ReuseSim owns; refuses a
// name that exists there but is not listed (ReuseSim did not write it).
std::string claim_problem(const std::string& directory, const std::vector<std::string>& names);

// The regular files in `directory` that its manifest lists (ReuseSim wrote them), sorted; none
// when it has no manifest.
std::vector<std::string> owned_files(const std::string& directory);

// Removes `directory`/`name`, a file or a whole directory ReuseSim wrote. Throws std::runtime_error,
// removing nothing, naming what there ReuseSim did not write: `name` itself when `directory`'s
// manifest does not list it, anything neither a regular file nor a directory, a directory without
// a manifest, and whatever a directory's manifest does not list, recursively.
void remove_owned(const std::string& directory, const std::string& name);
// Every entry the manifest of `directory` lists, removed the same way, checked all first (the
// directory and its manifest stay).
void clear_owned(const std::string& directory);

// Writes all `size` bytes at `data` to the file descriptor `fd`, retrying short writes: 0, or the
// errno of the write that failed.
int write_all(int fd, const char* data, std::size_t size);

}  // namespace reusesim::util
