#include "util/output_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

namespace reusesim::util {

namespace {

namespace fs = std::filesystem;

constexpr const char* kPartial = ".partial";
constexpr const char* kManifestHeader =
    "# reusesim manifest: the entries ReuseSim wrote in this directory, the only ones it replaces or deletes\n";
const std::string kManifestPartial = std::string(kManifestName) + kPartial;
constexpr std::size_t kForeignShown = 5;  // foreign paths named in a message, then a count

void throw_if(const std::string& problem) {
  if (!problem.empty()) throw std::runtime_error(problem);
}

bool exists_unfollowed(const fs::path& path) {
  std::error_code error;
  return fs::exists(fs::symlink_status(path, error));
}

// Writes `contents` to `path` opened with `flags`: "" or what went wrong. `created` says whether
// the open succeeded (so the caller may remove what it made).
std::string write_to(const std::string& path, int flags, const std::string& contents, bool& created) {
  const int fd = ::open(path.c_str(), flags | O_WRONLY | O_CLOEXEC, 0666);
  created = fd >= 0;
  int error = fd >= 0 ? write_all(fd, contents.data(), contents.size()) : errno;
  if (fd >= 0 && ::close(fd) != 0 && error == 0) error = errno;
  return error == 0 ? "" : "cannot write " + path + ": " + std::strerror(error);
}

std::optional<std::set<std::string>> read_manifest(const fs::path& directory);

// Writes `path`.partial: "" or what went wrong, having removed it. One already there is reused only
// when it is a regular file its directory's manifest lists (left by an interrupted write).
std::string write_partial(const std::string& path, const std::string& contents) {
  const fs::path temporary(path + kPartial);
  std::error_code error;
  const fs::file_status status = fs::symlink_status(temporary, error);
  if (fs::exists(status)) {
    const std::string name = temporary.filename().string();
    const auto listed = read_manifest(temporary.has_parent_path() ? temporary.parent_path() : fs::path("."));
    const bool ours = name == std::string(kManifestName) + kPartial || (listed && listed->count(name) > 0);
    if (!fs::is_regular_file(status) || !ours) {
      return "cannot write " + temporary.string() + ": it exists and ReuseSim cannot tell it wrote it "
             "(an interrupted write of another program?); it is left alone: remove it, or choose another name";
    }
  }
  bool created = false;
  // O_NOFOLLOW: a symlink put there since the check is not followed.
  const std::string problem = write_to(temporary.string(), O_CREAT | O_TRUNC | O_NOFOLLOW, contents, created);
  if (!problem.empty() && created) ::unlink(temporary.c_str());
  return problem;
}

// `path`.partial written and renamed over `path`, a regular file or nothing: "" or what went
// wrong, leaving no .partial behind.
std::string replace_file(const std::string& path, const std::string& contents) {
  if (std::string problem = write_partial(path, contents); !problem.empty()) return problem;
  const std::string temporary = path + kPartial;
  std::error_code error;
  fs::rename(temporary, path, error);
  if (!error) return "";
  const std::string reason = error.message();
  ::unlink(temporary.c_str());
  return "cannot move " + temporary + " to " + path + ": " + reason;
}

bool plain_name(const std::string& name) {
  return !name.empty() && name != "." && name != ".." && name[0] != '#' && name != kManifestName &&
         name.find_first_of("/\n") == std::string::npos;
}

// The names the manifest of `directory` lists, or nothing when it has none (or it cannot be read:
// then nothing in it is taken for ReuseSim's).
std::optional<std::set<std::string>> read_manifest(const fs::path& directory) {
  const fs::path file = directory / kManifestName;
  std::error_code error;
  if (!fs::is_regular_file(fs::symlink_status(file, error))) return std::nullopt;
  std::ifstream stream(file, std::ios::binary);
  if (!stream) return std::nullopt;
  std::set<std::string> names;
  std::string line;
  while (std::getline(stream, line)) {
    if (plain_name(line)) names.insert(line);
  }
  if (stream.bad()) return std::nullopt;
  return names;
}

// Whether the manifest of `directory` lists `name`, found in its text: jobs/ lists three names per
// job of a trace of up to 10,000, and this is asked at every job's start and end.
bool manifest_lists(const fs::path& directory, const std::string& name) {
  const fs::path file = directory / kManifestName;
  std::error_code error;
  if (!plain_name(name) || !fs::is_regular_file(fs::symlink_status(file, error))) return false;
  std::ifstream stream(file, std::ios::binary);
  std::ostringstream text;
  text << "\n" << stream.rdbuf();
  return stream && text.str().find("\n" + name + "\n") != std::string::npos;
}

std::string write_manifest(const fs::path& directory, const std::set<std::string>& names) {
  std::string text = kManifestHeader;
  for (const std::string& name : names) text += name + "\n";
  return replace_file((directory / kManifestName).string(), text);
}

// Adds to `foreign` what under `path`, an entry its parent's manifest lists, ReuseSim did not write.
void collect_foreign(const fs::path& path, std::vector<std::string>& foreign) {
  std::error_code error;
  const fs::file_status status = fs::symlink_status(path, error);
  if (!fs::exists(status) || fs::is_regular_file(status)) return;
  const std::optional<std::set<std::string>> listed = fs::is_directory(status) ? read_manifest(path) : std::nullopt;
  if (!listed) {
    // A directory its parent lists that holds nothing (or only a cut-short manifest) is one a
    // ReuseSim process made and was killed before it listed anything: nobody else's files are there.
    const auto holds_nothing = [&] {
      std::error_code listing_error;
      for (fs::directory_iterator entry(path, listing_error), end; !listing_error && entry != end;
           entry.increment(listing_error)) {
        if (entry->path().filename() != kManifestPartial) return false;
      }
      return !listing_error;
    };
    if (fs::is_directory(status) && holds_nothing()) return;
    foreign.push_back(path.string());  // a symlink, device, FIFO, or a directory without our manifest
    return;
  }
  for (fs::directory_iterator entry(path, error), end; !error && entry != end; entry.increment(error)) {
    const std::string name = entry->path().filename().string();
    if (name == kManifestName || name == kManifestPartial) continue;
    if (listed->count(name) > 0) {
      collect_foreign(entry->path(), foreign);
    } else {
      foreign.push_back(entry->path().string());
    }
  }
  if (error) foreign.push_back(path.string());  // what it holds cannot be seen: not ours to remove
}

// A file about to be written into a directory ReuseSim owns is added to its manifest first. Every
// entry ReuseSim writes there is a regular file, so anything else under a listed name (a symlink
// put in place of results.csv) is someone else's: writing through it would change their file.
std::string claim_in_parent(const fs::path& path) {
  const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!read_manifest(parent)) return "";
  std::error_code error;
  const fs::file_status status = fs::symlink_status(path, error);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    return "cannot write " + path.string() + ": it is not a regular file, and in a directory ReuseSim owns it " +
           "writes only regular files of its own; move it away or choose another directory";
  }
  return claim_problem(parent.string(), {path.filename().string()});
}

