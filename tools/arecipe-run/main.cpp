//===- arecipe-run - Execute a launch plan ---------------------------------===//
//
// Reads a plan (docs/plan-schema.md), validates it, and runs its cells with
// the local executor or through Slurm. See docs/runtime.md and docs/slurm.md.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Report/HtmlReport.h"
#include "arecipe/Runtime/ChildProcess.h"
#include "arecipe/Runtime/ExternalEndpoint.h"
#include "arecipe/Runtime/LocalExecutor.h"
#include "arecipe/Runtime/PlanLoader.h"
#include "arecipe/Runtime/ResultStore.h"
#include "arecipe/Runtime/SlurmExecutor.h"
#include "arecipe/Runtime/StopRequest.h"
#include "arecipe/Runtime/VirtualTime.h"

#include "arecipe/Basic/TextDiagnosticPrinter.h"
#include "arecipe/Frontend/CompilerInstance.h"
#include "arecipe/Support/AtomicFile.h"
#include "arecipe/Support/InstallLayout.h"
#include "arecipe/Support/Json.h"
#include "arecipe/Support/Redaction.h"
#include "arecipe/Support/ShellQuote.h"
#include "arecipe/Support/Utf8.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace cl = llvm::cl;
namespace fs = std::filesystem;
using namespace arecipe::runtime;

static cl::OptionCategory Category("arecipe-run options");
static cl::opt<std::string> PlanFile(cl::Positional, cl::desc("<plan.json | recipe.arecipe>"),
                                     cl::Required, cl::cat(Category));
static cl::opt<std::string> OutDir("out", cl::desc("Results directory (default: results/<recipe>)"),
                                   cl::value_desc("dir"), cl::cat(Category));
static cl::list<std::string> CellIds("cells",
                                     cl::desc("Run only these cells (comma-separated ids)"),
                                     cl::CommaSeparated, cl::value_desc("id,..."),
                                     cl::cat(Category));
static cl::opt<bool> DryRun("dry-run", cl::desc("Print every action and command; run nothing"),
                            cl::cat(Category));
static cl::opt<bool> Resume("resume", cl::desc("Skip cells already finished in --out"),
                            cl::cat(Category));
static cl::opt<bool> RetryFailed("retry-failed",
                                 cl::desc("With --resume: rerun the cells that finished failed "
                                          "or invalid too"),
                                 cl::cat(Category));
static cl::opt<int> Repeat("repeat",
                           cl::desc("Measure every cell N times; the summary gives mean, spread "
                                    "and a 95% confidence interval (local executor)"),
                           cl::init(1), cl::value_desc("N"), cl::cat(Category));
static cl::OptionCategory EndpointCategory("arecipe-run options for a server already running");
static cl::opt<std::string>
    Endpoint("endpoint",
             cl::desc("Measure the OpenAI-compatible server at URL instead of starting the "
                      "plan's processes"),
             cl::value_desc("url"), cl::cat(EndpointCategory));
static cl::opt<std::string>
    EndpointKeyEnv("endpoint-api-key-env",
                   cl::desc("Environment variable holding the endpoint's API key (sent as "
                            "'Authorization: Bearer', redacted everywhere)"),
                   cl::value_desc("NAME"), cl::cat(EndpointCategory));
static cl::opt<std::string> EndpointModel("endpoint-model",
                                          cl::desc("Served model name, if not the plan's"),
                                          cl::value_desc("name"), cl::cat(EndpointCategory));
static cl::opt<std::string> EndpointMetrics("endpoint-metrics",
                                            cl::desc("Path of its Prometheus metrics, or none"),
                                            cl::init("/metrics"), cl::value_desc("path"),
                                            cl::cat(EndpointCategory));
static cl::opt<double> EndpointReadyTimeout("endpoint-ready-timeout",
                                            cl::desc("Seconds to wait for the endpoint to list "
                                                     "the model (default 600)"),
                                            cl::init(600), cl::cat(EndpointCategory));
static cl::opt<bool> CheckOnly("check", cl::desc("Validate the plan and exit"), cl::cat(Category));
static cl::opt<std::string> Executor("executor", cl::desc("local (default) or slurm"),
                                     cl::init("local"), cl::cat(Category));
static cl::opt<bool> Simulate("simulate", cl::desc("Replace every engine by arecipe-sim"),
                              cl::cat(Category));
