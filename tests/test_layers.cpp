// Layer library: shape inference and per-sample counts, each number derived by hand.
#include <catch2/catch.hpp>

#include "util/checked_math.h"
#include "workload/layer.h"
#include "workload/network.h"

using namespace reusesim::workload;
namespace util = reusesim::util;

namespace {

LayerSpec conv(std::int64_t out_channels, std::int64_t kernel, std::int64_t stride = 1, std::int64_t pad = 0) {
  LayerSpec layer;
  layer.name = "conv";
  layer.type = LayerType::conv2d;
  layer.conv.out_channels = out_channels;
  layer.conv.kernel = {kernel, kernel};
  layer.conv.stride = {stride, stride};
  layer.conv.padding = {pad, pad};
  return layer;
}

struct Evaluated {
  Shape output;
  LayerCounts counts;
};

Evaluated evaluate(const LayerSpec& layer, const std::vector<Shape>& inputs) {
  const ShapeResult result = infer_output_shape(layer, inputs);
  REQUIRE(result.shape.has_value());
  return {*result.shape, count_layer(layer, inputs, *result.shape)};
}

LayerSpec of_type(LayerType type) {
  LayerSpec layer;
  layer.name = reusesim::util::name(type);
  layer.type = type;
  return layer;
}

}  // namespace

