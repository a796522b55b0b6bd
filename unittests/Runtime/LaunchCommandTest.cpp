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
  PlaceholderValues Values;
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
  LaunchCommand L = buildLaunchCommand(Plan, C, P, S, "/out/cells/c8", Values);
  EXPECT_EQ(L.Command, (Argv{"numactl", "--cpunodebind=1", "--membind=1", "vllm", "serve", "m"}));
  EXPECT_EQ(L.Env.Set.at("HIP_VISIBLE_DEVICES"), "0,1");
  EXPECT_EQ(L.Env.Unset, (std::vector<std::string>{"HTTP_PROXY"}));
  EXPECT_EQ(L.LogPath, "/out/cells/c8/server.log");
  EXPECT_EQ(L.Port.Port, 8000);
}

TEST_F(LaunchCommandFixture, ContainerHasAnExplicitEntrypointAndReadOnlyMounts) {
  Plan.Container = ContainerSpec{"podman", {{"/models", "/models", true}}, ""};
  Plan.Hardware.VisibleDevicesEnv = "CUDA_VISIBLE_DEVICES";
  LaunchCommand L = buildLaunchCommand(Plan, C, P, S, "/out/cells/c8", Values);
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
  LaunchCommand L = buildLaunchCommand(Plan, C, P, S, "/out/cells/c8", Values);
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
  LaunchCommand L = buildLaunchCommand(Plan, C, P, S, "/out/cells/c8", Values);
  EXPECT_TRUE(L.Simulated);
  EXPECT_EQ(arecipe::support::shellJoin(L.Command),
            "/bin/arecipe-sim --sim-hardware mi355x --sim-time-scale 50 --sim-gpu-mem-file "
            "/out/.sim-gpu-memory/c8-server.mem --sim-port-file /out/cells/c8/server.port "
            "--sim-fault=crash-after=3 -- vllm serve m");
  EXPECT_EQ(L.Env.Set.at("HF_HOME"), "/out/.sim-hf-home");
  P.Role = "router";
  EXPECT_FALSE(buildLaunchCommand(Plan, C, P, S, "/out/cells/c8", Values).Simulated);
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

namespace {

TEST_F(LaunchCommandFixture, PlaceholdersAreSubstitutedInArgvEnvAndContainerMounts) {
  C.Files = {{"engine.yaml", "a: 1\n"}};
  S.NodeAddrs = {"10.0.0.1", "10.0.0.2"};
  S.NodeHosts = {"gpu-a", "gpu-b"};
  Values = cellPlaceholderValues(C, S, "/out/cells/c8");
  Values.Captures["rail"] = "mlx5_0";
  P.Command = {"vllm", "--config", "{file:engine.yaml}", "--dist=tcp://{node_addr:1}:29500",
               "--ib={capture:rail}"};
  P.Env["ETCD"] = "http://{node_host:0}:2379";
  LaunchCommand L = buildLaunchCommand(Plan, C, P, S, "/out/cells/c8", Values);
  EXPECT_EQ(L.Command, (Argv{"vllm", "--config", "/out/cells/c8/files/engine.yaml",
                             "--dist=tcp://10.0.0.2:29500", "--ib=mlx5_0"}));
  EXPECT_EQ(L.Env.Set.at("ETCD"), "http://gpu-a:2379");
  Plan.Container = ContainerSpec{"docker", {}, ""};
  std::string Line = arecipe::support::shellJoin(
      buildLaunchCommand(Plan, C, P, S, "/out/cells/c8", Values).Command);
  EXPECT_NE(Line.find("--volume=/out/cells/c8/files:/out/cells/c8/files:ro"), std::string::npos)
      << Line;
}

TEST_F(LaunchCommandFixture, LogDirIsSubstitutedAndMountedWritableWhereUsed) {
  Values = cellPlaceholderValues(C, S, "/out/cells/c8");
  Plan.Container = ContainerSpec{"docker", {}, ""};
  std::string Line = arecipe::support::shellJoin(
      buildLaunchCommand(Plan, C, P, S, "/out/cells/c8", Values).Command);
  EXPECT_EQ(Line.find("/out/cells/c8/logs"), std::string::npos) << Line;
  EXPECT_FALSE(cellUsesLogDir(C));
  P.Command = {"python3", "-m", "dynamo.sglang", "--dump-config-to",
               "{dir:logs}/{node_host:0}_config.json"};
  C.Processes = {P};
  EXPECT_TRUE(cellUsesLogDir(C));
  Line = arecipe::support::shellJoin(
      buildLaunchCommand(Plan, C, P, S, "/out/cells/c8", Values).Command);
  EXPECT_NE(Line.find("--volume=/out/cells/c8/logs:/out/cells/c8/logs "),
            std::string::npos)
      << Line;
  EXPECT_NE(Line.find(" /out/cells/c8/logs/"), std::string::npos) << Line;
}

TEST(Placeholders, SubstitutionLeavesOtherBracesAlone) {
  PlaceholderValues V;
  V.NodeAddrs = {"10.0.0.1", "10.0.0.2"};
  V.DefaultHost = "here";
  V.Captures["rail"] = "mlx5_0";
  EXPECT_EQ(substitutePlaceholders("{node_addr:1}", V), "10.0.0.2");
  EXPECT_EQ(substitutePlaceholders("http://{node_addr:0}:8000/x", V), "http://10.0.0.1:8000/x");
  // One machine: node 0 is this one; an unknown rank stays visible.
  EXPECT_EQ(substitutePlaceholders("{node_addr:0}", PlaceholderValues{}), "127.0.0.1");
  EXPECT_EQ(substitutePlaceholders("{node_host:0}", V), "here");
  EXPECT_EQ(substitutePlaceholders("{node_addr:2}", V), "{node_addr:2}");
  EXPECT_EQ(substitutePlaceholders("{node_addr:x}", V), "{node_addr:x}");
  EXPECT_EQ(substitutePlaceholders("plain {node_addr:", V), "plain {node_addr:");
  EXPECT_EQ(substitutePlaceholders("{capture:rail},{capture:rail}", V), "mlx5_0,mlx5_0");
  // JSON, YAML flow mappings and templates are text.
  for (const char *Text : {R"({"method":"mtp","k":{"a":1}})", "{a: 1}", "{{ role }}", "{}", "{:x}"})
    EXPECT_EQ(substitutePlaceholders(Text, V), Text);
}

TEST(Placeholders, CheckNamesTheFirstUnknownOne) {
  std::set<std::string> Files = {"ser.yaml"}, Captures = {"rail"};
  PlaceholderScope Scope{2, &Files, &Captures, {}};
  EXPECT_EQ(checkPlaceholders("--x={file:ser.yaml} {capture:rail} {node_host:1}", Scope), "");
  EXPECT_EQ(checkPlaceholders("{node_addr:2}", Scope),
            "placeholder '{node_addr:2}' names node 2, but the cell has 2 nodes");
  EXPECT_EQ(checkPlaceholders("{file:other.yaml}", Scope),
            "placeholder '{file:other.yaml}' names no file of this cell");
  EXPECT_EQ(checkPlaceholders("{capture:gid}", Scope),
            "placeholder '{capture:gid}' names no capture step of this cell");
  EXPECT_EQ(checkPlaceholders("{node_adr:0}", Scope),
            "unknown placeholder '{node_adr:0}' (expected node_addr, "
            "node_host, file, capture or dir)");
  EXPECT_EQ(checkPlaceholders("{dir:logs}/x.json", Scope), "");
  EXPECT_EQ(checkPlaceholders("{dir:tmp}", Scope),
            "placeholder '{dir:tmp}' names no directory of the cell (expected "
            "'{dir:logs}')");
  EXPECT_TRUE(usesLogDir("--x={dir:logs}/a"));
  EXPECT_FALSE(usesLogDir("{dir:tmp}"));
  EXPECT_TRUE(usesCapture("a {capture:rail} b"));
  EXPECT_FALSE(usesCapture("a {file:ser.yaml} b"));
}

TEST(Placeholders, RemapPortsFollowsOptionsHostsAndNodes) {
  // A disaggregated cell: prefill on node 0 and decode on node 1 both on
  // 8000, the router on 8080 and etcd on 2379, all on node 0.
  PortRemap Ports = {
      {{0, 8000}, 41000}, {{1, 8000}, 41001}, {{0, 8080}, 41002}, {{0, 2379}, 41003}};
  EXPECT_EQ(remapPorts("8000", Ports, 0, "--server-port"), "41000");
  EXPECT_EQ(remapPorts("8000", Ports, 1, "--port"), "41001");
  EXPECT_EQ(remapPorts("8080", Ports, 0, "-p"), "41002");
  EXPECT_EQ(remapPorts("--http-port=8080", Ports, 0, ""), "--http-port=41002");
  EXPECT_EQ(remapPorts("http://{node_addr:1}:8000", Ports, 0, "--decode"),
            "http://{node_addr:1}:41001");
  EXPECT_EQ(remapPorts("http://{node_host:0}:8000/v1", Ports, 1, ""),
            "http://{node_host:0}:41000/v1");
  EXPECT_EQ(remapPorts("http://0.0.0.0:2379", Ports, 0, ""), "http://0.0.0.0:41003");
  EXPECT_EQ(remapPorts("a: 1\nport: 8080\n\"master\": \"127.0.0.1:2379\"\n", Ports, 0, ""),
            "a: 1\nport: 41002\n\"master\": \"127.0.0.1:41003\"\n");
  // Numbers that are not a port: another option's value, a JSON member's
  // value, part of a longer number or word, an unknown port.
  EXPECT_EQ(remapPorts("8000", Ports, 0, "--max-num-batched-tokens"), "8000");
  EXPECT_EQ(remapPorts("{\"max_tokens\":8000}", Ports, 0, ""), "{\"max_tokens\":8000}");
  EXPECT_EQ(remapPorts("http://h:80001 v8000 127.0.0.1:9000", Ports, 0, ""),
            "http://h:80001 v8000 127.0.0.1:9000");
  EXPECT_EQ(remapPorts("8000", {}, 0, "--port"), "8000");
}

} // namespace
