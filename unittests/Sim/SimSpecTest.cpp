//===- SimSpecTest.cpp - The recipe's model and hardware as a sim spec ----===//
#include "arecipe/Sim/SimSpec.h"
#include "SimTestProfiles.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

using namespace arecipe::sim;
using nlohmann::json;
using namespace arecipe::sim::test;

namespace {

std::string parse(const json &Spec, HardwareProfile &Hw, ModelProfile &M) {
  std::string Error;
  parseSimSpec(Spec.dump(), "spec.json", Hw, M, Error);
  return Error;
}

TEST(SimSpec, GqaModelDerivesKvAndAttentionFlops) {
  HardwareProfile Hw;
  ModelProfile M;
  ASSERT_EQ(parse(llama70bOnH100(), Hw, M), "");
  EXPECT_EQ(M.Name, "meta-llama/Llama-3.1-70B-Instruct");
  EXPECT_EQ(M.Source, "spec spec.json");
  EXPECT_EQ(M.Attention, AttentionKind::Gqa);
  EXPECT_EQ(M.KvHeads, 8);
  EXPECT_DOUBLE_EQ(M.KvElementsPerToken, 2.0 * 80 * 8 * 128);
  EXPECT_DOUBLE_EQ(M.AttentionFlopsPerTokenPair, 4.0 * 80 * 64 * 128);
  EXPECT_DOUBLE_EQ(M.WeightBytes, 141.2e9);
  EXPECT_DOUBLE_EQ(M.DenseWeightBytes, 141.2e9); // dense: no experts
  EXPECT_DOUBLE_EQ(M.ActiveParams, 70.6e9);      // defaults to the total
  EXPECT_EQ(M.WeightDtype, "bf16");
  EXPECT_EQ(M.MaxContextTokens, 131072);
  EXPECT_EQ(Hw.Name, "h100");
  EXPECT_DOUBLE_EQ(Hw.HbmBytes, 80e9);
  EXPECT_DOUBLE_EQ(Hw.peakFlopsFor("bf16"), 0.989e15);
  EXPECT_DOUBLE_EQ(Hw.InterconnectBandwidth, 450e9);
  EXPECT_DOUBLE_EQ(Hw.NodeDramMiB * 1048576.0, 2e12);
  // Calibration defaults when the spec has none.
  EXPECT_DOUBLE_EQ(Hw.MemEfficiency, SimSpecDefaults::MemEfficiency);
  EXPECT_DOUBLE_EQ(Hw.FlopsEfficiency, SimSpecDefaults::FlopsEfficiency);
  EXPECT_DOUBLE_EQ(M.ActivationReserveBytes,
                   SimSpecDefaults::ActivationReserveBytes);
}

TEST(SimSpec, MlaMoeModelDerivesLatentKvAndTheDenseExpertSplit) {
  json Spec = llama70bOnH100();
  // A DeepSeek-V3-shaped model: 61 layers, latent 512 + rope 64, 256
  // experts, 8 per token, 671B total, 37B active, fp8.
  Spec["model"] = json::parse(R"({"id": "deepseek-ai/DeepSeek-V3",
      "layers": 61, "hidden_size": 7168, "attention": "mla",
      "kv_lora_rank": 512, "rope_dim": 64, "attention_heads": 128,
      "params_total": 671e9, "params_active": 37e9, "experts": 256,
      "experts_per_token": 8, "checkpoint_bytes": 689000000000,
      "precision": "fp8", "context_length": 163840,
      "calibration_ignored": 1})");
  HardwareProfile Hw;
  ModelProfile M;
  ASSERT_EQ(parse(Spec, Hw, M), "");
  EXPECT_EQ(M.Attention, AttentionKind::Mla);
  EXPECT_DOUBLE_EQ(M.KvElementsPerToken, 61.0 * (512 + 64));
  EXPECT_DOUBLE_EQ(M.AttentionFlopsPerTokenPair,
                   2.0 * 61 * 128 * (2 * 512 + 64));
  // active = dense + experts * 8/256, total = dense + experts.
  double Experts = (671e9 - 37e9) / (1 - 8.0 / 256);
  EXPECT_NEAR(M.DenseWeightBytes, 689e9 * (671e9 - Experts) / 671e9, 1);
  EXPECT_EQ(M.NumExperts, 256);
  EXPECT_EQ(M.WeightDtype, "fp8");
}

