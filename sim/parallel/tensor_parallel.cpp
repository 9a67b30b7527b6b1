#include "parallel/tensor_parallel.h"

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>

#include "util/strings.h"

namespace reusesim::parallel {

namespace {

using workload::LayerType;

enum class Held { full, split, partial };

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

class Splitter {
 public:
  Splitter(const workload::ModelSpec& model, const workload::Network& network, std::int64_t degree)
      : network_(network), degree_(degree), chip_model_(model), held_(network.layers.size(), Held::full) {
    // A linear layer that feeds an attention matmul's second input projects keys or values.
    for (const workload::NetworkLayer& layer : network.layers) {
      if (layer.spec.type != LayerType::matmul || layer.input_ids.size() < 2 || layer.input_ids[1] < 0) continue;
      kv_heads_of_[static_cast<std::size_t>(layer.input_ids[1])] = layer.spec.matmul.kv_heads_or_heads();
    }
  }

  TensorParallelSplit split(std::int64_t decode_context) {
    // Heads first: a projection's split follows its attention's.
    for (std::size_t i = 0; i < network_.layers.size(); ++i) {
      const workload::LayerSpec& spec = layer(i).spec;
      if (spec.type == LayerType::matmul && spec.matmul.heads % degree_ != 0)
        refuse(i, std::to_string(spec.matmul.heads) + " heads do not divide among the chips");
    }
    std::vector<bool> consumed(network_.layers.size(), false);
    for (std::size_t i = 0; i < network_.layers.size(); ++i) {
      for (const int input : network_.layers[i].input_ids) {
        if (input >= 0) consumed[static_cast<std::size_t>(input)] = true;
      }
      split_layer(i);
    }
    for (std::size_t i = 0; i < network_.layers.size(); ++i) {
      if (consumed[i]) continue;
      if (held_[i] == Held::partial) reduce(i);
      // The whole output: every chip's slice, the first ones rounded up as the linear layer's were.
      if (held_[i] == Held::split) add(CollectiveKind::all_gather, i, network_.layers[i].counts.output_elems);
    }
    std::sort(result_.collectives.begin(), result_.collectives.end(),
              [](const TensorCollective& a, const TensorCollective& b) { return a.after_layer < b.after_layer; });
    result_.chip_model = chip_model_;
    workload::NetworkBuild build = workload::build_network(chip_model_, decode_context);
    if (!build.network) {
      throw std::logic_error("tensor-parallel split of " + network_.name +
                             " does not build: " + build.errors.front().message);
    }
    result_.chip_network = std::move(*build.network);
    // A partial sum's all-reduce carries the chip's whole-width output.
    for (TensorCollective& collective : result_.collectives) {
      if (collective.kind == CollectiveKind::all_reduce)
        collective.elements_per_sample = result_.chip_network.layers[collective.after_layer].counts.output_elems;
    }
    return std::move(result_);
  }

 private:
  const workload::NetworkLayer& layer(std::size_t i) const { return network_.layers[i]; }
  workload::LayerSpec& chip_spec(std::size_t i) { return chip_model_.layers[network_.layers[i].spec_index]; }

  [[noreturn]] void refuse(std::size_t i, const std::string& why) const {
    throw PlanError("plan.tensor: " + std::to_string(degree_) + " chips cannot split layer " + layer(i).spec.name +
                    " (" + util::name(layer(i).spec.type) + "): " + why);
  }

  void add(CollectiveKind kind, std::size_t after, std::int64_t elements) {
    result_.collectives.push_back({kind, after, elements});
  }
  // The partial sums layer `producer` outputs, all-reduced after it.
  void reduce(std::size_t producer) {
    add(CollectiveKind::all_reduce, producer, 0);
    held_[producer] = Held::full;
  }
  Held input_held(int input) const { return input < 0 ? Held::full : held_[static_cast<std::size_t>(input)]; }
  // Layer i's inputs that are partial sums, all-reduced after their producers.
  void reduce_partial_inputs(std::size_t i) {
    for (const int input : layer(i).input_ids) {
      if (input_held(input) == Held::partial) reduce(static_cast<std::size_t>(input));
    }
  }
  // Inputs this layer needs whole: partial sums are reduced first, slices refused.
  void need_full_inputs(std::size_t i) {
    reduce_partial_inputs(i);
    for (const int input : layer(i).input_ids) {
      if (input_held(input) == Held::split)
        refuse(i, "it needs its input " + network_.layers[static_cast<std::size_t>(input)].spec.name +
                      " whole, which the chips hold in slices");
    }
  }

