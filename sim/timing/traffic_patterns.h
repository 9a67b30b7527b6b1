#pragma once
// Request streams for exercising a memory on its own (`reusesim memtest`). Plain C++.

#include <cstdint>
#include <string>
#include <vector>

#include "spec/memory_request.h"
#include "timing/dram_address.h"

namespace reusesim::timing {

std::vector<std::string> traffic_pattern_names();

// `count` requests of `request_bytes` each (a multiple of the burst):
//   seq_read, seq_write, seq_mix (alternating)  consecutive addresses from 0
//   random_read, random_mix                      uniform over 1 GiB, aligned, fixed seed
//   stride_row                                   addresses advance by one row (row_bytes)
//   bank_conflict                                one bank, a new row every request
//   tile                                         32-row x 256-byte tiles of a row-major matrix 4096 bytes wide, tile after tile
// Throws std::invalid_argument for an unknown name.
std::vector<spec::MemoryRequest> make_traffic_pattern(const std::string& name, std::int64_t count, std::uint64_t request_bytes,
                                                const spec::DramSpec& spec, const DramAddressMapper& mapper);

}  // namespace reusesim::timing
