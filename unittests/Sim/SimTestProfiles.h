//===- SimTestProfiles.h - Profiles and configs shared by the sim tests ---===//
//
// The std/sim data files as loaded by the tool, plus argv builders, so each
// test states only the knob it is about.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_UNITTESTS_SIM_SIMTESTPROFILES_H
#define ARECIPE_UNITTESTS_SIM_SIMTESTPROFILES_H

#include "arecipe/Sim/EngineConfig.h"
#include "arecipe/Sim/Profiles.h"

#include <gtest/gtest.h>

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

} // namespace arecipe::sim::test

#endif
