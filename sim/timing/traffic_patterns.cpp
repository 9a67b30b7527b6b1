#include "timing/traffic_patterns.h"

#include <random>
#include <stdexcept>

namespace reusesim::timing {

std::vector<std::string> traffic_pattern_names() {
  return {"seq_read", "seq_write", "seq_mix", "random_read", "random_mix", "stride_row", "bank_conflict", "tile"};
}

std::vector<spec::MemoryRequest> make_traffic_pattern(const std::string& name, std::int64_t count, std::uint64_t request_bytes,
                                                const spec::DramSpec& spec, const DramAddressMapper& mapper) {
  constexpr std::uint64_t kRandomSpanBytes = std::uint64_t{1} << 30;
  constexpr std::uint64_t kTileRows = 32, kTileRowBytes = 256, kMatrixRowBytes = 4096;
  std::vector<spec::MemoryRequest> requests;
  requests.reserve(static_cast<std::size_t>(count));
  std::mt19937_64 random(12345);  // fixed seed: the same stream every run
  std::uniform_int_distribution<std::uint64_t> slot(0, kRandomSpanBytes / request_bytes - 1);
  const std::uint64_t per_tile_row = std::max<std::uint64_t>(1, kTileRowBytes / request_bytes);
  const std::uint64_t per_tile = kTileRows * per_tile_row;
  const std::uint64_t tiles_across = kMatrixRowBytes / kTileRowBytes;
  for (std::int64_t i = 0; i < count; ++i) {
    const auto n = static_cast<std::uint64_t>(i);
    spec::MemoryRequest request;
    if (name == "seq_read" || name == "seq_write" || name == "seq_mix") {
      request.address = n * request_bytes;
      request.is_write = name == "seq_write" || (name == "seq_mix" && n % 2 == 1);
    } else if (name == "random_read" || name == "random_mix") {
      request.address = slot(random) * request_bytes;
      request.is_write = name == "random_mix" && n % 2 == 1;
    } else if (name == "stride_row") {
      request.address = n * static_cast<std::uint64_t>(spec.channel_row_bytes());
    } else if (name == "bank_conflict") {
      DramCoordinates row_n;  // row n of bank 0: every request a new row of the same bank
      row_n.row = static_cast<std::int64_t>(n);
      request.address = mapper.encode(row_n);
    } else if (name == "tile") {
      const std::uint64_t tile = n / per_tile, within = n % per_tile;
      const std::uint64_t tile_row = tile / tiles_across, tile_column = tile % tiles_across;
      const std::uint64_t line = within / per_tile_row, offset = (within % per_tile_row) * request_bytes;
      request.address = (tile_row * kTileRows + line) * kMatrixRowBytes + tile_column * kTileRowBytes + offset;
    } else {
      throw std::invalid_argument("unknown traffic pattern \"" + name + "\"");
    }
    requests.push_back(request);
  }
  return requests;
}

}  // namespace reusesim::timing
