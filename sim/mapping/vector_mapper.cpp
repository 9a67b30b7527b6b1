#include "mapping/vector_mapper.h"

#include <algorithm>
#include <string>

#include "util/checked_math.h"

namespace reusesim::mapping {

using util::checked_mul;
using workload::LayerType;

std::int64_t double_buffered_chunks(std::int64_t bytes, std::int64_t capacity) {
  return ceil_div(checked_mul(2, bytes), std::max<std::int64_t>(1, capacity));
}

void stream_chunks(ProgramBuilder& builder, std::int64_t chunks, std::int32_t first, const std::vector<Stream>& loads,
                   const std::vector<Stream>& stores, std::int64_t sram_read_bytes, std::int64_t vector_ops) {
  Slots input_slots, output_slots;
  for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
    const auto share = [&](std::int64_t total) { return total * (chunk + 1) / chunks - total * chunk / chunks; };
    const auto start = [&](std::int64_t total) { return static_cast<std::uint64_t>(total * chunk / chunks); };
    std::vector<std::int32_t> after = deps({first, output_slots.claim()});
    const std::int32_t wait = input_slots.claim();
    for (const Stream& load : loads) {
      after.push_back(builder.load(load.role, load.address + start(load.bytes), share(load.bytes), deps({wait})));
    }
    program::Step vector;
    vector.kind = program::StepKind::vector;
    vector.vector_ops = share(vector_ops);
    vector.bytes = static_cast<std::uint64_t>(share(sram_read_bytes));
    vector.after = after;
    const std::int32_t done = builder.add(std::move(vector));
    input_slots.used_by(done);
    std::int32_t last = done;
    for (const Stream& store : stores) last = builder.store(store.address + start(store.bytes), share(store.bytes), deps({done}));
    output_slots.used_by(last);
  }
}

void map_vector(const workload::NetworkLayer& layer, std::int64_t batch, const Context& context,
                const DramLayout& layout, program::LayerProgram& program) {
  const std::int64_t e = context.e;
  std::int64_t input_bytes = 0;
  for (const workload::Shape& shape : layer.input_shapes) input_bytes += checked_mul(checked_mul(shape.elements(), batch), e);
  const std::int64_t output_bytes = checked_mul(checked_mul(layer.counts.output_elems, batch), e);
  const std::int64_t weight_bytes = checked_mul(layer.counts.params, e);
  const bool gather = layer.spec.type == LayerType::embedding;
  // A position table too large for the weight buffer streams beside the input it is added to,
  // read again for every sample (one sequential stream of batch x table bytes); one that fits is
  // loaded once for the batch.
  const bool per_sample_table =
      layer.spec.type == LayerType::position_embedding && weight_bytes > context.capacity.weights;
  const bool streamed = gather || per_sample_table;  // weights loaded chunk by chunk, not whole
  const std::int64_t moved_weights =
      gather ? checked_mul(std::min(layer.input_shapes.front().steps * batch, layer.spec.embedding.num_embeddings) *
                               layer.spec.embedding.embedding_dim, e)
      : per_sample_table ? checked_mul(weight_bytes, batch)
                         : weight_bytes;
  if (!streamed && weight_bytes > context.capacity.weights) {
    throw MappingError("layer " + layer.spec.name + ": its " + std::to_string(weight_bytes) +
                       " bytes of parameters do not fit the weight buffer (" + std::to_string(context.capacity.weights) + ")");
  }
  // A layer split over cores (LayerSplit) streams its part of every tensor; each core loads the
  // parameters that are not streamed whole.
  const LayerSplit& split = context.split;
  const auto part = [&](Stream stream) {
    stream.address += static_cast<std::uint64_t>(split.first(stream.bytes));
    stream.bytes = split.part(stream.bytes);
    return stream;
  };
  const std::int64_t vector_ops = checked_mul(layer.counts.vector_ops, batch);
  std::int64_t own_vector_ops = vector_ops;
  if (!split.whole()) {
    const std::int64_t elements = checked_mul(layer.counts.output_elems, batch);
    const std::int64_t first = split.first(elements), own = split.part(elements);
    program.part = part_text("elements", first, own, elements);
    // The ops of the core's elements: a core without elements has none, and the cores' ops add up
    // to the layer's (a share of the ops by cores alone would give some to cores without elements).
    own_vector_ops = prorate(vector_ops, first + own, elements) - prorate(vector_ops, first, elements);
  }
  if (split.part(output_bytes) == 0) {
    program.mapping = "no part of the layer on this core";
    return;
  }
  std::vector<Stream> loads;
  if (streamed) loads.push_back(part({program::TensorRole::weights, layout.weights, moved_weights}));
  if (!gather) {
    for (std::size_t i = 0; i < layer.input_shapes.size(); ++i) {
      if (context.plan.input_on_chip(i)) continue;  // read in place
      loads.push_back(part({program::TensorRole::inputs, layout.inputs[i],
                            checked_mul(checked_mul(layer.input_shapes[i].elements(), batch), e)}));
    }
  }
  std::vector<Stream> stores;
  if (!context.plan.output_on_chip) stores.push_back(part({program::TensorRole::outputs, layout.output, output_bytes}));
  const std::int64_t chunks = std::max<std::int64_t>(
      {1, gather ? 0 : double_buffered_chunks(split.part(input_bytes), context.capacity.inputs),
       streamed ? double_buffered_chunks(split.part(moved_weights), context.capacity.weights) : 0,
       double_buffered_chunks(split.part(output_bytes), context.capacity.outputs)});
  ProgramBuilder builder(program, context.burst_bytes);
  const std::int32_t parameters =
      !streamed && weight_bytes > 0 ? builder.load(program::TensorRole::weights, layout.weights, weight_bytes, {}) : -1;
  stream_chunks(builder, chunks, parameters, loads, stores, split.part(gather ? moved_weights : input_bytes),
                own_vector_ops);
  program.mapping = std::to_string(chunks) + (chunks == 1 ? " chunk" : " chunks") + " through the vector unit";
}

}  // namespace reusesim::mapping