  void split_layer(std::size_t i) {
    const LayerType type = layer(i).spec.type;
    if (type == LayerType::linear) return split_linear(i);
    if (type == LayerType::matmul) return split_matmul(i);
    if (type == LayerType::conv2d || workload::is_recurrent(type))
      refuse(i,
             "tensor parallelism splits linear and attention layers; run a model with convolutions or recurrent "
             "layers data-parallel");
    const bool elementwise = workload::is_activation(type) || type == LayerType::softmax || type == LayerType::add ||
                             type == LayerType::mul || (workload::is_view(type) && layer(i).input_ids.size() == 1);
    if (!elementwise) {
      need_full_inputs(i);
      held_[i] = Held::full;
      return;
    }
    // An add keeps partial sums (its other inputs whole or partial too); other element-wise
    // layers need them reduced.
    bool any_partial = false;
    for (const int input : layer(i).input_ids) any_partial = any_partial || input_held(input) == Held::partial;
    if (any_partial && type == LayerType::add) {
      for (const int input : layer(i).input_ids) {
        if (input_held(input) == Held::split) refuse(i, "it adds a slice to partial sums");
      }
      held_[i] = Held::partial;
      return;
    }
    reduce_partial_inputs(i);
    const Held first = input_held(layer(i).input_ids.front());
    for (const int input : layer(i).input_ids) {
      if (input_held(input) != first) refuse(i, "its inputs are held differently: some whole, some in slices");
    }
    held_[i] = first;
  }

  void split_linear(std::size_t i) {
    const int input = layer(i).input_ids.front();
    reduce_partial_inputs(i);
    workload::LinearParams& linear = chip_spec(i).linear;
    if (input_held(input) == Held::split) {
      // Row-parallel: the chip's slice of the input features, the whole output as a partial sum.
      const std::int64_t in_features = layer(i).input_shapes.front().features;
      if (linear.in_features) linear.in_features = ceil_div(in_features, degree_);
      held_[i] = Held::partial;
      // A fused activation needs the whole sum: it runs after the all-reduce (the same vector work).
      if (layer(i).spec.activation != workload::Activation::none) reduce(i);
      return;
    }
    const auto kv = kv_heads_of_.find(i);
    if (kv == kv_heads_of_.end()) {
      linear.out_features = ceil_div(linear.out_features, degree_);
      held_[i] = Held::split;
      return;
    }
    const std::int64_t kv_heads = kv->second;
    if (linear.out_features % kv_heads != 0) refuse(i, "its features do not divide into its matmul's key/value heads");
    if (kv_heads % degree_ != 0 && degree_ % kv_heads != 0) {
      refuse(i, std::to_string(kv_heads) + " key/value heads neither divide among the chips nor divide them");
    }
    linear.out_features = linear.out_features / kv_heads * std::max<std::int64_t>(1, kv_heads / degree_);
    held_[i] = Held::split;
  }

  void split_matmul(std::size_t i) {
    const std::vector<int>& inputs = layer(i).input_ids;
    reduce_partial_inputs(i);
    for (const int input : inputs) {
      if (input_held(input) != Held::split)
        refuse(i, "its input " +
                      (input < 0 ? std::string("(the model's)") : layer(static_cast<std::size_t>(input)).spec.name) +
                      " is whole: tensor parallelism splits attention by heads after column-parallel projections");
    }
    workload::MatmulParams& matmul = chip_spec(i).matmul;
    const std::int64_t kv_heads = matmul.kv_heads_or_heads();
    matmul.heads /= degree_;
    if (matmul.kv_heads > 0) matmul.kv_heads = std::max<std::int64_t>(1, kv_heads / degree_);
    held_[i] = Held::split;
  }

  const workload::Network& network_;
  std::int64_t degree_;
  workload::ModelSpec chip_model_;
  std::vector<Held> held_;                           // by layer position: how its output is held
  std::map<std::size_t, std::int64_t> kv_heads_of_;  // key and value projections' heads
  TensorParallelSplit result_;
};

}  // namespace

TensorParallelSplit split_tensor_parallel(const workload::ModelSpec& model, const workload::Network& network,
                                          std::int64_t degree, std::int64_t decode_context) {
  if (degree == 1) return {model, network, {}};  // one chip holds every layer whole
  return Splitter(model, network, degree).split(decode_context);
}

}  // namespace reusesim::parallel