// What under `directory`/`name` ReuseSim did not write: `name` itself when `directory`'s manifest
// does not list it, else what collect_foreign finds in it.
std::vector<std::string> foreign_paths(const std::string& directory, const std::string& name) {
  std::vector<std::string> foreign;
  const fs::path path = fs::path(directory) / name;
  if (!exists_unfollowed(path)) return foreign;
  if (manifest_lists(directory, name)) {
    collect_foreign(path, foreign);
  } else {
    foreign.push_back(path.string());
  }
  return foreign;
}

void throw_if_foreign(std::vector<std::string> foreign) {
  if (foreign.empty()) return;
  std::sort(foreign.begin(), foreign.end());
  std::string named;
  for (std::size_t i = 0; i < foreign.size() && i < kForeignShown; ++i) named += (i > 0 ? ", " : "") + foreign[i];
  if (foreign.size() > kForeignShown) named += " and " + std::to_string(foreign.size() - kForeignShown) + " more";
  throw std::runtime_error("ReuseSim did not write " + named + " (no " + kManifestName +
                           " lists it), so it deletes nothing there; move it away or choose another directory");
}

void remove_or_throw(const fs::path& path) {
  std::error_code error;
  fs::remove_all(path, error);
  if (error) throw std::runtime_error("cannot remove " + path.string() + ": " + error.message());
}

}  // namespace

int write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd, data, size);
    if (written < 0 && errno == EINTR) continue;
    if (written < 0) return errno;
    data += written;
    size -= static_cast<std::size_t>(written);
  }
  return 0;
}

std::string output_file_problem(const std::string& path, const std::string& contents) {
  const fs::path target(path);
  if (std::string problem = claim_in_parent(target); !problem.empty()) return problem;
  std::error_code error;
  const fs::file_status status = fs::symlink_status(target, error);
  if (!fs::exists(status) || fs::is_regular_file(status)) return replace_file(path, contents);
  // A device, a FIFO or a symlink is written through, never replaced (a directory fails to open).
  bool created = false;
  return write_to(path, O_CREAT | O_TRUNC, contents, created);
}

