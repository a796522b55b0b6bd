//===- VirtualTimeTest.cpp - Records on the simulator's virtual clock -----===//

#include "arecipe/Runtime/VirtualTime.h"

#include "arecipe/Runtime/LaunchCommand.h"
#include "arecipe/Runtime/RunSettings.h"

#include "arecipe/Client/Workload.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <unistd.h>

using namespace arecipe::runtime;
using arecipe::client::Phase;
using arecipe::client::RequestRecord;
using arecipe::client::RunResult;

namespace {

struct VirtualTimeFixture : ::testing::Test {
  std::string Path;
  RunResult Run;

  void SetUp() override {
    char Name[] = "/tmp/arecipe-vtime-XXXXXX";
    int Fd = mkstemp(Name);
    ASSERT_GE(Fd, 0);
    close(Fd);
    Path = Name;
    // Wall-clock times as the client took them: none of them may survive.
    for (uint64_t Id = 0; Id < 3; ++Id) {
      RequestRecord R;
      R.Id = Id;
      R.RequestPhase = Id == 0 ? Phase::Warmup : Phase::Measured;
      R.ScheduledNs = R.DispatchedNs = R.SentNs = 5000 + int64_t(Id);
      R.FirstByteNs = 6000;
      R.FirstTokenNs = 7000;
      R.ChunkNs = {7000, 8000};
      R.EndNs = 9000;
      R.OutputTokens = 2;
      Run.Records.push_back(R);
    }
    Run.WindowStartNs = 5500;
    Run.WindowEndNs = 9500;
  }
  void TearDown() override { std::remove(Path.c_str()); }

