#include "simulate/block_reuse.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

namespace reusesim::simulate {

namespace {

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

// The time the rows of layers named from `prefix` took, in picoseconds.
std::uint64_t rows_ps(const std::vector<results::LayerResult>& rows, const std::string& prefix) {
  double seconds = 0;
  for (const results::LayerResult& row : rows) {
    if (starts_with(row.layer, prefix)) seconds += row.seconds;
  }
  return static_cast<std::uint64_t>(std::llround(seconds * 1e12));
}

void add_figures(results::DramFigures& sum, const results::DramFigures& more) {
  sum.counters += more.counters;
  sum.read_latency.count += more.read_latency.count;
  sum.read_latency.total_cycles += more.read_latency.total_cycles;
  sum.write_latency.count += more.write_latency.count;
  sum.write_latency.total_cycles += more.write_latency.total_cycles;
}

}  // namespace

std::string insert_reused_copies(std::vector<results::LayerResult>& rows,
                                 const std::vector<workload::ReusedBlock>& reused) {
  if (reused.empty() || rows.empty()) return "";
  std::optional<results::BatchDram> batch_dram = rows.back().batch_dram;
  rows.back().batch_dram.reset();
  for (const workload::ReusedBlock& block : reused) {
    const std::string second = block.copy_prefix(workload::kSimulatedCopies);
    std::size_t first = 0;
    while (first < rows.size() && !starts_with(rows[first].layer, second)) ++first;
    std::size_t end = first;
    while (end < rows.size() && starts_with(rows[end].layer, second)) ++end;
    if (first == end) return "--reuse-blocks: no row of " + second + " to repeat";
    std::vector<results::LayerResult> copies;
    for (std::int64_t copy = workload::kSimulatedCopies + 1; copy <= block.copies; ++copy) {
      for (std::size_t i = first; i < end; ++i) {
        results::LayerResult row = rows[i];
        row.layer = block.copy_prefix(copy) + rows[i].layer.substr(second.size());
        row.mapping = "repeats " + rows[i].layer + " (--reuse-blocks)";
        if (batch_dram) {
          add_figures(batch_dram->total, row.dram);
          for (std::size_t c = 0; c < batch_dram->channels.size() && c < row.dram_channels.size(); ++c)
            add_figures(batch_dram->channels[c], row.dram_channels[c]);
        }
        copies.push_back(std::move(row));
      }
    }
    rows.insert(rows.begin() + static_cast<std::ptrdiff_t>(end), copies.begin(), copies.end());
  }
  rows.back().batch_dram = std::move(batch_dram);
  return "";
}

bool repeated_link_program(const std::string& name, const std::vector<workload::ReusedBlock>& reused) {
  return std::any_of(reused.begin(), reused.end(), [&](const workload::ReusedBlock& block) {
    return starts_with(name, block.copy_prefix(workload::kSimulatedCopies));
  });
}

namespace {

// One chip's collectives of one batch with the copies of `block`'s second copy's inserted; how
// much later its end comes (`extra_ps`), and on chip 0 the second copy's period and collectives' time.
struct ChipBatchCopies {
  std::uint64_t period_ps = 0, extra_ps = 0, collectives_ps = 0;
};

ChipBatchCopies copy_collectives(std::vector<results::CollectiveResult>& out,
                                 const std::vector<results::CollectiveResult>& items,
                                 const workload::ReusedBlock& block, const std::vector<results::LayerResult>& rows) {
  const std::string first = block.copy_prefix(1), second = block.copy_prefix(workload::kSimulatedCopies);
  const std::int64_t repeats = block.copies - workload::kSimulatedCopies;
  std::optional<std::size_t> last_first, first_second, last_second;
  ChipBatchCopies copies;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (starts_with(items[i].name, first)) last_first = i;
    if (!starts_with(items[i].name, second)) continue;
    if (!first_second) first_second = i;
    last_second = i;
    copies.collectives_ps += items[i].end_ps - items[i].start_ps;
  }
  copies.period_ps =
      last_first && last_second ? items[*last_second].end_ps - items[*last_first].end_ps : rows_ps(rows, second);
  copies.extra_ps = static_cast<std::uint64_t>(repeats) * copies.period_ps;
  for (std::size_t i = 0; i < items.size(); ++i) {
    results::CollectiveResult item = items[i];
    if (last_second && i > *last_second) {
      item.start_ps += copies.extra_ps;
      item.end_ps += copies.extra_ps;
    }
    out.push_back(item);
    if (!last_second || i != *last_second) continue;
    for (std::int64_t k = 1; k <= repeats; ++k) {
      for (std::size_t j = *first_second; j <= *last_second; ++j) {
        if (!starts_with(items[j].name, second)) continue;
        results::CollectiveResult copy = items[j];
        copy.name = block.copy_prefix(workload::kSimulatedCopies + k) + items[j].name.substr(second.size());
        copy.start_ps += static_cast<std::uint64_t>(k) * copies.period_ps;
        copy.end_ps += static_cast<std::uint64_t>(k) * copies.period_ps;
        out.push_back(std::move(copy));
      }
    }
  }
  return copies;
}

}  // namespace

