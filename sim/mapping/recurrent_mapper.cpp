#include "mapping/recurrent_mapper.h"

#include <algorithm>
#include <string>

#include "mapping/gemm_mapper.h"
#include "util/checked_math.h"

namespace reusesim::mapping {

using util::checked_mul;
using util::checked_product;
using workload::LayerType;

void map_recurrent(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                   const DramLayout& layout, program::LayerProgram& program) {
  const workload::RecurrentParams& rnn = layer.spec.recurrent;
  const std::int64_t gates = layer.spec.type == LayerType::lstm ? 4 : layer.spec.type == LayerType::gru ? 3 : 1;
  const std::int64_t directions = rnn.bidirectional ? 2 : 1, hidden = rnn.hidden_size, e = context.e;
  const std::int64_t steps = layer.input_shapes.front().steps;
  const std::int64_t bias = rnn.bias ? 2 : 0;
  const std::int64_t vector_ops_per_unit =
      layer.counts.vector_ops / std::max<std::int64_t>(1, steps * directions * hidden * rnn.num_layers);
  ProgramBuilder builder(program, context.burst_bytes);
  std::uint64_t weights = layout.weights;
  std::int64_t input_features = layer.input_shapes.front().features;
  bool all_resident = true;
  std::int64_t most_blocks = 1;
  std::string step_tiling;  // the top layer's tiles of a step
  // The top layer writes the output; the ones below write full sequences that alternate between
  // the output (when it is a sequence) and the scratch regions after it (recurrent_scratch_bytes).
  const auto output_bytes = static_cast<std::uint64_t>(checked_mul(checked_mul(layer.counts.output_elems, batch), e));
  const std::uint64_t scratch = layout.output + align(output_bytes);
  const std::uint64_t sequence_bytes = align(static_cast<std::uint64_t>(
      checked_product({steps, batch, hidden, directions, e})));
  const std::int64_t top = rnn.num_layers - 1;
  const auto region = [&](std::int64_t stacked) {
    if (rnn.return_sequences) return (top - stacked) % 2 == 0 ? layout.output : scratch;
    return stacked == top ? layout.output : scratch + static_cast<std::uint64_t>((top - 1 - stacked) % 2) * sequence_bytes;
  };
  std::vector<std::int32_t> below_done;  // the last store of each direction of the layer below
  std::int32_t previous_pass_end = -1;   // the last compute of the previous direction or layer
  for (std::int64_t stacked = 0; stacked < rnn.num_layers; ++stacked) {
    const std::uint64_t input = stacked == 0 ? layout.inputs.front() : region(stacked - 1);
    std::vector<std::int32_t> this_layer_done;
    const std::int64_t k = input_features + hidden, n = gates * hidden;
    const std::int64_t column_bytes = checked_mul(k + bias, e);
    const std::int64_t weight_bytes = checked_mul(column_bytes, n);
    const bool resident = weight_bytes <= context.capacity.weights;
    all_resident = all_resident && resident;
    // A step is one GEMM (M = batch, K = x and h, N = the gate columns), tiled by the GEMM search
    // like any other: K tiles let column blocks be as wide as the array. Resident weights are all
    // in the weight buffer already, so any tile of them fits.
    GemmProblem problem;
    problem.m = batch;
    problem.n = n;
    problem.k = k;
    problem.e = e;
    problem.bias = bias;
    problem.input_bytes = [e](std::int64_t, std::int64_t tm, std::int64_t tk) { return tm * tk * e; };
    problem.may_spill_to_dram = false;  // a step's partial sums stay on chip, as its state does
    Capacity capacity = context.capacity;
    if (resident) capacity.weights = std::max(capacity.weights, checked_mul(2, weight_bytes));
    const GemmTiling tiling = choose_gemm_tiling(problem, context.accelerator, capacity, context.dram_bytes_per_cycle,
                                                 layer.spec.name, layer.spec.tiling);
    const std::int64_t chunk = tiling.tm, block = tiling.tn, tile_k = tiling.tk;
    const std::int64_t tiles_k = ceil_div(k, tile_k);
    most_blocks = std::max(most_blocks, ceil_div(n, block) * ceil_div(batch, chunk) * tiles_k);
    step_tiling = "tiles m" + std::to_string(chunk) + " n" + std::to_string(block) + " k" + std::to_string(tile_k);
    for (std::int64_t direction = 0; direction < directions; ++direction) {
      // Resident weights replace the previous pass's in the weight buffer.
      const std::int32_t resident_load =
          resident ? builder.load(program::TensorRole::weights, weights, weight_bytes, deps({previous_pass_end})) : -1;
      Slots input_slots, weight_slots, output_slots;
      std::int32_t previous_step_end = -1;  // the last compute of step t-1: h(t-1) is complete
      std::int32_t last_store = -1;
      // Streams the weight tile of columns [n0, n0 + tn) and K [k0, k0 + tk) (biases with the last).
      const auto load_weights = [&](std::int64_t n0, std::int64_t tn, std::int64_t k0, std::int64_t tk) {
        const std::int64_t rows = k0 + tk == k ? tk + bias : tk;
        return builder.load(program::TensorRole::weights, weights + static_cast<std::uint64_t>(n0 * column_bytes + k0 * e),
                            tn * rows * e, deps({weight_slots.claim()}));
      };
      for (std::int64_t step = 0; step < steps; ++step) {
        const std::int64_t t = direction == 0 ? step : steps - 1 - step;
        std::int32_t last_compute = -1;
        for (std::int64_t n0 = 0; n0 < n; n0 += block) {
          const std::int64_t tn = std::min(block, n - n0);
          // With all of K in one tile a column block's weights serve every batch chunk.
          const std::int32_t block_weights = resident ? resident_load : tiles_k == 1 ? load_weights(n0, tn, 0, k) : -1;
          for (std::int64_t m0 = 0; m0 < batch; m0 += chunk) {
            const std::int64_t tm = std::min(chunk, batch - m0);
            const std::int32_t output_wait = output_slots.claim();
            for (std::int64_t k0 = 0; k0 < k; k0 += tile_k) {
              const std::int64_t tk = std::min(tile_k, k - k0);
              const std::int32_t w = block_weights >= 0 ? block_weights : load_weights(n0, tn, k0, tk);
              // x(t) is the first input_features of K and comes from DRAM, unless the bottom layer's
              // input is kept on chip (residency.h); h(t-1) stays in SRAM.
              // x(t) of an upper layer exists once the layer below has finished (both directions).
              const std::int64_t x_values = std::max<std::int64_t>(0, std::min(k0 + tk, input_features) - k0);
              std::int32_t x = -1;
              if (x_values > 0 && !(stacked == 0 && context.plan.input_on_chip(0))) {
                std::vector<std::int32_t> x_after = below_done;
                if (const std::int32_t slot = input_slots.claim(); slot >= 0) x_after.push_back(slot);
                x = builder.load(program::TensorRole::inputs,
                                 input + static_cast<std::uint64_t>(((t * batch + m0) * input_features + k0) * e),
                                 tm * x_values * e, x_after);
              }
              program::Step compute;
              compute.kind = program::StepKind::compute;
              compute.gemm = timing::GemmShape{tm, tn, tk};
              compute.macs = tm * tn * tk;
              compute.bytes = static_cast<std::uint64_t>((tm * tk + tk * tn) * e);
              const bool last_k = k0 + tk == k;
              add_partial_sum_traffic(compute, tiling, tm * tn, k0 == 0, last_k);
              if (last_k && n0 + tn == n) compute.vector_ops = tm * hidden * vector_ops_per_unit;
              compute.after = deps({x, w, output_wait, previous_step_end});
              last_compute = builder.add(std::move(compute));
              if (x >= 0) input_slots.used_by(last_compute);
              if (!resident) weight_slots.used_by(last_compute);
            }
            // Without return_sequences only the top layer's last step leaves; h(t) stays for t + 1.
            const bool leaves = rnn.return_sequences || stacked < top || step == steps - 1;
            if (n0 + tn == n && leaves) {
              const std::int64_t row = rnn.return_sequences || stacked < top ? t * batch + m0 : m0;
              const auto offset = static_cast<std::uint64_t>((row * hidden * directions + direction * hidden) * e);
              const std::int32_t stored = builder.store(region(stacked) + offset, tm * hidden * e, deps({last_compute}));
              output_slots.used_by(stored);
              last_store = stored;
            } else {
              output_slots.used_by(last_compute);
            }
          }
        }
        previous_step_end = last_compute;
      }
      weights += static_cast<std::uint64_t>(weight_bytes);
      previous_pass_end = previous_step_end;
      this_layer_done.push_back(last_store);
    }
    below_done = this_layer_done;
    input_features = hidden * directions;
  }
  program.mapping = std::string("recurrent: ") + std::to_string(steps) + " steps in order, " + step_tiling + ", " +
                    std::to_string(most_blocks) + " tile(s) a step, weights " +
                    (all_resident ? "resident in SRAM" : "streamed from DRAM every step") +
                    (layer.spec.tiling ? " (pinned)" : "");
}

std::uint64_t recurrent_scratch_bytes(const workload::NetworkLayer& layer, std::int64_t batch, std::int64_t element_bytes) {
  const workload::RecurrentParams& rnn = layer.spec.recurrent;
  if (rnn.num_layers < 2) return 0;
  const std::uint64_t regions = rnn.return_sequences || rnn.num_layers == 2 ? 1 : 2;
  const std::int64_t directions = rnn.bidirectional ? 2 : 1;
  return regions * align(static_cast<std::uint64_t>(checked_product(
                       {layer.input_shapes.front().steps, batch, rnn.hidden_size, directions, element_bytes})));
}

}  // namespace reusesim::mapping
