//===- PlanLoaderTest.cpp - Plan validation -------------------------------===//

#include "arecipe/Runtime/PlanLoader.h"

#include <gtest/gtest.h>

using namespace arecipe::runtime;

namespace {

/// A minimal valid plan; Cell and Process are spliced in.
std::string plan(const std::string &Process = R"({"name": "server", "role": "server",
    "argv": ["vllm", "serve", "m"], "port": 8000, "endpoints": {}})",
                 const std::string &Schema = "arecipe.plan/v1") {
  return R"({"schema": ")" + Schema + R"(", "recipe": {"name": "r"}, "model": {"id": "m"},
    "hardware": {"name": "mi355x"}, "engine": {"name": "vllm"},
    "cells": [{"id": "c1", "conc": 1, "gpus": 8, "processes": [)" +
         Process + R"(],
      "client": {"target": "server", "served_model_name": "m", "concurrency": 1,
                 "workload": {"kind": "fixed", "isl": 8, "osl": 8, "num_prompts": 4}}}]})";
}

TEST(PlanLoader, MinimalPlanLoadsWithDefaults) {
  PlanLoadResult R = parseLaunchPlan(plan());
  ASSERT_TRUE(R.ok()) << R.Errors.front().Path << ": " << R.Errors.front().Message;
  const Cell &C = R.Plan.Cells.at(0);
  EXPECT_EQ(C.Processes.at(0).Command, (Argv{"vllm", "serve", "m"}));
  EXPECT_EQ(C.Processes.at(0).HttpEndpoints->Health, "/health");
  EXPECT_EQ(R.Plan.Hardware.VisibleDevicesEnv, "HIP_VISIBLE_DEVICES");
  EXPECT_EQ(R.Plan.Hardware.Profile, "mi355x");
  EXPECT_EQ(C.Digest.size(), 16u);
}

TEST(PlanLoader, MinorVersionIsAcceptedMajorIsRefused) {
  EXPECT_TRUE(parseLaunchPlan(plan(R"({"name": "server", "role": "server", "argv": ["x"],
      "port": 1, "endpoints": {}})",
                                   "arecipe.plan/v1.3"))
                  .ok());
  PlanLoadResult R = parseLaunchPlan(
      plan(R"({"name": "server", "role": "server", "argv": ["x"], "port": 1, "endpoints": {}})",
           "arecipe.plan/v2"));
  ASSERT_EQ(R.Errors.size(), 1u);
  EXPECT_EQ(R.Errors[0].Path, "schema");
}

TEST(PlanLoader, ArgvMustBeAListOfStrings) {
  PlanLoadResult R = parseLaunchPlan(plan(R"({"name": "server", "role": "server",
      "argv": "vllm serve m", "port": 8000, "endpoints": {}})"));
  ASSERT_EQ(R.Errors.size(), 1u);
  EXPECT_EQ(R.Errors[0].Path, "cells[0].processes[0].argv");
  EXPECT_EQ(R.Errors[0].Message, "expected a non-empty list of strings");
}

TEST(PlanLoader, EnvironmentNamesAreChecked) {
  EXPECT_TRUE(isValidEnvName("HIP_VISIBLE_DEVICES"));
  EXPECT_TRUE(isValidEnvName("_x1"));
  EXPECT_FALSE(isValidEnvName("1X"));
  EXPECT_FALSE(isValidEnvName("A-B"));
  EXPECT_FALSE(isValidEnvName(""));
  PlanLoadResult R = parseLaunchPlan(plan(R"({"name": "server", "role": "server",
      "argv": ["x"], "port": 8000, "endpoints": {}, "env": {"A B": "1"}, "env_unset": ["OK", "9"]})"));
  ASSERT_EQ(R.Errors.size(), 2u);
  EXPECT_EQ(R.Errors[0].Path, "cells[0].processes[0].env.A B");
  EXPECT_EQ(R.Errors[1].Path, "cells[0].processes[0].env_unset[1]");
}

TEST(PlanLoader, MalformedJsonGivesLineAndColumn) {
  PlanLoadResult R = parseLaunchPlan("{\n  \"schema\": \"arecipe.plan/v1\",\n  oops\n}");
  ASSERT_EQ(R.Errors.size(), 1u);
  EXPECT_EQ(R.Errors[0].Path, "3:3");
}

TEST(PlanLoader, GarbageNeverCrashes) {
  for (const char *Text : {"", "null", "[]", "42", "{\"schema\": 1}", "{\"schema\": \"x\"}",
                           "{\"schema\": \"arecipe.plan/v1\", \"cells\": {}}",
                           "{\"schema\": \"arecipe.plan/v1\", \"cells\": [1, null, []]}"})
    EXPECT_FALSE(parseLaunchPlan(Text).ok()) << Text;
}

TEST(PlanLoader, DependencyCycleIsReported) {
  PlanLoadResult R = parseLaunchPlan(plan(
      R"({"name": "server", "role": "server", "argv": ["x"], "port": 1, "endpoints": {},
          "after": ["router"]},
         {"name": "router", "role": "router", "argv": ["y"], "after": ["server"]})"));
  ASSERT_EQ(R.Errors.size(), 1u);
  EXPECT_EQ(R.Errors[0].Path, "cells[0].processes");
}

TEST(PlanLoader, ErrorsAreCappedAtTheLimit) {
  PlanLoadResult R = parseLaunchPlan(R"({"schema": "arecipe.plan/v1", "recipe": 1, "model": 2,
      "hardware": 3, "engine": 4, "cells": 5})",
                                     3);
  EXPECT_EQ(R.Errors.size(), 3u);
}

} // namespace

// Regression tests for docs/reliability.md findings F1, F4, F5 and F6.

