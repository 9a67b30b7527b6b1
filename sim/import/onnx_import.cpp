#include "import/onnx_import.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "import/import_error.h"

namespace reusesim::import {

namespace {

// A tensor's dimensions as shape inference left them, batch included.
struct TensorDims {
  std::vector<std::int64_t> sizes;   // the batch counts 1; -1: unknown or another symbol
  std::vector<std::string> symbols;  // dim_param, "" for a number
  int batch_axis = -1;               // the axis named by --batch-dim, if any
  int element_type = 0;
  bool has_shape = false;
};

// A data tensor: the ReuseSim layer whose output it is (or the model input), seen through the
// views (Flatten, Reshape, Squeeze, Transpose, ...) between them.
struct DataValue {
  std::string layer;
  int batch_axis = 0;
  std::string view_node;  // the last view node on the way, "" if none
};

// Operators whose input 0 (Gather: 1) is always an activation: a graph input read there is the
// model's data, not a stripped parameter.
const std::set<std::string> kDataFirstOps{
    "Conv", "Gemm", "MatMul", "BatchNormalization", "LayerNormalization", "MaxPool", "AveragePool", "GlobalAveragePool",
    "GlobalMaxPool", "Relu", "Clip", "Sigmoid", "Tanh", "Softmax", "LogSoftmax", "LSTM", "GRU", "RNN",
    "Flatten", "Reshape", "Squeeze", "Unsqueeze", "Transpose"};
const std::set<std::string> kViewOps{"Flatten", "Reshape", "Squeeze", "Unsqueeze", "Transpose"};

std::optional<workload::Precision> precision_of(int element_type) {
  switch (element_type) {
    case onnx::TensorProto::FLOAT: return workload::Precision::fp32;
    case onnx::TensorProto::FLOAT16: return workload::Precision::fp16;
    case onnx::TensorProto::BFLOAT16: return workload::Precision::bf16;
    case onnx::TensorProto::INT16: return workload::Precision::int16;
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8: return workload::Precision::int8;
    default: return std::nullopt;
  }
}

std::string dims_text(const TensorDims& dims) {
  std::string text;
  for (std::size_t i = 0; i < dims.sizes.size(); ++i) {
    text += (i == 0 ? "" : ", ") + (dims.symbols[i].empty() ? std::to_string(dims.sizes[i]) : dims.symbols[i]);
  }
  return "[" + text + "]";
}

class OnnxImporter {
 public:
  OnnxImporter(const std::string& origin, const OnnxOptions& options) : origin_(origin), options_(options) {}

  ImportedModel run(onnx::ModelProto& model) {
    const onnx::GraphProto& graph = model.graph();
    read_dims(graph);
    for (const onnx::NodeProto& node : graph.node()) {
      for (const std::string& input : node.input()) ++uses_[input];
    }
    for (const onnx::ValueInfoProto& output : graph.output()) ++uses_[output.name()];
    classify_inputs(graph);
    for (const onnx::NodeProto& node : graph.node()) import_node(node);
    node_ = nullptr;
    if (result_.spec.layers.empty()) fail("the graph has no operator that makes a layer");
    result_.spec.name = model_name();
    std::string producer = model.producer_name().empty() ? "an unnamed producer" : model.producer_name();
    if (!model.producer_version().empty()) producer += " " + model.producer_version();
    std::int64_t opset = 0;
    for (const onnx::OperatorSetIdProto& set : model.opset_import()) {
      if (set.domain().empty() || set.domain() == "ai.onnx") opset = set.version();
    }
    result_.header = {"Imported from " + base_name() + " by `reusesim import onnx` (written by " + producer +
                          ", opset " + std::to_string(opset) + ").",
                      "Each layer's comment names the ONNX node (operator) it comes from; names are the node",
                      "names with characters the format does not allow ('/', '.', ...) turned into '_'."};
    return std::move(result_);
  }

 private:
  // Names the node being imported, if any.
  [[noreturn]] void fail(const std::string& message) const {
    throw ImportError(origin_ + ": " + (node_ == nullptr ? "" : "node " + node_label(*node_) + ": ") + message);
  }
  static std::string node_label(const onnx::NodeProto& node) {
    return (node.name().empty() ? "(unnamed)" : node.name()) + " (" + node.op_type() + ")";
  }

  std::string base_name() const {
    const std::size_t slash = origin_.find_last_of('/');
    return slash == std::string::npos ? origin_ : origin_.substr(slash + 1);
  }
  std::string model_name() const {
    std::string stem = base_name();
    if (const std::size_t dot = stem.rfind('.'); dot != std::string::npos && dot > 0) stem.resize(dot);
    return layer_name_from(stem);
  }

