//===- SlurmExecutor.cpp - Running a plan's cells through Slurm -----------===//

#include "arecipe/Runtime/SlurmExecutor.h"

#include "arecipe/Runtime/ChildProcess.h"
#include "arecipe/Runtime/LaunchCommand.h"
#include "arecipe/Runtime/LocalExecutor.h"
#include "arecipe/Runtime/ResultStore.h"
#include "arecipe/Runtime/StopRequest.h"
#include "arecipe/Support/AtomicFile.h"
#include "arecipe/Support/Json.h"
#include "arecipe/Support/Redaction.h"
#include "arecipe/Support/ShellQuote.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace arecipe::runtime {

namespace {

constexpr milliseconds PollInterval{1000};
constexpr size_t OutputTailLines = 30;

/// One cell's job: the array task that runs it and what was last seen.
struct CellJob {
  const Cell *TheCell = nullptr;
  size_t Index = 0; ///< 1-based position in the sweep, for progress lines
  std::string ArrayJobId;
  int Task = 0;
  std::string State = "SUBMITTED";
  std::string Nodes; ///< where Slurm last said the job runs
  std::string OutputPath;
  std::streamoff OutputSeen = 0;
  bool Done = false;
  Clock::time_point Started = Clock::now();

  std::string key() const { return fmt::format("{}_{}", ArrayJobId, Task); }
};

class SlurmSweep {
public:
  SlurmSweep(const LaunchPlan &Plan, const RunSettings &S,
             const SlurmSweepSettings &Slurm, ProgressReport &Progress)
      : Plan(Plan), S(S), Slurm(Slurm), Progress(Progress),
        Store(S.OutDir, S.Simulate, S.TimeScale, S.virtualClock()),
        SlurmDir(S.OutDir + "/slurm") {}

  int run(const std::string &PlanText);

private:
  /// Runs a Slurm client command; its output is logged to OUT/slurm.
  CommandResult slurmCommand(const Argv &Command, bool Keep);
  bool resolveNodeList(SlurmOptions &Options, int MaxNodes);
  bool submit(const std::vector<CellJob *> &Group, const SlurmOptions &Options);
  void poll();
  void showOutput(CellJob &J);
  void finish(CellJob &J, const SlurmJobRecord &Record);
  void cancelAll();
  void say(const CellJob &J, const std::string &Text) {
    Progress.message(fmt::format("[{}/{}] {}: {}", J.Index, Total, J.TheCell->Id, Text));
  }

