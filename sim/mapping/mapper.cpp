#include "mapping/mapper.h"

#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <optional>
#include <tuple>

namespace reusesim::mapping {

namespace {

using workload::checked_add;
using workload::checked_mul;
using workload::checked_product;
using workload::LayerType;

constexpr std::uint64_t kAlignment = 4096;

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

std::uint64_t align(std::uint64_t address) { return (address + kAlignment - 1) / kAlignment * kAlignment; }

bool is_view(LayerType type) {
  return type == LayerType::flatten || type == LayerType::to_sequence || type == LayerType::concat;
}

// SRAM bytes available to each tensor role: a buffer is shared evenly by the roles it holds.
struct Capacity {
  std::int64_t weights = 0, inputs = 0, outputs = 0;
};

Capacity role_capacity(const hw::SramSpec& sram) {
  Capacity capacity;
  for (const hw::SramBufferSpec& buffer : sram.buffers) {
    if (buffer.holds.empty()) continue;
    const std::int64_t share = buffer.capacity_bytes / static_cast<std::int64_t>(buffer.holds.size());
    for (hw::TensorKind kind : buffer.holds) {
      (kind == hw::TensorKind::weights ? capacity.weights : kind == hw::TensorKind::inputs ? capacity.inputs
                                                                                          : capacity.outputs) = share;
    }
  }
  return capacity;
}

// Tile sizes to try for a dimension: the dimension halved again and again, and the powers of two
// from 8 up, which line tiles up with array rows, columns, units and lanes.
std::vector<std::int64_t> tile_sizes(std::int64_t dimension) {
  std::vector<std::int64_t> values{dimension};
  for (std::int64_t n = dimension; n > 1;) {
    n = (n + 1) / 2;
    values.push_back(n);
  }
  for (std::int64_t power = 8; power < dimension; power *= 2) values.push_back(power);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

// Builds a program step by step, keeping the totals the replay is checked against.
class ProgramBuilder {
 public:
  ProgramBuilder(LayerProgram& program, std::uint64_t burst_bytes) : program_(program), burst_bytes_(burst_bytes) {}

  std::int32_t add(Step step) {
    if (program_.steps.size() >= kMaxLayerSteps) {
      throw MappingError("layer " + program_.layer + ": its program needs more than " +
                         std::to_string(kMaxLayerSteps) +
                         " data-movement steps, the limit of one layer; lower the batch size or sequence length, "
                         "or give the SRAM buffers more capacity");
    }
    const auto extent = static_cast<std::int64_t>(burst_extent(step.address, step.bytes, burst_bytes_));
    if (step.kind == StepKind::load) program_.dram_read_bytes = checked_add(program_.dram_read_bytes, extent);
    if (step.kind == StepKind::store) program_.dram_write_bytes = checked_add(program_.dram_write_bytes, extent);
    program_.macs = checked_add(program_.macs, step.macs);
    program_.vector_ops = checked_add(program_.vector_ops, step.vector_ops);
    program_.steps.push_back(std::move(step));
    return static_cast<std::int32_t>(program_.steps.size() - 1);
  }
  std::int32_t load(TensorRole role, std::uint64_t address, std::int64_t bytes, std::vector<std::int32_t> after) {
    Step step;
    step.kind = StepKind::load;
    step.tensor = role;
    step.address = address;
    step.bytes = static_cast<std::uint64_t>(bytes);
    step.after = std::move(after);
    return add(std::move(step));
  }
  std::int32_t store(std::uint64_t address, std::int64_t bytes, std::vector<std::int32_t> after) {
    Step step;
    step.kind = StepKind::store;
    step.tensor = TensorRole::outputs;
    step.address = address;
    step.bytes = static_cast<std::uint64_t>(bytes);
    step.after = std::move(after);
    return add(std::move(step));
  }

 private:
  LayerProgram& program_;
  std::uint64_t burst_bytes_;
};

// Double buffering: a tensor role has two SRAM slots; a load into a slot waits until the last
// step using the slot's previous contents has finished.
class Slots {
 public:
  // The step a load into the next slot must wait for (-1: none), and makes that slot current.
  std::int32_t claim() {
    current_ = 1 - current_;
    return last_user_[current_];
  }
  void used_by(std::int32_t step) { last_user_[current_] = step; }

 private:
  std::array<std::int32_t, 2> last_user_{-1, -1};
  int current_ = 1;
};

std::vector<std::int32_t> deps(std::initializer_list<std::int32_t> steps) {
  std::vector<std::int32_t> result;
  for (std::int32_t step : steps) {
    if (step >= 0) result.push_back(step);
  }
  return result;
}

struct GemmProblem {
  std::int64_t groups = 1, m = 0, n = 0, k = 0;
  std::int64_t e = 1;
  // Bias values per output column (0 or 1). The weights tensor is [group][n][k + bias]: a column's
  // bias follows its K weights, so it rides the load of the column's last K tile.
  std::int64_t bias = 0;
  // Input bytes a tile of output rows [m0, m0 + tm) needs, with `tk` of K.
  std::function<std::int64_t(std::int64_t m0, std::int64_t tm, std::int64_t tk)> input_bytes;
  std::int64_t vector_ops_per_output = 0;
  std::uint64_t weights = 0, inputs = 0, output = 0;
};

struct GemmTiling {
  std::int64_t tg = 1;  // groups a tile computes side by side (only with whole groups: tn = N, tk = K)
  std::int64_t tm = 0, tn = 0, tk = 0;
  bool n_outer = true;
  std::int64_t cycles = 0;
  std::int64_t dram_bytes = 0;
  std::int64_t tiles = 0;
};

// Groups per tile to try: 1, and for whole groups (tn = N, tk = K) of a grouped layer the halvings
// and powers of two of the group count and multiples of what one fold of the array holds side by
// side (7 of a 3x3 depthwise conv's channels on 64 rows). A pinned tiling keeps one group a tile.
std::vector<std::int64_t> group_tile_sizes(const GemmProblem& p, const hw::ComputeSpec& array, std::int64_t tn,
                                           std::int64_t tk, bool pinned) {
  if (pinned || p.groups == 1 || tn != p.n || tk != p.k) return {1};
  std::vector<std::int64_t> values = tile_sizes(p.groups);
  const std::int64_t per_fold = groups_per_fold(array, GemmShape{p.m, tn, tk, p.groups});
  for (std::int64_t tg = per_fold; tg < p.groups; tg *= 2) values.push_back(tg);
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  return values;
}

GemmTiling choose_gemm_tiling(const GemmProblem& p, const hw::ComputeSpec& array, const Capacity& capacity,
                              double dram_bytes_per_cycle, const std::string& layer,
                              const std::optional<workload::PinnedTiling>& pinned) {
  std::vector<GemmTiling> candidates;
  bool too_many_tiles = false;
  // By tile height: the input bytes of one sweep over M and of its largest tile, with all of K.
  struct InputSweep {
    std::int64_t total = 0;
    std::int64_t largest = 0;
  };
  std::map<std::int64_t, InputSweep> input_sweeps;
  const auto sweep_of = [&](std::int64_t tm) -> const InputSweep& {
    auto cached = input_sweeps.find(tm);
    if (cached == input_sweeps.end()) {
      InputSweep sweep;
      for (std::int64_t m0 = 0; m0 < p.m; m0 += tm) {
        const std::int64_t bytes = p.input_bytes(m0, std::min(tm, p.m - m0), p.k);
        sweep.total += bytes;
        sweep.largest = std::max(sweep.largest, bytes);
      }
      sweep.total *= p.groups;
      cached = input_sweeps.emplace(tm, sweep).first;
    }
    return cached->second;
  };
  // A pinned tiling is the only candidate: one with more tiles than a layer may have steps is
  // refused for that, not for fitting no buffer.
  if (pinned) {
    const std::int64_t tiles = workload::checked_product({p.groups, ceil_div(p.m, std::min(pinned->m, p.m)),
                                                          ceil_div(p.n, std::min(pinned->n, p.n)),
                                                          ceil_div(p.k, std::min(pinned->k, p.k))});
    if (tiles > static_cast<std::int64_t>(kMaxLayerSteps)) {
      throw MappingError("layer " + layer + ": the pinned tiling m" + std::to_string(pinned->m) + " n" +
                         std::to_string(pinned->n) + " k" + std::to_string(pinned->k) + " makes " +
                         std::to_string(tiles) + " tiles, more than the " + std::to_string(kMaxLayerSteps) +
                         " steps one layer may have; pin larger tiles");
    }
  }
  // A pinned tiling is the only candidate (tiles larger than the GEMM are clipped to it).
  const auto sizes = [&](std::int64_t dimension, std::int64_t pin) {
    return pinned ? std::vector<std::int64_t>{std::min(pin, dimension)} : tile_sizes(dimension);
  };
  for (std::int64_t tk : sizes(p.k, pinned ? pinned->k : 0)) {
    for (std::int64_t tn : sizes(p.n, pinned ? pinned->n : 0)) {
      for (std::int64_t tg : group_tile_sizes(p, array, tn, tk, pinned.has_value())) {
        if (checked_product({tg, tk + p.bias, tn, p.e}) * 2 > capacity.weights) continue;
        for (std::int64_t tm : sizes(p.m, pinned ? pinned->m : 0)) {
          // More tiles than a program may have steps: not a candidate (and not worth sweeping M for).
          if (checked_mul(ceil_div(p.groups, tg), ceil_div(p.m, tm)) > static_cast<std::int64_t>(kMaxLayerSteps)) {
            too_many_tiles = true;
            continue;
          }
          // Every input tile must fit (tiles that straddle images or rows are the largest).
          const InputSweep& sweep = sweep_of(tm);
          const std::int64_t largest_input_tile = tg * std::max(p.e, ceil_div(sweep.largest * tk, p.k));
          if (largest_input_tile * 2 > capacity.inputs || checked_product({tg, tm, tn, p.e}) * 2 > capacity.outputs) {
            continue;
          }
          const std::int64_t tiles_m = ceil_div(p.m, tm), tiles_n = ceil_div(p.n, tn), tiles_k = ceil_div(p.k, tk);
          const std::int64_t tiles = checked_product({ceil_div(p.groups, tg), tiles_m, tiles_n, tiles_k});
          if (tiles > static_cast<std::int64_t>(kMaxLayerSteps)) {
            too_many_tiles = true;
            continue;
          }
          const std::int64_t compute = checked_mul(tiles, gemm_cycles(array, GemmShape{tm, tn, tk, tg}).cycles);
          const std::int64_t weight_bytes = p.groups * (p.k + p.bias) * p.n * p.e;
          const std::int64_t input_sweep = sweep.total;
          const std::int64_t output_bytes = p.groups * p.m * p.n * p.e;
          for (bool n_outer : {true, false}) {
            if (pinned && n_outer != pinned->n_outer) continue;
            const std::int64_t weights = n_outer && tiles_k == 1 ? weight_bytes : weight_bytes * tiles_m;
            const std::int64_t inputs = !n_outer && tiles_k == 1 ? input_sweep : input_sweep * tiles_n;
            const std::int64_t bytes = weights + inputs + output_bytes;
            const auto memory = static_cast<std::int64_t>(static_cast<double>(bytes) / dram_bytes_per_cycle);
            const std::int64_t cycles = std::max(compute, memory);
            candidates.push_back(GemmTiling{tg, tm, tn, tk, n_outer, cycles, bytes, tiles});
          }
        }
      }
    }
  }
  // The estimate is coarse (full-size tiles, no pipeline effects): tilings within 1 % of the
  // fastest count as equally fast, and among them the least DRAM traffic wins, then the fewest
  // tiles. Traffic is what the estimate cannot see once a layer is compute-bound.
  const bool found = !candidates.empty();
  GemmTiling best;
  if (found) {
    std::int64_t fastest = candidates.front().cycles;
    for (const GemmTiling& t : candidates) fastest = std::min(fastest, t.cycles);
    const std::int64_t tolerance = fastest + fastest / 100;
    bool chosen = false;
    const auto key = [](const GemmTiling& t) { return std::make_tuple(t.dram_bytes, t.tiles, t.cycles, !t.n_outer); };
    for (const GemmTiling& t : candidates) {
      if (t.cycles > tolerance) continue;
      if (!chosen || key(t) < key(best)) best = t;
      chosen = true;
    }
  }
  if (!found && pinned) {
    throw MappingError("layer " + layer + ": the pinned tiling m" + std::to_string(pinned->m) + " n" +
                       std::to_string(pinned->n) + " k" + std::to_string(pinned->k) +
                       " does not fit half the weight, input and output buffers (" + std::to_string(capacity.weights) +
                       ", " + std::to_string(capacity.inputs) + ", " + std::to_string(capacity.outputs) + " bytes)");
  }
  if (!found && too_many_tiles) {
    throw MappingError("layer " + layer + ": every tiling that fits the SRAM buffers needs more than " +
                       std::to_string(kMaxLayerSteps) +
                       " tiles, the step limit of one layer; lower the batch size or give the buffers more capacity");
  }
  if (!found) {
    throw MappingError("layer " + layer + ": no tiling fits the SRAM: even a 1x1x1 tile needs " +
                       std::to_string(2 * (1 + p.bias) * p.e) + " bytes of weights, " + std::to_string(2 * p.input_bytes(0, 1, 1)) +
                       " of inputs and " + std::to_string(2 * p.e) +
                       " of outputs with double buffering; the buffers give " + std::to_string(capacity.weights) +
                       ", " + std::to_string(capacity.inputs) + " and " + std::to_string(capacity.outputs));
  }
  return best;
}

void emit_gemm(ProgramBuilder& builder, const GemmProblem& p, const GemmTiling& t) {
  Slots weight_slots, input_slots, output_slots;
  const std::int64_t tiles_k = ceil_div(p.k, t.tk);
  const std::int64_t input_total = p.input_bytes(0, p.m, p.k);
  for (std::int64_t g = 0; g < p.groups; g += t.tg) {
    const std::int64_t tg = std::min(t.tg, p.groups - g);  // groups side by side in this tile
    const std::int64_t outer_count = t.n_outer ? ceil_div(p.n, t.tn) : ceil_div(p.m, t.tm);
    const std::int64_t inner_count = t.n_outer ? ceil_div(p.m, t.tm) : ceil_div(p.n, t.tn);
    for (std::int64_t outer = 0; outer < outer_count; ++outer) {
      std::int32_t resident = -1;  // the outer operand's load, when all of K stays in SRAM
      for (std::int64_t inner = 0; inner < inner_count; ++inner) {
        const std::int64_t n0 = (t.n_outer ? outer : inner) * t.tn, m0 = (t.n_outer ? inner : outer) * t.tm;
        const std::int64_t tn = std::min(t.tn, p.n - n0), tm = std::min(t.tm, p.m - m0);
        const std::int32_t output_wait = output_slots.claim();
        std::int32_t last_compute = -1;
        for (std::int64_t k0 = 0; k0 < p.k; k0 += t.tk) {
          const std::int64_t tk = std::min(t.tk, p.k - k0);
          const bool reuse_outer = tiles_k == 1 && inner > 0;
          const auto load_weights = [&] {
            const std::uint64_t offset = static_cast<std::uint64_t>(((g * p.n + n0) * (p.k + p.bias) + k0) * p.e);
            const std::int64_t rows = k0 + tk == p.k ? tk + p.bias : tk;
            return builder.load(TensorRole::weights, p.weights + offset, tg * rows * tn * p.e, deps({weight_slots.claim()}));
          };
          const auto load_inputs = [&] {
            // Rows of the input in proportion to the output rows (NHWC keeps a row contiguous).
            const auto offset = static_cast<std::uint64_t>(input_total / std::max<std::int64_t>(1, p.m) * m0 * p.groups);
            return builder.load(TensorRole::inputs, p.inputs + offset, tg * p.input_bytes(m0, tm, tk), deps({input_slots.claim()}));
          };
          std::int32_t weight_load = -1, input_load = -1;
          if (t.n_outer) {
            weight_load = reuse_outer ? resident : load_weights();
            input_load = load_inputs();
            if (tiles_k == 1) resident = weight_load;
          } else {
            input_load = reuse_outer ? resident : load_inputs();
            weight_load = load_weights();
            if (tiles_k == 1) resident = input_load;
          }
          Step compute;
          compute.kind = StepKind::compute;
          compute.gemm = GemmShape{tm, tn, tk, tg};
          compute.macs = compute.gemm.macs();
          compute.bytes = static_cast<std::uint64_t>(tg * (tm * tk + tk * tn) * p.e);
          if (k0 + tk == p.k) compute.vector_ops = tg * tm * tn * p.vector_ops_per_output;
          compute.after = deps({weight_load, input_load, output_wait});
          last_compute = builder.add(std::move(compute));
          weight_slots.used_by(last_compute);
          input_slots.used_by(last_compute);
        }
        const auto offset = static_cast<std::uint64_t>((m0 * p.n * p.groups + g * p.n + n0) * p.e);
        output_slots.used_by(builder.store(p.output + offset, tg * tm * tn * p.e, deps({last_compute})));
      }
    }
  }
}

std::string describe(const GemmProblem& p, const GemmTiling& t) {
  std::string text = "gemm " + std::to_string(p.m) + "x" + std::to_string(p.n) + "x" + std::to_string(p.k);
  if (p.groups > 1) text += " x" + std::to_string(p.groups) + " groups";
  text += ", tiles ";
  if (t.tg > 1) text += "g" + std::to_string(t.tg) + " ";
  text += "m" + std::to_string(t.tm) + " n" + std::to_string(t.tn) + " k" + std::to_string(t.tk) + ", order " +
          (t.n_outer ? "n-m" : "m-n");
  if (ceil_div(p.k, t.tk) == 1) text += t.n_outer ? ", weights stay for all m" : ", inputs stay for all n";
  return text;
}

struct Context {
  const hw::AcceleratorSpec& accelerator;
  Capacity capacity;
  std::int64_t e;
  double dram_bytes_per_cycle;
  std::uint64_t burst_bytes;
};

void map_conv_or_linear(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                        const DramLayout& layout, LayerProgram& program) {
  GemmProblem p;
  p.e = context.e;
  p.weights = layout.weights;
  p.inputs = layout.inputs.front();
  p.output = layout.output;
  p.vector_ops_per_output = layer.spec.activation == workload::Activation::none ? 0 : 1;
  p.bias = (layer.spec.type == LayerType::conv2d ? layer.spec.conv.bias : layer.spec.linear.bias) ? 1 : 0;
  const workload::Shape& in = layer.input_shapes.front();
  const workload::Shape& out = layer.output_shape;
  const std::int64_t e = p.e;
  if (layer.spec.type == LayerType::conv2d) {
    const workload::Conv2dParams& conv = layer.spec.conv;
    p.groups = conv.depthwise ? in.channels : conv.groups;
    p.m = checked_mul(batch, checked_mul(out.height, out.width));
    p.n = out.channels / p.groups;
    const std::int64_t channels_per_group = in.channels / p.groups;
    p.k = checked_mul(conv.kernel.height * conv.kernel.width, channels_per_group);
    const std::int64_t k = p.k, out_width = out.width, out_rows = out.height, out_pixels = out.height * out.width;
    const std::int64_t image_bytes = in.height * in.width * channels_per_group * e;
    const std::int64_t row_bytes = in.width * channels_per_group * e;
    const std::int64_t reach = conv.dilation.height * (conv.kernel.height - 1) + 1;
    const std::int64_t stride = conv.stride.height, height = in.height;
    // Output pixels m0 .. m0 + tm (image, row, column order) need whole input rows with the
    // kernel's halo, per image; a share tk / K of the channels and taps.
    p.input_bytes = [=](std::int64_t m0, std::int64_t tm, std::int64_t tk) {
      std::int64_t bytes = 0;
      if (tm >= out_pixels) {
        bytes = ceil_div(tm, out_pixels) * image_bytes;
      } else {
        const std::int64_t first_row = (m0 % out_pixels) / out_width;
        const std::int64_t last_row = std::min(((m0 % out_pixels) + tm - 1) / out_width, out_rows - 1);
        const std::int64_t rows_in = std::min(height, (last_row - first_row) * stride + reach);
        bytes = rows_in * row_bytes * (((m0 % out_pixels) + tm > out_pixels) ? 2 : 1);
      }
      return std::max<std::int64_t>(e, ceil_div(bytes * tk, k));
    };
  } else {
    p.m = checked_mul(batch, in.kind == workload::ShapeKind::sequence ? in.steps : 1);
    p.n = layer.spec.linear.out_features;
    p.k = in.features;
    p.input_bytes = [=](std::int64_t, std::int64_t tm, std::int64_t tk) { return tm * tk * e; };
  }
  const GemmTiling tiling =
      choose_gemm_tiling(p, context.accelerator.compute, context.capacity, context.dram_bytes_per_cycle, layer.spec.name,
                         layer.spec.tiling);
  ProgramBuilder builder(program, context.burst_bytes);
  emit_gemm(builder, p, tiling);
  program.mapping = describe(p, tiling) + (layer.spec.tiling ? " (pinned)" : "");
  program.estimated_cycles = tiling.cycles;
}

// Step t of a recurrent layer needs h(t-1): steps run in order, each one GEMM of M = batch,
// K = in + H, N = gates x H, split into column blocks and batch chunks that fit the buffers
// (double-buffered). A pass's weights are [n][k + bias] (bias: b_ih and b_hh of the column).
// They load once when they all fit the weight buffer, else their column blocks stream from DRAM
// every step. h(t-1) stays in SRAM; x(t) is loaded, h(t) stored, except that with
// return_sequences false only the top layer's last step of each direction leaves for DRAM.
void map_recurrent(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                   const DramLayout& layout, LayerProgram& program) {
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
    // Batch chunks whose operands (x and h: K values a sample) and gate outputs fit.
    const std::int64_t chunk = std::min(batch, context.capacity.inputs / 2 / (k * e));
    const std::int64_t weight_block = resident ? n : context.capacity.weights / 2 / column_bytes;
    const std::int64_t block = std::min(weight_block, context.capacity.outputs / 2 / (std::max<std::int64_t>(1, chunk) * e));
    if (chunk < 1 || block < 1) {
      throw MappingError("layer " + layer.spec.name + ": one sample's step (" + std::to_string(k * e) +
                         " bytes of x and h, a weight column of " + std::to_string(column_bytes) + ") does not fit half the input, weight and "
                         "output buffers (" + std::to_string(context.capacity.inputs) + ", " +
                         std::to_string(context.capacity.weights) + ", " + std::to_string(context.capacity.outputs) + ")");
    }
    most_blocks = std::max(most_blocks, ceil_div(n, block) * ceil_div(batch, chunk));
    for (std::int64_t direction = 0; direction < directions; ++direction) {
      // Resident weights replace the previous pass's in the weight buffer.
      const std::int32_t resident_load =
          resident ? builder.load(TensorRole::weights, weights, weight_bytes, deps({previous_pass_end})) : -1;
      Slots input_slots, weight_slots, output_slots;
      std::int32_t previous_step_end = -1;  // the last compute of step t-1: h(t-1) is complete
      std::int32_t last_store = -1;
      for (std::int64_t step = 0; step < steps; ++step) {
        const std::int64_t t = direction == 0 ? step : steps - 1 - step;
        std::int32_t last_compute = -1;
        for (std::int64_t n0 = 0; n0 < n; n0 += block) {
          const std::int64_t tn = std::min(block, n - n0);
          const std::int32_t w = resident ? resident_load
                                          : builder.load(TensorRole::weights, weights + static_cast<std::uint64_t>(n0 * column_bytes),
                                                         tn * column_bytes, deps({weight_slots.claim()}));
          for (std::int64_t m0 = 0; m0 < batch; m0 += chunk) {
            const std::int64_t tm = std::min(chunk, batch - m0);
            // x(t) of an upper layer exists once the layer below has finished (both directions).
            std::vector<std::int32_t> x_after = below_done;
            if (const std::int32_t slot = input_slots.claim(); slot >= 0) x_after.push_back(slot);
            const std::int32_t x = builder.load(
                TensorRole::inputs, input + static_cast<std::uint64_t>((t * batch + m0) * input_features * e),
                tm * input_features * e, x_after);
            Step compute;
            compute.kind = StepKind::compute;
            compute.gemm = GemmShape{tm, tn, k};
            compute.macs = tm * tn * k;
            compute.bytes = static_cast<std::uint64_t>((tm * k + k * tn) * e);
            if (n0 + tn == n) compute.vector_ops = tm * hidden * vector_ops_per_unit;
            compute.after = deps({x, w, output_slots.claim(), previous_step_end});
            last_compute = builder.add(std::move(compute));
            input_slots.used_by(last_compute);
            if (!resident) weight_slots.used_by(last_compute);
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
  program.mapping = std::string("recurrent: ") + std::to_string(steps) + " steps in order, " +
                    std::to_string(most_blocks) + " tile(s) a step, weights " +
                    (all_resident ? "resident in SRAM" : "streamed from DRAM every step");
}

// Element-wise and pooling layers, batch-norm and softmax: chunks of the inputs through the vector unit.
void map_vector(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                const DramLayout& layout, LayerProgram& program) {
  const std::int64_t e = context.e;
  std::int64_t input_bytes = 0;
  for (const workload::Shape& shape : layer.input_shapes) input_bytes += checked_mul(checked_mul(shape.elements(), batch), e);
  const std::int64_t output_bytes = checked_mul(checked_mul(layer.counts.output_elems, batch), e);
  const std::int64_t weight_bytes = checked_mul(layer.counts.params, e);
  const bool gather = layer.spec.type == LayerType::embedding;
  const std::int64_t moved_weights =
      gather ? checked_mul(std::min(layer.input_shapes.front().steps * batch, layer.spec.embedding.num_embeddings) *
                               layer.spec.embedding.embedding_dim, e)
             : weight_bytes;
  if (!gather && weight_bytes > context.capacity.weights) {
    throw MappingError("layer " + layer.spec.name + ": its " + std::to_string(weight_bytes) +
                       " bytes of parameters do not fit the weight buffer (" + std::to_string(context.capacity.weights) + ")");
  }
  const std::int64_t chunks = std::max<std::int64_t>(
      {1, ceil_div(2 * (gather ? moved_weights : input_bytes), std::max<std::int64_t>(1, gather ? context.capacity.weights : context.capacity.inputs)),
       ceil_div(2 * output_bytes, std::max<std::int64_t>(1, context.capacity.outputs))});
  ProgramBuilder builder(program, context.burst_bytes);
  const std::int32_t parameters = !gather && weight_bytes > 0 ? builder.load(TensorRole::weights, layout.weights, weight_bytes, {}) : -1;
  const std::int64_t ops = checked_mul(layer.counts.vector_ops, batch);
  Slots input_slots, output_slots;
  for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
    const auto share = [&](std::int64_t total) { return total * (chunk + 1) / chunks - total * chunk / chunks; };
    const auto start = [&](std::int64_t total) { return static_cast<std::uint64_t>(total * chunk / chunks); };
    std::vector<std::int32_t> after = deps({parameters, output_slots.claim()});
    const std::int32_t wait = input_slots.claim();
    if (gather) {
      after.push_back(builder.load(TensorRole::weights, layout.weights + start(moved_weights), share(moved_weights), deps({wait})));
    } else {
      for (std::size_t i = 0; i < layer.input_shapes.size(); ++i) {
        const std::int64_t bytes = checked_mul(checked_mul(layer.input_shapes[i].elements(), batch), e);
        after.push_back(builder.load(TensorRole::inputs, layout.inputs[i] + start(bytes), share(bytes), deps({wait})));
      }
    }
    Step vector;
    vector.kind = StepKind::vector;
    vector.vector_ops = share(ops);
    vector.bytes = static_cast<std::uint64_t>(share(gather ? moved_weights : input_bytes));
    vector.after = after;
    const std::int32_t done = builder.add(std::move(vector));
    input_slots.used_by(done);
    output_slots.used_by(builder.store(layout.output + start(output_bytes), share(output_bytes), deps({done})));
  }
  program.mapping = std::to_string(chunks) + (chunks == 1 ? " chunk" : " chunks") + " through the vector unit";
}

// Stacked recurrent layers pass full sequences between them through DRAM regions after the
// output: the layers below the top alternate between the output and one scratch region when the
// output is a sequence, else between two scratch regions (one suffices for two layers).
std::uint64_t recurrent_scratch_bytes(const workload::NetworkLayer& layer, std::int64_t batch, std::int64_t element_bytes) {
  const workload::RecurrentParams& rnn = layer.spec.recurrent;
  if (rnn.num_layers < 2) return 0;
  const std::uint64_t regions = rnn.return_sequences || rnn.num_layers == 2 ? 1 : 2;
  const std::int64_t directions = rnn.bidirectional ? 2 : 1;
  return regions * align(static_cast<std::uint64_t>(checked_product(
                       {layer.input_shapes.front().steps, batch, rnn.hidden_size, directions, element_bytes})));
}

}  // namespace

std::string role_name(TensorRole role) {
  switch (role) {
    case TensorRole::weights: return "weights";
    case TensorRole::inputs: return "inputs";
    case TensorRole::outputs: return "outputs";
    default: return "state";
  }
}

std::string step_kind_name(StepKind kind) {
  switch (kind) {
    case StepKind::load: return "load";
    case StepKind::store: return "store";
    case StepKind::compute: return "compute";
    default: return "vector";
  }
}

std::uint64_t burst_extent(std::uint64_t address, std::uint64_t bytes, std::uint64_t burst_bytes) {
  if (bytes == 0) return 0;
  const std::uint64_t first = address / burst_bytes * burst_bytes;
  const std::uint64_t end = (address + bytes + burst_bytes - 1) / burst_bytes * burst_bytes;
  return end - first;
}

std::int64_t element_bytes(const hw::AcceleratorSpec& accelerator) {
  return std::max<std::int64_t>(1, (accelerator.compute.operand_bits + 7) / 8);
}

std::vector<DramLayout> layout_network(const workload::Network& network, std::int64_t batch,
                                       std::int64_t element_bytes) {
  std::vector<DramLayout> layouts(network.layers.size());
  std::uint64_t next = align(static_cast<std::uint64_t>(checked_mul(checked_mul(network.input.elements(), batch), element_bytes)));
  for (std::size_t i = 0; i < network.layers.size(); ++i) {
    const workload::NetworkLayer& layer = network.layers[i];
    DramLayout& layout = layouts[i];
    for (int input : layer.input_ids) layout.inputs.push_back(input < 0 ? 0 : layouts[static_cast<std::size_t>(input)].output);
    if (is_view(layer.spec.type)) {
      layout.output = layout.inputs.front();  // a view of its (first) input: no data moves
      continue;
    }
    layout.weights = next;
    next = align(next + static_cast<std::uint64_t>(checked_mul(layer.counts.params, element_bytes)));
    layout.output = next;
    next += align(static_cast<std::uint64_t>(checked_mul(checked_mul(layer.counts.output_elems, batch), element_bytes)));
    if (workload::is_recurrent(layer.spec.type)) next += recurrent_scratch_bytes(layer, batch, element_bytes);
  }
  return layouts;
}

std::string compulsory_traffic_problem(const workload::NetworkLayer& layer, std::int64_t batch,
                                       std::int64_t element_bytes, const LayerProgram& program) {
  if (is_view(layer.spec.type)) return "";
  std::int64_t weight_bytes = 0, output_bytes = 0;
  for (const Step& step : program.steps) {
    if (step.kind == StepKind::load && step.tensor == TensorRole::weights) weight_bytes += static_cast<std::int64_t>(step.bytes);
    if (step.kind == StepKind::store) output_bytes += static_cast<std::int64_t>(step.bytes);
  }
  const workload::TrafficBytes compulsory = workload::compulsory_traffic(layer, batch, element_bytes);
  const auto shortfall = [](const char* what, std::int64_t moved, std::int64_t needed) {
    return std::string("the program ") + what + " " + std::to_string(moved) + " bytes, fewer than the " +
           std::to_string(needed) + " the analysis says must move";
  };
  if (weight_bytes < compulsory.weight) return shortfall("loads weights of", weight_bytes, compulsory.weight);
  if (output_bytes < compulsory.output) return shortfall("stores", output_bytes, compulsory.output);
  return "";
}

LayerProgram map_layer(const workload::NetworkLayer& layer, std::int64_t batch, const hw::AcceleratorSpec& accelerator,
                       const DramLayout& layout) {
  LayerProgram program;
  program.layer = layer.spec.name;
  program.type = workload::layer_type_name(layer.spec.type);
  if (is_view(layer.spec.type)) {
    program.mapping = "view of its input: no data moves";
    return program;
  }
  const Context context{accelerator, role_capacity(accelerator.sram), element_bytes(accelerator),
                        accelerator.dram.peak_bytes_per_second() / (accelerator.compute.clock_mhz * 1e6),
                        static_cast<std::uint64_t>(accelerator.dram.burst_bytes())};
  switch (layer.spec.type) {
    case LayerType::conv2d:
    case LayerType::linear: map_conv_or_linear(layer, batch, context, layout, program); break;
    case LayerType::rnn:
    case LayerType::gru:
    case LayerType::lstm: map_recurrent(layer, batch, context, layout, program); break;
    default: map_vector(layer, batch, context, layout, program); break;
  }
  return program;
}

}  // namespace reusesim::mapping