  void read_dims(const onnx::GraphProto& graph) {
    const auto read = [&](const onnx::ValueInfoProto& info) {
      if (!info.type().has_tensor_type()) return;
      const onnx::TypeProto::Tensor& tensor = info.type().tensor_type();
      TensorDims dims;
      dims.element_type = tensor.elem_type();
      if (!tensor.has_shape()) {
        dims_.emplace(info.name(), dims);
        return;
      }
      dims.has_shape = true;
      for (const onnx::TensorShapeProto::Dimension& dim : tensor.shape().dim()) {
        const bool batch = !options_.batch_dim.empty() && dim.has_dim_param() && dim.dim_param() == options_.batch_dim;
        if (batch && dims.batch_axis < 0) dims.batch_axis = static_cast<int>(dims.sizes.size());
        dims.sizes.push_back(batch ? 1 : dim.has_dim_value() ? dim.dim_value() : -1);
        dims.symbols.push_back(dim.has_dim_param() ? dim.dim_param() : dim.has_dim_value() ? "" : "?");
      }
      dims_[info.name()] = dims;  // a later, inferred entry completes an earlier one
    };
    for (const onnx::ValueInfoProto& info : graph.input()) read(info);
    for (const onnx::ValueInfoProto& info : graph.value_info()) read(info);
    for (const onnx::ValueInfoProto& info : graph.output()) read(info);
    for (const onnx::TensorProto& tensor : graph.initializer()) {
      TensorDims dims;
      dims.element_type = tensor.data_type();
      dims.has_shape = true;
      for (std::int64_t size : tensor.dims()) {
        dims.sizes.push_back(size);
        dims.symbols.emplace_back();
      }
      dims_[tensor.name()] = dims;
      constants_[tensor.name()] = &tensor;
    }
  }

  // With weights stripped (export_params=False) parameters are graph inputs too: the data input is
  // the graph input that an operator reads as its activation. Everything else is a parameter.
  void classify_inputs(const onnx::GraphProto& graph) {
    std::set<std::string> read_as_data;
    for (const onnx::NodeProto& node : graph.node()) {
      for (int i = 0; i < node.input_size(); ++i) {
        const bool data_slot = node.op_type() == "Gather" ? i == 1
                               : node.op_type() == "Concat" ? true
                                                            : i == 0 && kDataFirstOps.count(node.op_type()) > 0;
        if (data_slot) read_as_data.insert(node.input(i));
      }
    }
    std::vector<std::string> data_inputs;
    for (const onnx::ValueInfoProto& input : graph.input()) {
      if (constants_.count(input.name()) > 0 || read_as_data.count(input.name()) == 0) {
        parameters_.insert(input.name());
      } else {
        data_inputs.push_back(input.name());
      }
    }
    for (const auto& constant : constants_) parameters_.insert(constant.first);
    if (data_inputs.empty()) fail("no graph input is read as data by an operator (only parameters were found)");
    if (data_inputs.size() > 1) {
      fail("graph inputs " + data_inputs[0] + " and " + data_inputs[1] +
           " are both data; a ReuseSim model has one input");
    }
    set_model_input(data_inputs.front());
    set_precision(graph);
  }

  void set_model_input(const std::string& name) {
    const TensorDims& raw = raw_dims(name, "the graph input");
    if (!options_.batch_dim.empty() && raw.batch_axis < 0) {
      fail("--batch-dim " + options_.batch_dim + ": the input " + name + " has no such dimension (its dimensions are " +
           dims_text(raw) + ")");
    }
    const TensorDims dims = known_dims(name, "the graph input", raw.batch_axis);
    const int batch_axis = std::max(dims.batch_axis, 0);
    std::vector<std::int64_t> per_sample = without_batch(dims, batch_axis);
    std::optional<Shape> shape;
    const bool tokens = dims.element_type == onnx::TensorProto::INT64 || dims.element_type == onnx::TensorProto::INT32;
    if (per_sample.size() == 3 && !tokens) shape = Shape::image(per_sample[0], per_sample[1], per_sample[2]);
    if (per_sample.size() == 2 && !tokens) shape = Shape::sequence(per_sample[0], per_sample[1]);
    if (per_sample.size() == 1) shape = tokens ? Shape::sequence(per_sample[0], 1) : Shape::vector(per_sample[0]);
    if (!shape) {
      fail("the input " + name + " " + dims_text(dims) + " is neither an image [N, C, H, W], a vector [N, F], a sequence "
           "nor token ids");
    }
    result_.spec.input = *shape;
    layer_shapes_[workload::kModelInput] = *shape;
    data_[name] = DataValue{workload::kModelInput, batch_axis, ""};
  }