static cl::opt<double> TimeScale("time-scale",
                                 cl::desc("With --simulate: simulated seconds per wall second"),
                                 cl::init(100), cl::cat(Category));
static cl::opt<std::string> Simulator("simulator",
                                      cl::desc("arecipe-sim to use (default: next to arecipe-run)"),
                                      cl::cat(Category));
static cl::list<std::string> SimArgs("sim-arg",
                                     cl::desc("Extra argument for every simulated engine"),
                                     cl::value_desc("--sim-..."), cl::cat(Category));
static cl::list<std::string>
    CellSimArgs("sim-cell-arg",
                cl::desc("Extra argument for one cell's simulated engines: CELL=ARG"),
                cl::value_desc("cell=--sim-..."), cl::cat(Category));
static cl::opt<bool>
    SimFixedPorts("sim-fixed-ports",
                  cl::desc("With --simulate: keep the plan's fixed ports (by default each is "
                           "remapped to a free port per cell)"),
                  cl::cat(Category));
static cl::opt<std::string> SimClockOpt(
    "sim-clock",
    cl::desc(
        "With --simulate: wall (default: the client's wall-clock times x the "
        "time scale) or virtual (the simulated engine's own clock, in "
        "lock-step with a closed-loop client: figures independent of the "
        "time scale and of the machine's load)"),
    cl::value_desc("wall|virtual"), cl::init("wall"), cl::cat(Category));
static cl::opt<double> TeardownGrace("teardown-grace",
                                     cl::desc("Seconds between SIGTERM and SIGKILL (default 10)"),
                                     cl::init(10), cl::cat(Category));
static cl::opt<double> PortFreeTimeout("port-free-timeout",
                                       cl::desc("Seconds to wait for ports after teardown"),
                                       cl::init(30), cl::cat(Category));
static cl::OptionCategory SlurmCategory("arecipe-run Slurm options (override the plan's slurm)");
static cl::opt<std::string> Partition("partition", cl::desc("Slurm partition"),
                                      cl::cat(SlurmCategory));
static cl::opt<std::string> Account("account", cl::desc("Slurm account"), cl::cat(SlurmCategory));
static cl::opt<std::string> TimeLimit("time-limit",
                                      cl::desc("Time limit per cell: seconds, or with m/h"),
                                      cl::value_desc("90m"), cl::cat(SlurmCategory));
static cl::opt<std::string> NodeList("nodelist",
                                     cl::desc("auto (Slurm picks idle nodes) or the nodes to use"),
                                     cl::value_desc("auto|n1,n[3-4]"), cl::cat(SlurmCategory));
static cl::opt<int> GpusPerNode("gpus-per-node", cl::desc("GPUs to request per node (0: none)"),
                                cl::init(-1), cl::cat(SlurmCategory));
static cl::opt<std::string>
    ContainerRuntime("container-runtime", cl::desc("docker or podman on the nodes"),
                     cl::cat(SlurmCategory));
static cl::list<std::string> ContainerMounts("container-mount",
                                             cl::desc("Extra container mount SRC:DST[:ro]"),
                                             cl::value_desc("src:dst[:ro]"),
                                             cl::cat(SlurmCategory));
// Set by the Slurm executor's job script, not by hand.
static cl::opt<int> NodeRank("node-rank", cl::desc("Run one node rank of the cells (Slurm)"),
                             cl::init(-1), cl::Hidden);
static cl::list<std::string> NodeAddrs("node-addrs", cl::desc("Node addresses by rank"),
                                       cl::CommaSeparated, cl::Hidden);
static cl::list<std::string> NodeHosts("node-hosts", cl::desc("Node host names by rank"),
                                       cl::CommaSeparated, cl::Hidden);
static cl::opt<std::string>
    NodeNameOpt("node-name", cl::desc("This node's name (default: SLURMD_NODENAME)"), cl::Hidden);
// Given a `.arecipe`, arecipe-run compiles it in-process, exactly as
// `arecipec --emit plan` would with the same options.
static cl::OptionCategory CompileCategory("arecipe-run options for a .arecipe input");
static cl::list<std::string> Sets("set", cl::desc("Override a knob in every cell (as arecipec)"),
                                  cl::value_desc("name=value"), cl::cat(CompileCategory));
static cl::list<std::string> IncludeDirs("I", cl::Prefix,
                                         cl::desc("Add a directory to the import search path"),
                                         cl::value_desc("dir"), cl::cat(CompileCategory));
