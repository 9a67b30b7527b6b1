#include "import/onnx_import.h"

#include <onnx/defs/schema.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>

#include "config/model_limits.h"
#include "import/import_error.h"
#include "util/checked_math.h"

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

// The operators that may run through ONNX's shape inference: those that make layers or views, and
// those PyTorch computes parameters with (the zero initial states of a recurrent layer built from
// Shape). Shape inference trusts its attributes and constants (a stride of 0 divides by zero), so
// their attributes are checked before it runs, and any other operator is refused before it too.
const std::set<std::string> kInferredOps{"Conv",
                                         "Gemm",
                                         "MatMul",
                                         "BatchNormalization",
                                         "LayerNormalization",
                                         "MaxPool",
                                         "AveragePool",
                                         "GlobalAveragePool",
                                         "GlobalMaxPool",
                                         "Relu",
                                         "Clip",
                                         "Sigmoid",
                                         "Tanh",
                                         "Softmax",
                                         "LogSoftmax",
                                         "Add",
                                         "Mul",
                                         "Concat",
                                         "Gather",
                                         "LSTM",
                                         "GRU",
                                         "RNN",
                                         "Flatten",
                                         "Reshape",
                                         "Squeeze",
                                         "Unsqueeze",
                                         "Transpose",
                                         "Identity",
                                         "Dropout",
                                         "Constant",
                                         "ConstantOfShape",
                                         "Shape",
                                         "Slice",
                                         "Expand",
                                         "Cast"};
const std::set<std::string> kWindowOps{"Conv", "MaxPool", "AveragePool"};

// Older operator sets' shape inference indexes dimensions it has not checked (LSTM-1 and RNN-1 on
// an input of rank 1 crash the process); PyTorch exports opset 7 and later.
constexpr std::int64_t kMinOpset = 7;

// How a TensorProto holds values of each element type: bytes a value takes in raw_data (0: never
// raw), or the typed field that holds them (complex numbers: two entries a value).
struct Storage {
  std::int64_t bytes;
  int (onnx::TensorProto::*field)() const;  // the typed field's size
  std::int64_t fields_per_value;
};
const std::map<int, Storage> kStorage{{onnx::TensorProto::FLOAT, {4, &onnx::TensorProto::float_data_size, 1}},
                                      {onnx::TensorProto::COMPLEX64, {8, &onnx::TensorProto::float_data_size, 2}},
                                      {onnx::TensorProto::DOUBLE, {8, &onnx::TensorProto::double_data_size, 1}},
                                      {onnx::TensorProto::COMPLEX128, {16, &onnx::TensorProto::double_data_size, 2}},
                                      {onnx::TensorProto::INT64, {8, &onnx::TensorProto::int64_data_size, 1}},
                                      {onnx::TensorProto::UINT32, {4, &onnx::TensorProto::uint64_data_size, 1}},
                                      {onnx::TensorProto::UINT64, {8, &onnx::TensorProto::uint64_data_size, 1}},
                                      {onnx::TensorProto::INT32, {4, &onnx::TensorProto::int32_data_size, 1}},
                                      {onnx::TensorProto::INT16, {2, &onnx::TensorProto::int32_data_size, 1}},
                                      {onnx::TensorProto::UINT16, {2, &onnx::TensorProto::int32_data_size, 1}},
                                      {onnx::TensorProto::FLOAT16, {2, &onnx::TensorProto::int32_data_size, 1}},
                                      {onnx::TensorProto::BFLOAT16, {2, &onnx::TensorProto::int32_data_size, 1}},
                                      {onnx::TensorProto::INT8, {1, &onnx::TensorProto::int32_data_size, 1}},
                                      {onnx::TensorProto::UINT8, {1, &onnx::TensorProto::int32_data_size, 1}},
                                      {onnx::TensorProto::BOOL, {1, &onnx::TensorProto::int32_data_size, 1}},
                                      {onnx::TensorProto::STRING, {0, &onnx::TensorProto::string_data_size, 1}}};