#include "arecipe/Runtime/Preflight.h"
#include "arecipe/Runtime/ResultStore.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <unistd.h>

namespace {

TEST(PlanLoaderFindings, F1NumberBeyondDoubleIsAnErrorNotAnAbort) {
  for (const char *Text : {R"({"schema": "arecipe.plan/v1", "cells": 1e400})",
                           R"({"cells": [-4444444444E4444444444]})", "1e400", "[1E-400, 2e309]"}) {
    PlanLoadResult R;
    ASSERT_NO_THROW(R = parseLaunchPlan(Text)) << Text;
    ASSERT_FALSE(R.ok()) << Text;
    EXPECT_NE(R.Errors.front().Message.find("number overflow"), std::string::npos)
        << R.Errors.front().Message;
  }
}

TEST(PlanLoaderFindings, F4RepoIdsAreValidated) {
  auto WithRepo = [](const std::string &Repo) {
    std::string P = plan();
    std::string Cell = R"("cells": [{"id": "c1", )";
    size_t At = P.find(Cell);
    P.insert(At + Cell.size(), R"("preflight": [{"action": "stage_model", "repo": )" +
                                   nlohmann::json(Repo).dump() +
                                   R"(, "attempts": 1, "delay_s": 0, "env": {}}], )");
    return parseLaunchPlan(P);
  };
  EXPECT_TRUE(WithRepo("Inferact/Kimi-K3-DSpark").ok());
  EXPECT_TRUE(WithRepo("org/m.v1_2-b").ok());
  for (const char *Bad : {"org/../../../../x", "../x", "/abs/x", "org/..", "../org", "org/a..b",
                          "x", "org/name/extra", "org/na me", "org/", "/name", "org\\x"}) {
    PlanLoadResult R = WithRepo(Bad);
    ASSERT_FALSE(R.ok()) << Bad;
    EXPECT_EQ(R.Errors.front().Path, "cells[0].preflight[0].repo") << Bad;
  }
}

TEST(PlanLoaderFindings, F4SimulatedStagingRefusesToLeaveOut) {
  std::filesystem::path Root = std::filesystem::temp_directory_path() /
                               ("arecipe-f4-" + std::to_string(::getpid()));
  std::filesystem::remove_all(Root);
  std::filesystem::create_directories(Root / "out");
  PlanLoadResult Loaded = parseLaunchPlan(plan());
  ASSERT_TRUE(Loaded.ok());
  RunSettings S;
  S.OutDir = (Root / "out").string();
  S.Simulate = true;
  StageModelAction A;
  A.Repo = "org/../../../../ESCAPED"; // as a plan built in memory could hold
  A.Command = {"arecipe-no-such-hf-program", "download", A.Repo};
  PreflightContext Ctx{Loaded.Plan, Loaded.Plan.Cells.at(0), S, (Root / "preflight.log").string(),
                       [](const std::string &) {}};
  PreflightOutcome O = runPreflightAction(A, Ctx);
  EXPECT_FALSE(O.Ok);
  EXPECT_FALSE(std::filesystem::exists(Root / "ESCAPED"));
  EXPECT_FALSE(std::filesystem::exists(Root / "out" / "ESCAPED"));
  A.Repo = "org/name";
  A.Command = {"arecipe-no-such-hf-program", "download", A.Repo};
  EXPECT_TRUE(runPreflightAction(A, Ctx).Ok);
  EXPECT_TRUE(std::filesystem::exists(Root / "out" / ".sim-hf-home/hub/models--org--name"));
  std::filesystem::remove_all(Root);
}

TEST(PlanLoaderFindings, F5PlanCopyIsRedacted) {
  std::string P = plan(R"({"name": "server", "role": "server",
      "argv": ["vllm", "serve", "m", "--hf-token", "hf_SeCrEt1", "API_KEY=SeCrEt2"],
      "env": {"HF_TOKEN": "hf_SeCrEt3", "WANDB_API_KEY": "SeCrEt4", "AWS_SECRET": "SeCrEt5",
              "HOME_DIR": "/home/x"},
      "port": 8000, "endpoints": {}})");
  std::string Copy = redactPlanText(P);
  EXPECT_EQ(Copy.find("SeCrEt"), std::string::npos) << Copy;
  EXPECT_NE(Copy.find("[redacted]"), std::string::npos);
  EXPECT_NE(Copy.find("/home/x"), std::string::npos);
  ASSERT_TRUE(parseLaunchPlan(Copy).ok());
  // A plan without secrets is copied byte for byte.
  EXPECT_EQ(redactPlanText(plan()), plan());
}

TEST(PlanLoaderFindings, F6ErrorLinesEscapeControlBytesAndInvalidUtf8) {
  std::string P = plan(R"({"name": "server", "role": "server", "argv": ["x"], "port": 1,
      "endpoints": {}, "env": {"A\nB": "1", "C\u0000D": "1", "E\u001bF": "1", "CAF\u00c9": "1"}})");
  PlanLoadResult R = parseLaunchPlan(P);
  ASSERT_EQ(R.Errors.size(), 4u);
  for (const PlanError &E : R.Errors)
    for (char C : E.Path + E.Message)
      EXPECT_FALSE(static_cast<unsigned char>(C) < 0x20 || C == 0x7f) << E.Path;
  std::string All;
  for (const PlanError &E : R.Errors)
    All += E.Path + ": " + E.Message + "\n";
  EXPECT_NE(All.find("env.A\\nB: 'A\\nB'"), std::string::npos) << All;
  EXPECT_NE(All.find("env.C\\x00D"), std::string::npos) << All;
  EXPECT_NE(All.find("env.E\\x1bF"), std::string::npos) << All;
  EXPECT_NE(All.find("CAF\xc3\x89"), std::string::npos) << All; // valid UTF-8 is kept
}

} // namespace