static cl::opt<std::string> RecipeName("recipe", cl::desc("Compile only this recipe of the file"),
                                       cl::value_desc("name"), cl::cat(CompileCategory));
static cl::opt<bool> EvalMode("eval", cl::desc("Compile an accuracy-evaluation plan (--mode eval)"),
                              cl::cat(CompileCategory));
static cl::opt<std::string> ProgressMode("progress", cl::desc("auto, live or plain"),
                                         cl::init("auto"), cl::cat(Category));

/// Everything printed on stderr quotes the plan or the command line: it
/// goes through the same redaction as every file under --out.
static void printToStderr(const std::string &Text) {
  std::string Safe = arecipe::support::sanitizeUtf8(arecipe::support::redact(Text));
  std::fwrite(Safe.data(), 1, Safe.size(), stderr);
}

static int usageError(const std::string &Message) {
  printToStderr(fmt::format("arecipe-run: error: {}\n", Message));
  return 2;
}

/// The command lines the console suggests at the end of a sweep: this one
/// with --resume (and --out, when the default was used), and that with
/// --retry-failed as well.
static void suggestCommands(int Argc, char **Argv, RunSettings &S) {
  std::vector<std::string> Args(Argv, Argv + Argc);
  auto Has = [&](std::string_view Flag) {
    for (size_t I = 1; I < Args.size(); ++I)
      if (Args[I] == Flag || Args[I] == Flag.substr(1) ||
          Args[I].rfind(std::string(Flag) + "=", 0) == 0)
        return true;
    return false;
  };
  std::vector<std::string> Resume = {Args[0]};
  if (!Has("--resume"))
    Resume.push_back("--resume");
  if (!Has("--out"))
    Resume.insert(Resume.end(), {"--out", S.OutDir});
  Resume.insert(Resume.end(), Args.begin() + 1, Args.end());
  S.ResumeCommand = arecipe::support::shellJoin(Resume);
  if (!Has("--retry-failed"))
    Resume.insert(Resume.begin() + 1, "--retry-failed");
  S.RetryCommand = arecipe::support::shellJoin(Resume);
}

/// Seconds from `3600`, `90m` or `2h`; a negative value when malformed.
static double parseTimeLimit(const std::string &Text) {
  char *End = nullptr;
  double V = std::strtod(Text.c_str(), &End);
  std::string Unit = End ? End : "";
  if (End == Text.c_str() || !(V > 0))
    return -1;
  if (Unit.empty() || Unit == "s")
    return V;
  if (Unit == "m")
    return V * 60;
  if (Unit == "h")
    return V * 3600;
  return -1;
}

/// Compiles the recipe at Path into plan JSON; nullopt after printing the
/// recipe's diagnostics (file:line:col with carets) to stderr.
static std::optional<std::string> compileRecipe(const std::string &Path) {
  arecipe::TextDiagnosticPrinter Printer(llvm::errs(), "arecipe-run");
  arecipe::frontend::CompilerInvocation Inv;
  Inv.MainFile = Path;
  Inv.IncludeDirs.assign(IncludeDirs.begin(), IncludeDirs.end());
  Inv.StdRoot = arecipe::support::dataDir();
  Inv.Sets.assign(Sets.begin(), Sets.end());
  Inv.EvalMode = EvalMode;
  Inv.Recipe = RecipeName;
  return arecipe::frontend::compileToPlanJSON(Inv, Printer);
}

static std::string ownDirectory() {
  std::string Dir = arecipe::support::executableDir();
  return Dir.empty() ? std::string(".") : Dir;
}

