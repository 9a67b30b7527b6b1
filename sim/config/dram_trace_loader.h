#pragma once
// DRAM request traces: one request per line, `<hex address> <R|W> [earliest issue cycle]`;
// `#` starts a comment. Every malformed line is reported with its line number.

#include <cstdint>
#include <string>
#include <vector>

#include "spec/memory_request.h"

namespace reusesim::config {

// Addresses must be multiples of `alignment_bytes` (the request size). Throws InputError.
std::vector<spec::MemoryRequest> load_dram_trace_file(const std::string& path, std::uint64_t alignment_bytes);
std::vector<spec::MemoryRequest> load_dram_trace_text(const std::string& text, const std::string& origin,
                                                    std::uint64_t alignment_bytes);

}  // namespace reusesim::config
