//===- ProfilesTest.cpp - Finding model profiles by name, alias or file ---===//
#include "arecipe/Sim/Profiles.h"

#include <gtest/gtest.h>

using namespace arecipe::sim;

namespace {

const std::string Dir = ARECIPE_SIM_PROFILES_DIR;

TEST(Profiles, AnAliasNamesItsProfile) {
  EXPECT_EQ(resolveModelProfile("moonshotai/Kimi-K3", Dir), "kimi_k3");
  EXPECT_EQ(resolveModelProfile("Kimi-K3", Dir), "kimi_k3");
  EXPECT_EQ(resolveModelProfile("kimi-k3", Dir), "kimi_k3");
  EXPECT_EQ(resolveModelProfile("kimi_k3", Dir), "kimi_k3");
  // An existing file is taken as given.
  std::string File = std::string(ARECIPE_SIM_TEST_INPUTS) + "/tiny-test.json";
  EXPECT_EQ(resolveModelProfile(File, Dir), File);
  // Nothing matches: unchanged, so that loading reports it.
  EXPECT_EQ(resolveModelProfile("acme/Unknown-1", Dir), "acme/Unknown-1");
}

TEST(Profiles, LoadingByAliasGivesTheProfile) {
  ModelProfile M;
  std::string Error;
  ASSERT_TRUE(loadModelProfile("moonshotai/Kimi-K3", Dir, M, Error)) << Error;
  EXPECT_EQ(M.Name, "moonshotai/Kimi-K3");
  EXPECT_EQ(M.Source, "profile kimi_k3");
  EXPECT_FALSE(loadModelProfile("acme/Unknown-1", Dir, M, Error));
  EXPECT_NE(Error.find("acme/Unknown-1"), std::string::npos);
}

TEST(Profiles, EngineModelArgumentsMatchByAliasOrBasename) {
  EXPECT_EQ(findModelProfileFor("moonshotai/Kimi-K3", Dir), "kimi_k3");
  EXPECT_EQ(findModelProfileFor("/models/moonshotai/Kimi-K3", Dir), "kimi_k3");
  EXPECT_EQ(findModelProfileFor("/models/Llama-9", Dir), "");
}

} // namespace