/// `arecipe-run report DIR [DIR2...] [-o FILE]`: rewrites DIR/report.html or,
/// given several directories, writes their comparison (by default beside the
/// first one's report, the baseline). Prints the path written.
static int runReportCommand(int Argc, char **Argv) {
  namespace report = arecipe::report;
  std::vector<std::string> Dirs;
  std::string Output;
  for (int I = 1; I < Argc; ++I) {
    std::string_view Arg = Argv[I];
    if (Arg == "-h" || Arg == "--help") {
      fmt::print("usage: arecipe-run report DIR [DIR2 ...] [-o FILE]\n"
                 "  one DIR: rewrite DIR/{}; several: compare them, the first being the "
                 "baseline,\n  in DIR/{} unless -o FILE says where\n",
                 report::ReportFileName, report::ComparisonFileName);
      return 0;
    }
    if (Arg == "-o" || Arg == "--output") {
      if (++I == Argc)
        return usageError("report: -o needs a file name");
      Output = Argv[I];
    } else if (Arg.substr(0, 9) == "--output=") {
      Output = Arg.substr(9);
    } else if (Arg.substr(0, 1) == "-") {
      return usageError(fmt::format("report: unknown option '{}'", Arg));
    } else {
      Dirs.emplace_back(Arg);
    }
  }
  if (Dirs.empty())
    return usageError("report: expected a results directory: arecipe-run report DIR [DIR2 ...] "
                      "[-o FILE]");
  std::vector<report::SweepResults> Sweeps;
  std::string Err;
  for (const std::string &Dir : Dirs) {
    std::optional<report::SweepResults> Sweep = report::loadSweepResults(Dir, Err);
    if (!Sweep)
      return usageError(Err);
    Sweeps.push_back(std::move(*Sweep));
  }
  if (Output.empty())
    Output = (fs::path(Dirs[0]) / (Dirs.size() == 1 ? report::ReportFileName
                                                    : report::ComparisonFileName))
                 .string();
  std::string Html = Dirs.size() == 1 ? report::renderSweepReport(Sweeps[0])
                                      : report::renderComparisonReport(
                                            Sweeps, fs::absolute(Output).parent_path().string());
  if (!writeOutputFile(Output, Html, Err))
    return usageError(Err);
  fmt::print("{}\n", Output);
  return 0;
}

