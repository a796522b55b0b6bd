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
