//===- arecipe-run - Execute a launch plan ---------------------------------===//
//
// Reads a plan (docs/plan-schema.md), validates it, and runs its cells with
// the local executor. See docs/runtime.md.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Runtime/ChildProcess.h"
#include "arecipe/Runtime/LocalExecutor.h"
#include "arecipe/Runtime/PlanLoader.h"
#include "arecipe/Runtime/StopRequest.h"

#include "llvm/Support/CommandLine.h"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace cl = llvm::cl;
namespace fs = std::filesystem;
using namespace arecipe::runtime;

static cl::OptionCategory Category("arecipe-run options");
static cl::opt<std::string> PlanFile(cl::Positional, cl::desc("<plan.json>"), cl::Required,
                                     cl::cat(Category));
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
static cl::opt<double> TeardownGrace("teardown-grace",
                                     cl::desc("Seconds between SIGTERM and SIGKILL (default 10)"),
                                     cl::init(10), cl::cat(Category));
static cl::opt<double> PortFreeTimeout("port-free-timeout",
                                       cl::desc("Seconds to wait for ports after teardown"),
                                       cl::init(30), cl::cat(Category));
static cl::opt<std::string> ProgressMode("progress", cl::desc("auto, live or plain"),
                                         cl::init("auto"), cl::cat(Category));

static int usageError(const std::string &Message) {
  fmt::print(stderr, "arecipe-run: error: {}\n", Message);
  return 2;
}

static std::string ownDirectory() {
  std::error_code Ec;
  fs::path Self = fs::read_symlink("/proc/self/exe", Ec);
  return Ec ? std::string(".") : Self.parent_path().string();
}

int main(int Argc, char **Argv) {
  cl::HideUnrelatedOptions(Category);
  cl::ParseCommandLineOptions(Argc, Argv, "arecipe-run: execute a launch plan\n");

  if (fs::path(PlanFile.getValue()).extension() == ".arecipe")
    return usageError(fmt::format("'{}' is a recipe, not a plan: arecipe-run reads plan JSON, "
                                  "and the compiler cannot emit plans yet",
                                  PlanFile.getValue()));
  if (Executor != "local")
    return usageError(fmt::format("executor '{}' is not available in this build (only 'local')",
                                  Executor.getValue()));
  if (!(TimeScale > 0))
    return usageError("--time-scale must be positive");

  std::ifstream In(PlanFile, std::ios::binary);
  if (!In)
    return usageError(fmt::format("cannot read {}: {}", PlanFile.getValue(), std::strerror(errno)));
  std::stringstream SS;
  SS << In.rdbuf();
  std::string Text = SS.str();
  PlanLoadResult Loaded = parseLaunchPlan(Text);
  if (!Loaded.ok()) {
    for (const PlanError &E : Loaded.Errors)
      fmt::print(stderr, "{}: {}{}{}\n", PlanFile.getValue(), E.Path, E.Path.empty() ? "" : ": ",
                 E.Message);
    fmt::print(stderr, "arecipe-run: the plan is not valid ({} error{})\n", Loaded.Errors.size(),
               Loaded.Errors.size() == 1 ? "" : "s");
    return 2;
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
  S.Simulate = Simulate;
  S.TimeScale = TimeScale;
  S.SimulatorPath = Simulator.empty() ? ownDirectory() + "/arecipe-sim" : Simulator.getValue();
  S.SimArgs.assign(SimArgs.begin(), SimArgs.end());
  for (const std::string &A : CellSimArgs) {
    auto Eq = A.find('=');
    if (Eq == std::string::npos || Eq == 0)
      return usageError(fmt::format("--sim-cell-arg '{}': expected CELL=ARG", A));
    S.CellSimArgs[A.substr(0, Eq)].push_back(A.substr(Eq + 1));
  }
  S.TeardownGrace = std::chrono::milliseconds(long(TeardownGrace * 1000));
  S.PortFreeTimeout = std::chrono::milliseconds(long(PortFreeTimeout * 1000));

  std::vector<std::string> Unknown;
  selectCells(Plan, S, Unknown);
  if (!Unknown.empty()) {
    std::string Known;
    for (const Cell &C : Plan.Cells)
      Known += (Known.empty() ? "" : ", ") + C.Id;
    return usageError(fmt::format("--cells: no cell named {} (the plan has {})",
                                  fmt::join(Unknown, ", "), Known));
  }
  if (S.Simulate && !S.DryRun && access(S.SimulatorPath.c_str(), X_OK) != 0)
    return usageError(fmt::format("--simulate needs arecipe-sim, not found at {} (build it, or "
                                  "pass --simulator PATH)",
                                  S.SimulatorPath));

  if (S.DryRun) {
    printDryRun(Plan, S, stdout);
    return 0;
  }
  bool Live = ProgressMode == "live" || (ProgressMode == "auto" && isatty(STDERR_FILENO));
  ProgressReport Progress(stderr, Live);
  installStopHandlers();
  adoptOrphans();
  return runLocalSweep(Plan, Text, S, Progress);
}