TEST(SimSpec, ExplicitKvBytesReplaceTheShape) {
  json Spec = llama70bOnH100();
  Spec["model"].erase("head_dim");
  Spec["model"]["kv_bytes_per_token"] = 327680;
  HardwareProfile Hw;
  ModelProfile M;
  ASSERT_EQ(parse(Spec, Hw, M), "");
  EXPECT_DOUBLE_EQ(M.KvElementsPerToken, 163840); // 16-bit elements
}

TEST(SimSpec, AMissingFigureIsAnErrorNamingTheField) {
  struct Case {
    const char *Part, *Field;
    const char *Error;
  } Cases[] = {
      {"model", "layers",
       "spec.json: model.layers: missing: the simulator needs it"},
      {"model", "attention",
       "spec.json: model.attention: missing: 'gqa' or 'mla', how the KV cache "
       "is stored and shards"},
      {"model", "kv_heads",
       "spec.json: model.kv_heads: missing: a gqa model's KV heads decide how "
       "its KV splits over TP ranks"},
      {"model", "head_dim",
       "spec.json: model.head_dim: missing: a gqa model's KV per token is 2 x "
       "kv_layers x kv_heads x head_dim (or give kv_bytes_per_token)"},
      {"model", "checkpoint_bytes",
       "spec.json: model.checkpoint_bytes: missing: the weights' size sets "
       "memory and load time"},
      {"model", "context_length",
       "spec.json: model.context_length: missing: the simulator needs it"},
      {"hardware", "hbm_bytes",
       "spec.json: hardware.hbm_bytes: missing: device memory sizes the KV "
       "cache"},
      {"hardware", "flops_bf16",
       "spec.json: hardware.flops_bf16: missing: the model's bf16 weights "
       "compute at it (FLOP/s)"},
      {"hardware", "dram_bytes",
       "spec.json: hardware.dram_bytes: missing: a CPU KV tier must fit the "
       "node's DRAM"},
  };
  for (const Case &C : Cases) {
    json Spec = llama70bOnH100();
    Spec[C.Part].erase(C.Field);
    HardwareProfile Hw;
    ModelProfile M;
    EXPECT_EQ(parse(Spec, Hw, M), C.Error);
  }
  json Spec = llama70bOnH100();
  Spec["model"]["experts"] = 64;
  HardwareProfile Hw;
  ModelProfile M;
  EXPECT_EQ(parse(Spec, Hw, M),
            "spec.json: model.experts_per_token: missing: a mixture-of-experts "
            "model reads the experts its tokens route to");
  Spec = llama70bOnH100();
  Spec["model"]["layers"] = "80";
  EXPECT_EQ(parse(Spec, Hw, M),
            "spec.json: model.layers: expected an integer, got string");
  Spec = llama70bOnH100();
  Spec["hardware"]["hbm_bandwidth"] = -1;
  EXPECT_EQ(parse(Spec, Hw, M),
            "spec.json: hardware.hbm_bandwidth: -1 is outside [1, 1e+18]");
  Spec = llama70bOnH100();
  Spec["hardware"]["calibration"] = {{"mem_efficiency", 2}};
  EXPECT_EQ(parse(Spec, Hw, M), "spec.json: hardware.calibration."
                                "mem_efficiency: 2 is outside [1e-06, 1]");
  Spec = llama70bOnH100();
  Spec.erase("hardware");
  EXPECT_EQ(parse(Spec, Hw, M), "spec.json: hardware: missing: the spec "
                                "describes the model and the hardware");
}

} // namespace