  void write(const std::string &Text) { std::ofstream(Path) << Text; }
};

TEST_F(VirtualTimeFixture, EveryTimestampAndTheWindowBecomeVirtual) {
  write(
      R"({"seq":0,"outcome":"finished","arrival":0.000000000,"events":[0.1,0.2],"end":0.2}
{"forced_step":0.05,"arrived":1,"expected":2}
{"seq":2,"outcome":"finished","arrival":0.2,"events":[0.3,0.45],"end":0.45}
{"seq":1,"outcome":"finished","arrival":0.2,"events":[0.3,0.4],"end":0.4}
{"forced_step":0.3,"arrived":3,"expected":3}
)");
  VirtualTimeReport Report;
  std::string Err;
  ASSERT_TRUE(applyVirtualTimeline(Path, Run, Report, Err)) << Err;
  const int64_t B = VirtualTimeBaseNs;
  const RequestRecord &W = Run.Records[0];
  EXPECT_EQ(W.ScheduledNs, B);
  EXPECT_EQ(W.SentNs, B);
  EXPECT_EQ(W.FirstByteNs, B);
  EXPECT_EQ(W.FirstTokenNs, B + 100000000);
  EXPECT_EQ(W.ChunkNs, (std::vector<int64_t>{B + 100000000, B + 200000000}));
  EXPECT_EQ(W.EndNs, B + 200000000);
  const RequestRecord &M = Run.Records[1];
  EXPECT_EQ(M.DispatchedNs, B + 200000000);
  EXPECT_EQ(M.EndNs, B + 400000000);
  // The window: from the measured requests' arrival to the last one's end.
  EXPECT_EQ(Run.WindowStartNs, B + 200000000);
  EXPECT_EQ(Run.WindowEndNs, B + 450000000);
  EXPECT_EQ(Report.ForcedSteps, 2u);
  EXPECT_EQ(Report.ForcedStepsMeasured, 1u); // 0.05 was in the warm-up
}

TEST_F(VirtualTimeFixture, RecordsEndingAtOneInstantAreInIdOrder) {
  std::swap(Run.Records[1], Run.Records[2]); // as the sockets were read
  write(
      R"({"seq":0,"outcome":"finished","arrival":0,"events":[0.1,0.2],"end":0.2}
{"seq":1,"outcome":"finished","arrival":0.2,"events":[0.3,0.4],"end":0.4}
{"seq":2,"outcome":"finished","arrival":0.2,"events":[0.3,0.4],"end":0.4}
)");
  VirtualTimeReport Report;
  std::string Err;
  ASSERT_TRUE(applyVirtualTimeline(Path, Run, Report, Err)) << Err;
  EXPECT_EQ(Run.Records[0].Id, 0u);
  EXPECT_EQ(Run.Records[1].Id, 1u);
  EXPECT_EQ(Run.Records[2].Id, 2u);
}

TEST_F(VirtualTimeFixture, ARecordWithoutAVirtualTimeFailsNamingIt) {
  write(
      R"({"seq":0,"outcome":"finished","arrival":0,"events":[0.1,0.2],"end":0.2}
{"seq":2,"outcome":"finished","arrival":0.2,"events":[0.3,0.45],"end":0.45}
)");
  VirtualTimeReport Report;
  std::string Err;
  EXPECT_FALSE(applyVirtualTimeline(Path, Run, Report, Err));
  EXPECT_EQ(
      Err, "--sim-clock virtual: measured request 1 has no virtual time in the "
           "simulator's timeline " +
               Path);
  // Nothing was changed: never half virtual, half wall.
  EXPECT_EQ(Run.Records[0].ScheduledNs, 5000);
  EXPECT_EQ(Run.WindowStartNs, 5500);
}

TEST_F(VirtualTimeFixture, AMissingTokenEventFailsNamingTheRequest) {
  write(
      R"({"seq":0,"outcome":"finished","arrival":0,"events":[0.1,0.2],"end":0.2}
{"seq":1,"outcome":"finished","arrival":0.2,"events":[0.3],"end":0.4}
{"seq":2,"outcome":"finished","arrival":0.2,"events":[0.3,0.45],"end":0.45}
)");
  VirtualTimeReport Report;
  std::string Err;
  EXPECT_FALSE(applyVirtualTimeline(Path, Run, Report, Err));
  EXPECT_EQ(Err, "--sim-clock virtual: measured request 1: the client received "
                 "2 token events, "
                 "the simulator's timeline has 1 (finished)");
  // A request the client cancelled may have lost events in flight.
  Run.Records[1].Error = arecipe::client::ErrorKind::Cancelled;
  Run.Records[1].ChunkNs = {7000};
  EXPECT_TRUE(applyVirtualTimeline(Path, Run, Report, Err)) << Err;
}

TEST_F(VirtualTimeFixture, AMalformedTimelineIsAnErrorWithItsLine) {
  write("{\"seq\":0,\"outcome\":\"finished\",\"arrival\":0,\"events\":[],"
        "\"end\":0}\nnot json\n");
  VirtualTimeReport Report;
  std::string Err;
  EXPECT_FALSE(applyVirtualTimeline(Path, Run, Report, Err));
  EXPECT_EQ(Err, "--sim-clock virtual: " + Path + ":2: not a JSON object");
  write("{\"seq\":0,\"outcome\":\"finished\",\"arrival\":-1,\"events\":[],"
        "\"end\":0}\n");
  EXPECT_FALSE(applyVirtualTimeline(Path, Run, Report, Err));
  EXPECT_EQ(Err, "--sim-clock virtual: " + Path +
                     ":1: arrival and end must be times");
  write("{\"seq\":0,\"outcome\":\"finished\",\"arrival\":0,\"events\":[],"
        "\"end\":0}\n"
        "{\"seq\":0,\"outcome\":\"finished\",\"arrival\":0,\"events\":[],"
        "\"end\":0}\n");
  EXPECT_FALSE(applyVirtualTimeline(Path, Run, Report, Err));
  EXPECT_EQ(Err, "--sim-clock virtual: " + Path +
                     ":2: a request's sequence number appears twice");
  EXPECT_FALSE(applyVirtualTimeline(Path + ".missing", Run, Report, Err));
  EXPECT_EQ(Err, "--sim-clock virtual: the simulator wrote no timeline (" +
                     Path + ".missing)");
}

TEST(VirtualClockScope, OnlyAClosedLoopCellOnOneEngineServer) {
  Cell C;
  C.Id = "c4";
  C.Nodes = 1;
  ProcessSpec P;
  P.Name = "server";
  P.Role = "server";
  P.HttpEndpoints = Endpoints{};
  C.Processes = {P};
  C.Client.Target = "server";
  C.Client.Concurrency = 4;
  FixedWorkload F;
  F.NumPrompts = 8;
  F.Warmup = 4;
  C.Client.Workload = F;
  EXPECT_EQ(virtualClockRefusal(C), "");
  RunSettings S;
  S.Simulate = true;
  S.TimeScale = 100;
  C.Client.StallTimeoutS = 600; // 6 s of wall time at K = 100: grace 3 s
  EXPECT_EQ(virtualClockSimArgs(C, S, "/out/cells/c4"),
            (std::vector<std::string>{
                "--sim-clock", "virtual", "--sim-lockstep-concurrency", "4",
                "--sim-lockstep-warmup", "4", "--sim-lockstep-requests", "12",
                "--sim-lockstep-grace", "3", "--sim-timeline",
                "/out/cells/c4/sim-timeline.jsonl"}));
  C.Client.StallTimeoutS = 60; // 0.6 s: the 5 s floor, grace 2.5 s
  EXPECT_EQ(virtualClockSimArgs(C, S, "/out/cells/c4")[9], "2.5");
  C.Client.StallTimeoutS = 0; // no stall window: the simulator's 10 s
  EXPECT_EQ(virtualClockSimArgs(C, S, "/out/cells/c4")[9], "10");
  F.RequestRate = 2.5;
  C.Client.Workload = F;
  EXPECT_EQ(virtualClockRefusal(C),
            "cell 'c4': --sim-clock virtual cannot run an open-loop workload "
            "(request rate 2.5/s): arrivals on a schedule are not in lock-step "
            "with the engine");
}

TEST(VirtualClockScope, TheLaunchCommandCarriesTheClientsShape) {
  LaunchPlan Plan;
  Plan.Hardware.Profile = "mi355x";
  Cell C;
  C.Id = "c2";
  ProcessSpec P;
  P.Name = "server";
  P.Role = "server";
  P.Command = {"vllm", "serve", "m"};
  P.Port = 0;
  C.Processes = {P};
  C.Client.Target = "server";
  C.Client.Concurrency = 2;
  FixedWorkload F; // warm-up 0, 10 x 2 measured requests
  C.Client.Workload = F;
  RunSettings S;
  S.Simulate = true;
  S.SimClock = SimClockMode::Virtual;
  S.SimulatorPath = "/bin/arecipe-sim";
  S.OutDir = "/out";
  LaunchCommand L = buildLaunchCommand(Plan, C, P, S, "/out/cells/c2", {});
  std::string Line;
  for (const std::string &A : L.Command)
    Line += A + " ";
  EXPECT_NE(Line.find("--sim-clock virtual --sim-lockstep-concurrency 2 "
                      "--sim-lockstep-warmup 0 "
                      "--sim-lockstep-requests 20 --sim-lockstep-grace 300 "
                      "--sim-timeline /out/cells/c2/sim-timeline.jsonl"),
            std::string::npos)
      << Line;
  S.SimClock = SimClockMode::Wall;
  L = buildLaunchCommand(Plan, C, P, S, "/out/cells/c2", {});
  Line.clear();
  for (const std::string &A : L.Command)
    Line += A + " ";
  EXPECT_EQ(Line.find("--sim-clock"), std::string::npos) << Line;
}

} // namespace