  // The data's element type, or for token ids the first parameter's (the embedding table's).
  void set_precision(const onnx::GraphProto& graph) {
    for (const onnx::ValueInfoProto& input : graph.input()) {
      const auto found = dims_.find(input.name());
      if (found == dims_.end()) continue;
      if (const auto precision = precision_of(found->second.element_type)) {
        result_.spec.precision = *precision;
        return;
      }
    }
  }

  // The dimensions of `tensor` as shape inference left them.
  const TensorDims& raw_dims(const std::string& tensor, const std::string& what) const {
    const auto found = dims_.find(tensor);
    if (found == dims_.end() || !found->second.has_shape) {
      fail(what + " " + tensor + " has no shape, and ONNX shape inference could not fill it");
    }
    return found->second;
  }

  // The dimensions of `tensor`, all known but the batch at `batch_axis` (counted as 1), which
  // may be any symbol: exporters name it anew after some operators.
  TensorDims known_dims(const std::string& tensor, const std::string& what, int batch_axis = -1) const {
    TensorDims dims = raw_dims(tensor, what);
    for (std::size_t i = 0; i < dims.sizes.size(); ++i) {
      if (dims.sizes[i] >= 0) continue;
      if (static_cast<int>(i) == batch_axis) {
        dims.sizes[i] = 1;
        continue;
      }
      if (dims.symbols[i] == "?") {
        fail(what + " " + tensor + " " + dims_text(dims) + ": dimension " + std::to_string(i) +
             " is unknown, and ONNX shape inference could not fill it");
      }
      fail(what + " " + tensor + " " + dims_text(dims) + ": the dynamic dimension \"" + dims.symbols[i] +
           "\" has no size; if it is the batch, say so with --batch-dim " + dims.symbols[i] +
           " (any other dimension needs a fixed size)");
    }
    return dims;
  }

  static std::vector<std::int64_t> without_batch(const TensorDims& dims, int batch_axis) {
    std::vector<std::int64_t> sizes = dims.sizes;
    if (batch_axis >= 0 && batch_axis < static_cast<int>(sizes.size())) sizes.erase(sizes.begin() + batch_axis);
    return sizes;
  }

  // ---- the nodes ----

  void import_node(const onnx::NodeProto& node) {
    node_ = &node;
    if (!node.domain().empty() && node.domain() != "ai.onnx") {
      fail("operators of domain " + node.domain() + " have no layer in ReuseSim's library");
    }
    const bool reads_data = std::any_of(node.input().begin(), node.input().end(),
                                        [&](const std::string& input) { return data_.count(input) > 0; });
    for (const std::string& input : node.input()) {
      if (!input.empty() && data_.count(input) == 0 && parameters_.count(input) == 0) {
        fail("input " + input + " is not produced before this node (the graph is not sorted)");
      }
    }
    // Operators on parameters and constants only (weight reshuffles, shape arithmetic) and Shape
    // of an activation make no layer: what they compute is a parameter.
    if (!reads_data || node.op_type() == "Shape" || node.op_type() == "Size") {
      for (const std::string& output : node.output()) parameters_.insert(output);
      if (node.op_type() == "Constant" && node.attribute_size() > 0 && node.attribute(0).has_t()) {
        constants_[node.output(0)] = &node.attribute(0).t();
      }
      return;
    }
    const std::string& op = node.op_type();
    if (op == "Conv") return import_conv(node);
    if (op == "Gemm" || op == "MatMul") return import_linear(node);
    if (op == "MaxPool" || op == "AveragePool") return import_pool(node);
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool") return import_global_pool(node);
    if (op == "BatchNormalization") return import_unary(node, LayerType::batchnorm, 1);
    if (op == "LayerNormalization") return import_layer_norm(node);
    if (op == "Relu") return import_unary(node, LayerType::relu, 1);
    if (op == "Sigmoid") return import_unary(node, LayerType::sigmoid, 1);
    if (op == "Tanh") return import_unary(node, LayerType::tanh, 1);
    if (op == "Softmax" || op == "LogSoftmax") return import_unary(node, LayerType::softmax, 1);
    if (op == "Clip") return import_clip(node);
    if (op == "Add" || op == "Mul") return import_elementwise(node);
    if (op == "Concat") return import_concat(node);
    if (op == "Gather") return import_embedding(node);
    if (op == "LSTM" || op == "GRU" || op == "RNN") return import_recurrent(node);
    if (op == "Identity" || op == "Dropout") {
      data_[node.output(0)] = data_.at(node.input(0));
      return;
    }
    if (kViewOps.count(op) > 0) return import_view(node);
    fail("the operator " + op + " has no layer in ReuseSim's layer library; docs/import.md lists the operators that map");
  }

  // ---- helpers for the nodes ----

