//===- LocalExecutor.cpp - Running a plan's cells on this node ------------===//

#include "arecipe/Runtime/LocalExecutor.h"

#include "arecipe/Runtime/CellRunner.h"
#include "arecipe/Runtime/ChildProcess.h"
#include "arecipe/Runtime/LaunchCommand.h"
#include "arecipe/Runtime/Preflight.h"
#include "arecipe/Runtime/Repeats.h"
#include "arecipe/Runtime/ResultStore.h"
#include "arecipe/Runtime/StopRequest.h"
#include "arecipe/Support/AtomicFile.h"
#include "arecipe/Support/Json.h"
#include "arecipe/Support/Redaction.h"
#include "arecipe/Support/ShellQuote.h"
#include "arecipe/Support/Utf8.h"

#include <fmt/format.h>

#include <filesystem>
#include <iterator>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

namespace arecipe::runtime {

std::vector<const Cell *> selectCells(const LaunchPlan &Plan, const RunSettings &Settings,
                                      std::vector<std::string> &Unknown) {
  std::set<std::string> Wanted(Settings.Cells.begin(), Settings.Cells.end());
  for (const std::string &Id : Settings.Cells)
    if (!Plan.findCell(Id))
      Unknown.push_back(Id);
  std::vector<const Cell *> Out;
  for (const Cell &C : Plan.Cells)
    if (Wanted.empty() || Wanted.count(C.Id))
      Out.push_back(&C);
  return Out;
}

std::optional<std::string> skipFinishedCell(const ResultStore &Store, const Cell &C,
                                            const RunSettings &S, ProgressReport &Progress,
                                            size_t Index, size_t Total) {
  if (!S.Resume)
    return std::nullopt;
  std::optional<nlohmann::ordered_json> Done = Store.finishedSummary(C);
  if (!Done)
    return std::nullopt;
  std::string Status = support::stringAt((*Done)["arecipe_run"], "status", "?");
  if (S.RetryFailed && Status != "ok") {
    Progress.message(fmt::format("[{}/{}] {}: finished {} earlier, run again (--retry-failed)",
                                 Index, Total, C.Id, Status));
    return std::nullopt;
  }
  Progress.message(
      fmt::format("[{}/{}] {}: already finished ({}), skipped", Index, Total, C.Id, Status));
  return Status;
}

namespace {

std::string describeEnv(const ChildEnvironment &Env) {
  std::string Out;
  for (const std::string &N : Env.Unset)
    Out += fmt::format(" -{}", N);
  for (const auto &[K, V] : Env.Set)
    Out += fmt::format(" {}={}", K,
                       support::isSecretName(K) ? std::string(support::RedactedMarker)
                                                : support::shellJoin({V}));
  return Out;
}

std::string describeWorkload(const ClientSpec &Client) {
  if (const auto *F = std::get_if<FixedWorkload>(&Client.Workload))
    // The rule as the plan states it: "below" is named, v1's "around" is not.
    return fmt::format(
        "fixed isl {} osl {} range_ratio {}{} num_prompts {} warmup {}{}",
        F->Isl, F->Osl, F->RangeRatio, F->RangeBelow ? " range_rule below" : "",
        F->NumPrompts, F->Warmup,
        F->RequestRate > 0 ? fmt::format(" request_rate {}", F->RequestRate)
                           : "");
  const auto &A = std::get<AgenticWorkload>(Client.Workload);
  return fmt::format("agentic trace {} duration {} s warmup {} s max_failed_fraction {}", A.Trace,
                     A.DurationS, A.WarmupS, A.MaxFailedFraction);
}

std::string planSeconds(const RunSettings &S, double Seconds) {
  if (!S.Simulate)
    return fmt::format("{} s", Seconds);
  return fmt::format("{} s (wall {:.3f} s)", Seconds, S.wall(Seconds).count() / 1000.0);
}

void printCell(const LaunchPlan &Plan, const Cell &C, const RunSettings &S, std::string &Out) {
  std::string Dir = S.OutDir + "/cells/" + C.Id;
  fmt::format_to(std::back_inserter(Out), "cell {} (conc {}{}, {} GPUs)\n", C.Id, C.Conc,
                 C.Band.empty() ? "" : ", band " + C.Band, C.Gpus);
  // What runs is shown with the values known before the run; a captured
  // value stays `{capture:NAME}` until its step has run.
  PlaceholderValues Values = cellPlaceholderValues(C, S, Dir);
  for (const GeneratedFile &F : C.Files) {
    std::string Content = substitutePlaceholders(F.Content, Values);
    fmt::format_to(std::back_inserter(Out), "  file: {} ({} bytes{})\n", Values.Files.at(F.Name),
                   Content.size(), usesCapture(F.Content) ? ", written after the captures" : "");
    std::istringstream In(Content);
    for (std::string Line; std::getline(In, Line);)
      fmt::format_to(std::back_inserter(Out), "    | {}\n", Line);
  }
  if (S.remapsPorts()) {
    std::set<int> Fixed;
    for (const ProcessSpec &P : C.Processes)
      if (P.Port && *P.Port > 0)
        Fixed.insert(*P.Port);
    if (!Fixed.empty())
      fmt::format_to(std::back_inserter(Out),
                     "  ports: {} remapped to free ports when the cell starts (--simulate; "
                     "--sim-fixed-ports keeps them)\n",
                     fmt::join(Fixed, ", "));
  }
  for (size_t I = 0; I < C.Preflight.size(); ++I)
    fmt::format_to(std::back_inserter(Out), "  preflight[{}]: {}\n", I,
                   describePreflightAction(C.Preflight[I]));
  for (const ProcessSpec &P : C.Processes) {
    LaunchCommand L = buildLaunchCommand(Plan, C, P, S, Dir, Values);
    fmt::format_to(std::back_inserter(Out), "  process {} ({}){}{}\n", P.Name, P.Role,
                   P.Port ? fmt::format(", port {}", *P.Port) : "",
                   P.After.empty() ? "" : fmt::format(", after {}", fmt::join(P.After, " ")));
    fmt::format_to(std::back_inserter(Out), "    log: {}\n", L.LogPath);
    if (!L.Env.Set.empty() || !L.Env.Unset.empty())
      fmt::format_to(std::back_inserter(Out), "    env:{}\n", describeEnv(L.Env));
    if (!L.Error.empty())
      fmt::format_to(std::back_inserter(Out), "    error: {}\n", L.Error);
    else
      fmt::format_to(std::back_inserter(Out), "    exec: {}\n",
                     support::shellJoin(support::redactArgv(L.Command)));
    if (!L.Note.empty())
      fmt::format_to(std::back_inserter(Out), "    note: {}\n", L.Note);
    if (P.HttpEndpoints)
      fmt::format_to(std::back_inserter(Out),
                     "    ready: GET {} = 200, GET {} lists '{}', alive; start-up timeout {}, "
                     "stall timeout {}\n",
                     P.HttpEndpoints->Health, P.HttpEndpoints->Models, P.Ready.RequiresModel,
                     planSeconds(S, P.Ready.StartupTimeoutS),
                     planSeconds(S, P.Ready.StallTimeoutS));
    else
      fmt::format_to(std::back_inserter(Out), "    ready: running\n");
  }
  fmt::format_to(std::back_inserter(Out), "  client: {} concurrency {} -> {} model '{}'\n",
                 describeWorkload(C.Client), C.Client.Concurrency, C.Client.Target,
                 C.Client.ServedModelName);
  for (const ProfileWindow &W : C.Profile)
    fmt::format_to(std::back_inserter(Out),
                   "  profile: start {} after the measured window opens, for {}\n",
                   planSeconds(S, W.StartS), planSeconds(S, W.DurationS));
  fmt::format_to(
      std::back_inserter(Out), "  validity: error rate <= {}{}\n", C.Validity.MaxErrorRate,
      C.Validity.RequiredMetricPrefix.empty()
          ? ""
          : fmt::format(", a server metric with prefix '{}'", C.Validity.RequiredMetricPrefix));
  fmt::format_to(std::back_inserter(Out),
                 "  teardown: SIGTERM to each process group, {:.1f} s grace, SIGKILL",
                 S.TeardownGrace.count() / 1000.0);
  for (const ProcessSpec &P : C.Processes) {
    LaunchCommand L = buildLaunchCommand(Plan, C, P, S, Dir, Values);
    if (!L.ContainerName.empty())
      fmt::format_to(std::back_inserter(Out), "; {}",
                     support::shellJoin(containerRemoveCommand(Plan, L.ContainerName)));
  }
  fmt::format_to(std::back_inserter(Out), "; wait for free ports\n");
}

/// A multi-node cell under --simulate, on this machine: what the Slurm job
/// script does on an allocation (SlurmJob.cpp), with local processes.
CellOutcome runLocalRanks(const LaunchPlan &Plan, const Cell &C, const RunSettings &S,
                          const ResultStore &Store, ProgressReport &Progress) {
  std::string Err;
  // The submitter's part: an empty cell directory, shared by the ranks.
  if (!Store.resetCell(C, Err))
    return {CellStatus::Failed, Err};
  std::vector<std::string> Addrs(size_t(C.Nodes), "127.0.0.1");
  std::vector<std::string> Hosts(size_t(C.Nodes), localHostName());
  auto NodeName = [](int Rank) { return fmt::format("local-rank{}", Rank); };
  std::vector<ChildProcess> Ranks(size_t(C.Nodes - 1));
  for (int Rank = 1; Rank < C.Nodes; ++Rank) {
    Argv Command = S.RankCommand;
    // The rank writes where this runtime does (a repeat's own directory).
    Command.insert(Command.end(), {"--out", S.OutDir, "--cells", C.Id, "--node-rank", std::to_string(Rank),
                                   "--node-addrs", fmt::format("{}", fmt::join(Addrs, ",")),
                                   "--node-hosts", fmt::format("{}", fmt::join(Hosts, ",")),
                                   "--node-name", NodeName(Rank), S.PlanPath});
    ChildProcess &Child = Ranks[size_t(Rank - 1)];
    if (!Child.start(Command, {}, fmt::format("{}/node-rank{}.log", Store.cellDir(C), Rank), Err))
      return {CellStatus::Failed, fmt::format("cannot start node rank {}: {}", Rank, Err)};
  }
  Progress.note(fmt::format("--simulate runs the cell's {} node ranks on this machine (node "
                            "rank R's output in node-rank<R>.log)",
                            C.Nodes));
  RunSettings Rank0 = S;
  Rank0.NodeRank = 0;
  Rank0.NodeAddrs = Addrs;
  Rank0.NodeHosts = Hosts;
  Rank0.NodeName = NodeName(0);
  for (ChildProcess &Child : Ranks)
    Rank0.RankPids.push_back(Child.pid());
  CellOutcome O;
  if (!makeRealDirectory(simulatedGpuMemoryDir(Rank0), Err))
    O = {CellStatus::Failed, Err};
  else
    O = runCell(Plan, C, Rank0, Store, Progress);
  // Rank 0's teardown wrote the stop file that ends the others; written
  // here too, in case it never got that far.
  if (!support::writeFileAtomically(Store.cellDir(C) + "/stop", "stop\n", Err))
    Progress.note(Err);
  auto Deadline = std::chrono::steady_clock::now() + S.TeardownGrace + std::chrono::seconds(30);
  for (ChildProcess &Child : Ranks) {
    while (Child.running() && std::chrono::steady_clock::now() < Deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    if (Child.running())
      Child.stop(S.TeardownGrace);
  }
  return O;
}

} // namespace

void printDryRun(const LaunchPlan &Plan, const RunSettings &S, std::FILE *File) {
  // Built whole, then printed through the same redaction as every output.
  std::string Out;
  std::vector<std::string> Unknown;
  std::vector<const Cell *> Cells = selectCells(Plan, S, Unknown);
  fmt::format_to(std::back_inserter(Out), "plan {} ({}), {} of {} cells, results in {}\n",
                 Plan.RecipeName, Plan.Schema, Cells.size(), Plan.Cells.size(), S.OutDir);
  if (S.Simulate)
    fmt::format_to(std::back_inserter(Out),
                   "simulated: engines replaced by {}, time scale {}{}\n",
                   S.SimulatorPath, S.TimeScale,
                   S.virtualClock() ? ", virtual clock (--sim-clock virtual)"
                                    : "");
  if (S.Repeat > 1)
    fmt::format_to(std::back_inserter(Out),
                   "repeats: every cell {} times; repeat K >= 2 in {}/repeats/K\n", S.Repeat,
                   S.OutDir);
  for (const Cell *C : Cells) {
    if (S.Resume)
      fmt::format_to(std::back_inserter(Out),
                     "(--resume: skipped if cells/{}/summary.json is finished for this plan{})\n",
                     C->Id, S.RetryFailed ? " and ok" : "");
    printCell(Plan, *C, S, Out);
  }
  std::string Safe = support::sanitizeUtf8(support::redact(Out));
  std::fwrite(Safe.data(), 1, Safe.size(), File);
}

namespace {

/// Creates a results directory for S: its cells, the plan copy (unless
/// PlanText is null: a node rank's plan copy is its submitter's) and, under
/// --simulate, the simulator's sandboxes.
bool prepareOutDir(const ResultStore &Store, const RunSettings &S, const std::string *PlanText,
                   std::string &Err) {
  // The plan copy is redacted as JSON, field by field (redactPlanText).
  if (!Store.create(Err) ||
      (PlanText &&
       !support::writeFileAtomically(S.OutDir + "/plan.json", redactPlanText(*PlanText), Err)))
    return false;
  // The simulator's sandboxes are written by the engines: real directories.
  return !S.Simulate || (makeRealDirectory(S.OutDir + "/.sim-gpu-memory", Err) &&
                         makeRealDirectory(simulatedGpuMemoryDir(S), Err) &&
                         makeRealDirectory(simulatedHfHome(S), Err));
}

} // namespace

int runLocalSweep(const LaunchPlan &Plan, const std::string &PlanText, const RunSettings &S,
                  ProgressReport &Progress) {
  ResultStore Store(S.OutDir, S.Simulate, S.TimeScale, S.virtualClock());
  std::string Err;
  // One node rank of a Slurm sweep writes only its cell: the plan copy and
  // the sweep files are the submitter's, which collects every cell. (The
  // caller holds the lock on --out: OutputLock.)
  bool OnAllocation = S.NodeRank >= 0;
  if (!prepareOutDir(Store, S, OnAllocation ? nullptr : &PlanText, Err)) {
    Progress.message("error: " + Err);
    return 2;
  }
  std::vector<std::string> Unknown;
  std::vector<const Cell *> Cells = selectCells(Plan, S, Unknown);
  size_t Ok = 0, Bad = 0, Skipped = 0;
  int Exit = 0;
  // The sweep files cover every cell, so rebuilding them costs time in
  // proportion to the sweep. They are rebuilt after a cell unless the last
  // rebuild took more than a fifth of the time since (only thousands of
  // cells that end at once come near that), which keeps the bookkeeping of
  // a whole sweep linear in its cells; and always at the end.
  using Clock = std::chrono::steady_clock;
  Clock::time_point LastRebuilt = Clock::now();
  Clock::duration LastRebuildCost{0};
  bool Stale = true;
  auto Rebuild = [&] {
    auto Start = Clock::now();
    bool Written = Store.writeSweep(Plan, S.Simulate, S.TimeScale, Err);
    LastRebuilt = Clock::now();
    LastRebuildCost = LastRebuilt - Start;
    Stale = false;
    if (!Written)
      Progress.message("error: " + Err);
    return Written;
  };
  // --repeat N: repeats 2..N of every cell go to results directories of
  // their own, OUT/repeats/K (Repeats.h), each with its settings and store.
  int Repeats = OnAllocation ? 1 : std::max(1, S.Repeat);
  std::vector<RunSettings> RepeatSettings(size_t(Repeats), S);
  std::vector<std::unique_ptr<ResultStore>> RepeatStores;
  for (int K = 2; K <= Repeats; ++K) {
    RunSettings &SK = RepeatSettings[size_t(K - 1)];
    SK.OutDir = repeatOutDir(S.OutDir, K);
    auto Store = std::make_unique<ResultStore>(SK.OutDir, S.Simulate,
                                               S.TimeScale, S.virtualClock());
    if (!makeRealDirectory(S.OutDir + "/repeats", Err) ||
        !prepareOutDir(*Store, SK, &PlanText, Err)) {
      Progress.message("error: " + Err);
      return 2;
    }
    RepeatStores.push_back(std::move(Store));
  }
  auto StoreOf = [&](int K) -> const ResultStore & {
    return K == 1 ? Store : *RepeatStores[size_t(K - 2)];
  };
  for (size_t I = 0; I < Cells.size(); ++I) {
    const Cell &C = *Cells[I];
    bool CellOk = true, AllSkipped = true, Interrupted = false;
    for (int K = 1; K <= Repeats && !Interrupted; ++K) {
      std::string Label = Repeats > 1 ? fmt::format("{} (repeat {}/{})", C.Id, K, Repeats) : C.Id;
      Progress.beginCell(I + 1, Cells.size(), Label);
      if (std::optional<std::string> Status =
              skipFinishedCell(StoreOf(K), C, S, Progress, I + 1, Cells.size())) {
        CellOk = CellOk && *Status == "ok";
        continue;
      }
      AllSkipped = false;
      CellOutcome O;
      const RunSettings &RS = RepeatSettings[size_t(K - 1)];
      if (C.Nodes > 1 && !OnAllocation && RS.Simulate && !RS.RankCommand.empty()) {
        O = runLocalRanks(Plan, C, RS, StoreOf(K), Progress);
      } else if (C.Nodes > 1 && !OnAllocation) {
        O.Status = CellStatus::Failed;
        O.Reason = fmt::format("the cell spans {} nodes; run it with --executor slurm (or "
                               "simulate it with --simulate)",
                               C.Nodes);
      } else {
        O = runCell(Plan, C, RS, StoreOf(K), Progress);
      }
      Progress.endCell(cellStatusName(O.Status), O.Reason.substr(0, O.Reason.find('\n')));
      if (O.Status == CellStatus::Interrupted) {
        Interrupted = true;
        break;
      }
      CellOk = CellOk && O.Status == CellStatus::Ok;
      if (K > 1 && !StoreOf(K).writeSweep(Plan, S.Simulate, S.TimeScale, Err))
        Progress.message("error: " + Err);
    }
    // The figures over the repeats go into repeat 1's summary, which every
    // table and the report read; written again on a resume, as repeats end.
    if (Repeats > 1 && !Interrupted) {
      std::vector<std::optional<nlohmann::ordered_json>> Runs;
      for (int K = 1; K <= Repeats; ++K)
        Runs.push_back(StoreOf(K).finishedSummary(C));
      if (std::optional<nlohmann::ordered_json> First = Runs.front()) {
        nlohmann::ordered_json Figures = repeatFigures(Runs, Repeats);
        if (!First->contains("arecipe_repeats") || (*First)["arecipe_repeats"] != Figures) {
          (*First)["arecipe_repeats"] = Figures;
          if (!Store.writeCellSummary(C, *First, Err))
            Progress.message("error: " + Err);
          AllSkipped = false;
        }
        Progress.message(
            fmt::format("[{}/{}] {}: {}", I + 1, Cells.size(), C.Id, describeRepeats(Figures)));
      }
    }
    if (Interrupted) {
      Exit = 128 + stopSignal();
      break;
    }
    if (AllSkipped)
      ++Skipped;
    (CellOk ? Ok : Bad)++;
    if (AllSkipped)
      continue;
    Stale = true;
    if (!OnAllocation && Clock::now() - LastRebuilt >= 4 * LastRebuildCost && !Rebuild())
      return 2;
  }
  if (!OnAllocation && Stale && !Rebuild())
    return 2;
  // A node rank's console is its submitter's Slurm output: the submitter
  // says how to resume.
  Progress.endSweep({Cells.size(), Ok, Bad, Skipped, Exit != 0, S.OutDir,
                     OnAllocation ? "" : S.ResumeCommand, OnAllocation ? "" : S.RetryCommand});
  if (Exit)
    return Exit;
  return Bad ? 1 : 0;
}

} // namespace arecipe::runtime
