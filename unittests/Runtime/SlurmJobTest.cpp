//===- SlurmJobTest.cpp - Job scripts and Slurm's answers -----------------===//

#include "arecipe/Runtime/LaunchCommand.h"
#include "arecipe/Runtime/PlanLoader.h"
#include "arecipe/Runtime/SlurmJob.h"

#include <gtest/gtest.h>

using namespace arecipe::runtime;

namespace {

JobScriptSpec spec(int Nodes) {
  JobScriptSpec S;
  S.JobName = "arecipe-k3-1n";
  S.Nodes = Nodes;
  S.CellIds = {"c8", "c16"};
  S.OutputPattern = "/out/slurm/%A_%a.out";
  S.CellRun = {"/opt/bin/arecipe-run", "--executor", "local", "--out", "/out", "--simulate"};
  S.PlanPath = "/plans/k3 plan.json";
  S.CellsDir = "/out/cells";
  return S;
}

TEST(SlurmJobScript, SingleNodeCellsShareOneArray) {
  SlurmOptions O;
  O.Partition = "mi355x";
  O.Account = "perf";
  O.TimeLimitS = 5400;
  O.GpusPerNode = 8;
  O.Exclude = {"n2", "n3"};
  std::string Script = buildJobScript(O, spec(1));
  for (const char *Line :
       {"#SBATCH --nodes=1\n", "#SBATCH --exclusive\n", "#SBATCH --partition=mi355x\n",
        "#SBATCH --account=perf\n", "#SBATCH --time=0-01:30:00\n",
        "#SBATCH --gpus-per-node=8\n", "#SBATCH --exclude=n2,n3\n", "#SBATCH --array=0-1\n",
        "#SBATCH --output=/out/slurm/%A_%a.out\n", "cells=(c8 c16)\n",
        "exec /opt/bin/arecipe-run --executor local --out /out --simulate --cells \"$cell\" "
        "--node-rank 0 '/plans/k3 plan.json'\n"})
    EXPECT_NE(Script.find(Line), std::string::npos) << Line << "\nin\n" << Script;
  EXPECT_EQ(Script.find("srun"), std::string::npos);
}

TEST(SlurmJobScript, DefaultsRequestNothingExtra) {
  std::string Script = buildJobScript(SlurmOptions{}, spec(1));
  for (const char *Absent : {"--partition", "--account", "--time", "--gpus-per-node", "--exclude"})
    EXPECT_EQ(Script.find(Absent), std::string::npos) << Absent;
}

TEST(SlurmJobScript, MultiNodeCellStartsOneStepPerRank) {
  std::string Script = buildJobScript(SlurmOptions{}, spec(2));
  EXPECT_NE(Script.find("#SBATCH --nodes=2\n"), std::string::npos);
  EXPECT_NE(Script.find("srun --nodes=1 --ntasks=1 --nodelist=\"${nodes[rank]}\""),
            std::string::npos);
  EXPECT_NE(Script.find("--node-rank \"$rank\" --node-addrs \"$addrs\" --node-hosts \"$hosts\" "
                        "'/plans/k3 plan.json' &"),
            std::string::npos);
  // Rank 0 runs in the foreground and decides the job's exit status.
  EXPECT_NE(Script.find("srun --nodes=1 --ntasks=1 --nodelist=\"${nodes[0]}\""),
            std::string::npos);
  EXPECT_NE(Script.find("--node-rank 0 --node-addrs \"$addrs\""), std::string::npos);
  EXPECT_NE(Script.find("touch /out/cells/\"$cell\"/stop"), std::string::npos);
  EXPECT_NE(Script.find("exit $status"), std::string::npos);
}

TEST(SlurmJobText, TimeLimitRoundsUpToSeconds) {
  EXPECT_EQ(formatSlurmTime(59.2), "0-00:01:00");
  EXPECT_EQ(formatSlurmTime(3600), "0-01:00:00");
  EXPECT_EQ(formatSlurmTime(2 * 86400 + 3661), "2-01:01:01");
}

TEST(SlurmJobText, SbatchParsable) {
  EXPECT_EQ(parseSbatchJobId("1234\n"), "1234");
  EXPECT_EQ(parseSbatchJobId("1234;cluster2\n"), "1234");
  EXPECT_EQ(parseSbatchJobId("sbatch: warning: x\n77\n"), "77");
  EXPECT_FALSE(parseSbatchJobId("sbatch: error: Batch job submission failed\n"));
  EXPECT_FALSE(parseSbatchJobId(""));
}

TEST(SlurmJobText, ArrayTaskIds) {
  EXPECT_EQ(parseArrayTaskIds("3"), (std::vector<int>{3}));
  EXPECT_EQ(parseArrayTaskIds("0-2"), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(parseArrayTaskIds("1,3-4%2"), (std::vector<int>{1, 3, 4}));
  EXPECT_TRUE(parseArrayTaskIds("N/A").empty());
  EXPECT_TRUE(parseArrayTaskIds("").empty());
}

TEST(SlurmJobText, ScontrolRecordsOfAnArray) {
  // Slurm 22.05: finished and running tasks have their own record; the
  // tasks not started yet share one with a range.
  std::string Text =
      "JobId=13 ArrayJobId=12 ArrayTaskId=1 JobName=arecipe-k3-1n UserId=root(0) "
      "JobState=FAILED Reason=NonZeroExitCode Dependency=(null) ExitCode=0:9 NodeList=n1 "
      "StdOut=/out/my slurm/12_1.out\n"
      "JobId=12 ArrayJobId=12 ArrayTaskId=0 JobState=RUNNING Reason=None ExitCode=0:0 "
      "NodeList=n2\n"
      "JobId=14 ArrayJobId=12 ArrayTaskId=2-3 JobState=PENDING Reason=Resources ExitCode=0:0 "
      "NodeList=(null)\n"
      "\n";
  std::vector<SlurmJobRecord> R = parseScontrolJobs(Text);
  ASSERT_EQ(R.size(), 3u);
  EXPECT_EQ(R[0].JobId, "13");
  EXPECT_EQ(R[0].ArrayJobId, "12");
  EXPECT_EQ(R[0].ArrayTasks, (std::vector<int>{1}));
  EXPECT_EQ(R[0].State, "FAILED");
  EXPECT_EQ(R[0].ExitCode, "0:9");
  EXPECT_EQ(R[0].StdOut, "/out/my slurm/12_1.out");
  EXPECT_EQ(R[1].State, "RUNNING");
  EXPECT_EQ(R[2].ArrayTasks, (std::vector<int>{2, 3}));
  EXPECT_EQ(R[2].Reason, "Resources");
  EXPECT_EQ(R[2].NodeList, "");
}

TEST(SlurmJobText, StateMapping) {
  for (const char *Final : {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
                            "OUT_OF_MEMORY", "PREEMPTED"})
    EXPECT_TRUE(isFinalJobState(Final)) << Final;
  for (const char *Live : {"PENDING", "CONFIGURING", "RUNNING", "COMPLETING", "SUSPENDED",
                           "REQUEUED"})
    EXPECT_FALSE(isFinalJobState(Live)) << Live;
  EXPECT_EQ(describeSlurmExitCode("2:0"), "exit status 2");
  EXPECT_EQ(describeSlurmExitCode("0:9"), "killed by signal 9 (SIGKILL)");
  EXPECT_EQ(describeSlurmExitCode(""), "exit code unknown");

  SlurmJobRecord R;
  R.State = "CANCELLED";
  R.ExitCode = "0:15";
  R.NodeList = "n3";
  EXPECT_EQ(describeJobEnd("12_2", R),
            "Slurm job 12_2 was cancelled (CANCELLED, killed by signal 15 (SIGTERM), on n3)");
  R.State = "TIMEOUT";
  R.ExitCode = "0:0";
  EXPECT_EQ(describeJobEnd("12_2", R),
            "Slurm job 12_2 reached its time limit (TIMEOUT, exit status 0, on n3)");
}

TEST(SlurmPlan, SlurmObjectIsRead) {
  std::string Plan = R"({"schema": "arecipe.plan/v1", "recipe": {"name": "r"},
    "model": {"id": "m"}, "hardware": {"name": "h"}, "engine": {"name": "e"},
    "image": "img", "container": {"runtime": "docker"},
    "slurm": {"partition": "p", "account": null, "time_limit_s": 3600,
              "nodelist": ["n1", "n2"], "gpus_per_node": 8, "container_runtime": "podman",
              "container_mounts": [{"source": "/models", "target": "/models"}]},
    "cells": [{"id": "c1", "conc": 1, "gpus": 1, "nodes": 1,
               "processes": [{"name": "s", "role": "server", "argv": ["x"], "port": 8000,
                              "endpoints": {}}],
               "client": {"target": "s", "served_model_name": "m", "concurrency": 1,
                          "workload": {"kind": "fixed", "isl": 1, "osl": 1, "num_prompts": 1}}}]})";
  PlanLoadResult R = parseLaunchPlan(Plan);
  for (const PlanError &E : R.Errors)
    ADD_FAILURE() << E.Path << ": " << E.Message;
  ASSERT_TRUE(R.Plan.Slurm);
  EXPECT_EQ(R.Plan.Slurm->Partition, "p");
  EXPECT_EQ(R.Plan.Slurm->Account, "");
  EXPECT_EQ(R.Plan.Slurm->TimeLimitS, 3600);
  EXPECT_EQ(R.Plan.Slurm->NodeList, (std::vector<std::string>{"n1", "n2"}));
  EXPECT_EQ(R.Plan.Slurm->GpusPerNode, 8);
  EXPECT_EQ(R.Plan.Slurm->ContainerRuntime, "podman");
  ASSERT_EQ(R.Plan.Slurm->ContainerMounts.size(), 1u);

  std::string Bad = Plan;
  Bad.replace(Bad.find("[\"n1\", \"n2\"]"), 12, "\"n1\"");
  PlanLoadResult B = parseLaunchPlan(Bad);
  ASSERT_FALSE(B.ok());
  EXPECT_EQ(B.Errors.front().Path, "slurm.nodelist");
}

} // namespace