// The most dimensions a tensor may have (ONNX sets no limit; no network comes near).
constexpr int kMaxRank = 64;
// The operators whose output's rank is the length of an input (the shape), and its slot.
const std::map<std::string, int> kShapeInputs{{"ConstantOfShape", 0}, {"Expand", 1}, {"Reshape", 1}};

// A graph larger than this is refused before shape inference (which takes time and memory per
// node); a model file holds at most config::kMaxModelLayers layers anyway.
constexpr int kMaxNodes = 1'000'000;

// What an element type must be to become a model's precision.
const char* const kPrecisions =
    "which no precision of ReuseSim holds (float, float16, bfloat16, int16, int8 or uint8 map to fp32, fp16, bf16, "
    "int16, int8)";

const char* element_type_name(int element_type) {
  switch (element_type) {
    case onnx::TensorProto::FLOAT:
      return "float (fp32)";
    case onnx::TensorProto::UINT8:
      return "uint8";
    case onnx::TensorProto::INT8:
      return "int8";
    case onnx::TensorProto::UINT16:
      return "uint16";
    case onnx::TensorProto::INT16:
      return "int16";
    case onnx::TensorProto::INT32:
      return "int32";
    case onnx::TensorProto::INT64:
      return "int64";
    case onnx::TensorProto::STRING:
      return "string";
    case onnx::TensorProto::BOOL:
      return "bool";
    case onnx::TensorProto::FLOAT16:
      return "float16 (fp16)";
    case onnx::TensorProto::DOUBLE:
      return "double (fp64)";
    case onnx::TensorProto::UINT32:
      return "uint32";
    case onnx::TensorProto::UINT64:
      return "uint64";
    case onnx::TensorProto::COMPLEX64:
      return "complex64";
    case onnx::TensorProto::COMPLEX128:
      return "complex128";
    case onnx::TensorProto::BFLOAT16:
      return "bfloat16 (bf16)";
    default:
      return "of no known element type";
  }
}

