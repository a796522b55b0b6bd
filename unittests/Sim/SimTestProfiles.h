//===- SimTestProfiles.h - Profiles and configs shared by the sim tests ---===//
//
// The profiles generated from std, as loaded by the tool, plus argv builders, so each
// test states only the knob it is about.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_UNITTESTS_SIM_SIMTESTPROFILES_H
#define ARECIPE_UNITTESTS_SIM_SIMTESTPROFILES_H

#include "arecipe/Sim/EngineConfig.h"
#include "arecipe/Sim/Profiles.h"
#include "arecipe/Sim/SimSpec.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace arecipe::sim::test {

inline HardwareProfile mi355x() {
  HardwareProfile Hw;
  std::string Error;
  EXPECT_TRUE(loadHardwareProfile("mi355x", ARECIPE_SIM_PROFILES_DIR, Hw, Error))
      << Error;
  return Hw;
}

inline ModelProfile model(const char *Name) {
  ModelProfile M;
  std::string Error;
  EXPECT_TRUE(loadModelProfile(Name, ARECIPE_SIM_PROFILES_DIR, M, Error))
      << Error;
  return M;
}

/// The Kimi-K3 ATOM argv of the reference recipe plus \p Extra flags.
inline EngineConfig atomConfig(std::vector<std::string> Extra = {}) {
  std::vector<std::string> Argv = {
      "python", "-m", "atom.entrypoints.openai_server", "--model",
      "/models/Kimi-K3", "--tensor-parallel-size", "8", "--kv_cache_dtype",
      "fp8", "--gpu-memory-utilization", "0.86"};
  Argv.insert(Argv.end(), Extra.begin(), Extra.end());
  EngineParseResult R = parseEngineArgv(Argv, std::nullopt);
  EXPECT_EQ(R.Error, "");
  return R.Config;
}

/// Llama-3.1-70B (80 layers, GQA with 8 KV heads of 128) on an 80 GB H100,
/// as a recipe declares them: a model and a GPU std has no profile of.
inline nlohmann::json llama70bOnH100() {
  return nlohmann::json::parse(R"({
    "model": {"id": "meta-llama/Llama-3.1-70B-Instruct", "layers": 80,
              "hidden_size": 8192, "attention": "gqa", "kv_heads": 8,
              "head_dim": 128, "attention_heads": 64,
              "params_total": 70.6e9, "checkpoint_bytes": 141200000000,
              "precision": "bf16", "context_length": 131072},
    "hardware": {"name": "h100", "gpus_per_node": 8, "hbm_bytes": 80000000000,
                 "hbm_bandwidth": 3.35e12, "flops_bf16": 0.989e15,
                 "flops_fp8": 1.979e15, "dram_bytes": 2000000000000,
                 "host_to_device_bandwidth": 64e9,
                 "interconnect_bandwidth": 450e9}})");
}

/// Parses \p Spec into profiles, failing the test on an error.
inline void fromSpec(const nlohmann::json &Spec, HardwareProfile &Hw,
                     ModelProfile &M) {
  std::string Error;
  EXPECT_TRUE(parseSimSpec(Spec.dump(), "spec.json", Hw, M, Error)) << Error;
}

/// An engine argv, parsed; the test fails on an argument error.
inline EngineConfig config(std::vector<std::string> Argv) {
  EngineParseResult R = parseEngineArgv(Argv, std::nullopt);
  EXPECT_EQ(R.Error, "");
  return R.Config;
}

} // namespace arecipe::sim::test

#endif