int main(int Argc, char **Argv) {
  // The operator's credentials (HF_TOKEN, ...) are redacted wherever they
  // appear, also without their name (support/Redaction.h).
  arecipe::support::addSecretValuesFromEnvironment();
  if (Argc > 1 && std::string_view(Argv[1]) == "report")
    return runReportCommand(Argc - 1, Argv + 1);
  cl::HideUnrelatedOptions({&Category, &SlurmCategory, &CompileCategory});
  cl::ParseCommandLineOptions(Argc, Argv, "arecipe-run: execute a launch plan\n");

  if (Executor != "local" && Executor != "slurm")
    return usageError(
        fmt::format("--executor '{}': expected 'local' or 'slurm'", Executor.getValue()));
  // Every duration is bounded, so none overflows when it becomes
  // milliseconds (finding 16 of the second hardening round; the plan's are
  // bounded by the loader).
  if (!(TimeScale >= 0.001 && TimeScale <= 1e6))
    return usageError(
        fmt::format("--time-scale: expected a number in [0.001, 1000000], got {}", TimeScale));
  for (auto [Name, Value] : {std::pair{"--teardown-grace", TeardownGrace.getValue()},
                             {"--port-free-timeout", PortFreeTimeout.getValue()}})
    if (!(Value >= 0 && Value <= MaxPlanDurationS))
      return usageError(
          fmt::format("{}: expected seconds in [0, {}], got {}", Name, MaxPlanDurationS, Value));

  bool FromRecipe = fs::path(PlanFile.getValue()).extension() == ".arecipe";
  if (!FromRecipe && (!Sets.empty() || !IncludeDirs.empty() || !RecipeName.empty() || EvalMode))
    return usageError("--set, -I, --recipe and --eval apply to a .arecipe input, not to a plan");
  std::string Text;
  if (FromRecipe) {
    std::optional<std::string> Compiled = compileRecipe(PlanFile);
    if (!Compiled)
      return 1;
    Text = std::move(*Compiled);
  } else {
    std::ifstream In(PlanFile, std::ios::binary);
    if (!In)
      return usageError(
          fmt::format("cannot read {}: {}", PlanFile.getValue(), std::strerror(errno)));
    std::stringstream SS;
    SS << In.rdbuf();
    Text = SS.str();
  }
  // So are the plan's: the values of its secret-named variables and options,
  // wherever an engine or a command prints them later.
  if (std::optional<arecipe::support::json> J = arecipe::support::parseJsonOrNull(
          Text, arecipe::support::JsonLimits{64, size_t(256) << 20}))
    arecipe::support::addSecretValuesIn(*J);
  PlanLoadResult Loaded = parseLaunchPlan(Text);
  if (!Loaded.ok()) {
    for (const PlanError &E : Loaded.Errors)
      printToStderr(fmt::format("{}: {}{}{}\n", PlanFile.getValue(), E.Path,
                                E.Path.empty() ? "" : ": ", E.Message));
    printToStderr(fmt::format("arecipe-run: the plan is not valid ({} error{})\n",
                              Loaded.Errors.size(), Loaded.Errors.size() == 1 ? "" : "s"));
    return 2;
  }
  if (!ContainerRuntime.empty() || !ContainerMounts.empty()) {
    if (!Loaded.Plan.Container)
      return usageError("--container-runtime/--container-mount: the plan runs no container");
    if (!ContainerRuntime.empty() && ContainerRuntime != "docker" && ContainerRuntime != "podman")
      return usageError("--container-runtime: expected docker or podman");
  }
  // The plan's slurm container options, then the command line's, apply to
  // the container wherever the cell runs.
  if (Loaded.Plan.Container) {
    ContainerSpec &K = *Loaded.Plan.Container;
    if (Loaded.Plan.Slurm && Executor == "slurm") {
      if (!Loaded.Plan.Slurm->ContainerRuntime.empty())
        K.Runtime = Loaded.Plan.Slurm->ContainerRuntime;
      K.Mounts.insert(K.Mounts.end(), Loaded.Plan.Slurm->ContainerMounts.begin(),
                      Loaded.Plan.Slurm->ContainerMounts.end());
    }
    if (!ContainerRuntime.empty())
      K.Runtime = ContainerRuntime;
    for (const std::string &M : ContainerMounts) {
      ContainerMount Mount;
      size_t C1 = M.find(':'), C2 = C1 == std::string::npos ? C1 : M.find(':', C1 + 1);
      Mount.Source = M.substr(0, C1);
      Mount.Target = C1 == std::string::npos ? "" : M.substr(C1 + 1, C2 - C1 - 1);
      std::string Mode = C2 == std::string::npos ? "" : M.substr(C2 + 1);
      if (Mount.Source.empty() || Mount.Target.empty() || (Mode != "" && Mode != "ro" && Mode != "rw"))
        return usageError(fmt::format("--container-mount '{}': expected SRC:DST[:ro|rw]", M));
      Mount.ReadOnly = Mode != "rw";
      K.Mounts.push_back(Mount);
    }
  }
  const LaunchPlan &Plan = Loaded.Plan;
  if (CheckOnly) {
    fmt::print("{}: valid plan '{}' with {} cells\n", PlanFile.getValue(), Plan.RecipeName,
               Plan.Cells.size());
    return 0;
  }

  RunSettings S;
  S.PlanPath = fs::absolute(PlanFile.getValue()).string();
  S.OutDir = fs::absolute(OutDir.empty() ? "results/" + Plan.RecipeName : OutDir.getValue())
                 .lexically_normal()
                 .string();
  S.Cells.assign(CellIds.begin(), CellIds.end());
  S.DryRun = DryRun;
  S.Resume = Resume;
  if (RetryFailed && !Resume)
    return usageError("--retry-failed applies to --resume: it reruns the failed and invalid "
                      "cells that --resume would skip");
  S.RetryFailed = RetryFailed;
  if (Repeat < 1 || Repeat > 1000)
    return usageError(
        fmt::format("--repeat {}: expected a count from 1 to 1000", Repeat.getValue()));
  if (Repeat > 1 && Executor != "local")
    return usageError("--repeat: only the local executor runs repeats");
  S.Repeat = Repeat;
  if (!Endpoint.empty()) {
    if (Simulate)
      return usageError("--endpoint measures a server already running; --simulate starts "
                        "simulated engines: use one or the other");
    if (Executor != "local")
      return usageError("--endpoint: only the local executor measures an external endpoint");
    if (!(EndpointReadyTimeout >= 0 && EndpointReadyTimeout <= 1e6))
      return usageError("--endpoint-ready-timeout: expected seconds from 0 to 1000000");
    std::string Err;
    if (!configureEndpoint({Endpoint, EndpointKeyEnv, EndpointModel, EndpointMetrics}, S, Err))
      return usageError(Err);
    detachFromProcesses(Loaded.Plan);
  } else if (!EndpointKeyEnv.empty() || !EndpointModel.empty()) {
    return usageError("--endpoint-api-key-env and --endpoint-model apply to --endpoint");
  }
  if (SimClockOpt != "wall" && SimClockOpt != "virtual")
    return usageError(
        fmt::format("--sim-clock '{}': expected 'wall' or 'virtual'",
                    SimClockOpt.getValue()));
  if (SimClockOpt == "virtual" && !Simulate)
    return usageError(
        "--sim-clock virtual applies to --simulate: it is the simulated "
        "engine's clock");
  S.Simulate = Simulate;
  S.TimeScale = TimeScale;
  S.SimClock =
      SimClockOpt == "virtual" ? SimClockMode::Virtual : SimClockMode::Wall;
  S.SimulatorPath = Simulator.empty() ? ownDirectory() + "/arecipe-sim" : Simulator.getValue();
  S.SimArgs.assign(SimArgs.begin(), SimArgs.end());
  S.KeepFixedPorts = SimFixedPorts;
  for (const std::string &A : CellSimArgs) {
    auto Eq = A.find('=');
    if (Eq == std::string::npos || Eq == 0)
      return usageError(fmt::format("--sim-cell-arg '{}': expected CELL=ARG", A));
    S.CellSimArgs[A.substr(0, Eq)].push_back(A.substr(Eq + 1));
  }
  S.TeardownGrace = std::chrono::milliseconds(static_cast<long long>(TeardownGrace * 1000));
  S.PortFreeTimeout = std::chrono::milliseconds(static_cast<long long>(PortFreeTimeout * 1000));
  if (NodeRank < 0)
    suggestCommands(Argc, Argv, S);
  if (NodeRank >= 0) {
    S.NodeRank = NodeRank;
    S.NodeAddrs.assign(NodeAddrs.begin(), NodeAddrs.end());
    S.NodeHosts.assign(NodeHosts.begin(), NodeHosts.end());
    const char *Node = std::getenv("SLURMD_NODENAME");
    S.NodeName = !NodeNameOpt.empty() ? NodeNameOpt.getValue() : Node ? Node : "";
  }

  std::vector<std::string> Unknown;
  selectCells(Plan, S, Unknown);
  if (!Unknown.empty()) {
    std::string Known;
    for (const Cell &C : Plan.Cells)
      Known += (Known.empty() ? "" : ", ") + C.Id;
    return usageError(fmt::format("--cells: no cell named {} (the plan has {})",
                                  fmt::join(Unknown, ", "), Known));
  }
  if (S.virtualClock()) {
    // Refused before anything runs: each cell the mode cannot measure
    // exactly, with the reason.
    std::vector<std::string> Refusals;
    std::vector<std::string> Ignored;
    for (const Cell *C : selectCells(Plan, S, Ignored))
      if (std::string R = virtualClockRefusal(*C); !R.empty())
        Refusals.push_back(std::move(R));
    if (!Refusals.empty()) {
      for (size_t I = 0; I + 1 < Refusals.size(); ++I)
        printToStderr(fmt::format("arecipe-run: error: {}\n", Refusals[I]));
      return usageError(Refusals.back());
    }
  }
  if (S.Simulate && !S.DryRun && access(S.SimulatorPath.c_str(), X_OK) != 0)
    return usageError(fmt::format("--simulate needs arecipe-sim, not found at {} (build it, or "
                                  "pass --simulator PATH)",
                                  S.SimulatorPath));

  // One run at a time writes into --out (finding 22 of the second hardening
  // round): the lock is taken before anything is written there and held to
  // the end. A node rank of a Slurm cell runs under its submitter's lock.
  OutputLock Lock;
  std::string LockErr;
  if (!DryRun && NodeRank < 0 && !Lock.acquire(S.OutDir, LockErr))
    return usageError(LockErr);
  // A compiled plan is kept as OUT/plan.json before anything runs, so the
  // Slurm jobs and a later --resume read the very plan this run used.
  if (FromRecipe && !DryRun) {
    std::error_code Ec;
    fs::create_directories(S.OutDir, Ec);
    // OUT/plan.json is shared with the results and has its secrets
    // redacted; a plan holding secrets runs from a private copy instead.
    bool HasSecrets = redactPlanText(Text) != Text;
    fs::path Compiled = fs::path(S.OutDir) / (HasSecrets ? ".plan.run.json" : "plan.json");
    std::string Err;
    if (!arecipe::support::writeFileAtomically(Compiled.string(), Text, Err,
                                               HasSecrets ? 0600 : 0644))
      return usageError(Err);
    S.PlanPath = Compiled.string();
  }
  if (S.DryRun) {
    printDryRun(Plan, S, stdout);
    return 0;
  }
  // The nodes run this very runtime, with every option that changes how a
  // cell runs, so a cell behaves there as it would here.
  std::vector<std::string> Run = {
      ownDirectory() + "/arecipe-run",
      "--executor",
      "local",
      "--progress",
      "plain",
      fmt::format("--teardown-grace={}", TeardownGrace.getValue()),
      fmt::format("--port-free-timeout={}", PortFreeTimeout.getValue())};
  if (S.Simulate) {
    Run.insert(Run.end(), {"--simulate", fmt::format("--time-scale={}", S.TimeScale), "--simulator",
                           S.SimulatorPath});
    for (const std::string &A : S.SimArgs)
      Run.push_back("--sim-arg=" + A);
    if (S.KeepFixedPorts)
      Run.push_back("--sim-fixed-ports");
    if (S.virtualClock())
      Run.push_back("--sim-clock=virtual");
    for (const std::string &A : CellSimArgs)
      Run.push_back("--sim-cell-arg=" + A);
  }
  if (Plan.Container) {
    Run.insert(Run.end(), {"--container-runtime", Plan.Container->Runtime});
    // The plan's own mounts are in the plan; only the added ones are passed.
    size_t Own = Loaded.Plan.Container->Mounts.size() - ContainerMounts.size() -
                 (Plan.Slurm ? Plan.Slurm->ContainerMounts.size() : 0);
    for (size_t I = Own; I < Plan.Container->Mounts.size(); ++I) {
      const ContainerMount &M = Plan.Container->Mounts[I];
      Run.push_back(
          fmt::format("--container-mount={}:{}:{}", M.Source, M.Target, M.ReadOnly ? "ro" : "rw"));
    }
  }
  // The other node ranks of a multi-node cell under --simulate, on this
  // machine, are this runtime too; each gets the results directory of the
  // run (or repeat) it belongs to.
  S.RankCommand = Run;
  Run.insert(Run.begin() + 3, {"--out", S.OutDir}); // after --executor local

  bool Live = ProgressMode == "live" || (ProgressMode == "auto" && isatty(STDERR_FILENO));
  ProgressReport Progress(stderr, Live);
  Progress.estimateSweep(NodeRank < 0);
  installStopHandlers();
  if (!S.Endpoint.Url.empty()) {
    std::vector<std::string> Ignored;
    std::string Err;
    if (!waitForEndpoint(selectCells(Plan, S, Ignored), S, EndpointReadyTimeout, Progress, Err)) {
      Progress.message("error: " + Err);
      return stopRequested() ? 128 + stopSignal() : 1;
    }
  }
  if (Executor == "local") {
    adoptOrphans();
    // Before any thread or child: if this process is killed, the keeper
    // stops what it started (ChildProcess.h).
    startProcessKeeper(S.TeardownGrace);
    int Exit = runLocalSweep(Plan, Text, S, Progress);
    stopProcessKeeper();
    return Exit;
  }

  SlurmSweepSettings Slurm;
  if (Plan.Slurm) {
    Slurm.Options.Partition = Plan.Slurm->Partition;
    Slurm.Options.Account = Plan.Slurm->Account;
    Slurm.Options.TimeLimitS = Plan.Slurm->TimeLimitS;
    Slurm.Options.GpusPerNode = Plan.Slurm->GpusPerNode;
    Slurm.NodeList = Plan.Slurm->NodeList;
  }
  if (!Partition.empty())
    Slurm.Options.Partition = Partition;
  if (!Account.empty())
    Slurm.Options.Account = Account;
  if (!TimeLimit.empty() && (Slurm.Options.TimeLimitS = parseTimeLimit(TimeLimit)) < 0)
    return usageError(fmt::format("--time-limit '{}': expected seconds, or a number with m or h",
                                  TimeLimit.getValue()));
  if (GpusPerNode >= 0)
    Slurm.Options.GpusPerNode = GpusPerNode;
  if (NodeList == "auto")
    Slurm.NodeList.clear();
  else if (!NodeList.empty())
    Slurm.NodeList = {NodeList.getValue()};
  Slurm.CellRun = Run;
  return runSlurmSweep(Plan, Text, S, Slurm, Progress);
}
