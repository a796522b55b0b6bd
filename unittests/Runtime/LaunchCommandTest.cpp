//===- LaunchCommandTest.cpp - What a process actually executes -----------===//

#include "arecipe/Runtime/LaunchCommand.h"
#include "arecipe/Support/ShellQuote.h"

#include <gtest/gtest.h>

using namespace arecipe::runtime;

namespace {

struct LaunchCommandFixture : ::testing::Test {
  LaunchPlan Plan;
  Cell C;
  ProcessSpec P;
  RunSettings S;
  void SetUp() override {
    Plan.RecipeName = "r";
    Plan.Image = "img:1";
    C.Id = "c8";
    P.Name = "server";
    P.Role = "server";
    P.Command = {"vllm", "serve", "m"};
    P.Gpus = std::vector<int>{0, 1};
    P.Port = 8000;
    S.OutDir = "/out";
  }
};

TEST_F(LaunchCommandFixture, PlainProcessGetsGpuVisibilityAndNuma) {
  P.Numa = NumaBinding{"1", "1"};
  P.EnvUnset = {"HTTP_PROXY"};
  LaunchCommand L = buildLaunchCommand(Plan, C, P, S, "/out/cells/c8");
  EXPECT_EQ(L.Command, (Argv{"numactl", "--cpunodebind=1", "--membind=1", "vllm", "serve", "m"}));
  EXPECT_EQ(L.Env.Set.at("HIP_VISIBLE_DEVICES"), "0,1");
  EXPECT_EQ(L.Env.Unset, (std::vector<std::string>{"HTTP_PROXY"}));
  EXPECT_EQ(L.LogPath, "/out/cells/c8/server.log");
  EXPECT_EQ(L.Port.Port, 8000);
}

TEST_F(LaunchCommandFixture, ContainerHasAnExplicitEntrypointAndReadOnlyMounts) {
  Plan.Container = ContainerSpec{"podman", {{"/models", "/models", true}}, ""};
  Plan.Hardware.VisibleDevicesEnv = "CUDA_VISIBLE_DEVICES";
  LaunchCommand L = buildLaunchCommand(Plan, C, P, S, "/out/cells/c8");
  std::string Line = arecipe::support::shellJoin(L.Command);
  EXPECT_EQ(L.ContainerName, "arecipe-r-c8-server");
  EXPECT_NE(Line.find("podman run --rm --name=arecipe-r-c8-server --network=host --ipc=host "
                      "--device=nvidia.com/gpu=all --volume=/models:/models:ro "
                      "'--env=CUDA_VISIBLE_DEVICES=0,1' --entrypoint=vllm -- img:1 serve m"),
            std::string::npos)
      << Line;
  EXPECT_EQ(containerRemoveCommand(Plan, L.ContainerName),
            (Argv{"podman", "rm", "-f", "arecipe-r-c8-server"}));
}

TEST_F(LaunchCommandFixture, ContainerEntrypointFromThePlanPrecedesArgv) {
  Plan.Container = ContainerSpec{"docker", {}, "/usr/bin/env"};
  LaunchCommand L = buildLaunchCommand(Plan, C, P, S, "/out/cells/c8");
  std::string Line = arecipe::support::shellJoin(L.Command);
  EXPECT_NE(Line.find("--entrypoint=/usr/bin/env -- img:1 vllm serve m"), std::string::npos) << Line;
}

TEST_F(LaunchCommandFixture, SimulateReplacesTheEngineButNotTheRouter) {
  S.Simulate = true;
  S.TimeScale = 50;
  S.SimulatorPath = "/bin/arecipe-sim";
  S.CellSimArgs["c8"] = {"--sim-fault=crash-after=3"};
  Plan.Hardware.Profile = "mi355x";
  P.Port = 0;
  LaunchCommand L = buildLaunchCommand(Plan, C, P, S, "/out/cells/c8");
  EXPECT_TRUE(L.Simulated);
  EXPECT_EQ(arecipe::support::shellJoin(L.Command),
            "/bin/arecipe-sim --sim-hardware mi355x --sim-time-scale 50 --sim-gpu-mem-file "
            "/out/.sim-gpu-memory/c8-server.mem --sim-port-file /out/cells/c8/server.port "
            "--sim-fault=crash-after=3 -- vllm serve m");
  EXPECT_EQ(L.Env.Set.at("HF_HOME"), "/out/.sim-hf-home");
  P.Role = "router";
  EXPECT_FALSE(buildLaunchCommand(Plan, C, P, S, "/out/cells/c8").Simulated);
}

TEST(LaunchCommand, DisplayQuotingRoundTripsThroughAShell) {
  EXPECT_EQ(arecipe::support::shellJoin({"a", "b c", "it's", "[1,2]", ""}), "a 'b c' 'it'\\''s' '[1,2]' ''");
}

TEST(LaunchCommand, WallClockIsPlanTimeOverTheScale) {
  RunSettings S;
  EXPECT_EQ(S.wall(2).count(), 2000);
  S.Simulate = true;
  S.TimeScale = 100;
  EXPECT_EQ(S.wall(3600).count(), 36000);
}

} // namespace