std::optional<workload::Precision> precision_of(int element_type) {
  switch (element_type) {
    case onnx::TensorProto::FLOAT: return workload::Precision::fp32;
    case onnx::TensorProto::FLOAT16: return workload::Precision::fp16;
    case onnx::TensorProto::BFLOAT16: return workload::Precision::bf16;
    case onnx::TensorProto::INT16: return workload::Precision::int16;
    case onnx::TensorProto::INT8:
    case onnx::TensorProto::UINT8:
      return workload::Precision::int8;  // one byte a value, as int8
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

  // What must hold before ONNX's shape inference may run on the graph: a bounded, sorted graph of
  // operators whose inference is safe with the attributes they have. A Conv without kernel_shape gets
  // its weight's (shape inference would otherwise index the input with the weight's rank).
  void check_before_inference(onnx::ModelProto& model) {
    onnx::GraphProto& graph = *model.mutable_graph();
    for (const onnx::OperatorSetIdProto& set : model.opset_import()) {
      if (set.domain().empty() || set.domain() == "ai.onnx") opset_ = set.version();
    }
    if (opset_ <= 0) fail("the model imports no version of ONNX's operator set (opset_import)");
    if (opset_ < kMinOpset) {
      fail("opset " + std::to_string(opset_) + ": ReuseSim reads opset " + std::to_string(kMinOpset) +
           " (ONNX 1.2, 2018) and later, whose shape inference checks the ranks it reads (before, LSTM's did not)");
    }
    if (graph.node_size() > kMaxNodes) {
      fail("the graph has " + std::to_string(graph.node_size()) + " nodes, more than " + std::to_string(kMaxNodes) +
           " (a model file holds at most " + std::to_string(config::kMaxModelLayers) + " layers)");
    }
    std::map<std::string, const onnx::NodeProto*> producer;
    if (graph.sparse_initializer_size() > 0) fail("sparse initializers are not read");
    std::set<std::string> available;
    for (const onnx::TensorProto& tensor : graph.initializer()) {
      check_tensor(tensor, "the initializer " + tensor.name());
      available.insert(tensor.name());
      declared_.emplace(tensor.name(), std::vector<std::int64_t>(tensor.dims().begin(), tensor.dims().end()));
    }
    for (const onnx::ValueInfoProto& input : graph.input()) available.insert(input.name());
    for (const auto* infos : {&graph.input(), &graph.value_info(), &graph.output()}) {
      for (const onnx::ValueInfoProto& info : *infos) {
        if (!info.type().tensor_type().has_shape()) continue;
        const onnx::TensorShapeProto& shape = info.type().tensor_type().shape();
        if (shape.dim_size() > kMaxRank) {
          fail("the tensor " + info.name() + " is declared with " + std::to_string(shape.dim_size()) +
               " dimensions, more than " + std::to_string(kMaxRank));
        }
        std::vector<std::int64_t> sizes;
        for (const onnx::TensorShapeProto::Dimension& dim : shape.dim()) {
          sizes.push_back(dim.has_dim_value() ? dim.dim_value() : -1);
        }
        declared_.emplace(info.name(), sizes);  // an initializer's own dimensions come first
      }
    }
    for (const onnx::NodeProto& node : graph.node()) {
      for (const std::string& output : node.output()) {
        if (!output.empty() && !producer.emplace(output, &node).second) {
          node_ = &node;
          fail("computes " + output + ", which node " + node_label(*producer.at(output)) + " computes too");
        }
      }
    }
    for (onnx::NodeProto& node : *graph.mutable_node()) {
      node_ = &node;
      for (const std::string& input : node.input()) {
        if (input.empty() || available.count(input) > 0) continue;
        const auto found = producer.find(input);
        if (found == producer.end()) fail("input " + input + " is no graph input, initializer or node output");
        fail("reads " + input + " before node " + node_label(*found->second) +
             " computes it: the graph has a cycle or is not sorted (ONNX requires every node after those it reads)");
      }
      for (const std::string& output : node.output()) available.insert(output);
      check_node_before_inference(node);
      if (node.op_type() == "Constant" && node.attribute_size() > 0 && node.attribute(0).has_t()) {
        const onnx::TensorProto& value = node.attribute(0).t();
        declared_.emplace(node.output(0), std::vector<std::int64_t>(value.dims().begin(), value.dims().end()));
      }
    }
    node_ = nullptr;
  }

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
    if (!precision_) {
      fail("the input " + data_input_ +
           " holds integers (token ids), but no Gather reads them from an embedding table");
    }
    result_.spec.precision = *precision_;
    result_.spec.name = model_name();
    std::string producer = model.producer_name().empty() ? "an unnamed producer" : model.producer_name();
    if (!model.producer_version().empty()) producer += " " + model.producer_version();
    result_.header = {"Imported from " + base_name() + " by `reusesim import onnx` (written by " + producer +
                          ", opset " + std::to_string(opset_) + ").",
                      "Each layer's comment names the ONNX node (operator) it comes from; names are the node",
                      "names with characters the format does not allow ('/', '.', ...) turned into '_'."};
    return std::move(result_);
  }

 private:
  void check_node_before_inference(onnx::NodeProto& node) {
    if (!node.domain().empty() && node.domain() != "ai.onnx") {
      fail("operators of domain " + node.domain() + " have no layer in ReuseSim's library");
    }
    const std::string& op = node.op_type();
    if (kInferredOps.count(op) == 0) {
      fail("the operator " + op +
           " has no layer in ReuseSim's layer library; docs/import.md lists the operators that map");
    }
    // Inputs, outputs and attributes as ONNX defines the operator (shape inference reads them unchecked).
    const onnx::OpSchema* schema =
        onnx::OpSchemaRegistry::Schema(op, static_cast<int>(std::min<std::int64_t>(opset_, 1'000'000)), "");
    if (schema == nullptr) fail("ONNX has no operator " + op + " at opset " + std::to_string(opset_));
    try {
      schema->Verify(node);
    } catch (const std::exception& error) {
      fail("does not match ONNX's definition of " + op + " at opset " + std::to_string(opset_) + ": " + error.what());
    }
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.has_g() || attribute.graphs_size() > 0) fail("attribute " + attribute.name() + " is a graph");
      if (attribute.has_sparse_tensor() || attribute.sparse_tensors_size() > 0) {
        fail("attribute " + attribute.name() + " is a sparse tensor, which is not read");
      }
      if (attribute.has_t()) check_tensor(attribute.t(), "attribute " + attribute.name());
      for (const onnx::TensorProto& tensor : attribute.tensors()) check_tensor(tensor, "attribute " + attribute.name());
    }
    if (kWindowOps.count(op) > 0) {
      if (op == "Conv" && ints_attribute(node, "kernel_shape").empty()) add_kernel_shape(node);
      const std::vector<std::int64_t> kernel = ints_attribute(node, "kernel_shape");
      if (kernel.size() != 2) {
        fail("kernel_shape " + ints_text(kernel) + ": only 2-D windows map (two values, height and width)");
      }
      check_ints(node, "kernel_shape", 2, 1);
      check_ints(node, "strides", 2, 1);
      check_ints(node, "dilations", 2, 1);
      check_ints(node, "pads", 4, 0);
      if (op == "Conv") check_ints(node, "group", 1, 1);
      padding(node);  // auto_pad: shape inference loops over the input size for SAME_* on a stride
    }
    if (op == "Transpose") {
      // Shape inference indexes the input's dimensions with perm.
      const std::vector<std::int64_t> perm = ints_attribute(node, "perm");
      std::vector<bool> seen(perm.size(), false);
      for (const std::int64_t axis : perm) {
        if (axis < 0 || axis >= static_cast<std::int64_t>(perm.size()) || seen[static_cast<std::size_t>(axis)]) {
          fail("perm " + ints_text(perm) + " is not a permutation of the axes 0.." +
               std::to_string(static_cast<std::int64_t>(perm.size()) - 1));
        }
        seen[static_cast<std::size_t>(axis)] = true;
      }
    }
    if (op == "LSTM" || op == "GRU" || op == "RNN") check_ints(node, "hidden_size", 1, 1);
    // A shape input's length is the output's rank, which shape inference builds dimension by dimension.
    const auto shape_slot = kShapeInputs.find(op);
    if (shape_slot != kShapeInputs.end() && present(node, shape_slot->second)) {
      const auto found = declared_.find(node.input(shape_slot->second));
      if (found != declared_.end() && found->second.size() == 1 && found->second[0] > kMaxRank) {
        fail("its shape input " + found->first + " has " + std::to_string(found->second[0]) + " values, a rank over " +
             std::to_string(kMaxRank));
      }
    }
    if (op == "LayerNormalization") {
      // Mean and InvStdDev take the input's dimensions before `axis`, which is not checked.
      for (int slot = 1; slot < node.output_size(); ++slot) {
        if (!node.output(slot).empty()) fail("output " + std::to_string(slot) + " (Mean, InvStdDev) has no layer");
      }
    }
  }

  // A tensor in the file (an initializer, a constant) must hold as many values as its dimensions
  // say, as ONNX's checker requires: shape inference reads constants (shapes, axes) trusting it.
  void check_tensor(const onnx::TensorProto& tensor, const std::string& what) const {
    std::int64_t count = 1;
    for (const std::int64_t size : tensor.dims()) {
      if (size < 0 || size > config::kMaxModelDimension) {
        fail(what + " has dimensions " + ints_text({tensor.dims().begin(), tensor.dims().end()}) +
             "; a size must be 0.." + std::to_string(config::kMaxModelDimension));
      }
      // No file holds more values than this: past it, the count is only "too many".
      count =
          size != 0 && count > (config::kMaxModelDimension + 1) / size ? config::kMaxModelDimension + 1 : count * size;
    }
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL) return;  // values in another file: never read
    const auto storage = kStorage.find(tensor.data_type());
    if (storage == kStorage.end()) {
      fail(what + " has element type " + std::to_string(tensor.data_type()) + ", which ONNX does not define");
    }
    const std::int64_t bytes = storage->second.bytes;
    const std::int64_t values = (tensor.*storage->second.field)() / storage->second.fields_per_value;
    const bool raw = tensor.has_raw_data();
    if (raw && bytes == 0) fail(what + " holds strings as raw data, which ONNX does not allow");
    const std::int64_t held = raw ? static_cast<std::int64_t>(tensor.raw_data().size()) / bytes : values;
    if (held != count || (raw && static_cast<std::int64_t>(tensor.raw_data().size()) % bytes != 0)) {
      fail(what + " " + ints_text({tensor.dims().begin(), tensor.dims().end()}) + " holds " +
           (raw ? std::to_string(tensor.raw_data().size()) + " bytes of " + element_type_name(tensor.data_type())
                : std::to_string(values) + " values") +
           ", not the " + std::to_string(count) + " values its dimensions say");
    }
  }

  // Conv's kernel_shape from its weight [M, C/group, kH, kW] as the file declares it.
  void add_kernel_shape(onnx::NodeProto& node) const {
    const auto found = node.input_size() > 1 ? declared_.find(node.input(1)) : declared_.end();
    if (found == declared_.end()) fail("has no kernel_shape, and its weight's shape is not in the file");
    const std::vector<std::int64_t>& sizes = found->second;
    if (sizes.size() != 4) fail("only 2-D convolutions map (the weight has " + ints_text(sizes) + ")");
    onnx::AttributeProto& kernel = *node.add_attribute();
    kernel.set_name("kernel_shape");
    kernel.set_type(onnx::AttributeProto::INTS);
    kernel.add_ints(sizes[2]);
    kernel.add_ints(sizes[3]);
  }

  // An integer attribute (INT, or INTS of `count` values) each in min..kMaxModelDimension, if present.
  void check_ints(const onnx::NodeProto& node, const std::string& name, std::size_t count, std::int64_t min) const {
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.name() != name) continue;
      std::vector<std::int64_t> values(attribute.ints().begin(), attribute.ints().end());
      if (attribute.type() == onnx::AttributeProto::INT || (attribute.has_i() && values.empty())) {
        values = {attribute.i()};
      }
      const std::string text = count == 1 && values.size() == 1 ? std::to_string(values[0]) : ints_text(values);
      if (values.size() != count) {
        fail(name + " " + text + ": expected " + std::to_string(count) + (count == 1 ? " value" : " values"));
      }
      for (const std::int64_t value : values) {
        if (value < min || value > config::kMaxModelDimension) {
          fail(name + " " + text + ": each value must be " + std::to_string(min) + ".." +
               std::to_string(config::kMaxModelDimension));
        }
      }
    }
  }

  static std::string ints_text(const std::vector<std::int64_t>& values) {
    std::string text;
    for (const std::int64_t value : values) text += (text.empty() ? "" : ", ") + std::to_string(value);
    return "[" + text + "]";
  }

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
    if (data_inputs.empty()) no_data_input(graph);
    if (data_inputs.size() > 1) {
      fail("graph inputs " + data_inputs[0] + " and " + data_inputs[1] +
           " are both data; a ReuseSim model has one input");
    }
    set_model_input(data_inputs.front());
    set_precision(data_inputs.front());
  }

  // No graph input sits where only data can be: names the first operator that reads one.
  [[noreturn]] void no_data_input(const onnx::GraphProto& graph) {
    std::set<std::string> graph_inputs;
    for (const onnx::ValueInfoProto& info : graph.input()) graph_inputs.insert(info.name());
    for (const onnx::NodeProto& node : graph.node()) {
      for (int slot = 0; slot < node.input_size(); ++slot) {
        const std::string& input = node.input(slot);
        if (graph_inputs.count(input) == 0 || constants_.count(input) > 0) continue;
        node_ = &node;
        fail("reads the graph input " + input + " as input " + std::to_string(slot) + ", where a " + node.op_type() +
             " may take a parameter, and no operator reads a graph input where only data can be (input 0 of Conv, "
             "Gemm, MatMul, pooling, normalization, activations, recurrent layers and views, the indices of Gather, "
             "the inputs of Concat); a ReuseSim model needs its data input");
      }
    }
    fail("no operator reads a graph input (the graph has no data input)");
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

  // The data input's element type; for token ids, the embedding table's (import_embedding).
  void set_precision(const std::string& name) {
    data_input_ = name;
    const int type = dims_.at(name).element_type;
    if (type == onnx::TensorProto::INT64 || type == onnx::TensorProto::INT32) return;
    precision_ = precision_of(type);
    if (!precision_) fail("the data input " + name + " is " + element_type_name(type) + ", " + kPrecisions);
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
  // may be any symbol: exporters name it anew after some operators. A size must be one a model
  // file can hold.
  TensorDims known_dims(const std::string& tensor, const std::string& what, int batch_axis = -1) const {
    TensorDims dims = raw_dims(tensor, what);
    for (std::size_t i = 0; i < dims.sizes.size(); ++i) {
      if (dims.symbols[i].empty()) {
        if (dims.sizes[i] >= 1 && dims.sizes[i] <= config::kMaxModelDimension) continue;
        fail(what + " " + tensor + " " + dims_text(dims) + ": dimension " + std::to_string(i) + " is " +
             std::to_string(dims.sizes[i]) + "; a size must be 1.." + std::to_string(config::kMaxModelDimension));
      }
      if (dims.sizes[i] >= 0) continue;  // the dimension --batch-dim names, counted as 1
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
    try {
      import_operator(node);
    } catch (const util::CountOverflow& error) {
      fail(error.what());
    }
  }

  void import_operator(const onnx::NodeProto& node) {
    const bool reads_data = std::any_of(node.input().begin(), node.input().end(),
                                        [&](const std::string& input) { return data_.count(input) > 0; });
    for (const std::string& input : node.input()) {
      if (!input.empty() && data_.count(input) == 0 && parameters_.count(input) == 0) {
        fail("reads " + input + ", an output of an operator that no layer gives");
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
      data_[node.output(0)] = data(node, 0);
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
    if (!present(node, slot)) fail("has no input " + std::to_string(slot) + " (its " + role + ")");
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
      const std::string comment = "view " + (value.view_node.empty() ? tensor : value.view_node);
      const std::string name = add_layer(flatten, from, comment, "the flatten layer for " + comment + ": ");
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

  // Adds a layer, its shape inferred by the layer library now so a refusal names the node (and
  // `subject`, when the layer is not the node's own).
  std::string add_layer(LayerSpec layer, const std::string& onnx_name, const std::string& comment,
                        const std::string& subject = "") {
    if (result_.spec.layers.size() == config::kMaxModelLayers) {
      fail("makes layer " + std::to_string(config::kMaxModelLayers + 1) + "; a model file may have at most " +
           std::to_string(config::kMaxModelLayers));
    }
    layer.name = unique_name(onnx_name);
    std::vector<Shape> inputs;
    for (const std::string& input : layer.inputs) inputs.push_back(layer_shapes_.at(input));
    const workload::ShapeResult result = workload::infer_output_shape(layer, inputs);
    if (!result.shape) {
      fail(subject + "the layer library refuses it: " + (result.error.field.empty() ? "" : result.error.field + ": ") +
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
    if (batch_axis >= static_cast<int>(dims.sizes.size())) {
      fail("ONNX infers " + tensor + " " + dims_text(dims) + ", which has no axis " + std::to_string(batch_axis) +
           " for the batch");
    }
    std::int64_t elements = 1;
    for (std::int64_t size : without_batch(dims, batch_axis)) elements = util::checked_mul(elements, size);
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
    // The weight is [M, C / group, kH, kW]; its kernel is the kernel_shape attribute's, when given.
    const std::int64_t channels = layer_shapes_.at(layer.inputs[0]).channels, groups = layer.conv.groups;
    const HeightWidth kernel = pair_attribute(node, "kernel_shape", 0);
    if (channels % groups != 0 || weights.sizes[1] != channels / groups || weights.sizes[0] % groups != 0 ||
        kernel.height != weights.sizes[2] || kernel.width != weights.sizes[3]) {
      fail("the weight " + node.input(1) + " " + dims_text(weights) + " does not fit " + std::to_string(channels) +
           " input channels in group " + std::to_string(groups) + " with kernel_shape [" +
           std::to_string(kernel.height) + ", " + std::to_string(kernel.width) + "]: expected [M, " +
           (channels % groups == 0 ? std::to_string(channels / groups) : "C / group") + ", " +
           std::to_string(kernel.height) + ", " + std::to_string(kernel.width) + "] with M a multiple of " +
           std::to_string(groups) + (channels % groups == 0 ? "" : ", and channels a multiple of the group"));
    }
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
    const bool transposed = gemm && int_attribute(node, "transB", 0) != 0;
    layer.linear.out_features = weights.sizes[transposed ? 0 : 1];
    // The weight is [K, N] ([N, K] with transB): K must be the input's features.
    const std::int64_t features = layer_shapes_.at(layer.inputs[0]).features;
    if (weights.sizes[transposed ? 1 : 0] != features) {
      const std::string n = std::to_string(layer.linear.out_features), k = std::to_string(features);
      fail("the weight " + node.input(1) + " " + dims_text(weights) + " does not fit the input's " + k +
           " features: expected " + (transposed ? "[" + n + ", " + k + "] (transB 1)" : "[" + k + ", " + n + "]"));
    }
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
  // BatchNormalization's four and LayerNormalization's two are vectors of the channels (features).
  void import_unary(const onnx::NodeProto& node, LayerType type, int data_inputs) {
    const DataValue in = data(node, 0);
    const Shape& shape = layer_shapes_.at(in.layer);
    const bool normalization = type == LayerType::batchnorm || type == LayerType::layernorm;
    const std::int64_t channels = shape.kind == ShapeKind::image ? shape.channels : shape.features;
    for (int slot = data_inputs; slot < node.input_size(); ++slot) {
      if (!present(node, slot)) continue;
      const TensorDims dims = parameter(node, slot, "parameter");
      if (normalization && dims.sizes != std::vector<std::int64_t>{channels}) {
        fail("the parameter " + node.input(slot) + " " + dims_text(dims) + " does not fit the input's " +
             std::to_string(channels) + (shape.kind == ShapeKind::image ? " channels" : " features") + ": expected [" +
             std::to_string(channels) + "]");
      }
    }
    LayerSpec layer;
    layer.type = type;
    layer.inputs = {in.layer};
    if (type == LayerType::layernorm) layer.norm.bias = present(node, 2);  // LayerNormalization's B is optional
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

  // A constant of one value of a floating-point type (a Clip's bounds, of the type of its input).
  double scalar_constant(const std::string& name) const {
    const auto found = constants_.find(name);
    if (found != constants_.end()) {
      if (const std::optional<double> value = float_scalar(*found->second)) return *value;
    }
    fail(name +
         " must be a constant of one float, float16, bfloat16 or double in the file (weights stripped from it "
         "are unknown)");
  }

  // One value of `Value` stored as raw bytes (little-endian, as the host).
  template <typename Value>
  static std::optional<double> raw_scalar(const std::string& raw) {
    if (raw.size() != sizeof(Value)) return std::nullopt;
    Value value{};
    std::memcpy(&value, raw.data(), sizeof value);
    return static_cast<double>(value);
  }

  static std::optional<double> float_scalar(const onnx::TensorProto& tensor) {
    const std::string& raw = tensor.raw_data();
    // float16 and bfloat16 are stored as their 16 bits, in int32_data or 2 little-endian raw bytes.
    std::optional<std::uint32_t> half;
    if (tensor.int32_data_size() == 1) half = static_cast<std::uint32_t>(tensor.int32_data(0)) & 0xffffu;
    if (raw.size() == 2)
      half = static_cast<std::uint8_t>(raw[0]) | static_cast<std::uint32_t>(static_cast<std::uint8_t>(raw[1])) << 8;
    switch (tensor.data_type()) {
      case onnx::TensorProto::FLOAT:
        return tensor.float_data_size() == 1 ? std::optional<double>(tensor.float_data(0)) : raw_scalar<float>(raw);
      case onnx::TensorProto::DOUBLE:
        return tensor.double_data_size() == 1 ? std::optional<double>(tensor.double_data(0)) : raw_scalar<double>(raw);
      case onnx::TensorProto::BFLOAT16: {
        if (!half) return std::nullopt;
        const std::uint32_t bits = *half << 16;  // bfloat16 is the top half of a float
        float value = 0;
        std::memcpy(&value, &bits, sizeof value);
        return value;
      }
      case onnx::TensorProto::FLOAT16: {
        if (!half) return std::nullopt;
        const int exponent = static_cast<int>(*half >> 10 & 0x1fu);
        const double mantissa = static_cast<double>(*half & 0x3ffu);
        const double sign = (*half & 0x8000u) != 0 ? -1.0 : 1.0;
        if (exponent == 0x1f) return std::nullopt;  // infinity or NaN: no bound of a layer
        // Subnormal (exponent 0): mantissa x 2^-24; normal: (1024 + mantissa) x 2^(exponent - 25).
        return exponent == 0 ? sign * std::ldexp(mantissa, -24) : sign * std::ldexp(1024.0 + mantissa, exponent - 25);
      }
      default:
        return std::nullopt;
    }
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
    if (!precision_) {
      precision_ = precision_of(table.element_type);
      if (!precision_)
        fail("the embedding table " + node.input(0) + " is " + element_type_name(table.element_type) + ", " +
             kPrecisions);
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
    std::optional<TensorDims> recurrence;
    for (int slot = 2; slot < node.input_size(); ++slot) {
      if (!present(node, slot)) continue;
      const TensorDims dims = parameter(node, slot, "parameter");
      if (slot == 2) recurrence = dims;
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
    // W is [directions, gates x hidden, input features], R [directions, gates x hidden, hidden].
    const std::int64_t directions = direction == "bidirectional" ? 2 : 1;
    const std::int64_t features = layer_shapes_.at(layer.inputs[0]).features;
    const auto expected = [&](std::int64_t last) {
      return "[" + std::to_string(directions) + ", " + std::to_string(gates * hidden) + ", " + std::to_string(last) +
             "]";
    };
    if (weights.sizes[0] != directions || weights.sizes[2] != features) {
      fail("the weight " + node.input(1) + " " + dims_text(weights) + " does not fit " + std::to_string(features) +
           " input features, direction " + direction + ": expected " + expected(features));
    }
    if (recurrence && recurrence->sizes != std::vector<std::int64_t>{directions, gates * hidden, hidden}) {
      fail("the recurrence weight " + node.input(2) + " " + dims_text(*recurrence) + " does not fit hidden_size " +
           std::to_string(hidden) + ", direction " + direction + ": expected " + expected(hidden));
    }
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
      for (int axis = 0; axis < in.batch_axis; ++axis)
        before = util::checked_mul(before, from.sizes[static_cast<std::size_t>(axis)]);
      std::int64_t seen = 1;
      for (std::size_t axis = 0; axis < to.sizes.size() && batch_axis < 0; ++axis) {
        if (seen == before && to.sizes[axis] == from.sizes[static_cast<std::size_t>(in.batch_axis)]) {
          batch_axis = static_cast<int>(axis);
        }
        seen = util::checked_mul(seen, to.sizes[axis]);
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
  std::map<std::string, std::vector<std::int64_t>> declared_;  // the file's own dimensions, before inference
  std::int64_t opset_ = 0;                                     // the version of ONNX's operator set the model imports
  std::string data_input_;
  std::optional<workload::Precision> precision_;  // token ids: unknown until an embedding reads them
  ImportedModel result_;
};

}  // namespace

ImportedModel import_onnx(const std::string& bytes, const std::string& origin, const OnnxOptions& options) {
  onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromString(bytes) || !model.has_graph() || model.ir_version() <= 0) {
    throw ImportError(origin + ": not an ONNX model (the file does not parse as an ONNX ModelProto; is it "
                      "truncated?)");
  }
  OnnxImporter importer(origin, options);
  importer.check_before_inference(model);
  try {
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions{false, 1, true});
  } catch (const std::exception& error) {
    throw ImportError(origin + ": ONNX shape inference failed: " + error.what());
  }
  ImportedModel imported = importer.run(model);
  build_imported(imported, origin);
  return imported;
}

}  // namespace reusesim::import