std::string output_files_problem(const std::string& directory,
                                 const std::vector<std::pair<std::string, std::string>>& files) {
  if (std::string problem = own_directory_problem(directory); !problem.empty()) return problem;
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
  const fs::path target(path);
  throw_if(claim_in_parent(target));
  std::error_code error;
  const fs::file_status status = fs::symlink_status(target, error);
  if (fs::exists(status) && !fs::is_regular_file(status)) {
    // Written through later: it must be writable (opening a FIFO now would wait for a reader).
    if (::access(path.c_str(), W_OK) != 0) {
      throw std::runtime_error("cannot write " + path + ": " + std::strerror(errno));
    }
    return;
  }
  throw_if(write_partial(path, ""));
  ::unlink((path + kPartial).c_str());
}

DirectoryOwner directory_owner(const std::string& directory) {
  std::error_code error;
  const fs::file_status status = fs::status(directory, error);  // --out may be a symlink to a directory
  if (status.type() == fs::file_type::not_found) return DirectoryOwner::absent;
  if (!fs::is_directory(status)) return DirectoryOwner::other;
  if (read_manifest(directory)) return DirectoryOwner::reusesim;
  const bool empty = fs::is_empty(directory, error);
  return empty && !error ? DirectoryOwner::empty : DirectoryOwner::other;
}

std::string foreign_directory_problem(const std::string& directory) {
  if (directory_owner(directory) != DirectoryOwner::other) return "";
  std::error_code error;
  if (!fs::is_directory(directory, error)) return directory + " exists and is not a directory";
  return directory + " is not a directory ReuseSim created (it has no " + kManifestName +
         ") and is not empty; ReuseSim writes only into directories it created or empty ones: choose another";
}

std::string own_directory_problem(const std::string& directory) {
  if (std::string problem = foreign_directory_problem(directory); !problem.empty()) return problem;
  const DirectoryOwner owner = directory_owner(directory);
  if (owner == DirectoryOwner::reusesim) return "";
  std::error_code error;
  if (owner == DirectoryOwner::absent) fs::create_directories(directory, error);
  if (error) return "cannot create output directory " + directory + ": " + error.message();
  std::string problem = write_manifest(directory, {});
  // A directory it just made but could not mark (a full disk) would look like someone else's.
  if (!problem.empty() && owner == DirectoryOwner::absent) fs::remove(directory, error);
  return problem;
}

std::string claim_problem(const std::string& directory, const std::vector<std::string>& names) {
  std::optional<std::set<std::string>> listed = read_manifest(directory);
  if (!listed) return directory + " has no readable " + kManifestName + ": ReuseSim did not create it";
  bool changed = false;
  for (const std::string& name : names) {
    if (!plain_name(name)) return "cannot write \"" + name + "\" into " + directory + ": not a plain file name";
    for (const std::string& entry : {name, name + kPartial}) {
      if (listed->count(entry) > 0) continue;
      const fs::path path = fs::path(directory) / entry;
      if (exists_unfollowed(path)) {
        return path.string() + " exists and ReuseSim did not write it (" + kManifestName +
               " does not list it); it is left alone: move it away or choose another directory";
      }
      listed->insert(entry);
      changed = true;
    }
  }
  return changed ? write_manifest(directory, *listed) : "";
}

std::vector<std::string> owned_files(const std::string& directory) {
  std::vector<std::string> files;
  const std::optional<std::set<std::string>> listed = read_manifest(directory);
  if (!listed) return files;
  for (const std::string& name : *listed) {
    std::error_code error;
    if (fs::is_regular_file(fs::symlink_status(fs::path(directory) / name, error))) files.push_back(name);
  }
  return files;
}

void remove_owned(const std::string& directory, const std::string& name) {
  throw_if_foreign(foreign_paths(directory, name));
  remove_or_throw(fs::path(directory) / name);
}

void clear_owned(const std::string& directory) {
  const std::optional<std::set<std::string>> listed = read_manifest(directory);
  if (!listed) {
    throw std::runtime_error(directory + " has no readable " + kManifestName + ": ReuseSim did not create it");
  }
  std::vector<std::string> foreign;
  collect_foreign(fs::path(directory) / "", foreign);  // the trailing '/' follows a symlink to the directory
  throw_if_foreign(foreign);
  for (const std::string& name : *listed) remove_or_throw(fs::path(directory) / name);
  remove_or_throw(fs::path(directory) / kManifestPartial);  // left by a write that was cut short
}

}  // namespace reusesim::util