  std::int64_t int_attribute(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback) const {
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.name() == name) return attribute.i();
    }
    return fallback;
  }
  std::vector<std::int64_t> ints_attribute(const onnx::NodeProto& node, const std::string& name) const {
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.name() == name) return {attribute.ints().begin(), attribute.ints().end()};
    }
    return {};
  }
  std::string string_attribute(const onnx::NodeProto& node, const std::string& name, const std::string& fallback) const {
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.name() == name) return attribute.s();
    }
    return fallback;
  }

  // A [height, width] attribute (kernel_shape, strides, dilations), 2-D only.
  HeightWidth pair_attribute(const onnx::NodeProto& node, const std::string& name, std::int64_t fallback) const {
    const std::vector<std::int64_t> values = ints_attribute(node, name);
    if (values.empty()) return HeightWidth{fallback, fallback};
    if (values.size() != 2) fail(name + " has " + std::to_string(values.size()) + " values; only 2-D windows map");
    return HeightWidth{values[0], values[1]};
  }

  // pads [top, left, bottom, right]: the layer library pads both sides alike.
  HeightWidth padding(const onnx::NodeProto& node) const {
    const std::string auto_pad = string_attribute(node, "auto_pad", "NOTSET");
    if (auto_pad != "NOTSET" && auto_pad != "VALID") {
      fail("auto_pad " + auto_pad + " is not mapped; export with explicit pads");
    }
    const std::vector<std::int64_t> pads = ints_attribute(node, "pads");
    if (pads.empty()) return HeightWidth{0, 0};
    if (pads.size() != 4 || pads[0] != pads[2] || pads[1] != pads[3]) {
      fail("pads must be 2-D and the same on both sides (the layer library pads symmetrically)");
    }
    return HeightWidth{pads[0], pads[1]};
  }

  bool present(const onnx::NodeProto& node, int slot) const {
    return node.input_size() > slot && !node.input(slot).empty();
  }

  // Input `slot`, which must be a parameter: its known dimensions.
  TensorDims parameter(const onnx::NodeProto& node, int slot, const std::string& role) const {
    const std::string& name = node.input(slot);
    if (data_.count(name) > 0) {
      fail(role + " " + name + " is an activation, not a parameter; an operator on two activations of this "
                 "kind has no layer");
    }
    return known_dims(name, "the " + role);
  }

  const DataValue& data(const onnx::NodeProto& node, int slot) const {
    if (!present(node, slot) || data_.count(node.input(slot)) == 0) {
      fail("input " + std::to_string(slot) + " must be an activation, but it is a parameter");
    }
    return data_.at(node.input(slot));
  }

  // The shape `tensor` has per sample when read as `kind`, or nullopt when its rank does not fit.
  std::optional<Shape> read_as(const std::string& tensor, int batch_axis, ShapeKind kind) const {
    const std::vector<std::int64_t> sizes = without_batch(known_dims(tensor, "the tensor", batch_axis), batch_axis);
    if (kind == ShapeKind::image && sizes.size() == 3) return Shape::image(sizes[0], sizes[1], sizes[2]);
    if (kind == ShapeKind::vector && sizes.size() == 1) return Shape::vector(sizes[0]);
    if (kind == ShapeKind::sequence && sizes.size() == 2) return Shape::sequence(sizes[0], sizes[1]);
    if (kind == ShapeKind::sequence && sizes.size() == 1) return Shape::sequence(sizes[0], 1);  // token ids
    return std::nullopt;
  }

  // The layer whose output input `slot` of `node` is, read as `kind`: views that flatten an image
  // into a vector become a flatten layer; any other change of shape has no layer.
  std::string input_as(const onnx::NodeProto& node, int slot, ShapeKind kind) {
    const DataValue& value = data(node, slot);
    const std::string& tensor = node.input(slot);
    const std::optional<Shape> wanted = read_as(tensor, value.batch_axis, kind);
    const Shape& held = layer_shapes_.at(value.layer);
    const std::string seen = dims_text(raw_dims(tensor, "the tensor"));
    if (!wanted) fail("reads " + tensor + " " + seen + ", which has the wrong rank for its input");
    if (*wanted == held) return value.layer;
    if (held.kind == ShapeKind::image && wanted->kind == ShapeKind::vector && held.elements() == wanted->features) {
      const auto made = flattened_.find(value.layer);
      if (made != flattened_.end()) return made->second;
      LayerSpec flatten;
      flatten.type = LayerType::flatten;
      flatten.inputs = {value.layer};
      const std::string from = value.view_node.empty() ? node.name() + "_input" : value.view_node;
      const std::string name = add_layer(flatten, from, "view " + (value.view_node.empty() ? tensor : value.view_node));
      flattened_[value.layer] = name;
      return name;
    }
    fail("reads " + tensor + " " + seen + " as " + wanted->describe() + ", but it is " + held.describe() +
                   " from layer " + value.layer + ", and no layer of the library turns one into the other");
  }

  std::string unique_name(const std::string& onnx_name) {
    const std::string base = layer_name_from(onnx_name);
    std::string name = base;
    for (int copy = 2; layer_shapes_.count(name) > 0; ++copy) name = base + "_" + std::to_string(copy);
    return name;
  }

  // Adds a layer, its shape inferred by the layer library now so a refusal names the node.
  std::string add_layer(LayerSpec layer, const std::string& onnx_name, const std::string& comment) {
    layer.name = unique_name(onnx_name);
    std::vector<Shape> inputs;
    for (const std::string& input : layer.inputs) inputs.push_back(layer_shapes_.at(input));
    const workload::ShapeResult result = workload::infer_output_shape(layer, inputs);
    if (!result.shape) {
      fail(comment + ": the layer library refuses it: " + (result.error.field.empty() ? "" : result.error.field + ": ") +
           result.error.message);
    }
    layer_shapes_[layer.name] = *result.shape;
    result_.spec.layers.push_back(layer);
    result_.layer_comments.push_back(comment);
    return layer.name;
  }

  // A layer made from `node`, whose output `slot` ONNX says has the batch at `batch_axis`: the
  // shape the layer library gives must be what shape inference found.
  void add_node_layer(const onnx::NodeProto& node, LayerSpec layer, int batch_axis, int slot = 0) {
    const std::string name = add_layer(std::move(layer), node.name().empty() ? node.op_type() : node.name(),
                                       "node " + node_label(node));
    set_output(node, slot, name, batch_axis);
  }

  void set_output(const onnx::NodeProto& node, int slot, const std::string& layer, int batch_axis) {
    const std::string& tensor = node.output(slot);
    const Shape& shape = layer_shapes_.at(layer);
    const TensorDims dims = known_dims(tensor, "the output", batch_axis);
    const std::optional<Shape> seen = read_as(tensor, batch_axis, shape.kind);
    std::int64_t elements = 1;
    for (std::int64_t size : without_batch(dims, batch_axis)) elements *= size;
    if (seen ? *seen != shape : elements != shape.elements()) {
      fail("ONNX infers " + tensor + " " + dims_text(dims) + ", but the layer library gives " + shape.describe());
    }
    data_[tensor] = DataValue{layer, batch_axis, ""};
  }

  // ---- one importer per operator family ----

  void import_conv(const onnx::NodeProto& node) {
    const TensorDims weights = parameter(node, 1, "weight");
    if (weights.sizes.size() != 4) fail("only 2-D convolutions map (the weight has " + dims_text(weights) + ")");
    LayerSpec layer;
    layer.type = LayerType::conv2d;
    layer.inputs = {input_as(node, 0, ShapeKind::image)};
    layer.conv.out_channels = weights.sizes[0];
    layer.conv.kernel = HeightWidth{weights.sizes[2], weights.sizes[3]};
    layer.conv.stride = pair_attribute(node, "strides", 1);
    layer.conv.dilation = pair_attribute(node, "dilations", 1);
    layer.conv.padding = padding(node);
    layer.conv.groups = int_attribute(node, "group", 1);
    layer.conv.bias = present(node, 2);
    add_node_layer(node, layer, 0);
  }

  // Gemm (A x B + C) and MatMul (A x B) with B a parameter: a linear layer; a MatMul's bias comes
  // with the Add that follows it.
  void import_linear(const onnx::NodeProto& node) {
    const bool gemm = node.op_type() == "Gemm";
    if (gemm && int_attribute(node, "transA", 0) != 0) fail("transA = 1 (the batch along columns) is not mapped");
    const TensorDims weights = parameter(node, 1, "weight");
    if (weights.sizes.size() != 2) fail("the weight " + dims_text(weights) + " is not a matrix");
    const DataValue& in = data(node, 0);
    const std::size_t rank = raw_dims(node.input(0), "the tensor").sizes.size();
    LayerSpec layer;
    layer.type = LayerType::linear;
    layer.inputs = {input_as(node, 0, rank == 3 ? ShapeKind::sequence : ShapeKind::vector)};
    layer.linear.out_features = weights.sizes[gemm && int_attribute(node, "transB", 0) != 0 ? 0 : 1];
    layer.linear.bias = gemm && present(node, 2);
    add_node_layer(node, layer, in.batch_axis);
    if (!gemm) unbiased_linear_[node.output(0)] = result_.spec.layers.size() - 1;
  }

  void import_pool(const onnx::NodeProto& node) {
    const HeightWidth dilation = pair_attribute(node, "dilations", 1);
    if (dilation.height != 1 || dilation.width != 1) fail("dilated pooling is not mapped");
    LayerSpec layer;
    layer.type = node.op_type() == "MaxPool" ? LayerType::maxpool : LayerType::avgpool;
    layer.inputs = {input_as(node, 0, ShapeKind::image)};
    layer.pool.kernel = pair_attribute(node, "kernel_shape", 0);
    layer.pool.stride = pair_attribute(node, "strides", 1);  // ONNX's default stride is 1, not the kernel
    layer.pool.padding = padding(node);
    layer.pool.ceil_mode = int_attribute(node, "ceil_mode", 0) != 0;
    add_node_layer(node, layer, 0);
  }

  void import_global_pool(const onnx::NodeProto& node) {
    LayerSpec layer;
    layer.type = node.op_type() == "GlobalMaxPool" ? LayerType::maxpool : LayerType::avgpool;
    layer.inputs = {input_as(node, 0, ShapeKind::image)};
    layer.pool.global = true;
    add_node_layer(node, layer, 0);
  }

  // A layer of one activation input whose output keeps its shape; `data_inputs` counts the inputs
  // that are activations (BatchNormalization's scale, shift, mean and variance are parameters).
  void import_unary(const onnx::NodeProto& node, LayerType type, int data_inputs) {
    for (int slot = data_inputs; slot < node.input_size(); ++slot) {
      if (present(node, slot)) parameter(node, slot, "parameter");
    }
    const DataValue in = data(node, 0);
    LayerSpec layer;
    layer.type = type;
    layer.inputs = {in.layer};
    add_node_layer(node, layer, in.batch_axis);
  }

  // LayerNormalization over the last axis (the features) is `layernorm`; over more axes it has no layer.
  void import_layer_norm(const onnx::NodeProto& node) {
    const std::int64_t rank = static_cast<std::int64_t>(known_dims(node.input(0), "the input").sizes.size());
    const std::int64_t axis = int_attribute(node, "axis", -1);
    if (axis != -1 && axis != rank - 1) {
      fail("LayerNormalization over axes " + std::to_string(axis) + ".. of a rank-" + std::to_string(rank) +
           " tensor: the layer library's layernorm normalizes the last axis (the features) only");
    }
    import_unary(node, LayerType::layernorm, 1);
  }

  // Clip(0, 6) is ReLU6 and Clip(0) ReLU (opset 11 on: the bounds are inputs, given as constants).
  void import_clip(const onnx::NodeProto& node) {
    const auto bound = [&](int slot, const char* attribute) -> std::optional<double> {
      if (present(node, slot)) return scalar_constant(node.input(slot));
      for (const onnx::AttributeProto& found : node.attribute()) {
        if (found.name() == attribute) return found.f();
      }
      return std::nullopt;
    };
    const std::optional<double> low = bound(1, "min"), high = bound(2, "max");
    if (low && *low == 0 && high && *high == 6) return import_unary(node, LayerType::relu6, 1);
    if (low && *low == 0 && !high) return import_unary(node, LayerType::relu, 1);
    fail("only Clip(0, 6) (ReLU6) and Clip(0) (ReLU) have a layer");
  }

  double scalar_constant(const std::string& name) const {
    const auto found = constants_.find(name);
    if (found != constants_.end()) {
      const onnx::TensorProto& tensor = *found->second;
      if (tensor.data_type() == onnx::TensorProto::FLOAT && tensor.float_data_size() == 1) return tensor.float_data(0);
      if (tensor.data_type() == onnx::TensorProto::FLOAT && tensor.raw_data().size() == sizeof(float)) {
        float value = 0;
        std::memcpy(&value, tensor.raw_data().data(), sizeof value);
        return value;
      }
    }
    fail(name + " must be a float constant in the file (weights stripped from it are unknown)");
  }

  void import_elementwise(const onnx::NodeProto& node) {
    const bool add = node.op_type() == "Add";
    if (node.input_size() != 2) fail("takes two inputs here");
    const bool first = data_.count(node.input(0)) > 0, second = data_.count(node.input(1)) > 0;
    if (!first || !second) {
      const int slot = first ? 0 : 1;
      if (add && fold_bias(node, slot)) return;
      fail(std::string(add ? "adds a parameter to" : "multiplies by a parameter") + " an activation; " +
                     "the layer library has a bias only inside conv2d and linear (after a MatMul whose output " +
                     "only this Add reads)");
    }
    const DataValue& in = data(node, 0);
    LayerSpec layer;
    layer.type = add ? LayerType::add : LayerType::mul;
    layer.inputs = {in.layer, data(node, 1).layer};
    for (int slot = 0; slot < 2; ++slot) {
      if (layer_shapes_.at(data(node, slot).layer) != layer_shapes_.at(layer.inputs[0])) {
        fail("its inputs have different shapes; broadcasting has no layer");
      }
    }
    add_node_layer(node, layer, in.batch_axis);
  }

  // MatMul + Add(bias) as PyTorch exports a linear layer on a sequence: the bias joins the linear.
  bool fold_bias(const onnx::NodeProto& node, int data_slot) {
    const auto linear = unbiased_linear_.find(node.input(data_slot));
    if (linear == unbiased_linear_.end() || uses_[node.input(data_slot)] != 1) return false;
    LayerSpec& layer = result_.spec.layers[linear->second];
    const TensorDims bias = parameter(node, 1 - data_slot, "bias");
    if (bias.sizes != std::vector<std::int64_t>{layer.linear.out_features}) return false;
    layer.linear.bias = true;
    result_.layer_comments[linear->second] += " + node " + node_label(node);
    data_[node.output(0)] = data_.at(node.input(data_slot));
    return true;
  }

  void import_concat(const onnx::NodeProto& node) {
    const DataValue& first = data(node, 0);
    const auto rank = static_cast<std::int64_t>(raw_dims(node.input(0), "the tensor").sizes.size());
    std::int64_t axis = int_attribute(node, "axis", 0);
    if (axis < 0) axis += rank;
    const Shape& shape = layer_shapes_.at(first.layer);
    // Per sample: images join along channels (their first axis), vectors and sequences along features (the last).
    const std::int64_t sample_axis = axis - (axis > first.batch_axis ? 1 : 0);
    const bool along_channels = shape.kind == ShapeKind::image && sample_axis == 0;
    const bool along_features = shape.kind != ShapeKind::image && sample_axis == rank - 2;
    if (axis == first.batch_axis || !(along_channels || along_features)) {
      fail("concatenates along axis " + std::to_string(axis) +
                     "; only image channels and vector or sequence features join in the layer library");
    }
    LayerSpec layer;
    layer.type = LayerType::concat;
    for (int slot = 0; slot < node.input_size(); ++slot) {
      if (data(node, slot).batch_axis != first.batch_axis) fail("its inputs have the batch on different axes");
      layer.inputs.push_back(input_as(node, slot, shape.kind));
    }
    add_node_layer(node, layer, first.batch_axis);
  }

  // Gather(table, token ids) along axis 0 is an embedding lookup.
  void import_embedding(const onnx::NodeProto& node) {
    const TensorDims table = parameter(node, 0, "embedding table");
    if (table.sizes.size() != 2 || int_attribute(node, "axis", 0) != 0) {
      fail("only a lookup of rows of a matrix (axis 0) maps, as an embedding");
    }
    LayerSpec layer;
    layer.type = LayerType::embedding;
    layer.inputs = {input_as(node, 1, ShapeKind::sequence)};
    layer.embedding.num_embeddings = table.sizes[0];
    layer.embedding.embedding_dim = table.sizes[1];
    add_node_layer(node, layer, data(node, 1).batch_axis);
  }

  // LSTM, GRU, RNN: X [T, N, F] (layout 0) or [N, T, F] (layout 1); Y [T, dirs, N, H] or
  // [N, T, dirs, H]; Y_h [dirs, N, H] or [N, dirs, H].
  void import_recurrent(const onnx::NodeProto& node) {
    const bool time_major = int_attribute(node, "layout", 0) == 0;
    const DataValue& in = data(node, 0);
    if (in.batch_axis != (time_major ? 1 : 0)) {
      fail("reads " + node.input(0) + " with the batch on axis " + std::to_string(in.batch_axis) +
                     ", where its layout has it on axis " + (time_major ? "1" : "0") +
                     " (an input whose dimensions are all numbers has the batch first; export a dynamic batch and "
                     "name it with --batch-dim)");
    }
    const TensorDims weights = parameter(node, 1, "weight");
    for (int slot = 2; slot < node.input_size(); ++slot) {
      if (present(node, slot)) parameter(node, slot, "parameter");
    }
    if (node.op_type() == "LSTM" && present(node, 7)) fail("peephole weights (input P) are not in the lstm layer");
    const std::string direction = string_attribute(node, "direction", "forward");
    if (direction == "reverse") fail("direction reverse is not mapped (forward and bidirectional are)");
    const std::int64_t hidden = int_attribute(node, "hidden_size", weights.sizes.size() == 3 ? 0 : -1);
    const std::int64_t gates = node.op_type() == "LSTM" ? 4 : node.op_type() == "GRU" ? 3 : 1;
    if (weights.sizes.size() != 3 || hidden <= 0 || weights.sizes[1] != gates * hidden) {
      fail("the weight " + dims_text(weights) + " does not match hidden_size " + std::to_string(hidden));
    }
    const auto read = [&](int slot) { return node.output_size() > slot && uses_[node.output(slot)] > 0; };
    if (read(2)) fail("its cell state output Y_c is read; no layer gives it");
    if (read(0) && read(1)) fail("both Y and Y_h are read; a recurrent layer gives one of them");
    LayerSpec layer;
    layer.type = node.op_type() == "LSTM" ? LayerType::lstm : node.op_type() == "GRU" ? LayerType::gru : LayerType::rnn;
    layer.inputs = {input_as(node, 0, ShapeKind::sequence)};
    layer.recurrent.hidden_size = hidden;
    layer.recurrent.bidirectional = direction == "bidirectional";
    layer.recurrent.bias = present(node, 3);
    layer.recurrent.return_sequences = !read(1);
    if (read(1)) {
      add_node_layer(node, layer, time_major ? 1 : 0, 1);
    } else {
      add_node_layer(node, layer, time_major ? 2 : 0, 0);
    }
  }

  // Reshape, Flatten, Squeeze, Unsqueeze, Transpose move no data: the output is the same layer's
  // tensor, seen with other dimensions. Where its batch axis went follows from the dimensions.
  void import_view(const onnx::NodeProto& node) {
    const DataValue in = data(node, 0);
    const TensorDims from = known_dims(node.input(0), "the tensor", in.batch_axis);
    const TensorDims& to = raw_dims(node.output(0), "the output");
    const bool symbolic_batch = !raw_dims(node.input(0), "the tensor").symbols[static_cast<std::size_t>(in.batch_axis)].empty();
    const auto unknown = std::count_if(to.sizes.begin(), to.sizes.end(), [](std::int64_t size) { return size < 0; });
    int batch_axis = -1;
    if (node.op_type() == "Transpose") {
      std::vector<std::int64_t> permutation = ints_attribute(node, "perm");
      if (permutation.empty()) {
        for (std::size_t i = from.sizes.size(); i-- > 0;) permutation.push_back(static_cast<std::int64_t>(i));
      }
      const auto found = std::find(permutation.begin(), permutation.end(), in.batch_axis);
      batch_axis = static_cast<int>(found - permutation.begin());
    } else if (to.batch_axis >= 0) {
      batch_axis = to.batch_axis;
    } else if (symbolic_batch && unknown == 1) {
      // A symbolic batch stays the one dimension without a number.
      batch_axis = static_cast<int>(std::find_if(to.sizes.begin(), to.sizes.end(), [](std::int64_t size) { return size < 0; }) -
                                    to.sizes.begin());
    } else if (unknown == 0) {
      // The batch stays an axis of its own when some axis has its size and as many elements before it.
      std::int64_t before = 1;
      for (int axis = 0; axis < in.batch_axis; ++axis) before *= from.sizes[static_cast<std::size_t>(axis)];
      std::int64_t seen = 1;
      for (std::size_t axis = 0; axis < to.sizes.size() && batch_axis < 0; ++axis) {
        if (seen == before && to.sizes[axis] == from.sizes[static_cast<std::size_t>(in.batch_axis)]) {
          batch_axis = static_cast<int>(axis);
        }
        seen *= to.sizes[axis];
      }
    }
    if (batch_axis < 0 && unknown > 0) known_dims(node.output(0), "the output");  // says which is unknown
    if (batch_axis < 0 || batch_axis >= static_cast<int>(to.sizes.size())) {
      fail("mixes the batch with other dimensions (" + dims_text(from) + " -> " + dims_text(to) +
                     "); only views that keep each sample's data together map");
    }
    known_dims(node.output(0), "the output", batch_axis);
    data_[node.output(0)] = DataValue{in.layer, batch_axis, node.name()};
  }

  std::string origin_;
  OnnxOptions options_;
  std::map<std::string, TensorDims> dims_;
  std::map<std::string, const onnx::TensorProto*> constants_;
  std::set<std::string> parameters_;
  std::map<std::string, DataValue> data_;
  std::map<std::string, int> uses_;
  std::map<std::string, Shape> layer_shapes_;        // every layer's output (and the model input)
  std::map<std::string, std::string> flattened_;     // layer -> the flatten layer made of it
  std::map<std::string, std::size_t> unbiased_linear_;  // MatMul output -> its layer, for a bias Add
  const onnx::NodeProto* node_ = nullptr;  // the node being imported
  ImportedModel result_;
};

}  // namespace

ImportedModel import_onnx(const std::string& bytes, const std::string& origin, const OnnxOptions& options) {
  onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromString(bytes) || !model.has_graph() || model.ir_version() <= 0) {
    throw ImportError(origin + ": not an ONNX model (the file does not parse as an ONNX ModelProto; is it "
                      "truncated?)");
  }
  try {
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions{false, 1, true});
  } catch (const std::exception& error) {
    throw ImportError(origin + ": ONNX shape inference failed: " + error.what());
  }
  ImportedModel imported = OnnxImporter(origin, options).run(model);
  build_imported(imported, origin);
  return imported;
}

}  // namespace reusesim::import