TEST_CASE("conv 13x13, 3x3, 192 -> 192: 56,070,144 MACs and 331,776 weights", "[layers]") {
  // Padding 1 keeps 13x13. MACs = 13*13*192 outputs x 3*3*192 taps = 32,448 x 1,728 = 56,070,144.
  // Weights = 3*3*192*192 = 331,776; with a bias per output channel, params = 331,776 + 192.
  const Evaluated conv3 = evaluate(conv(192, 3, 1, 1), {Shape::image(192, 13, 13)});
  CHECK(conv3.output == Shape::image(192, 13, 13));
  CHECK(conv3.counts.macs == 56'070'144);
  CHECK(conv3.counts.params == 331'776 + 192);
  // Lowered to a matrix product, each output pixel gathers 3*3*192 inputs: 9x the 32,448 inputs.
  CHECK(conv3.counts.im2col_elems == 9 * 32'448);
}

TEST_CASE("AlexNet conv1: 227x227x3, 11x11 stride 4 gives 55x55x96 and 105,415,200 MACs", "[layers]") {
  // floor((227 - 11) / 4) + 1 = 55; MACs = 55*55*96 * 11*11*3 = 290,400 * 363 = 105,415,200.
  const Evaluated conv1 = evaluate(conv(96, 11, 4), {Shape::image(3, 227, 227)});
  CHECK(conv1.output == Shape::image(96, 55, 55));
  CHECK(conv1.counts.macs == 105'415'200);
  CHECK(conv1.counts.params == 34'944);  // 11*11*3*96 = 34,848 weights + 96 biases
  CHECK(conv1.counts.input_elems == 154'587);
  CHECK(conv1.counts.output_elems == 290'400);
}

TEST_CASE("conv2d dilation and asymmetric kernels follow floor((H + 2p - d(k-1) - 1)/s) + 1", "[layers]") {
  LayerSpec dilated = conv(8, 3);
  dilated.conv.dilation = {2, 2};
  // floor((10 + 0 - 2*2 - 1) / 1) + 1 = 6.
  CHECK(evaluate(dilated, {Shape::image(4, 10, 10)}).output == Shape::image(8, 6, 6));
  LayerSpec wide = conv(32, 1, 2, 0);
  wide.conv.kernel = {41, 11};
  wide.conv.padding = {20, 5};
  wide.conv.stride = {2, 2};
  // DeepSpeech2 conv1 on 161 x 100: H = floor((161 + 40 - 40 - 1)/2) + 1 = 81, W = floor((100 + 10 - 10 - 1)/2) + 1 = 50.
  CHECK(evaluate(wide, {Shape::image(1, 161, 100)}).output == Shape::image(32, 81, 50));
}

TEST_CASE("grouped conv: AlexNet conv2 with 2 groups", "[layers]") {
  LayerSpec conv2 = conv(256, 5, 1, 2);
  conv2.conv.groups = 2;
  const Evaluated result = evaluate(conv2, {Shape::image(96, 27, 27)});
  // Each output sees 96/2 = 48 channels: params = 5*5*48*256 + 256 = 307,456;
  // MACs = 27*27*256 outputs x 5*5*48 = 186,624 x 1,200 = 223,948,800.
  CHECK(result.output == Shape::image(256, 27, 27));
  CHECK(result.counts.params == 307'456);
  CHECK(result.counts.macs == 223'948'800);
}

TEST_CASE("depthwise conv: groups = channels", "[layers]") {
  LayerSpec depthwise = conv(0, 3, 1, 1);
  depthwise.conv.depthwise = true;
  depthwise.conv.bias = false;
  const Evaluated result = evaluate(depthwise, {Shape::image(32, 112, 112)});
  // 32 filters of 3x3x1: 288 params; MACs = 112*112*32 * 9 = 3,612,672.
  CHECK(result.output == Shape::image(32, 112, 112));
  CHECK(result.counts.params == 288);
  CHECK(result.counts.macs == 3'612'672);
}

TEST_CASE("conv2d shape errors name the field at fault", "[layers]") {
  const ShapeResult too_big = infer_output_shape(conv(8, 7), {Shape::image(3, 5, 5)});
  CHECK(too_big.error.field == "kernel");
  CHECK(too_big.error.message == "kernel 7x7 is larger than the padded input 5x5");
  LayerSpec grouped = conv(8, 1);
  grouped.conv.groups = 3;
  const ShapeResult bad_groups = infer_output_shape(grouped, {Shape::image(4, 5, 5)});
  CHECK(bad_groups.error.field == "groups");
  CHECK(bad_groups.error.message == "groups 3 does not divide the 4 input channels");
}

TEST_CASE("linear on a vector and per time step on a sequence", "[layers]") {
  LayerSpec fc = of_type(LayerType::linear);
  fc.linear.out_features = 4096;
  // AlexNet fc6: 6*6*256 = 9,216 inputs x 4,096 outputs = 37,748,736 MACs; params + 4,096 biases.
  const Evaluated fc6 = evaluate(fc, {Shape::vector(9216)});
  CHECK(fc6.counts.macs == 37'748'736);
  CHECK(fc6.counts.params == 37'748'736 + 4096);
  fc.linear.out_features = 10000;
  // A decoder over 35 steps of 1,024 features: 35 * 1,024 * 10,000 = 358,400,000 MACs.
  const Evaluated decoder = evaluate(fc, {Shape::sequence(35, 1024)});
  CHECK(decoder.output == Shape::sequence(35, 10000));
  CHECK(decoder.counts.macs == 358'400'000);
  CHECK(infer_output_shape(fc, {Shape::image(256, 6, 6)}).error.message ==
        "linear needs a vector or sequence input, got image 256x6x6 (add a flatten layer)");
}

TEST_CASE("LSTM: 4 gates, weights W_ih and W_hh, two bias vectors", "[layers]") {
  LayerSpec lstm = of_type(LayerType::lstm);
  lstm.recurrent.hidden_size = 1024;
  const Evaluated result = evaluate(lstm, {Shape::sequence(35, 1024)});
  // params = 4 * (1024 * (1024 + 1024) + 2 * 1024) = 4 * 2,099,200 = 8,396,800.
  // MACs = 35 steps * 4 gates * 1024 * 2048 = 293,601,280; vector ops = 35 * 1024 * 9.
  CHECK(result.output == Shape::sequence(35, 1024));
  CHECK(result.counts.params == 8'396'800);
  CHECK(result.counts.macs == 293'601'280);
  CHECK(result.counts.vector_ops == 35 * 1024 * 9);
}

TEST_CASE("GRU: stacked and bidirectional layers feed 2H features upward", "[layers]") {
  LayerSpec gru = of_type(LayerType::gru);
  gru.recurrent.hidden_size = 20;
  gru.recurrent.num_layers = 2;
  gru.recurrent.bidirectional = true;
  const Evaluated result = evaluate(gru, {Shape::sequence(5, 10)});
  // Layer 1 per direction: 3 * (20*(10+20) + 2*20) = 1,920; two directions: 3,840.
  // Layer 2 sees 40 features: 3 * (20*(40+20) + 40) = 3,720 per direction; 7,440. Total 11,280.
  // MACs: 5 steps * 2 directions * 3 gates * (20*30 + 20*60) = 30 * 1,800 = 54,000.
  CHECK(result.output == Shape::sequence(5, 40));
  CHECK(result.counts.params == 11'280);
  CHECK(result.counts.macs == 54'000);
  gru.recurrent.return_sequences = false;
  CHECK(evaluate(gru, {Shape::sequence(5, 10)}).output == Shape::vector(40));
}

TEST_CASE("pooling: floor and ceil modes, global pooling", "[layers]") {
  LayerSpec pool = of_type(LayerType::maxpool);
  pool.pool.kernel = {3, 3};
  pool.pool.stride = HeightWidth{2, 2};
  // floor((112 - 3) / 2) + 1 = 55; ceil((112 - 3) / 2) + 1 = 56.
  CHECK(evaluate(pool, {Shape::image(64, 112, 112)}).output == Shape::image(64, 55, 55));
  pool.pool.ceil_mode = true;
  CHECK(evaluate(pool, {Shape::image(64, 112, 112)}).output == Shape::image(64, 56, 56));
  // ceil((5 + 2 - 2) / 2) + 1 = 4, but window 4 would start at 6 >= 5 + 1 (in the padding): 3.
  pool.pool.kernel = {2, 2};
  pool.pool.padding = {1, 1};
  CHECK(evaluate(pool, {Shape::image(1, 5, 5)}).output == Shape::image(1, 3, 3));
  LayerSpec global = of_type(LayerType::avgpool);
  global.pool.global = true;
  const Evaluated averaged = evaluate(global, {Shape::image(2048, 7, 7)});
  CHECK(averaged.output == Shape::image(2048, 1, 1));
  CHECK(averaged.counts.vector_ops == 2048 * 49);  // one add per input element
}

TEST_CASE("concat, add, mul, flatten, to_sequence, batchnorm, softmax, embedding", "[layers]") {
  const Evaluated joined = evaluate(of_type(LayerType::concat), {Shape::image(64, 28, 28), Shape::image(128, 28, 28)});
  CHECK(joined.output == Shape::image(192, 28, 28));
  CHECK(infer_output_shape(of_type(LayerType::concat), {Shape::image(64, 28, 28), Shape::image(64, 14, 28)})
            .error.message ==
        "cannot concatenate image 64x28x28 with image 64x14x28 (images need the same height and width, sequences "
        "the same length)");
  const Evaluated sum = evaluate(of_type(LayerType::add), {Shape::image(256, 56, 56), Shape::image(256, 56, 56)});
  CHECK(sum.counts.vector_ops == 256 * 56 * 56);
  // Three 4096-vectors multiplied element-wise: two products per output element, no MACs.
  const Evaluated product =
      evaluate(of_type(LayerType::mul), {Shape::vector(4096), Shape::vector(4096), Shape::vector(4096)});
  CHECK(product.output == Shape::vector(4096));
  CHECK(product.counts.vector_ops == 2 * 4096);
  CHECK(product.counts.macs == 0);
  CHECK(infer_output_shape(of_type(LayerType::mul), {Shape::vector(4096), Shape::vector(1000)}).error.message ==
        "cannot mul vector 4096 and vector 1000 (element-wise mul needs equal shapes)");
  CHECK(evaluate(of_type(LayerType::flatten), {Shape::image(256, 6, 6)}).output == Shape::vector(9216));
  // Time along the width: 32 channels x 41 frequency rows = 1,312 features per step, 50 steps.
  CHECK(evaluate(of_type(LayerType::to_sequence), {Shape::image(32, 41, 50)}).output == Shape::sequence(50, 1312));
  const Evaluated norm = evaluate(of_type(LayerType::batchnorm), {Shape::image(64, 56, 56)});
  CHECK(norm.counts.params == 128);  // scale and shift per channel
  CHECK(evaluate(of_type(LayerType::softmax), {Shape::vector(1000)}).counts.vector_ops == 3000);
  LayerSpec embedding = of_type(LayerType::embedding);
  embedding.embedding = {10000, 1024};
  const Evaluated embedded = evaluate(embedding, {Shape::sequence(35, 1)});
  CHECK(embedded.output == Shape::sequence(35, 1024));
  CHECK(embedded.counts.params == 10'240'000);
  CHECK(embedded.counts.macs == 0);
}

TEST_CASE("compulsory traffic: weights once per batch, activations per sample, embeddings gather rows", "[layers]") {
  // Linear M x M (no bias) on an M-vector, b = 16 bits: b(M + M^2) bits of input and weights per
  // input at batch 1; at batch B the weight share per input falls by B.
  ModelSpec model;
  model.name = "gemv";
  model.precision = Precision::fp16;
  model.input = Shape::vector(4096);
  LayerSpec fc = of_type(LayerType::linear);
  fc.linear = {4096, false, std::nullopt};
  fc.inputs = {kModelInput};
  model.layers = {fc};
  const NetworkBuild build = build_network(model);
  REQUIRE(build.network);
  const NetworkLayer& layer = build.network->layers.front();
  const TrafficBytes one = compulsory_traffic(layer, 1, 2);
  CHECK(one.weight + one.input == 2 * (4096 + 4096LL * 4096));  // 33,562,624 bytes
  const TrafficBytes eight = compulsory_traffic(layer, 8, 2);
  CHECK(eight.weight == one.weight);
  CHECK(eight.input == 8 * one.input);

  ModelSpec lm;
  lm.name = "lm";
  lm.input = Shape::sequence(35, 1);
  LayerSpec embedding = of_type(LayerType::embedding);
  embedding.embedding = {10000, 1024};
  embedding.inputs = {kModelInput};
  lm.layers = {embedding};
  const NetworkBuild lm_build = build_network(lm);
  REQUIRE(lm_build.network);
  // Batch 1: 35 tokens gather 35 rows of 1,024 fp32 values; batch 1,000: 35,000 tokens, but only
  // 10,000 distinct rows exist.
  CHECK(compulsory_traffic(lm_build.network->layers.front(), 1, 4).weight == 35 * 1024 * 4);
  CHECK(compulsory_traffic(lm_build.network->layers.front(), 1000, 4).weight == 10000LL * 1024 * 4);
}

TEST_CASE("network: topological order follows the DAG, cycles are named", "[layers]") {
  ModelSpec model;
  model.name = "dag";
  model.input = Shape::vector(8);
  LayerSpec late = of_type(LayerType::relu);
  late.name = "late";
  late.inputs = {"early"};  // a forward reference: runs after `early`
  LayerSpec early = of_type(LayerType::relu);
  early.name = "early";
  early.inputs = {kModelInput};
  model.layers = {late, early};
  const NetworkBuild build = build_network(model);
  REQUIRE(build.network);
  CHECK(build.network->layers[0].spec.name == "early");
  CHECK(build.network->layers[1].spec.name == "late");

  model.layers[1].inputs = {"late"};
  const NetworkBuild cyclic = build_network(model);
  REQUIRE(cyclic.errors.size() == 1);
  CHECK(cyclic.errors[0].message == "the layer graph has a cycle: late <- early <- late");
}

TEST_CASE("counts that overflow 64 bits are refused, not wrapped", "[layers]") {
  LayerSpec fc = of_type(LayerType::linear);
  fc.linear.out_features = std::int64_t{1} << 40;
  // 2^40 x 2^40 weights = 2^80: far beyond int64.
  CHECK_THROWS_AS(count_layer(fc, {Shape::vector(std::int64_t{1} << 40)}, Shape::vector(std::int64_t{1} << 40)),
                  util::CountOverflow);
}

TEST_CASE("matmul Q x K^T and A x V: shapes per head and MACs", "[layers][transformer]") {
  // 4 heads of 64 over S = 10 queries and T = 12 keys.
  LayerSpec scores = of_type(LayerType::matmul);
  scores.matmul.heads = 4;
  scores.matmul.transpose_b = true;
  const Evaluated qk = evaluate(scores, {Shape::sequence(10, 256), Shape::sequence(12, 256)});
  CHECK(qk.output == Shape::sequence(10, 4 * 12));  // a row of 12 scores per head
  CHECK(qk.counts.macs == 10 * 12 * 64 * 4);         // each score a dot product over 64
  CHECK(qk.counts.params == 0);                     // neither operand is a weight
  LayerSpec context = of_type(LayerType::matmul);
  context.matmul.heads = 4;
  const Evaluated av = evaluate(context, {Shape::sequence(10, 48), Shape::sequence(12, 256)});
  CHECK(av.output == Shape::sequence(10, 256));
  CHECK(av.counts.macs == 10 * 256 * 12);  // each output a sum over the 12 positions
}

TEST_CASE("matmul with grouped-query heads: 8 query heads share 2 key/value heads", "[layers][transformer]") {
  LayerSpec scores = of_type(LayerType::matmul);
  scores.matmul.heads = 8;
  scores.matmul.kv_heads = 2;
  scores.matmul.transpose_b = true;
  // Q: 8 heads x 32 = 256 features; K: 2 heads x 32 = 64.
  const Evaluated qk = evaluate(scores, {Shape::sequence(5, 256), Shape::sequence(7, 64)});
  CHECK(qk.output == Shape::sequence(5, 8 * 7));
  CHECK(qk.counts.macs == 5 * 7 * 32 * 8);
}

TEST_CASE("matmul refuses heads that do not divide, and mismatched operands", "[layers][transformer]") {
  LayerSpec scores = of_type(LayerType::matmul);
  scores.matmul.heads = 6;
  scores.matmul.kv_heads = 4;
  scores.matmul.transpose_b = true;
  ShapeResult result = infer_output_shape(scores, {Shape::sequence(5, 240), Shape::sequence(7, 160)});
  CHECK(result.error.field == "kv_heads");
  CHECK(result.error.message == "kv_heads 4 does not divide heads 6");
  scores.matmul.kv_heads = 0;
  result = infer_output_shape(scores, {Shape::sequence(5, 250), Shape::sequence(7, 250)});
  CHECK(result.error.field == "heads");
  CHECK(result.error.message == "heads 6 does not divide the second input's 250 features");
  scores.matmul.heads = 2;
  result = infer_output_shape(scores, {Shape::sequence(5, 96), Shape::sequence(7, 64)});
  CHECK(result.error.field == "heads");
  CHECK(result.error.message == "the first input has 96 features, not heads 2 x 32 (the second input's head size)");
  result = infer_output_shape(scores, {Shape::vector(64), Shape::sequence(7, 64)});
  CHECK(result.error.message == "matmul multiplies two sequences, got vector 64 and sequence 7x64");
  result = infer_output_shape(scores, {Shape::sequence(7, 64)});
  CHECK(result.error.message == "matmul takes two inputs, got 1");
}

TEST_CASE("layernorm, rmsnorm, mul, silu and first_step: parameters and vector ops", "[layers][transformer]") {
  const Shape tokens = Shape::sequence(10, 64);
  // LayerNorm: gamma and beta per feature (2 x 64); 7 element ops each (mean; variance's subtract,
  // multiply and add; the multiply by 1/std; scale; shift).
  const Evaluated ln = evaluate(of_type(LayerType::layernorm), {tokens});
  CHECK(ln.counts.params == 128);
  CHECK(ln.counts.vector_ops == 7 * 640);
  // Without bias (PaLM's): gamma alone, 64, and no shift: 6 ops each.
  LayerSpec unbiased = of_type(LayerType::layernorm);
  unbiased.norm.bias = false;
  const Evaluated scale_only = evaluate(unbiased, {tokens});
  CHECK(scale_only.output == tokens);
  CHECK(scale_only.counts.params == 64);
  CHECK(scale_only.counts.vector_ops == 6 * 640);
  // RMSNorm: gamma only; 4 ops each (square, sum, multiply by 1/rms, scale).
  const Evaluated rms = evaluate(of_type(LayerType::rmsnorm), {tokens});
  CHECK(rms.counts.params == 64);
  CHECK(rms.counts.vector_ops == 4 * 640);
  // SwiGLU's product of two projections: one multiply per element.
  const Evaluated mul = evaluate(of_type(LayerType::mul), {tokens, tokens});
  CHECK(mul.output == tokens);
  CHECK(mul.counts.vector_ops == 640);
  CHECK(evaluate(of_type(LayerType::silu), {tokens}).counts.vector_ops == 640);
  const Evaluated cls = evaluate(of_type(LayerType::first_step), {tokens});
  CHECK(cls.output == Shape::vector(64));
  CHECK(cls.counts.vector_ops == 0);
  CHECK(infer_output_shape(of_type(LayerType::layernorm), {Shape::image(3, 4, 4)}).error.message ==
        "layernorm normalizes features: it needs a vector or sequence input, got image 3x4x4");
  CHECK(infer_output_shape(of_type(LayerType::mul), {tokens, Shape::sequence(9, 64)}).error.message ==
        "cannot mul sequence 10x64 and sequence 9x64 (element-wise mul needs equal shapes)");
}

TEST_CASE("to_tokens, class_token and position_embedding: ViT's image to tokens", "[layers][transformer]") {
  // A 16 x 16-patch convolution of a 224 x 224 image gives 768 x 14 x 14: 196 tokens of 768.
  const Evaluated tokens = evaluate(of_type(LayerType::to_tokens), {Shape::image(768, 14, 14)});
  CHECK(tokens.output == Shape::sequence(196, 768));
  CHECK(tokens.counts.params == 0);
  CHECK(tokens.counts.vector_ops == 0);
  // The class token: one learned row of 768 in front, 197 tokens.
  const Evaluated cls = evaluate(of_type(LayerType::class_token), {tokens.output});
  CHECK(cls.output == Shape::sequence(197, 768));
  CHECK(cls.counts.params == 768);
  CHECK(cls.counts.vector_ops == 0);
  // Learned positions: a 197 x 768 table, one add per element.
  const Evaluated positions = evaluate(of_type(LayerType::position_embedding), {cls.output});
  CHECK(positions.output == cls.output);
  CHECK(positions.counts.params == 197 * 768);
  CHECK(positions.counts.vector_ops == 197 * 768);
  CHECK(infer_output_shape(of_type(LayerType::to_tokens), {Shape::sequence(4, 8)}).error.message ==
        "to_tokens needs an image input, got sequence 4x8");
  CHECK(infer_output_shape(of_type(LayerType::class_token), {Shape::vector(8)}).error.message ==
        "class_token needs a sequence input, got vector 8");
  CHECK(infer_output_shape(of_type(LayerType::position_embedding), {Shape::image(3, 4, 4)}).error.message ==
        "position_embedding needs a sequence input, got image 3x4x4");
}