std::string insert_reused_copies(SystemReplay& replay, const program::SystemProgram& program,
                                 const std::vector<workload::ReusedBlock>& reused,
                                 const std::map<std::size_t, std::vector<results::ChipLinkFigures>>& program_links) {
  const std::size_t chips = program.chips.size(), batches = replay.batches.size();
  // Each replayed chip's rows, by batch.
  std::vector<std::vector<std::vector<results::LayerResult>>> rows(chips);
  for (std::size_t c = 0; c < chips; ++c) {
    if (replay.replayed_by[c] != c) continue;
    const std::vector<program::LayerRun>& runs = program.chips[c].runs;
    for (std::size_t i = 0; i < runs.size() && i < replay.chip_results[c].size(); ++i) {
      if (runs[i].starts_batch || rows[c].empty()) rows[c].emplace_back();
      rows[c].back().push_back(replay.chip_results[c][i]);
    }
    if (rows[c].size() != batches) return "--reuse-blocks: chip " + std::to_string(c) + "'s rows are not by batch";
  }
  for (const workload::ReusedBlock& block : reused) {
    const auto repeats = static_cast<std::uint64_t>(block.copies - workload::kSimulatedCopies);
    std::vector<std::uint64_t> batch_extra_ps(batches, 0);
    std::vector<ChipBatchCopies> chip0(batches);
    std::vector<results::CollectiveResult> collectives;
    for (std::size_t c = 0; c < chips; ++c) {
      for (std::size_t b = 0; b < batches; ++b) {
        std::vector<results::CollectiveResult> items;
        for (const results::CollectiveResult& item : replay.collectives) {
          if (item.chip == static_cast<std::int64_t>(c) && item.batch == b) items.push_back(item);
        }
        const ChipBatchCopies copies = copy_collectives(collectives, items, block, rows[replay.replayed_by[c]][b]);
        batch_extra_ps[b] = std::max(batch_extra_ps[b], copies.extra_ps);
        if (c == 0) chip0[b] = copies;
      }
    }
    std::uint64_t earlier_ps = 0;  // what the batches before took longer
    for (std::size_t b = 0; b < batches; ++b) {
      results::SystemBatch& batch = replay.batches[b];
      batch.start_ps += earlier_ps;
      batch.end_ps += earlier_ps + batch_extra_ps[b];
      batch.collectives_ps += repeats * chip0[b].collectives_ps;
      batch.layers_ps += repeats * (chip0[b].period_ps - chip0[b].collectives_ps);
      for (results::CollectiveResult& item : collectives) {
        if (item.batch != b) continue;
        item.start_ps += earlier_ps;
        item.end_ps += earlier_ps;
      }
      earlier_ps += batch_extra_ps[b];
    }
    replay.collectives = std::move(collectives);
    for (const auto& [index, links] : program_links) {
      if (!starts_with(program.link_programs[index].name, block.copy_prefix(workload::kSimulatedCopies))) continue;
      for (std::size_t l = 0; l < links.size() && l < replay.links.size(); ++l) {
        results::ChipLinkFigures& link = replay.links[l];
        const auto times = static_cast<std::int64_t>(repeats);
        link.transfers += times * links[l].transfers;
        link.bytes += times * links[l].bytes;
        link.busy_ps += times * links[l].busy_ps;
        link.waited_ps += times * links[l].waited_ps;
      }
    }
    for (std::size_t c = 0; c < chips; ++c) {
      for (std::vector<results::LayerResult>& batch_rows : rows[c]) {
        const std::string problem = insert_reused_copies(batch_rows, {block});
        if (!problem.empty()) return problem;
      }
    }
  }
  for (std::size_t c = 0; c < chips; ++c) {
    if (rows[c].empty()) continue;
    replay.chip_results[c].clear();
    for (const std::vector<results::LayerResult>& batch_rows : rows[c])
      replay.chip_results[c].insert(replay.chip_results[c].end(), batch_rows.begin(), batch_rows.end());
  }
  return "";
}

}  // namespace reusesim::simulate
