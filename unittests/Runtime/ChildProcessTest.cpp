//===- ChildProcessTest.cpp - Process groups and teardown -----------------===//

#include "arecipe/Runtime/ChildProcess.h"

#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>
#include <unistd.h>

using namespace arecipe::runtime;
using namespace std::chrono_literals;

namespace {

std::string tempPath(const std::string &Name) {
  return (std::filesystem::temp_directory_path() / (Name + "-" + std::to_string(getpid()) + ".log"))
      .string();
}

bool alive(pid_t Pid) { return kill(Pid, 0) == 0; }

pid_t readPid(const std::string &Path) {
  for (int I = 0; I < 200; ++I) {
    std::ifstream In(Path);
    pid_t P = 0;
    if (In >> P && P > 0)
      return P;
    std::this_thread::sleep_for(10ms);
  }
  return 0;
}

TEST(ChildProcess, ExitStatusAndLogAreKept) {
  std::string Log = tempPath("exit");
  std::remove(Log.c_str());
  CommandResult R = runCommand({"sh", "-c", "echo hello; exit 3"}, {}, Log, 5000ms, nullptr);
  EXPECT_EQ(R.Output, "hello\n");
  EXPECT_EQ(R.describe(), "exited with status 3");
  EXPECT_FALSE(R.succeeded());
  std::remove(Log.c_str());
}

std::string readFile(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(In)), std::istreambuf_iterator<char>());
}

TEST(ChildProcess, OutputReachesTheLogRedactedAndRawInMemory) {
  std::string Log = tempPath("redact");
  std::remove(Log.c_str());
  CommandResult R = runCommand({"sh", "-c", "echo HF_TOKEN=abcd1234; printf 'no newline'"}, {}, Log,
                               5000ms, nullptr);
  EXPECT_TRUE(R.succeeded());
  EXPECT_EQ(readFile(Log), "HF_TOKEN=[redacted]\nno newline");
  // The caller parses what the command said; the sinks redact it.
  EXPECT_EQ(R.Output, "HF_TOKEN=abcd1234\nno newline");
  std::remove(Log.c_str());
}

TEST(ChildProcess, OutputBeyondTheLimitsIsDrainedWithANote) {
  std::string Log = tempPath("flood");
  std::remove(Log.c_str());
  CommandResult R = runCommand({"sh", "-c", "head -c 40000000 /dev/zero | tr '\\000' y"}, {}, Log,
                               60000ms, nullptr);
  EXPECT_TRUE(R.succeeded());
  EXPECT_TRUE(R.OutputTruncated);
  EXPECT_EQ(R.Output.size(), MaxCommandOutputBytes);
  std::string Text = readFile(Log);
  EXPECT_LT(Text.size(), MaxCommandLogBytes + 200);
  EXPECT_NE(Text.find("[arecipe-run: output truncated here, after 16777216 bytes; the rest was "
                      "discarded]"),
            std::string::npos);
  std::remove(Log.c_str());
}

TEST(ChildProcess, MissingProgramIsReportedWithoutForking) {
  ChildProcess P;
  std::string Err;
  EXPECT_FALSE(P.start({"arecipe-no-such-program"}, {}, tempPath("missing"), Err));
  EXPECT_EQ(Err, "program 'arecipe-no-such-program' not found on PATH");
  EXPECT_FALSE(P.started());
}

TEST(ChildProcess, EnvironmentIsSetAndUnset) {
  std::string Log = tempPath("env");
  std::remove(Log.c_str());
  setenv("ARECIPE_TEST_LEAK", "1", 1);
  ChildEnvironment Env{{{"ARECIPE_TEST_SET", "yes"}}, {"ARECIPE_TEST_LEAK"}};
  CommandResult R = runCommand({"sh", "-c", "echo ${ARECIPE_TEST_SET}-${ARECIPE_TEST_LEAK:-unset}"},
                               Env, Log, 5000ms, nullptr);
  unsetenv("ARECIPE_TEST_LEAK");
  EXPECT_EQ(R.Output, "yes-unset\n");
  std::remove(Log.c_str());
}

TEST(ChildProcess, StopKillsTheWholeGroupIncludingWorkersThatIgnoreSigterm) {
  std::string Log = tempPath("group"), PidFile = tempPath("worker-pid");
  std::remove(PidFile.c_str());
  ChildProcess P;
  std::string Err;
  // The leader forks a worker that ignores SIGTERM, like a stuck engine rank.
  ASSERT_TRUE(
      P.start({"sh", "-c", "(trap '' TERM; echo $$ > " + PidFile + "; exec sleep 60) & wait"}, {},
              Log, Err))
      << Err;
  pid_t Worker = readPid(PidFile);
  ASSERT_GT(Worker, 0);
  EXPECT_TRUE(alive(Worker));
  EXPECT_TRUE(P.stop(300ms)); // SIGKILL was needed
  EXPECT_FALSE(P.groupAlive());
  EXPECT_FALSE(alive(Worker));
  std::remove(Log.c_str());
  std::remove(PidFile.c_str());
}

TEST(ChildProcess, OrphansThatLeftTheGroupAreAdoptedAndKilled) {
  adoptOrphans();
  std::string Log = tempPath("orphan"), PidFile = tempPath("orphan-pid");
  std::remove(PidFile.c_str());
  // setsid escapes the process group; the intermediate shell exits at once.
  CommandResult R =
      runCommand({"sh", "-c",
                  "setsid sh -c 'echo $$ > " + PidFile + "; exec sleep 60' & while [ ! -s " +
                      PidFile + " ]; do sleep 0.01; done"},
                 {}, Log, 5000ms, nullptr);
  ASSERT_TRUE(R.succeeded()) << R.describe();
  pid_t Orphan = readPid(PidFile);
  ASSERT_GT(Orphan, 0);
  EXPECT_TRUE(alive(Orphan));
  EXPECT_GE(killAdoptedOrphans(), 1u);
  EXPECT_FALSE(alive(Orphan));
  std::remove(Log.c_str());
  std::remove(PidFile.c_str());
}

TEST(ChildProcess, TimeoutStopsTheCommand) {
  std::string Log = tempPath("timeout");
  CommandResult R = runCommand({"sleep", "30"}, {}, Log, 200ms, nullptr);
  EXPECT_EQ(R.Error, "timed out after 0.2 s");
  std::remove(Log.c_str());
}

TEST(ChildProcess, TailOfFileKeepsTheLastLines) {
  std::string Log = tempPath("tail");
  std::ofstream(Log) << "1\n2\n3\n4\n";
  EXPECT_EQ(tailOfFile(Log, 2), "3\n4");
  std::remove(Log.c_str());
}

} // namespace
