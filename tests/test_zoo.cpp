// The network zoo against published counts (docs/worked-examples.md; sources in models/README.md).
#include <catch2/catch.hpp>

#include <filesystem>

#include "config/model_loader.h"
#include "report/analyze_report.h"
#include "workload/footprint.h"

using namespace reusesim;

namespace {

std::string model_path(const std::string& name) {
  return std::string(REUSESIM_SOURCE_DIR) + "/models/" + name + ".yaml";
}

config::LoadedModel zoo(const std::string& name) { return config::load_model_file(model_path(name)); }

const workload::NetworkLayer& layer_named(const workload::Network& network, const std::string& name) {
  for (const auto& layer : network.layers) {
    if (layer.spec.name == name) return layer;
  }
  FAIL("no layer " << name);
  throw;
}

}  // namespace

TEST_CASE("AlexNet (grouped): conv1, fc6 and total MACs", "[zoo]") {
  const config::LoadedModel alexnet = zoo("alexnet");
  const auto& conv1 = layer_named(alexnet.network, "conv1");
  CHECK(conv1.counts.macs == 105'415'200);
  CHECK(conv1.counts.input_elems == 154'587);  // 227 * 227 * 3
  CHECK(conv1.counts.output_elems == 290'400);  // 55 * 55 * 96
  CHECK(conv1.counts.params == 34'944);         // 34,848 weights + 96 biases
  CHECK(layer_named(alexnet.network, "fc6").counts.macs == 37'748'736);
  CHECK(alexnet.network.total_macs() == 724'406'816);
}

TEST_CASE("AlexNet conv1 on an ideal 120 Tops/s device needs 351.9 GB/s in and 661.1 GB/s out (fp32)", "[zoo]") {
  const config::LoadedModel alexnet = zoo("alexnet");
  report::AnalyzeOptions options;
  options.peak_tops = 120;
  const nlohmann::ordered_json rows = report::analyze_table(alexnet.network, options).to_json();
  const nlohmann::ordered_json& conv1 = rows.front();
  REQUIRE(conv1["layer"] == "conv1");
  // time = 105,415,200 * 2 / 120e12 = 1.7569 us; input 154,587 * 4 B / 1.7569 us = 351.95 GB/s;
  // output 290,400 * 4 B / 1.7569 us = 661.15 GB/s; weights 34,944 * 4 B / 1.7569 us = 79.56 GB/s.
  CHECK(conv1["ideal_time_us"].get<double>() == Approx(1.75692).epsilon(1e-5));
  CHECK(conv1["input_gbps"].get<double>() == Approx(351.9).epsilon(2e-4));
  CHECK(conv1["output_gbps"].get<double>() == Approx(661.1).epsilon(2e-4));
  CHECK(conv1["weight_gbps"].get<double>() == Approx(79.6).epsilon(1e-3));
}

TEST_CASE("zoo parameter and MAC totals match the reference implementations", "[zoo]") {
  // torchvision's counts (trainable parameters; batchnorm = 2 per channel).
  CHECK(zoo("alexnet_owt").network.total_params() == 61'100'840);
  const config::LoadedModel resnet50 = zoo("resnet50");
  CHECK(resnet50.network.total_params() == 25'557'032);
  CHECK(static_cast<double>(resnet50.network.total_macs()) == Approx(4.09e9).epsilon(0.005));
  const config::LoadedModel googlenet = zoo("googlenet");
  CHECK(googlenet.network.total_params() == 6'624'904);
  CHECK(static_cast<double>(googlenet.network.total_macs()) == Approx(1.50e9).epsilon(0.005));
  const config::LoadedModel vgg16 = zoo("vgg16");
  CHECK(vgg16.network.total_params() == 138'357'544);
  CHECK(static_cast<double>(vgg16.network.total_macs()) == Approx(15.5e9).epsilon(0.005));
  // 1000*100+100 + 3*(100*100+100) + 100*10+10 = 100,100 + 30,300 + 1,010.
  CHECK(zoo("mlp").network.total_params() == 131'410);
}

TEST_CASE("DeepSpeech2: sequence length is a parameter and GRUs scale with it", "[zoo]") {
  const config::LoadedModel base = zoo("deepspeech2");
  const config::LoadedModel longer = config::load_model_file(model_path("deepspeech2"), {"parameters.seq_len=200"});
  std::int64_t recurrent_layers = 0;
  for (const auto& layer : base.network.layers) {
    if (!workload::is_recurrent(layer.spec.type)) continue;
    ++recurrent_layers;
    CHECK(layer.spec.recurrent.hidden_size == 400);
    // Twice the frames give twice the time steps after the convolutions: twice the MACs.
    CHECK(layer_named(longer.network, layer.spec.name).counts.macs == 2 * layer.counts.macs);
  }
  CHECK(recurrent_layers == 4);
}

TEST_CASE("TPU v1 stand-ins carry Table 1's weight totals: MLP0 20 M, LSTM0 52 M", "[zoo]") {
  // MLP0 (Jouppi et al. ISCA 2017, Table 1: 5 FC layers, 20 M weights): 5 linear layers of
  // 2000 x 2000. Weights 5 x 4,000,000 = 20,000,000; params add 5 x 2000 biases = 20,010,000;
  // MACs per sample one per weight = 20,000,000.
  const config::LoadedModel mlp0 = zoo("tpu_mlp0");
  CHECK(mlp0.network.layers.size() == 5);
  CHECK(mlp0.network.total_params() == 20'010'000);
  CHECK(mlp0.network.total_macs() == 20'000'000);
  CHECK(layer_named(mlp0.network, "fc3").counts.params == 4'002'000);  // 2000 * 2000 + 2000

  // LSTM0 (Table 1: 24 FC = 6 LSTM layers x 4 gates, 52 M weights): hidden 1024, 1536 input features.
  // lstm1 weights 4 * 1024 * (1536 + 1024) = 10,485,760, lstm2..6 4 * 1024 * 2048 = 8,388,608 each:
  // 10,485,760 + 5 * 8,388,608 = 52,428,800 weights; biases 8 * 1024 = 8,192 per layer, 6 * 8,192 =
  // 49,152; params 52,477,952. MACs per step one per weight, 8 steps by default: 419,430,400.
  const config::LoadedModel lstm0 = zoo("tpu_lstm0");
  CHECK(lstm0.network.layers.size() == 6);
  CHECK(lstm0.network.total_params() == 52'477'952);
  CHECK(lstm0.network.total_macs() == 419'430'400);
  CHECK(layer_named(lstm0.network, "lstm1").counts.params == 10'493'952);  // 10,485,760 + 8,192
  CHECK(layer_named(lstm0.network, "lstm6").counts.macs == 67'108'864);   // 8 * 8,388,608
}

TEST_CASE("every model in models/ loads, and its footprint peak never exceeds its total", "[zoo]") {
  std::int64_t models = 0;
  for (const auto& entry : std::filesystem::directory_iterator(std::string(REUSESIM_SOURCE_DIR) + "/models")) {
    if (entry.path().extension() != ".yaml") continue;
    ++models;
    const config::LoadedModel model = config::load_model_file(entry.path().string());
    CHECK(model.network.total_params() > 0);
    for (const auto mode : {workload::FootprintMode::infer, workload::FootprintMode::train}) {
      workload::FootprintOptions options;
      options.batch = 16;
      options.mode = mode;
      options.im2col = true;
      const workload::Footprint footprint = workload::compute_footprint(model.network, options);
      INFO(entry.path().string());
      CHECK(footprint.peak_bytes <= footprint.total_bytes);
      CHECK(footprint.peak_bytes >= footprint.weight_bytes);
    }
  }
  CHECK(models == 21);  // the 21 files in models/
}

TEST_CASE("transformer zoo: parameter counts of the reference implementations", "[zoo][transformer]") {
  // GPT-2 small (GPT2Model): wte 50,257 x 768 = 38,597,376; wpe 1,024 x 768 = 786,432; per layer
  // 2 LayerNorms 2 x 1,536, q/k/v/proj 4 x (768 x 768 + 768) = 2,362,368, fc 768 x 3,072 + 3,072 =
  // 2,362,368, proj 3,072 x 768 + 768 = 2,360,064: 7,087,872 x 12 = 85,054,464; ln_f 1,536.
  CHECK(zoo("gpt2").network.total_params() == 38'597'376 + 786'432 + 12 * 7'087'872 + 1'536);
  CHECK(zoo("gpt2").network.total_params() == 124'439'808);
  // BERT-base with its pooler: embeddings 30,522 x 768 + 512 x 768 + 2 x 768 + 1,536 = 23,837,184;
  // 12 layers of 7,087,872 (the same parts as GPT-2's, post-norm); pooler 768 x 768 + 768.
  CHECK(zoo("bert_base").network.total_params() == 23'837'184 + 12 * 7'087'872 + 590'592);
  CHECK(zoo("bert_base").network.total_params() == 109'482'240);
  // Llama-2-7B: embed 32,000 x 4,096 = 131,072,000; per layer 4 x 4,096^2 = 67,108,864 (attention)
  // + 3 x 4,096 x 11,008 = 135,266,304 (SwiGLU MLP) + 2 x 4,096 (RMSNorms) = 202,383,360, x 32;
  // final norm 4,096; lm_head 131,072,000 (untied).
  CHECK(zoo("llama2_7b").network.total_params() == 131'072'000 + 32 * 202'383'360LL + 4'096 + 131'072'000);
  CHECK(zoo("llama2_7b").network.total_params() == 6'738'415'616);
  // Llama-3.1-8B: embed 128,256 x 4,096 = 525,336,576; per layer q and o 2 x 4,096^2 = 33,554,432,
  // k and v 2 x 4,096 x 1,024 = 8,388,608 (8 key/value heads of 128), SwiGLU 3 x 4,096 x 14,336 =
  // 176,160,768, RMSNorms 2 x 4,096: 218,112,000, x 32; final norm 4,096; lm_head 525,336,576.
  const config::LoadedModel llama3 = zoo("llama3_1_8b");
  CHECK(llama3.network.total_params() == 525'336'576 + 32 * 218'112'000LL + 4'096 + 525'336'576);
  CHECK(llama3.network.total_params() == 8'030'261'248);
  CHECK(layer_named(llama3.network, "layers_1/k").counts.params == 4'096 * 1'024);
  // ViT-B/16 (torchvision vit_b_16): conv_proj 3 x 16 x 16 x 768 + 768 = 590,592; class token 768;
  // positions 197 x 768 = 151,296; 12 pre-norm layers of 7,087,872 (GPT-2's parts); encoder.ln
  // 1,536; head 768 x 1,000 + 1,000 = 769,000.
  CHECK(zoo("vit_b_16").network.total_params() == 590'592 + 768 + 151'296 + 12 * 7'087'872 + 1'536 + 769'000);
  CHECK(zoo("vit_b_16").network.total_params() == 86'567'656);
}

TEST_CASE("transformer zoo: MACs per token, attention growing with the sequence", "[zoo][transformer]") {
  // One Llama-2-7B layer at S = 128 tokens: per token q, k, v, o 4 x 4,096 x 4,096 = 67,108,864 and
  // gate, up, down 3 x 4,096 x 11,008 = 135,266,304; attention Q K^T and A V 2 x S x 4,096 =
  // 1,048,576 (32 heads x 128 positions x 128 per head, twice): 203,423,744 per token.
  const config::LoadedModel llama = zoo("llama2_7b");
  std::int64_t layer_macs = 0;
  for (const auto& layer : llama.network.layers) {
    if (layer.spec.name.rfind("layers_1/", 0) == 0) layer_macs += layer.counts.macs;
  }
  CHECK(layer_macs == 128LL * (67'108'864 + 135'266'304 + 2 * 128 * 4'096));
  const auto& scores = layer_named(llama.network, "layers_1/scores");
  CHECK(scores.output_shape == workload::Shape::sequence(128, 32 * 128));  // per head, a row of 128 scores
  CHECK(scores.counts.macs == 128 * 128 * 128 * 32);
  // GPT-2 at S = 128: per token 12 x (4 x 589,824 + 2 x 2,359,296 + 2 x 128 x 768) = 87,293,952.
  CHECK(zoo("gpt2").network.total_macs() == 128LL * 87'293'952);
  // ViT-B/16 per image: conv_proj 196 x 768 x 768 = 115,605,504; 12 layers of 197 tokens x
  // 7,077,888 plus attention 2 x 197 x 197 x 768 = 59,610,624; head 768,000.
  CHECK(zoo("vit_b_16").network.total_macs() == 115'605'504 + 12 * (197LL * 7'077'888 + 59'610'624) + 768'000);
  CHECK(zoo("vit_b_16").network.total_macs() == 17'563'828'224);
}

namespace {

// A decode step at context L of a model cut to one layer (its repeated block, `block`): that
// layer's MACs and the KV-cache elements its kv_cache matmuls read (the L cached tokens and the new one).
struct DecodeLayer {
  std::int64_t macs = 0;
  std::int64_t cached_elements = 0;
};

DecodeLayer decode_layer(const std::string& name, std::int64_t context, const std::string& block = "layers") {
  const config::LoadedModel model =
      config::load_model_file(model_path(name), {"parameters.layers=1"}, config::Phase{0, context});
  CHECK(model.network.input == workload::Shape::sequence(1, 1));  // one new token
  DecodeLayer result;
  for (const auto& layer : model.network.layers) {
    if (layer.spec.name.rfind(block + "/", 0) == 0) result.macs += layer.counts.macs;
    if (layer.cached_steps > 0) {
      CHECK(layer.cached_steps == context);
      result.cached_elements += layer.input_shapes[1].elements();
    }
  }
  return result;
}

}  // namespace

TEST_CASE("Llama-2-7B decode: one layer's MACs per token at context L, and the KV cache it reads", "[zoo][transformer]") {
  // A decode step is one token: per layer q, k, v, o 4 x 4,096^2 = 67,108,864 and the SwiGLU MLP
  // 3 x 4,096 x 11,008 = 135,266,304 MACs, plus attention over the L cached tokens and the new one:
  // Q K^T and A V each (L + 1) x 4,096 (32 heads x 128).
  for (const std::int64_t context : {512, 4095}) {
    INFO("context " << context);
    const DecodeLayer layer = decode_layer("llama2_7b", context);
    CHECK(layer.macs == 67'108'864 + 135'266'304 + 2 * (context + 1) * 4'096);
    // Keys and values of L + 1 tokens, 4,096 each: at fp16 2 x 4,096 x 2 B = 16 KiB per token and
    // layer, 512 KiB per token over the 32 layers.
    CHECK(layer.cached_elements == 2 * (context + 1) * 4'096);
  }
}

TEST_CASE("Llama-3.1-8B decode: grouped-query attention reads a quarter of Llama-2's keys and values",
          "[zoo][transformer]") {
  // Per layer q and o 2 x 4,096^2 = 33,554,432, k and v 2 x 4,096 x 1,024 = 8,388,608, the SwiGLU
  // MLP 3 x 4,096 x 14,336 = 176,160,768: 218,103,808 MACs. Attention over the L cached tokens and
  // the new one: Q K^T and A V each (L + 1) x 128 x 32 query heads; the 4 query heads of a group
  // read the same key/value head, so the MACs are Llama-2's.
  for (const std::int64_t context : {512, 131071}) {
    INFO("context " << context);
    const DecodeLayer layer = decode_layer("llama3_1_8b", context);
    CHECK(layer.macs == 218'103'808 + 2 * (context + 1) * 128 * 32);
    // Keys and values of L + 1 tokens, 1,024 each (8 key/value heads x 128): at fp16 2 x 1,024 x
    // 2 B = 4 KiB per token and layer, 128 KiB per token over the 32 layers.
    CHECK(layer.cached_elements == 2 * (context + 1) * 1'024);
  }
  // The whole model at L = 512: 32 x (218,103,808 + 2 x 513 x 4,096) = 32 x 222,306,304 =
  // 7,113,801,728 and lm_head 4,096 x 128,256 = 525,336,576: 7,639,138,304 MACs per token.
  const config::LoadedModel whole = config::load_model_file(model_path("llama3_1_8b"), {}, config::Phase{0, 512});
  CHECK(whole.network.total_macs() == 32 * 222'306'304LL + 525'336'576);
  CHECK(whole.network.total_macs() == 7'639'138'304);
}

TEST_CASE("large zoo: Llama-2-70B, GPT-3 175B and PaLM 540B parameter counts", "[zoo][transformer]") {
  // Llama-2-70B (LlamaForCausalLM): embed 32,000 x 8,192 = 262,144,000; per layer q and o
  // 2 x 8,192^2 = 134,217,728, k and v 2 x 8,192 x 1,024 = 16,777,216 (8 key/value heads of 128),
  // SwiGLU 3 x 8,192 x 28,672 = 704,643,072, RMSNorms 2 x 8,192: 855,654,400, x 80; final norm
  // 8,192; lm_head 262,144,000 (untied).
  const config::LoadedModel llama = zoo("llama2_70b");
  CHECK(llama.network.total_params() == 262'144'000 + 80 * 855'654'400LL + 8'192 + 262'144'000);
  CHECK(llama.network.total_params() == 68'976'648'192);
  CHECK(layer_named(llama.network, "layers_80/v").counts.params == 8'192 * 1'024);
  // GPT-3 175B in GPT-2's structure, head tied and left out: wte 50,257 x 12,288 = 617,558,016;
  // wpe 2,048 x 12,288 = 25,165,824; per layer 12 d^2 + 13 d at d = 12,288 (q, k, v, proj 4 x
  // (d^2 + d), fc d x 4d + 4d, proj 4d x d + d, two LayerNorms 4d) = 1,811,939,328 + 159,744 =
  // 1,812,099,072, x 96; ln_f 24,576.
  const config::LoadedModel gpt3 = zoo("gpt3_175b");
  CHECK(gpt3.network.total_params() == 617'558'016 + 25'165'824 + 96 * 1'812'099'072LL + 24'576);
  CHECK(gpt3.network.total_params() == 174'604'259'328);
  // PaLM 540B, output layer tied and left out: embedding 256,000 x 18,432 = 4,718,592,000; per layer
  // q and o 2 x 18,432 x 12,288 (48 heads of 256) = 452,984,832, k and v 2 x 18,432 x 256 (one
  // key/value head) = 9,437,184, SwiGLU 3 x 18,432 x 73,728 = 4,076,863,488, one LayerNorm without
  // bias 18,432: 4,539,303,936, x 118; final LayerNorm 18,432. Table 1: 540.35B.
  const config::LoadedModel palm = zoo("palm_540b");
  CHECK(palm.network.total_params() == 4'718'592'000 + 118 * 4'539'303'936LL + 18'432);
  CHECK(palm.network.total_params() == 540'356'474'880);
  CHECK(layer_named(palm.network, "layers_1/norm").counts.params == 18'432);
  CHECK(layer_named(palm.network, "layers_1/q").counts.params == 18'432 * 12'288);
  CHECK(layer_named(palm.network, "layers_1/o").counts.params == 12'288 * 18'432);
}

TEST_CASE("Llama-2-70B decode: 64 query heads read 8 key/value heads' cache", "[zoo][transformer]") {
  // Per layer q and o 2 x 8,192^2 = 134,217,728, k and v 2 x 8,192 x 1,024 = 16,777,216, the SwiGLU
  // MLP 3 x 8,192 x 28,672 = 704,643,072: 855,638,016 MACs. Attention over the L cached tokens and
  // the new one: Q K^T and A V each (L + 1) x 128 x 64 query heads.
  for (const std::int64_t context : {512, 4095}) {
    INFO("context " << context);
    const DecodeLayer layer = decode_layer("llama2_70b", context);
    CHECK(layer.macs == 855'638'016 + 2 * (context + 1) * 128 * 64);
    // Keys and values of L + 1 tokens, 1,024 each (8 heads x 128): at fp16 2 x 1,024 x 2 B = 4 KiB
    // per token and layer, 320 KiB per token over the 80 layers.
    CHECK(layer.cached_elements == 2 * (context + 1) * 1'024);
  }
}

TEST_CASE("GPT-3 175B decode: dense attention over 96 heads of 128", "[zoo][transformer]") {
  // Per layer q, k, v, proj 4 x 12,288^2 = 603,979,776 and the MLP 2 x 12,288 x 49,152 =
  // 1,207,959,552: 1,811,939,328 MACs; attention Q K^T and A V each (L + 1) x 12,288.
  for (const std::int64_t context : {512, 2047}) {
    INFO("context " << context);
    const DecodeLayer layer = decode_layer("gpt3_175b", context, "h");
    CHECK(layer.macs == 1'811'939'328 + 2 * (context + 1) * 12'288);
    // Keys and values of L + 1 tokens, 12,288 each: at fp16 2 x 12,288 x 2 B = 48 KiB per token and
    // layer, 4.5 MiB per token over the 96 layers.
    CHECK(layer.cached_elements == 2 * (context + 1) * 12'288);
  }
}

TEST_CASE("PaLM 540B decode: multi-query attention, 48 heads of 256 on one key/value head", "[zoo][transformer]") {
  // Per layer q 18,432 x 12,288 = 226,492,416, k and v 2 x 18,432 x 256 = 9,437,184, o 12,288 x
  // 18,432 = 226,492,416, SwiGLU 3 x 18,432 x 73,728 = 4,076,863,488: 4,539,285,504 MACs. Attention
  // Q K^T and A V each (L + 1) x 256 x 48 query heads, all reading the one key/value head.
  for (const std::int64_t context : {512, 2047}) {
    INFO("context " << context);
    const DecodeLayer layer = decode_layer("palm_540b", context);
    CHECK(layer.macs == 4'539'285'504 + 2 * (context + 1) * 256 * 48);
    // Keys and values of L + 1 tokens, 256 each: at fp16 2 x 256 x 2 B = 1 KiB per token and layer,
    // 118 KiB per token over the 118 layers.
    CHECK(layer.cached_elements == 2 * (context + 1) * 256);
  }
  // The parallel block: one LayerNorm feeds q, k, v, gate and up; the residual adds three tensors.
  const config::LoadedModel one =
      config::load_model_file(model_path("palm_540b"), {"parameters.layers=1"}, config::Phase{0, 512});
  const auto& scores = layer_named(one.network, "layers/scores");
  CHECK(scores.output_shape == workload::Shape::sequence(1, 48 * 513));  // a row of 513 scores per head
  CHECK(layer_named(one.network, "layers/context").output_shape == workload::Shape::sequence(1, 12'288));
  CHECK(layer_named(one.network, "layers/add").input_shapes.size() == 3);
  CHECK(layer_named(one.network, "layers/gate").spec.inputs == std::vector<std::string>{"layers/norm"});
}