  const LaunchPlan &Plan;
  const RunSettings &S;
  const SlurmSweepSettings &Slurm;
  ProgressReport &Progress;
  ResultStore Store;
  std::string SlurmDir;
  std::vector<CellJob> Jobs;
  std::vector<std::string> ArrayJobIds;
  size_t Total = 0, Ok = 0, Bad = 0, Skipped = 0;
};

CommandResult SlurmSweep::slurmCommand(const Argv &Command, bool Keep) {
  // Polls would grow a log without bound; only submissions and cancels are
  // kept, in commands.log.
  std::string Log = SlurmDir + (Keep ? "/commands.log" : "/.poll.log");
  if (!Keep)
    std::ofstream(Log, std::ios::trunc);
  else
    appendOutputLine(Log, "$ " + support::shellJoin(support::redactArgv(Command)));
  return runCommand(Command, {}, Log, milliseconds(60000), nullptr);
}

bool SlurmSweep::resolveNodeList(SlurmOptions &Options, int MaxNodes) {
  if (Slurm.NodeList.empty())
    return true;
  auto Words = [](const std::string &Text) {
    std::vector<std::string> Out;
    std::istringstream In(Text);
    for (std::string W; In >> W;)
      Out.push_back(W);
    return Out;
  };
  CommandResult Listed =
      slurmCommand({"scontrol", "show", "hostnames", fmt::format("{}", fmt::join(Slurm.NodeList, ","))}, true);
  Argv Sinfo = {"sinfo", "-h", "-N", "-o", "%N"};
  if (!Options.Partition.empty())
    Sinfo.insert(Sinfo.end(), {"-p", Options.Partition});
  CommandResult All = slurmCommand(Sinfo, true);
  if (!Listed.succeeded() || !All.succeeded()) {
    Progress.message(fmt::format("error: cannot resolve --nodelist: {}",
                                 Listed.succeeded() ? All.Output : Listed.Output));
    return false;
  }
  std::set<std::string> Pool;
  for (const std::string &N : Words(Listed.Output))
    Pool.insert(N);
  std::set<std::string> Known;
  for (const std::string &N : Words(All.Output))
    Known.insert(N);
  for (const std::string &N : Pool)
    if (!Known.count(N)) {
      Progress.message(fmt::format("error: --nodelist names '{}', which is not a node of {}", N,
                                   Options.Partition.empty() ? "the cluster"
                                                             : "partition " + Options.Partition));
      return false;
    }
  if (int(Pool.size()) < MaxNodes) {
    Progress.message(fmt::format("error: a cell needs {} nodes, but --nodelist names {}", MaxNodes,
                                 Pool.size()));
    return false;
  }
  for (const std::string &N : Known)
    if (!Pool.count(N))
      Options.Exclude.push_back(N);
  return true;
}

bool SlurmSweep::submit(const std::vector<CellJob *> &Group, const SlurmOptions &Options) {
  JobScriptSpec Spec;
  int Nodes = Group.front()->TheCell->Nodes;
  Spec.JobName = fmt::format("arecipe-{}-{}n", Plan.RecipeName, Nodes);
  Spec.Nodes = Nodes;
  for (CellJob *J : Group)
    Spec.CellIds.push_back(J->TheCell->Id);
  Spec.OutputPattern = SlurmDir + "/%A_%a.out";
  Spec.CellRun = Slurm.CellRun;
  Spec.PlanPath = S.PlanPath;
  Spec.CellsDir = S.OutDir + "/cells";
  std::string Script = fmt::format("{}/{}-{}n.sh", SlurmDir, Plan.RecipeName, Nodes);
  std::string Err;
  if (!support::writeFileAtomically(Script, buildJobScript(Options, Spec), Err)) {
    Progress.message("error: " + Err);
    return false;
  }
  // The submitter empties the cell directories: on the allocation, each
  // node rank would race the others doing it.
  for (CellJob *J : Group)
    if (!Store.resetCell(*J->TheCell, Err)) {
      Progress.message("error: " + Err);
      return false;
    }
  CommandResult R = slurmCommand({"sbatch", "--parsable", Script}, true);
  std::optional<std::string> Id = parseSbatchJobId(R.Output);
  if (!R.succeeded() || !Id) {
    Progress.message(fmt::format("error: sbatch {} {}: {}", Script, R.describe(),
                                 tailOfFile(SlurmDir + "/commands.log", 5)));
    return false;
  }
  ArrayJobIds.push_back(*Id);
  for (size_t I = 0; I < Group.size(); ++I) {
    Group[I]->ArrayJobId = *Id;
    Group[I]->Task = int(I);
    Group[I]->OutputPath = fmt::format("{}/{}_{}.out", SlurmDir, *Id, I);
    say(*Group[I], fmt::format("submitted as Slurm job {}", Group[I]->key()));
  }
  return true;
}

void SlurmSweep::showOutput(CellJob &J) {
  // The runtime on the node prints one plain line per phase; they become
  // this cell's progress, except its own final line, which finish() says.
  std::ifstream In(J.OutputPath);
  if (!In)
    return;
  In.seekg(J.OutputSeen);
  std::string Line;
  std::string Prefix = fmt::format("[1/1] {}: ", J.TheCell->Id);
  while (std::getline(In, Line)) {
    if (In.eof()) // a partial line: read it whole next time
      break;
    J.OutputSeen += std::streamoff(Line.size() + 1);
    if (Line.rfind(Prefix, 0) != 0)
      continue;
    std::string Text = Line.substr(Prefix.size());
    if (Text.rfind("ok after", 0) == 0 || Text.rfind("failed after", 0) == 0 ||
        Text.rfind("invalid after", 0) == 0 || Text.rfind("interrupted after", 0) == 0)
      continue;
    say(J, Text);
  }
}

void SlurmSweep::finish(CellJob &J, const SlurmJobRecord &Record) {
  J.Done = true;
  double Wall = std::chrono::duration<double>(Clock::now() - J.Started).count();
  std::string Where = fmt::format("Slurm job {}{}", J.key(),
                                  Record.NodeList.empty() ? "" : " on " + Record.NodeList);
  if (auto Summary = Store.finishedSummary(*J.TheCell)) {
    const ordered_json &Run = (*Summary)["arecipe_run"];
    std::string Status = support::stringAt(Run, "status", "?");
    std::string Reason = support::stringAt(Run, "reason");
    (Status == "ok" ? Ok : Bad)++;
    say(J, fmt::format("{} after {:.1f}s ({}){}", Status, Wall, Where,
                       Reason.empty() ? "" : ": " + Reason.substr(0, Reason.find('\n'))));
    return;
  }
  // The job ended without a verdict from the runtime: the cell failed at the
  // Slurm level, and its summary says how, so results.json and --resume see it.
  ++Bad;
  std::string Reason = describeJobEnd(J.key(), Record);
  std::string Tail = tailOfFile(J.OutputPath, OutputTailLines);
  const Cell &C = *J.TheCell;
  ordered_json Summary;
  Summary["hw"] = Plan.Hardware.Name;
  Summary["conc"] = C.Conc;
  Summary["model"] = Plan.ModelId;
  Summary["framework"] = Plan.EngineName;
  Summary["cell"] = C.Id;
  Summary["band"] = C.Band.empty() ? ordered_json(nullptr) : ordered_json(C.Band);
  Summary["gpus"] = C.Gpus;
  ordered_json &Run = Summary["arecipe_run"];
  Run["status"] = "failed";
  Run["reason"] = Reason;
  Run["failed_phase"] = "slurm";
  Run["log_tail"] = Tail;
  Run["slurm"] = {{"job", J.key()},
                  {"state", Record.State},
                  {"exit_code", Record.ExitCode},
                  {"nodes", Record.NodeList},
                  {"output", J.OutputPath}};
  Run["simulated"] = S.Simulate;
  Run["time_scale"] = S.Simulate ? S.TimeScale : 1.0;
  Run["time_basis"] = S.virtualClock() ? "virtual"
                      : S.Simulate     ? "simulated"
                                       : "wall";
  if (S.Simulate)
    Run["sim_clock"] = S.virtualClock() ? "virtual" : "wall";
  Run["cell_digest"] = C.Digest;
  Run["wall_seconds"] = Wall;
  std::string Err;
  if (!Store.writeCellSummary(C, Summary, Err))
    Progress.message("error: " + Err);
  say(J, fmt::format("failed after {:.1f}s: {}; last lines of {}:\n{}", Wall, Reason,
                     J.OutputPath, Tail));
}

void SlurmSweep::poll() {
  for (const std::string &Id : ArrayJobIds) {
    CommandResult R = slurmCommand({"scontrol", "show", "job", "-o", Id}, false);
    std::vector<SlurmJobRecord> Records =
        R.succeeded() ? parseScontrolJobs(R.Output) : std::vector<SlurmJobRecord>{};
    for (CellJob &J : Jobs) {
      if (J.Done || J.ArrayJobId != Id)
        continue;
      const SlurmJobRecord *Mine = nullptr;
      for (const SlurmJobRecord &Rec : Records)
        for (int T : Rec.ArrayTasks)
          if (T == J.Task && (Rec.ArrayJobId == Id || Rec.JobId == Id))
            Mine = &Rec;
      if (!Mine) {
        // slurmctld no longer knows the job (purged after MinJobAge, or the
        // controller restarted): the summary, if any, is all there is.
        if (R.succeeded() || R.Output.find("Invalid job id") != std::string::npos) {
          SlurmJobRecord Gone;
          Gone.State = "UNKNOWN";
          Gone.NodeList = J.Nodes;
          finish(J, Gone);
        }
        continue;
      }
      if (!Mine->NodeList.empty())
        J.Nodes = Mine->NodeList;
      if (Mine->State != J.State) {
        if (Mine->State == "PENDING")
          say(J, Mine->Reason.empty() || Mine->Reason == "None"
                     ? std::string("pending")
                     : fmt::format("pending ({})", Mine->Reason));
        else if (Mine->State == "RUNNING") {
          J.Started = Clock::now();
          say(J, fmt::format("running on {} (Slurm job {})", Mine->NodeList, J.key()));
        }
        J.State = Mine->State;
      }
      showOutput(J);
      if (isFinalJobState(Mine->State))
        finish(J, *Mine);
    }
  }
}

void SlurmSweep::cancelAll() {
  Argv Cancel = {"scancel"};
  Cancel.insert(Cancel.end(), ArrayJobIds.begin(), ArrayJobIds.end());
  if (ArrayJobIds.empty())
    return;
  // What happened before the interrupt is told before it: the cells that
  // finished since the last poll end, and the lines the running ones wrote
  // are relayed, so the progress reads in the order things happened.
  poll();
  Progress.message(fmt::format("interrupted: cancelling Slurm job{} {}",
                               ArrayJobIds.size() == 1 ? "" : "s", fmt::join(ArrayJobIds, " ")));
  slurmCommand(Cancel, true);
  // Keep what finished: a cell whose job ends now with a summary is done;
  // the rest are left without one for --resume. Bounded: the cells' own
  // teardown (SIGTERM, grace, SIGKILL) plus Slurm's KillWait.
  auto Deadline = Clock::now() + S.TeardownGrace + milliseconds(60000);
  while (Clock::now() < Deadline) {
    bool Running = false;
    for (const std::string &Id : ArrayJobIds) {
      CommandResult R = slurmCommand({"scontrol", "show", "job", "-o", Id}, false);
      for (const SlurmJobRecord &Rec : parseScontrolJobs(R.Output))
        Running |= !isFinalJobState(Rec.State);
    }
    if (!Running)
      break;
    std::this_thread::sleep_for(milliseconds(500));
  }
  for (CellJob &J : Jobs) {
    if (J.Done)
      continue;
    showOutput(J);
    if (auto Summary = Store.finishedSummary(*J.TheCell)) {
      // Finished before a poll saw it end (an interrupt right after its
      // summary): where it ran is what the last poll said.
      SlurmJobRecord Ended;
      Ended.NodeList = J.Nodes;
      finish(J, Ended);
    } else {
      say(J, fmt::format("cancelled (Slurm job {}); left for --resume", J.key()));
    }
  }
}

int SlurmSweep::run(const std::string &PlanText) {
  std::string Err;
  // The plan copy is redacted as JSON, field by field (redactPlanText).
  if (!Store.create(Err) || !makeRealDirectory(SlurmDir, Err) ||
      !support::writeFileAtomically(S.OutDir + "/plan.json", redactPlanText(PlanText), Err)) {
    Progress.message("error: " + Err);
    return 2;
  }
  std::vector<std::string> Unknown;
  std::vector<const Cell *> Cells = selectCells(Plan, S, Unknown);
  Total = Cells.size();
  int MaxNodes = 1;
  for (size_t I = 0; I < Cells.size(); ++I) {
    const Cell &C = *Cells[I];
    if (std::optional<std::string> Status = skipFinishedCell(Store, C, S, Progress, I + 1, Total)) {
      ++Skipped;
      (*Status == "ok" ? Ok : Bad)++;
      continue;
    }
    CellJob J;
    J.TheCell = &C;
    J.Index = I + 1;
    Jobs.push_back(J);
    MaxNodes = std::max(MaxNodes, C.Nodes);
  }

  SlurmOptions Options = Slurm.Options;
  int Exit = 0;
  if (!Jobs.empty() && !resolveNodeList(Options, MaxNodes))
    return 2;
  // One job array per node count, in the order the cells first appear.
  std::map<int, std::vector<CellJob *>> Groups;
  std::vector<int> Order;
  for (CellJob &J : Jobs) {
    if (!Groups.count(J.TheCell->Nodes))
      Order.push_back(J.TheCell->Nodes);
    Groups[J.TheCell->Nodes].push_back(&J);
  }
  for (int Nodes : Order)
    if (!stopRequested() && !submit(Groups[Nodes], Options)) {
      Exit = 2;
      break;
    }
  // Which job runs which cell, for scancel, squeue and the job's output.
  ordered_json Submitted = ordered_json::object();
  for (const CellJob &J : Jobs)
    if (!J.ArrayJobId.empty())
      Submitted[J.TheCell->Id] = {{"job", J.key()}, {"output", J.OutputPath}};
  if (!writeOutputJson(SlurmDir + "/jobs.json", Submitted, Err))
    Progress.message("error: " + Err);

  auto AllDone = [&] {
    for (const CellJob &J : Jobs)
      if (!J.Done && !J.ArrayJobId.empty())
        return false;
    return true;
  };
  while (Exit == 0 && !AllDone()) {
    if (stopRequested())
      break;
    poll();
    if (!AllDone())
      sleepUnlessStopped(PollInterval);
  }
  if (stopRequested() || Exit != 0) {
    cancelAll();
    if (stopRequested())
      Exit = 128 + stopSignal();
  }
  if (!Store.writeSweep(Plan, S.Simulate, S.TimeScale, Err)) {
    Progress.message("error: " + Err);
    return 2;
  }
  Progress.endSweep(
      {Total, Ok, Bad, Skipped, stopRequested(), S.OutDir, S.ResumeCommand, S.RetryCommand});
  if (Exit)
    return Exit;
  return Bad ? 1 : 0;
}

} // namespace

int runSlurmSweep(const LaunchPlan &Plan, const std::string &PlanText, const RunSettings &Settings,
                  const SlurmSweepSettings &Slurm, ProgressReport &Progress) {
  return SlurmSweep(Plan, Settings, Slurm, Progress).run(PlanText);
}

} // namespace arecipe::runtime
