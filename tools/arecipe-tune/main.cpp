//===- arecipe-tune - Search server knobs per concurrency under an SLA ----===//
//
// Reads a `tune NAME for RECIPE { ... }` block (docs/tuning.md), searches its
// candidate knobs per concurrency of the recipe, and writes the winners back
// into the recipe as `at conc` overrides. Every candidate is compiled through
// lib/Frontend (the recipe with the candidate written in as the patch would
// write it, so a candidate the recipe's checks or the engine's schema refuse
// is pruned with Sema's reason and never run) and measured through
// lib/Runtime's executors, the code arecipe-run runs (the simulator by
// default). Every measurement is a file under --out, keyed by the cell's
// digest and how it was measured, so a second run (after an interrupt, or
// with a larger budget) re-measures nothing it has.
//
// The strategy (docs/tuning.md#strategy): per concurrency, coordinate
// descent from the recipe's own values over short measurement windows, the
// knob order drawn from --seed, then the best few configurations measured
// again over the full window; the best of those that meets the SLA wins.
// With --jobs N the candidates a step is about to measure are measured
// ahead, N arecipe-run processes at a time, and read back in candidate
// order: the choice does not depend on N.
//
// The outputs (docs/tuning.md#outputs-under---out): the patched recipe, its
// diff and changelog, tune.json, and tune.html (lib/Report's tuning report,
// rendered from tune.json); given the same measurements, the same bytes.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Report/SweepResults.h"
#include "arecipe/Report/TuneReport.h"
#include "arecipe/Runtime/ChildProcess.h"
#include "arecipe/Runtime/LocalExecutor.h"
#include "arecipe/Runtime/PlanLoader.h"
#include "arecipe/Runtime/ResultStore.h"
#include "arecipe/Runtime/SlurmExecutor.h"
#include "arecipe/Runtime/StopRequest.h"
#include "arecipe/Runtime/VirtualTime.h"

#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Basic/TextDiagnosticPrinter.h"
#include "arecipe/Codegen/ChangelogEmitter.h"
#include "arecipe/Format/TextDiff.h"
#include "arecipe/Frontend/CompilerInstance.h"
#include "arecipe/Frontend/ModuleCache.h"
#include "arecipe/Sema/Sema.h"
#include "arecipe/Sema/Tune.h"
#include "arecipe/Support/AtomicFile.h"
#include "arecipe/Support/InstallLayout.h"
#include "arecipe/Support/Json.h"
#include "arecipe/Support/Redaction.h"
#include "arecipe/Support/ShellQuote.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <unistd.h>

namespace cl = llvm::cl;
namespace fs = std::filesystem;
using namespace arecipe;
using ordered_json = nlohmann::ordered_json;

static cl::OptionCategory Category("arecipe-tune options");
static cl::opt<std::string> InputFile(cl::Positional, cl::desc("<file.arecipe>"), cl::Required,
                                      cl::cat(Category));
static cl::opt<std::string> TuneName("tune",
                                     cl::desc("The tune block to run (default: the only one)"),
                                     cl::value_desc("name"), cl::cat(Category));
static cl::opt<std::string> OutDir("out", cl::desc("Results directory (default: tune/<tune name>)"),
                                   cl::value_desc("dir"), cl::cat(Category));
static cl::opt<std::string> Strategy("strategy",
                                     cl::desc("descent (default) or grid (every combination, "
                                              "full window: the reference)"),
                                     cl::init("descent"), cl::cat(Category));
static cl::opt<uint64_t> Seed("seed", cl::desc("Seed of the knob order (default 1)"), cl::init(1),
                              cl::cat(Category));
static cl::opt<unsigned> BudgetCells("budget-cells",
                                     cl::desc("Measured cells at most, over all concurrencies "
                                              "(0: no limit)"),
                                     cl::init(0), cl::cat(Category));
static cl::opt<double> BudgetWall("budget-wall",
                                  cl::desc("Start no measurement after this many wall seconds "
                                           "(0: no limit)"),
                                  cl::init(0), cl::cat(Category));
static cl::opt<std::string> Window("window",
                                   cl::desc("Full measurement window: seconds of an agentic "
                                            "scenario (default its duration), requests per "
                                            "client lane of a fixed one (default the cell's "
                                            "num_prompts / conc)"),
                                   cl::value_desc("seconds|requests"), cl::cat(Category));
static cl::opt<double> ShortFraction("short-window",
                                     cl::desc("The descent's window as a fraction of the full "
                                              "one (default 0.25)"),
                                     cl::init(0.25), cl::cat(Category));
static cl::opt<unsigned> Finalists("finalists",
                                   cl::desc("Configurations measured again over the full window "
                                            "per concurrency (default 2)"),
                                   cl::init(2), cl::cat(Category));
static cl::opt<double> MinGain("min-gain",
                               cl::desc("A configuration replaces the current one only when its "
                                        "objective is better by more than this fraction "
                                        "(default 0.05): measurement noise changes nothing"),
                               cl::init(0.05), cl::cat(Category));
static cl::opt<unsigned> MaxPasses("passes", cl::desc("Descent passes at most (default 2)"),
                                   cl::init(2), cl::cat(Category));
static cl::list<int> Concs("conc", cl::desc("Tune only these concurrencies"), cl::CommaSeparated,
                           cl::value_desc("n,..."), cl::cat(Category));
static cl::opt<bool> Real("no-simulate", cl::desc("Measure with the real engines, not arecipe-sim"),
                          cl::cat(Category));
static cl::opt<double> TimeScale("time-scale",
                                 cl::desc("Simulated seconds per wall second (default 100)"),
                                 cl::init(100), cl::cat(Category));
static cl::opt<std::string>
    SimClock("sim-clock",
             cl::desc("Simulated measurements' clock: auto (default) measures a cell on the "
                      "simulator's lock-step virtual clock when the cell allows it (a closed-loop "
                      "fixed-length workload on one engine) and on the wall clock otherwise; "
                      "virtual requires it; wall never uses it"),
             cl::init("auto"), cl::value_desc("auto|virtual|wall"), cl::cat(Category));
static cl::opt<std::string> Executor("executor", cl::desc("local (default) or slurm"),
                                     cl::init("local"), cl::cat(Category));
static cl::opt<unsigned> ConfirmTop("confirm-top",
                                    cl::desc("Measure the K best configurations of every "
                                             "concurrency with the real engines (--executor)"),
                                    cl::init(0), cl::cat(Category));
static cl::opt<unsigned> Jobs("jobs",
                              cl::desc("Measure up to N candidates at once: N arecipe-run "
                                       "processes (simulated: each cell's ports remapped to free "
                                       "ones; slurm: N jobs in flight); what is chosen does not "
                                       "depend on N (default 1)"),
                              cl::init(1), cl::value_desc("N"), cl::cat(Category));
static cl::opt<bool> RetryFailed("retry-failed",
                                 cl::desc("Measure again the cells whose measurement in --out "
                                          "failed or was invalid"),
                                 cl::cat(Category));
static cl::list<std::string> Sets("set", cl::desc("Override a knob in every cell (as arecipec)"),
                                  cl::value_desc("name=value"), cl::cat(Category));
static cl::list<std::string> IncludeDirs("I", cl::Prefix, cl::desc("Add an import directory"),
                                         cl::value_desc("dir"), cl::cat(Category));

static int usageError(const std::string &Message) {
  std::fprintf(stderr, "arecipe-tune: error: %s\n", Message.c_str());
  return 2;
}

static std::string ownDirectory() {
  std::string Dir = support::executableDir();
  return Dir.empty() ? std::string(".") : Dir;
}

/// Keeps the first error of a compilation: the reason a candidate is pruned.
class FirstError : public DiagnosticConsumer {
public:
  void handleDiagnostic(const llvm::SourceMgr &, const Diagnostic &D) override {
    if (D.Level == DiagLevel::Error && Message.empty())
      Message = D.Message;
  }
  std::string Message;
};

namespace {

/// One configuration of one cell: knob -> candidate text. A knob absent
/// keeps the recipe's value.
using Config = std::map<std::string, std::string>;

std::string describe(const Config &C) {
  if (C.empty())
    return "(the recipe's values)";
  std::string S;
  for (const auto &[K, V] : C)
    S += (S.empty() ? "" : ", ") + K + " = " + V;
  return S;
}

/// Where an `at conc` block of the recipe assigns a knob for one cell.
struct AtAssignment {
  std::string Knob;
  std::vector<int64_t> Concs;
  size_t Begin = 0, End = 0; ///< The formula's bytes in the recipe's text.
};

/// The recipe being tuned, as the baseline compilation saw it.
struct RecipeSource {
  std::string Path;   ///< The file that holds it (the override's key).
  std::string Text;   ///< Its text.
  size_t BodyEnd = 0; ///< Offset of the recipe's closing brace.
  std::vector<AtAssignment> Ats;
};

/// The offset of the brace closing the block that opens at or after From,
/// skipping strings and comments; npos if there is none.
size_t closingBrace(const std::string &T, size_t From) {
  int Depth = 0;
  for (size_t I = From; I < T.size(); ++I) {
    char C = T[I];
    if (C == '/' && I + 1 < T.size() && T[I + 1] == '/') {
      I = T.find('\n', I);
      if (I == std::string::npos)
        return I;
    } else if (C == '/' && I + 1 < T.size() && T[I + 1] == '*') {
      I = T.find("*/", I + 2);
      if (I == std::string::npos)
        return I;
      ++I;
    } else if (C == '"') {
      for (++I; I < T.size() && T[I] != '"' && T[I] != '\n'; ++I)
        if (T[I] == '\\')
          ++I;
    } else if (C == '{') {
      ++Depth;
    } else if (C == '}' && --Depth == 0) {
      return I;
    }
  }
  return std::string::npos;
}

/// One edit of a patch: Config values for one cell, with the comment that
/// names the measurement which chose them.
struct CellPatch {
  int64_t Conc = 0;
  Config Values;
  std::string Comment; ///< Without `//`; empty: none.
};

/// The recipe's text with each cell's values written in: an assignment of
/// an `at conc` block naming only that cell is rewritten in place, every
/// other value goes into a new `at conc N` block before the recipe's
/// closing brace. Err is set when a value cannot be written (an `at conc`
/// block naming several cells assigns it).
std::string patchRecipe(const RecipeSource &R, const std::vector<CellPatch> &Patches,
                        std::string &Err) {
  struct Edit {
    size_t Begin, End;
    std::string Text;
  };
  std::vector<Edit> Edits;
  std::string Appended;
  for (const CellPatch &P : Patches) {
    std::string Block;
    for (const auto &[Knob, Value] : P.Values) {
      const AtAssignment *Found = nullptr;
      for (const AtAssignment &A : R.Ats)
        if (A.Knob == Knob && std::count(A.Concs.begin(), A.Concs.end(), P.Conc))
          Found = &A;
      if (Found && Found->Concs.size() > 1) {
        std::string List;
        for (int64_t C : Found->Concs)
          List += (List.empty() ? "" : ", ") + std::to_string(C);
        Err = fmt::format("'{}' of cell {} is set by 'at conc {}', which names several cells; "
                          "split that block to tune it",
                          Knob, P.Conc, List);
        return {};
      }
      std::string Comment = P.Comment.empty() ? "" : "  // " + P.Comment;
      if (Found) {
        size_t Eol = R.Text.find('\n', Found->End);
        bool CommentFits = Eol != std::string::npos && R.Text.find("//", Found->End) > Eol &&
                           R.Text.find(';', Found->End) > Eol && R.Text.find('}', Found->End) > Eol;
        Edits.push_back({Found->Begin, Found->End, Value + (CommentFits ? Comment : "")});
        if (!CommentFits && !P.Comment.empty()) {
          // Something follows on the line (`at conc 8 { x = 1 }`): the
          // comment goes on its own line above, at the line's indentation.
          size_t Bol = R.Text.rfind('\n', Found->Begin);
          Bol = Bol == std::string::npos ? 0 : Bol + 1;
          size_t Ind = R.Text.find_first_not_of(" \t", Bol);
          Edits.push_back({Bol, Bol, R.Text.substr(Bol, Ind - Bol) + "// " + P.Comment + "\n"});
        }
      } else {
        Block += fmt::format("    {} = {}\n", Knob, Value);
      }
    }
    if (!Block.empty())
      Appended += fmt::format("  at conc {} {{{}\n{}  }}\n", P.Conc,
                              P.Comment.empty() ? "" : "  // " + P.Comment, Block);
  }
  std::sort(Edits.begin(), Edits.end(),
            [](const Edit &A, const Edit &B) { return A.Begin > B.Begin; });
  std::string Out = R.Text;
  if (!Appended.empty()) {
    // After the last line of the body, before the closing brace's line.
    size_t At = Out.rfind('\n', R.BodyEnd);
    At = At == std::string::npos ? R.BodyEnd : At + 1;
    Out.insert(At, "\n" + Appended);
  }
  for (const Edit &E : Edits) // all before BodyEnd, applied back to front
    Out.replace(E.Begin, E.End - E.Begin, E.Text);
  return Out;
}

/// Fisher-Yates over Order with the engine's raw output. std::shuffle and
/// the standard distributions are implementation-defined (libstdc++ and
/// libc++ order differently), mt19937_64's sequence is not: one seed is
/// one knob order wherever arecipe-tune was built.
void shuffleKnobs(std::vector<size_t> &Order, std::mt19937_64 &Rng) {
  for (size_t I = Order.size(); I > 1; --I)
    std::swap(Order[I - 1], Order[Rng() % I]);
}

/// What one measurement found.
/// A fixed scenario runs a number of requests, not a duration: its window is
/// counted in requests per client lane (client.num_prompts = window x conc).
static bool FixedScenario = false;

/// A window as the search counts it: seconds, or requests per lane.
static std::string windowText(double W) {
  return FixedScenario ? fmt::format("{} requests per lane", W) : fmt::format("{}s", W);
}

struct Measurement {
  std::string Key; ///< evals/<Key>.json
  int64_t Conc = 0;
  Config Values;
  double WindowS = 0;
  std::string Status; ///< ok | failed | invalid | pruned | unmeasured
  std::string Reason;
  std::map<std::string, double> Metrics;
  bool Reused = false;
  /// Simulated on the lock-step virtual clock (figures independent of the
  /// time scale and of the machine's load).
  bool Virtual = false;
};

std::optional<double> metricOf(const report::CellResult &C, const std::string &Name) {
  auto Opt = [](std::optional<double> V) { return V; };
  if (Name == "tput_per_gpu")
    return Opt(C.TotalPerGpu);
  if (Name == "output_tput_per_gpu")
    return Opt(C.OutputPerGpu);
  if (Name == "p90_interactivity")
    return Opt(C.P90Interactivity);
  if (Name == "error_rate")
    return Opt(C.ErrorRate);
  const std::optional<report::LatencyQuantiles> *Q = nullptr;
  if (Name.find("ttft") != std::string::npos)
    Q = &C.Ttft;
  else if (Name.find("itl") != std::string::npos)
    Q = &C.Itl;
  else if (Name.find("e2e") != std::string::npos)
    Q = &C.E2e;
  if (!Q || !*Q)
    return std::nullopt;
  return Name.rfind("p50", 0) == 0 ? (*Q)->P50 : (*Q)->P90;
}

/// Removes every `origin` member: where a value was written is not what a
/// cell measures.
void stripOrigins(support::json &J) {
  if (J.is_object()) {
    J.erase("origin");
    for (auto &[K, V] : J.items())
      stripOrigins(V);
  } else if (J.is_array()) {
    for (support::json &V : J)
      stripOrigins(V);
  }
}

/// The runtime's digest of cell Conc of the plan with the values' origins
/// and the recipe's file name removed: two configurations that resolve the cell to the same values
/// (`max_num_seqs = 32` and `2 * conc` at conc 16, or a candidate equal to
/// the recipe's own value) have one digest, so one measurement.
std::string valueDigest(const std::string &PlanText, int64_t Conc) {
  std::optional<support::json> J = support::parseJsonOrNull(PlanText);
  if (!J)
    return {};
  stripOrigins(*J);
  // Nor where the recipe's file was found (`-I examples` or next to the
  // tune block's file).
  if ((*J).contains("recipe") && (*J)["recipe"].is_object())
    (*J)["recipe"].erase("file");
  runtime::PlanLoadResult Loaded = runtime::parseLaunchPlan(support::dumpJson(*J));
  for (const runtime::Cell &C : Loaded.Plan.Cells)
    if (C.Conc == Conc)
      return C.Digest;
  return {};
}

class Tuner {
  /// The std files every candidate imports, parsed once for the whole
  /// search (the candidates differ only in the recipe's text).
  frontend::ModuleCache Modules;

public:
  Tuner(frontend::CompilerInvocation Base, RecipeSource Source, const sema::TuneSpace &Space,
        std::string Out)
      : Base(std::move(Base)), Source(std::move(Source)), Space(Space), Out(std::move(Out)),
        Start(std::chrono::steady_clock::now()) {}

  /// Compiles the recipe with Patches written in; the plan's text, or
  /// nullopt with the first error in Reason.
  std::optional<std::string> compile(const std::vector<CellPatch> &Patches, double WindowS,
                                     std::string &Reason) {
    // One configuration of one cell is compiled once: measuring ahead
    // (--jobs), measuring and minimal() all ask for the same plans.
    std::string MemoKey;
    if (Patches.size() == 1 && Patches[0].Comment.empty()) {
      MemoKey = fmt::format("{}\n{}", Patches[0].Conc, WindowS);
      for (const auto &[Knob, Value] : Patches[0].Values)
        MemoKey += '\0' + Knob + '\0' + Value;
      auto It = Memo.find(MemoKey);
      if (It != Memo.end()) {
        Reason = It->second.second;
        return It->second.first;
      }
    }
    std::optional<std::string> Plan = compileUncached(Patches, WindowS, Reason);
    if (!MemoKey.empty())
      Memo[MemoKey] = {Plan, Reason};
    return Plan;
  }

  std::optional<std::string> compileUncached(const std::vector<CellPatch> &Patches, double WindowS,
                                             std::string &Reason) {
    std::string Text = patchRecipe(Source, Patches, Reason);
    if (!Reason.empty())
      return std::nullopt;
    frontend::CompilerInvocation Inv = Base;
    Inv.Overrides[Source.Path] = Text;
    if (WindowS > 0 && FixedScenario)
      Inv.Sets.push_back(fmt::format(
          "client.num_prompts = {}",
          std::max<int64_t>(Patches[0].Conc, std::llround(WindowS * double(Patches[0].Conc)))));
    else if (WindowS > 0)
      Inv.Sets.push_back(fmt::format("client.duration = {}s", WindowS));
    FirstError Errors;
    std::optional<std::string> Plan = frontend::compileToPlanJSON(Inv, Errors, &Modules);
    if (!Plan)
      Reason = Errors.Message.empty() ? "the recipe does not compile" : Errors.Message;
    return Plan;
  }

  /// Config without the knobs whose candidate resolves cell Conc exactly
  /// as the recipe's own value does: the patch writes only changes.
  Config minimal(int64_t Conc, Config C) {
    for (auto It = C.begin(); It != C.end();) {
      Config Without = C;
      Without.erase(It->first);
      std::string R1, R2;
      std::optional<std::string> A = compile({{Conc, C, ""}}, 0, R1);
      std::optional<std::string> B = compile({{Conc, Without, ""}}, 0, R2);
      if (A && B && valueDigest(*A, Conc) == valueDigest(*B, Conc)) {
        C = Without;
        It = C.begin();
      } else {
        ++It;
      }
    }
    return C;
  }

  bool outOfBudget() const {
    if (BudgetCells && Used.size() >= BudgetCells)
      return true;
    double Wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count();
    return BudgetWall > 0 && Wall >= BudgetWall;
  }

  /// Measures Values in cell Conc over WindowS (or reads the measurement
  /// from --out). Returns false when the run was interrupted.
  bool measure(int64_t Conc, const Config &Values, double WindowS, bool Simulated, Measurement &M) {
    M = Measurement();
    M.Conc = Conc;
    M.Values = Values;
    M.WindowS = WindowS;
    std::string Reason;
    std::optional<std::string> Plan = compile({{Conc, Values, ""}}, WindowS, Reason);
    if (!Plan) {
      M.Status = "pruned";
      M.Reason = Reason;
      Pruned[Reason].insert(fmt::format("c{} {}", Conc, describe(Values)));
      return true;
    }
    runtime::PlanLoadResult Loaded = runtime::parseLaunchPlan(*Plan);
    const runtime::Cell *Cell = nullptr;
    for (const runtime::Cell &C : Loaded.Plan.Cells)
      if (C.Conc == Conc)
        Cell = &C;
    if (!Loaded.ok() || !Cell) {
      M.Status = "pruned";
      M.Reason = "the compiled plan does not validate";
      Pruned[M.Reason].insert(fmt::format("c{} {}", Conc, describe(Values)));
      return true;
    }
    std::string ClockError;
    M.Virtual = virtualClockFor(*Cell, Simulated, ClockError);
    if (!ClockError.empty()) {
      M.Status = "failed";
      M.Reason = ClockError;
      return true;
    }
    M.Key = keyOf(*Plan, Conc, Simulated, M.Virtual);
    std::optional<support::json> Old = keptEval(M.Key);
    if (Old) {
      M.Reused = true;
      M.Status = Old->value("status", "failed");
      M.Reason = Old->value("reason", "");
      if (Old->contains("metrics") && (*Old)["metrics"].is_object())
        for (auto It = (*Old)["metrics"].begin(); It != (*Old)["metrics"].end(); ++It)
          if (It->is_number())
            M.Metrics[It.key()] = It->get<double>();
      Used.insert(M.Key);
      return true;
    }
    if (!Used.count(M.Key) && outOfBudget()) {
      M.Status = "unmeasured";
      return true;
    }
    Used.insert(M.Key);
    std::string RunDir, PlanPath, Err;
    if (!prepareRun(M.Key, *Plan, RunDir, PlanPath, Err)) {
      M.Status = "failed";
      M.Reason = Err;
      return true;
    }
    runtime::RunSettings S;
    S.OutDir = RunDir;
    S.PlanPath = PlanPath;
    S.Cells = {Cell->Id};
    S.Simulate = Simulated;
    S.TimeScale = TimeScale;
    S.SimClock = M.Virtual ? runtime::SimClockMode::Virtual : runtime::SimClockMode::Wall;
    S.SimulatorPath = ownDirectory() + "/arecipe-sim";
    fmt::print(stderr, "arecipe-tune: c{} {} over {}: measuring ({})\n", Conc, describe(Values),
               windowText(WindowS), M.Key);
    runtime::ProgressReport Progress(stderr, false);
    int Exit;
    if (Executor == "slurm") {
      runtime::SlurmSweepSettings Slurm;
      if (Loaded.Plan.Slurm) {
        Slurm.Options.Partition = Loaded.Plan.Slurm->Partition;
        Slurm.Options.Account = Loaded.Plan.Slurm->Account;
        Slurm.Options.TimeLimitS = Loaded.Plan.Slurm->TimeLimitS;
        Slurm.Options.GpusPerNode = Loaded.Plan.Slurm->GpusPerNode;
        Slurm.NodeList = Loaded.Plan.Slurm->NodeList;
      }
      Slurm.CellRun = {ownDirectory() + "/arecipe-run",
                       "--executor",
                       "local",
                       "--out",
                       RunDir,
                       "--progress",
                       "plain"};
      if (Simulated)
        Slurm.CellRun.insert(Slurm.CellRun.end(),
                             {"--simulate", fmt::format("--time-scale={}", TimeScale.getValue()),
                              "--simulator", S.SimulatorPath});
      if (M.Virtual)
        Slurm.CellRun.push_back("--sim-clock=virtual");
      Exit = runtime::runSlurmSweep(Loaded.Plan, *Plan, S, Slurm, Progress);
    } else {
      Exit = runtime::runLocalSweep(Loaded.Plan, *Plan, S, Progress);
    }
    if (runtime::stopRequested() || Exit >= 128)
      return false;
    record(M, RunDir, Cell->Id, Simulated, "");
    return true;
  }

  /// The measurement's key: the concurrency, the runtime's digest of the
  /// cell (every value of the cell and of the plan around it), and how it
  /// was measured.
  /// A virtual-clock measurement does not depend on the time scale, so its
  /// key does not name one.
  std::string keyOf(const std::string &Plan, int64_t Conc, bool Simulated, bool Virtual) const {
    return fmt::format("c{}-{}-{}", Conc, valueDigest(Plan, Conc),
                       !Simulated ? "real-" + Executor.getValue()
                       : Virtual  ? std::string("sim-virtual")
                                  : fmt::format("sim-x{}", TimeScale.getValue()));
  }

  /// Whether a simulated measurement of Cell runs on the virtual clock
  /// (--sim-clock); Error is set when --sim-clock virtual asks for it and
  /// the cell cannot have it.
  static bool virtualClockFor(const runtime::Cell &Cell, bool Simulated, std::string &Error) {
    if (!Simulated || SimClock == "wall")
      return false;
    std::string Refusal = runtime::virtualClockRefusal(Cell);
    if (!Refusal.empty() && SimClock == "virtual")
      Error = Refusal;
    return Refusal.empty();
  }

  /// The measurement kept under --out for Key, if it is to be reused: not
  /// a failed one under --retry-failed, unless this run measured it.
  std::optional<support::json> keptEval(const std::string &Key) const {
    std::optional<support::json> Old = readJson(fs::path(Out) / "evals" / (Key + ".json"));
    if (Old && RetryFailed && Old->value("status", "") != "ok" && !Fresh.count(Key))
      Old.reset();
    return Old;
  }

  /// An empty results directory for Key's run with the plan in it, as
  /// arecipe-run keeps a compiled plan: plan.json is shared with the
  /// results and has its secrets redacted; a plan holding secrets runs
  /// from a private copy (mode 0600). PlanPath: the one to run.
  bool prepareRun(const std::string &Key, const std::string &Plan, std::string &RunDir,
                  std::string &PlanPath, std::string &Err) {
    RunDir = (fs::path(Out) / "runs" / Key).string();
    std::error_code Ec;
    fs::remove_all(RunDir, Ec); // a run interrupted earlier left no result
    fs::create_directories(RunDir, Ec);
    std::string Shared = runtime::redactPlanText(Plan);
    PlanPath = RunDir + (Shared == Plan ? "/plan.json" : "/.plan.run.json");
    return support::writeFileAtomically(RunDir + "/plan.json", Shared, Err) &&
           (Shared == Plan || support::writeFileAtomically(PlanPath, Plan, Err, 0600));
  }

  /// Reads cell CellId's result from RunDir into M and keeps it as
  /// evals/<key>.json. RunError explains a run that left no result.
  void record(Measurement &M, const std::string &RunDir, const std::string &CellId, bool Simulated,
              const std::string &RunError) {
    std::string Err;
    std::error_code Ec;
    std::optional<report::SweepResults> Results = report::loadSweepResults(RunDir, Err);
    if (!RunError.empty())
      Err = RunError;
    const report::CellResult *R = nullptr;
    if (Results)
      for (const report::CellResult &C : Results->Cells)
        if (C.Id == CellId)
          R = &C;
    M.Status = R ? R->Status : "failed";
    M.Reason = R ? R->Reason : Err;
    if (R) {
      for (const sema::TuneMetric &Metric : sema::tuneMetrics())
        if (std::optional<double> V = metricOf(*R, Metric.Name))
          M.Metrics[Metric.Name] = *V;
      // Not an SLA metric, but the tuning report's Pareto chart has it as
      // one of its x axes, as the sweep report's does.
      if (R->P90E2eNormInteractivity)
        M.Metrics["p90_e2e_norm_interactivity"] = *R->P90E2eNormInteractivity;
    }
    ordered_json J;
    J["key"] = M.Key;
    J["conc"] = M.Conc;
    J["values"] = ordered_json(M.Values);
    J["window_s"] = M.WindowS;
    J["simulated"] = Simulated;
    J["time_scale"] = Simulated ? TimeScale.getValue() : 1.0;
    J["sim_clock"] = !Simulated ? "none" : M.Virtual ? "virtual" : "wall";
    J["executor"] = Executor.getValue();
    J["status"] = M.Status;
    J["reason"] = M.Reason;
    J["metrics"] = ordered_json(M.Metrics);
    J["run"] = "runs/" + M.Key;
    fs::create_directories(fs::path(Out) / "evals", Ec);
    if (!runtime::writeOutputJson((fs::path(Out) / "evals" / (M.Key + ".json")).string(), J, Err))
      fmt::print(stderr, "arecipe-tune: warning: {}\n", Err);
    Fresh.insert(M.Key);
    ++Measured;
  }

  /// --jobs N: measures ahead, up to N at a time, the configurations of
  /// cell Conc that the search is about to ask measure() for, in the order
  /// it will ask, so that its measure() calls read them back and the search
  /// decides exactly as one measurement at a time would. Allowed(UsedCount)
  /// is the search's own budget test before each configuration; a
  /// configuration already kept, or pruned, takes no slot. Returns false
  /// when the run was interrupted (the runs in flight are stopped and leave
  /// no measurement).
  template <typename AllowedFn>
  bool measureAhead(int64_t Conc, const std::vector<Config> &Configs, double WindowS,
                    bool Simulated, AllowedFn Allowed) {
    if (Jobs <= 1)
      return true;
    struct Job {
      Measurement M;
      std::string Plan, CellId, RunDir;
      runtime::ChildProcess Child;
    };
    std::vector<Job> Queue;
    std::set<std::string> WouldUse = Used;
    for (const Config &Values : Configs) {
      if (!Allowed(WouldUse.size()))
        break;
      std::string Reason;
      std::optional<std::string> Plan = compile({{Conc, Values, ""}}, WindowS, Reason);
      if (!Plan)
        continue; // pruned: measure() says why
      runtime::PlanLoadResult Loaded = runtime::parseLaunchPlan(*Plan);
      const runtime::Cell *Cell = nullptr;
      for (const runtime::Cell &C : Loaded.Plan.Cells)
        if (C.Conc == Conc)
          Cell = &C;
      if (!Loaded.ok() || !Cell)
        continue;
      std::string ClockError;
      bool Virtual = virtualClockFor(*Cell, Simulated, ClockError);
      if (!ClockError.empty())
        continue; // measure() records why
      std::string Key = keyOf(*Plan, Conc, Simulated, Virtual);
      if (WouldUse.count(Key))
        continue;
      if (keptEval(Key)) {
        WouldUse.insert(Key); // read back, and counted, whatever the budget
        continue;
      }
      if (BudgetCells && WouldUse.size() >= BudgetCells)
        break; // measure() finds the rest out of budget (or reads them back)
      WouldUse.insert(Key);
      Job J;
      J.M.Conc = Conc;
      J.M.Values = Values;
      J.M.WindowS = WindowS;
      J.M.Key = Key;
      J.M.Virtual = Virtual;
      J.Plan = *Plan;
      J.CellId = Cell->Id;
      Queue.push_back(std::move(J));
    }
    size_t Next = 0;
    std::vector<Job *> Active;
    auto StopAll = [&] {
      for (Job *J : Active)
        J->Child.stop(std::chrono::milliseconds(30000));
      return false;
    };
    while (Next < Queue.size() || !Active.empty()) {
      if (runtime::stopRequested())
        return StopAll();
      while (Active.size() < Jobs && Next < Queue.size()) {
        if (outOfBudget()) { // the wall clock: start nothing more
          Next = Queue.size();
          break;
        }
        Job &J = Queue[Next++];
        std::string Err;
        std::string PlanPath;
        if (!prepareRun(J.M.Key, J.Plan, J.RunDir, PlanPath, Err))
          continue; // measure() tries again, and says why it cannot
        runtime::Argv Run = {ownDirectory() + "/arecipe-run",
                             PlanPath,
                             "--out",
                             J.RunDir,
                             "--cells",
                             J.CellId,
                             "--progress",
                             "plain",
                             "--executor",
                             Executor.getValue()};
        if (Simulated)
          Run.insert(Run.end(), {"--simulate", fmt::format("--time-scale={}", TimeScale.getValue()),
                                 "--simulator", ownDirectory() + "/arecipe-sim"});
        if (J.M.Virtual)
          Run.push_back("--sim-clock=virtual");
        fmt::print(stderr, "arecipe-tune: c{} {} over {}: measuring ({}, one of {} at once)\n",
                   Conc, describe(J.M.Values), windowText(WindowS), J.M.Key, Jobs.getValue());
        if (!J.Child.start(Run, runtime::ChildEnvironment(), J.RunDir + "/arecipe-run.log", Err)) {
          record(J.M, J.RunDir, J.CellId, Simulated, "arecipe-run did not start: " + Err);
          continue;
        }
        Active.push_back(&J);
      }
      for (auto It = Active.begin(); It != Active.end();) {
        Job &J = **It;
        if (J.Child.running()) {
          ++It;
          continue;
        }
        int Status = J.Child.waitStatus().value_or(0);
        if (runtime::stopRequested() || WIFSIGNALED(Status) ||
            (WIFEXITED(Status) && WEXITSTATUS(Status) >= 128)) {
          It = Active.erase(It);
          return StopAll(); // interrupted: no measurement of this run
        }
        // A result, if the run left one; else why there is none.
        record(J.M, J.RunDir, J.CellId, Simulated,
               fmt::format("arecipe-run {}; see runs/{}/arecipe-run.log", J.Child.describeExit(),
                           J.M.Key));
        It = Active.erase(It);
      }
      runtime::sleepUnlessStopped(std::chrono::milliseconds(50));
    }
    return true;
  }

  static std::optional<support::json> readJson(const fs::path &P) {
    std::ifstream In(P, std::ios::binary);
    if (!In)
      return std::nullopt;
    std::stringstream SS;
    SS << In.rdbuf();
    std::optional<support::json> J = support::parseJsonOrNull(SS.str());
    if (!J || !J->is_object() || !(*J).contains("status"))
      return std::nullopt;
    return J;
  }

  frontend::CompilerInvocation Base;
  RecipeSource Source;
  const sema::TuneSpace &Space;
  std::string Out;
  std::chrono::steady_clock::time_point Start;
  std::set<std::string> Used;  ///< Measurements this run relied on (budget).
  std::set<std::string> Fresh; ///< ... of which measured by this run.
  /// compile() of one cell's configuration: the plan, or why there is none.
  std::map<std::string, std::pair<std::optional<std::string>, std::string>> Memo;
  unsigned Measured = 0;      ///< ... of which run now (not read back).
  std::map<std::string, std::set<std::string>> Pruned; ///< Reason -> candidates.
};

/// How a measurement ranks: meets the SLA first, then the objective; a
/// configuration that misses it ranks by how far (the sum of relative
/// misses), never above one that meets it.
struct Rank {
  bool Measured = false;
  bool Feasible = false;
  double Score = 0; ///< Higher is better.
  std::vector<std::string> Misses;
  bool operator<(const Rank &O) const {
    if (Measured != O.Measured)
      return !Measured;
    if (Feasible != O.Feasible)
      return !Feasible;
    return Score < O.Score;
  }
};

Rank rankOf(const Measurement &M, const sema::TuneSpace &Space, const sema::TuneCell &Cell) {
  Rank R;
  if (M.Status != "ok" && M.Status != "invalid" && M.Status != "failed")
    return R;
  R.Measured = true;
  if (M.Status != "ok") {
    R.Misses.push_back("cell " + M.Status + (M.Reason.empty() ? "" : ": " + M.Reason));
    R.Score = -1e18;
    return R;
  }
  auto Obj = M.Metrics.find(Space.Objective);
  double V = Obj == M.Metrics.end() ? 0 : Obj->second;
  double Miss = 0;
  for (const sema::TuneConstraint &C : Cell.Constraints) {
    auto It = M.Metrics.find(C.Metric);
    if (It == M.Metrics.end()) {
      R.Misses.push_back(C.Metric + " not measured");
      Miss += 1;
    } else if (!C.holds(It->second)) {
      R.Misses.push_back(fmt::format("{} = {:.4g}", C.Metric, It->second));
      Miss += std::abs(It->second - C.Bound) / std::max(std::abs(C.Bound), 1e-9);
    }
  }
  R.Feasible = R.Misses.empty();
  R.Score = R.Feasible ? (Space.Maximize ? V : -V) : -1e9 * (1 + Miss);
  return R;
}

/// Whether R is better than Incumbent by more than --min-gain: a feasible
/// configuration beats an infeasible one, and between two feasible ones the
/// objective must improve by more than the fraction.
bool beats(const Rank &R, const Rank &Incumbent) {
  if (!R.Measured)
    return false;
  if (!Incumbent.Measured || (R.Feasible && !Incumbent.Feasible))
    return true;
  if (!R.Feasible || !Incumbent.Feasible)
    return Incumbent < R && !R.Feasible && !Incumbent.Feasible;
  return R.Score - Incumbent.Score > MinGain * std::abs(Incumbent.Score);
}

/// One concurrency's search and its result.
struct CellOutcome {
  const sema::TuneCell *Cell = nullptr;
  std::vector<Measurement> Short, Full;
  std::optional<Measurement> Winner;
  Config Changes;                      ///< The winner's values that differ from the recipe's.
  std::optional<Measurement> Baseline; ///< The recipe's values, full window.
  std::vector<Measurement> Ranked;     ///< Full-window measurements, best first.
  std::vector<Measurement> Confirmed;  ///< --confirm-top: the best, measured for real.
  std::string Note;
};

} // namespace

int main(int Argc, char **Argv) {
  cl::HideUnrelatedOptions({&Category});
  cl::ParseCommandLineOptions(Argc, Argv,
                              "arecipe-tune: search server knobs per concurrency under an SLA\n");
  if (Executor != "local" && Executor != "slurm")
    return usageError(
        fmt::format("--executor '{}': expected 'local' or 'slurm'", Executor.getValue()));
  if (Strategy != "descent" && Strategy != "grid")
    return usageError(
        fmt::format("--strategy '{}': expected 'descent' or 'grid'", Strategy.getValue()));
  if (SimClock != "auto" && SimClock != "virtual" && SimClock != "wall")
    return usageError(fmt::format("--sim-clock '{}': expected 'auto', 'virtual' or 'wall'",
                                  SimClock.getValue()));
  if (!(TimeScale >= 0.001 && TimeScale <= 1e6))
    return usageError(fmt::format("--time-scale: expected a number in [0.001, 1000000], got {}",
                                  TimeScale.getValue()));
  if (!(ShortFraction > 0 && ShortFraction <= 1))
    return usageError(fmt::format("--short-window: expected a fraction in (0, 1], got {}",
                                  ShortFraction.getValue()));
  if (Finalists == 0)
    return usageError("--finalists: expected at least 1");
  if (Jobs == 0 || Jobs > 64)
    return usageError(fmt::format("--jobs: expected 1 to 64, got {}", Jobs.getValue()));
  if (Jobs > 1 && Executor == "local" && (Real || ConfirmTop))
    return usageError("--jobs: real engines on this machine share its GPUs and the plan's fixed "
                      "ports, so they are measured one at a time; use --executor slurm to run "
                      "several at once");

  // The baseline compilation: the recipe as it is, and the tune block.
  TextDiagnosticPrinter Printer(llvm::errs(), "arecipe-tune");
  frontend::CompilerInvocation Inv;
  Inv.MainFile = InputFile;
  Inv.IncludeDirs.assign(IncludeDirs.begin(), IncludeDirs.end());
  Inv.StdRoot = support::dataDir();
  Inv.Sets.assign(Sets.begin(), Sets.end());
  frontend::CompilerInstance CI(Inv, &Printer);
  frontend::Status St = CI.analyze();
  if (St == frontend::Status::Unreadable)
    return 2;
  if (St != frontend::Status::Ok)
    return 1;
  const std::vector<sema::TuneSpace> &Spaces = CI.getTuneSpaces();
  const sema::TuneSpace *Space = nullptr;
  for (const sema::TuneSpace &S : Spaces)
    if (TuneName.empty() ? Spaces.size() == 1 : S.Name == TuneName)
      Space = &S;
  if (!Space) {
    std::string Names;
    for (const sema::TuneSpace &S : Spaces)
      Names += (Names.empty() ? "" : ", ") + S.Name;
    return usageError(Spaces.empty() ? fmt::format("{} has no tune block", InputFile.getValue())
                      : TuneName.empty()
                          ? fmt::format("{} has several tune blocks ({}): choose one with --tune",
                                        InputFile.getValue(), Names)
                          : fmt::format("no tune block named '{}' (the file has {})",
                                        TuneName.getValue(), Names));
  }
  const sema::RecipeCells *Recipe = nullptr;
  for (const std::unique_ptr<sema::RecipeCells> &R : CI.getSema().recipes())
    if (R->Name == Space->Recipe)
      Recipe = R.get();
  if (!Recipe)
    return usageError("the tuned recipe was not analysed");

  // Where the recipe's text is, and where its `at conc` assignments are.
  RecipeSource Source;
  const llvm::SourceMgr &SM = CI.getSourceMgr();
  unsigned Buf = SM.FindBufferContainingLoc(Recipe->NameRange.Start);
  if (!Buf)
    return usageError("the tuned recipe has no source text");
  llvm::StringRef BufText = SM.getMemoryBuffer(Buf)->getBuffer();
  Source.Text = BufText.str();
  Source.Path = SM.getMemoryBuffer(Buf)->getBufferIdentifier().str();
  if (Source.Path == "-" || Source.Path.empty())
    return usageError("arecipe-tune reads the recipe from a file, not from standard input");
  // The buffer is named as output shows it (relative to the working
  // directory); the override stands in for the file at its absolute path.
  Source.Path = fs::absolute(Source.Path).lexically_normal().string();
  auto Offset = [&](llvm::SMLoc L) { return size_t(L.getPointer() - BufText.data()); };
  Source.BodyEnd = closingBrace(Source.Text, Offset(Recipe->NameRange.End));
  if (Source.BodyEnd == std::string::npos)
    return usageError("cannot find the end of the recipe's body");
  for (const sema::Assignment *A : Recipe->Assignments) {
    if (A->L != sema::Level::AtConc || !A->At || !A->FormulaRange.isValid() ||
        SM.FindBufferContainingLoc(A->FormulaRange.Start) != Buf)
      continue;
    Source.Ats.push_back(
        {A->Name, A->At->Concs, Offset(A->FormulaRange.Start), Offset(A->FormulaRange.End)});
  }

  // The recipe as it is: what it runs on (for the report's calibration
  // note), and its own window.
  std::optional<std::string> BasePlan = frontend::compileToPlanJSON(Inv, Printer);
  runtime::PlanLoadResult BaseLoaded = runtime::parseLaunchPlan(BasePlan ? *BasePlan : "");
  if (!BaseLoaded.ok() || BaseLoaded.Plan.Cells.empty())
    return 1;
  std::string EngineName, HardwareName, ModelId;
  if (std::optional<support::json> P = support::parseJsonOrNull(*BasePlan)) {
    auto Field = [&](const char *Object, const char *Key) {
      const support::json *O = support::objectAt(*P, Object);
      return O ? support::stringAt(*O, Key) : std::string();
    };
    EngineName = Field("engine", "name");
    HardwareName = Field("hardware", "name");
    ModelId = Field("model", "id");
    // The summaries, the report and the console are for sharing: a secret
    // of the plan, the environment or a --set stays out of them.
    support::addSecretValuesIn(*P);
  }
  support::addSecretValuesFromEnvironment();
  support::addSecretValuesOf({}, std::vector<std::string>(Sets.begin(), Sets.end()));

  // The full window: the recipe's, unless --window says.
  FixedScenario =
      std::holds_alternative<runtime::FixedWorkload>(BaseLoaded.Plan.Cells.front().Client.Workload);
  double FullWindow = 0;
  if (!Window.empty()) {
    char *End = nullptr;
    FullWindow = std::strtod(Window.c_str(), &End);
    if (!End || *End || !(FullWindow > 0 && FullWindow <= 1e6))
      return usageError(
          fmt::format("--window '{}': expected a number in (0, 1000000]", Window.getValue()));
  } else {
    const runtime::Cell &First = BaseLoaded.Plan.Cells.front();
    if (const auto *W = std::get_if<runtime::AgenticWorkload>(&First.Client.Workload))
      FullWindow = W->DurationS;
    else if (const auto *F = std::get_if<runtime::FixedWorkload>(&First.Client.Workload))
      FullWindow = double(F->NumPrompts) / double(std::max(1, First.Conc));
    if (!(FullWindow > 0))
      return usageError("the recipe's scenario gives no window: give --window");
  }
  double ShortWindow = std::max(1.0, std::round(FullWindow * ShortFraction));

  std::string OutPath = fs::absolute(OutDir.empty() ? "tune/" + Space->Name : OutDir.getValue())
                            .lexically_normal()
                            .string();
  runtime::OutputLock Lock;
  std::string LockErr;
  if (!Lock.acquire(OutPath, LockErr))
    return usageError(LockErr);
  bool Simulated = !Real;
  // --sim-clock virtual on a recipe whose cells cannot have it stops here,
  // rather than as one failed measurement per candidate.
  if (Simulated && SimClock == "virtual")
    for (const runtime::Cell &C : BaseLoaded.Plan.Cells)
      if (std::string Refusal = runtime::virtualClockRefusal(C); !Refusal.empty())
        return usageError(Refusal);
  if (Simulated && access((ownDirectory() + "/arecipe-sim").c_str(), X_OK) != 0)
    return usageError("arecipe-sim not found next to arecipe-tune");

  runtime::installStopHandlers();
  if (Executor == "local") {
    runtime::adoptOrphans();
    runtime::startProcessKeeper(std::chrono::milliseconds(10000));
  }
  struct KeeperStop {
    ~KeeperStop() {
      if (Executor == "local")
        runtime::stopProcessKeeper();
    }
  } StopKeeper;

  Tuner T(Inv, Source, *Space, OutPath);
  std::mt19937_64 Rng(Seed);
  std::vector<CellOutcome> Outcomes;
  std::set<int> Wanted(Concs.begin(), Concs.end());
  std::vector<const sema::TuneCell *> Tuned;
  for (const sema::TuneCell &C : Space->Cells) {
    if (!Wanted.empty() && !Wanted.count(int(C.Conc)))
      continue;
    CellOutcome O;
    O.Cell = &C;
    if (C.ServerFrom)
      O.Note = fmt::format("runs the server of cell {} (server = cell({})): tuned there",
                           *C.ServerFrom, *C.ServerFrom);
    else if (C.Knobs.empty())
      O.Note = "no knob to tune";
    else
      Tuned.push_back(&C);
    Outcomes.push_back(std::move(O));
  }
  for (int W : Wanted)
    if (std::none_of(Space->Cells.begin(), Space->Cells.end(),
                     [&](const sema::TuneCell &C) { return C.Conc == W; }))
      return usageError(
          fmt::format("--conc {}: not a concurrency of recipe '{}'", W, Space->Recipe));

  auto Interrupted = [&] {
    fmt::print(stderr,
               "arecipe-tune: interrupted; {} measurement(s) kept in {}/evals; run the same "
               "command again to resume\n",
               T.Measured, OutPath);
    return 128 + (runtime::stopSignal() ? runtime::stopSignal() : 2);
  };

  // The search, one concurrency at a time.
  size_t Remaining = Tuned.size();
  for (CellOutcome &O : Outcomes) {
    if (O.Note.size())
      continue;
    const sema::TuneCell &C = *O.Cell;
    // This concurrency's share of what is left of the cell budget.
    unsigned Share = 0;
    if (BudgetCells) {
      unsigned Left = BudgetCells > T.Used.size() ? BudgetCells - unsigned(T.Used.size()) : 0;
      Share = Left / unsigned(Remaining);
    }
    --Remaining;
    size_t UsedBefore = T.Used.size();
    auto ShareLeft = [&](unsigned Reserve) {
      return !BudgetCells || T.Used.size() - UsedBefore + Reserve < Share;
    };
    std::vector<Config> Candidates; // the configurations measured over the full window
    if (Strategy == "grid") {
      std::vector<Config> All{Config()};
      for (const sema::TuneKnob &K : C.Knobs) {
        std::vector<Config> Next;
        for (const Config &P : All)
          for (const std::string &V : K.Candidates) {
            Config N = P;
            N[K.Knob] = V;
            Next.push_back(N);
          }
        All = std::move(Next);
      }
      Candidates = All;
    } else {
      // Coordinate descent over the short window, from the recipe's values.
      Config Current;
      Measurement M;
      if (!T.measure(C.Conc, Current, ShortWindow, Simulated, M))
        return Interrupted();
      O.Short.push_back(M);
      Rank Best = rankOf(M, *Space, C);
      std::vector<size_t> Order(C.Knobs.size());
      for (size_t I = 0; I < Order.size(); ++I)
        Order[I] = I;
      for (unsigned Pass = 0; Pass < MaxPasses; ++Pass) {
        shuffleKnobs(Order, Rng);
        bool Moved = false;
        for (size_t KI : Order) {
          const sema::TuneKnob &K = C.Knobs[KI];
          // The candidates of this knob, with the other knobs held, are
          // independent: measured ahead up to --jobs at once, then taken in
          // order below as they would be one at a time.
          std::vector<Config> Tries;
          for (const std::string &V : K.Candidates) {
            auto Cur = Current.find(K.Knob);
            if (Cur != Current.end() && Cur->second == V)
              continue;
            Config Try = Current;
            Try[K.Knob] = V;
            Tries.push_back(Try);
          }
          if (!T.measureAhead(C.Conc, Tries, ShortWindow, Simulated, [&](size_t UsedCount) {
                return !BudgetCells || UsedCount - UsedBefore + Finalists + 1 < Share;
              }))
            return Interrupted();
          for (const std::string &V : K.Candidates) {
            auto Cur = Current.find(K.Knob);
            if (Cur != Current.end() && Cur->second == V)
              continue;
            if (!ShareLeft(Finalists + 1))
              break;
            Config Try = Current;
            Try[K.Knob] = V;
            if (!T.measure(C.Conc, Try, ShortWindow, Simulated, M))
              return Interrupted();
            O.Short.push_back(M);
            Rank R = rankOf(M, *Space, C);
            if (R.Measured && beats(R, Best)) {
              Best = R;
              Current = Try;
              Moved = true;
            }
          }
        }
        if (!Moved)
          break;
      }
      // Finalists: the best distinct cells of the descent.
      std::vector<std::pair<Rank, size_t>> ByRank;
      std::set<std::string> SeenKeys;
      for (size_t I = 0; I < O.Short.size(); ++I) {
        const Measurement &S = O.Short[I];
        Rank R = rankOf(S, *Space, C);
        if (R.Measured && SeenKeys.insert(S.Key).second)
          ByRank.push_back({R, I});
      }
      std::stable_sort(ByRank.begin(), ByRank.end(),
                       [](const auto &A, const auto &B) { return B.first < A.first; });
      for (size_t I = 0; I < ByRank.size() && Candidates.size() < Finalists; ++I)
        Candidates.push_back(O.Short[ByRank[I].second].Values);
      // The recipe's own values over the full window too: the "before".
      Candidates.push_back(Config());
    }
    if (!T.measureAhead(C.Conc, Candidates, FullWindow, Simulated, [](size_t) { return true; }))
      return Interrupted();
    for (const Config &Cfg : Candidates) {
      Measurement M;
      if (!T.measure(C.Conc, Cfg, FullWindow, Simulated, M))
        return Interrupted();
      if (Cfg.empty())
        O.Baseline = M;
      // Two configurations that resolve the cell alike are one measurement.
      if (!M.Key.empty() && std::any_of(O.Full.begin(), O.Full.end(),
                                        [&](const Measurement &F) { return F.Key == M.Key; }))
        continue;
      O.Full.push_back(M);
    }
    std::vector<std::pair<Rank, size_t>> ByRank;
    for (size_t I = 0; I < O.Full.size(); ++I) {
      Rank R = rankOf(O.Full[I], *Space, C);
      if (R.Measured)
        ByRank.push_back({R, I});
    }
    std::stable_sort(ByRank.begin(), ByRank.end(),
                     [](const auto &A, const auto &B) { return B.first < A.first; });
    for (auto &[R, I] : ByRank)
      O.Ranked.push_back(O.Full[I]);
    if (!ByRank.empty() && ByRank.front().first.Feasible) {
      O.Winner = O.Full[ByRank.front().second];
      // The recipe's values stay unless the winner beats them clearly.
      if (O.Baseline && !beats(ByRank.front().first, rankOf(*O.Baseline, *Space, C)))
        O.Winner = *O.Baseline;
    } else
      O.Note =
          ByRank.empty() ? "nothing measured within the budget" : "no configuration met the SLA";
  }

  // --confirm-top K: the K best of every concurrency again, with the real
  // engines through --executor (the simulated search above is read back
  // from --out when it was run before).
  if (ConfirmTop && Simulated)
    for (CellOutcome &O : Outcomes) {
      std::vector<Config> Top;
      for (size_t I = 0; I < O.Ranked.size() && I < ConfirmTop; ++I)
        Top.push_back(O.Ranked[I].Values);
      if (!T.measureAhead(O.Cell->Conc, Top, FullWindow, /*Simulated=*/false,
                          [](size_t) { return true; }))
        return Interrupted();
      for (size_t I = 0; I < O.Ranked.size() && I < ConfirmTop; ++I) {
        Measurement M;
        if (!T.measure(O.Cell->Conc, O.Ranked[I].Values, FullWindow, /*Simulated=*/false, M))
          return Interrupted();
        O.Confirmed.push_back(M);
      }
    }

  // The patch: each winner written into the recipe, with its measurement.
  std::vector<CellPatch> Patches;
  for (CellOutcome &O : Outcomes) {
    if (!O.Winner)
      continue;
    O.Changes = T.minimal(O.Cell->Conc, O.Winner->Values);
    if (!O.Changes.empty())
      Patches.push_back(
          {O.Cell->Conc, O.Changes,
           fmt::format("arecipe-tune {}: evals/{}.json ({} {} window{})", Space->Name,
                       O.Winner->Key, Simulated ? "simulated," : "measured,",
                       windowText(O.Winner->WindowS),
                       Simulated ? ", confirm on GPUs" : "")});
  }
  std::string PatchErr;
  std::string Patched = patchRecipe(Source, Patches, PatchErr);
  if (!PatchErr.empty())
    return usageError(PatchErr);
  std::string Base = fs::path(Source.Path).filename().string();
  std::string PatchedPath = OutPath + "/" + Base;
  std::string Err;
  if (!support::writeFileAtomically(PatchedPath, Patched, Err))
    return usageError(Err);
  std::string Diff = format::unifiedDiff(Source.Text, Patched, "a/" + Base, "b/" + Base);
  if (!support::writeFileAtomically(OutPath + "/recipe.patch", Diff, Err))
    return usageError(Err);

  // The patched recipe must compile; its changelog is against the original.
  frontend::CompilerInvocation NewInv = Inv;
  NewInv.Overrides[Source.Path] = Patched;
  frontend::CompilerInstance NewCI(NewInv, &Printer);
  if (NewCI.analyze() != frontend::Status::Ok)
    return usageError("the patched recipe does not compile (a bug of arecipe-tune): " +
                      PatchedPath);
  std::string Changelog;
  {
    llvm::raw_string_ostream OS(Changelog);
    codegen::emitChangelog(CI.getSema(), NewCI.getSema(), OS);
  }
  if (!support::writeFileAtomically(OutPath + "/changelog.yaml", Changelog, Err))
    return usageError(Err);

  // The summary: what was tried, pruned, chosen; the SLA frontier.
  ordered_json J;
  J["tune"] = Space->Name;
  J["recipe"] = Space->Recipe;
  J["simulated"] = Simulated;
  if (Simulated) {
    J["time_scale"] = TimeScale.getValue();
    J["sim_clock"] = SimClock.getValue();
  }
  J["executor"] = Executor.getValue();
  J["strategy"] = Strategy.getValue();
  J["seed"] = Seed.getValue();
  J["min_gain"] = MinGain.getValue();
  J["objective"] = (Space->Maximize ? "maximize " : "minimize ") + Space->Objective;
  J["window_unit"] = FixedScenario ? "requests_per_lane" : "seconds";
  J["full_window_s"] = FullWindow;
  J["short_window_s"] = ShortWindow;
  J["model"] = ModelId;
  J["hardware"] = HardwareName;
  J["engine"] = EngineName;
  if (Simulated) {
    std::vector<std::string> Cal = report::simulatorCalibration(EngineName, HardwareName);
    J["calibration"] = Cal.empty() ? ordered_json("not calibrated") : ordered_json(Cal);
  }
  // What this run measured itself (rather than read back) is in tune.txt:
  // two runs over the same measurements write the same tune.json.
  J["cells_used"] = T.Used.size();
  ordered_json PrunedJ = ordered_json::object();
  for (const auto &[Reason, Which] : T.Pruned)
    PrunedJ[Reason] = Which.size();
  J["pruned"] = PrunedJ;
  ordered_json CellsJ = ordered_json::array();
  auto MeasJ = [](const Measurement &M) {
    ordered_json E;
    E["values"] = ordered_json(M.Values);
    E["window_s"] = M.WindowS;
    E["status"] = M.Status;
    if (!M.Reason.empty())
      E["reason"] = M.Reason;
    E["metrics"] = ordered_json(M.Metrics);
    if (!M.Key.empty())
      E["eval"] = "evals/" + M.Key + ".json";
    return E;
  };
  for (const CellOutcome &O : Outcomes) {
    ordered_json E;
    E["conc"] = O.Cell->Conc;
    E["band"] = O.Cell->Band;
    ordered_json Cons = ordered_json::array(), Bounds = ordered_json::array();
    for (const sema::TuneConstraint &K : O.Cell->Constraints) {
      Cons.push_back(K.Text);
      Bounds.push_back({{"metric", K.Metric}, {"op", K.Op}, {"bound", K.Bound}, {"text", K.Text}});
    }
    E["sla"] = Cons;
    E["constraints"] = Bounds;
    if (!O.Note.empty())
      E["note"] = O.Note;
    ordered_json Tried = ordered_json::array();
    for (const Measurement &M : O.Short) {
      ordered_json F = MeasJ(M);
      Rank R = rankOf(M, *Space, *O.Cell);
      if (R.Measured) {
        F["meets_sla"] = R.Feasible;
        if (!R.Misses.empty())
          F["misses"] = R.Misses;
      }
      Tried.push_back(F);
    }
    E["short_window"] = Tried;
    ordered_json Frontier = ordered_json::array();
    for (const Measurement &M : O.Ranked) {
      ordered_json F = MeasJ(M);
      Rank R = rankOf(M, *Space, *O.Cell);
      F["meets_sla"] = R.Feasible;
      if (!R.Misses.empty())
        F["misses"] = R.Misses;
      Frontier.push_back(F);
    }
    E["full_window"] = Frontier;
    if (O.Baseline)
      E["before"] = MeasJ(*O.Baseline);
    if (O.Winner) {
      E["winner"] = MeasJ(*O.Winner);
      E["changes"] = ordered_json(O.Changes);
    }
    if (!O.Confirmed.empty()) {
      ordered_json C = ordered_json::array();
      for (const Measurement &M : O.Confirmed) {
        ordered_json F = MeasJ(M);
        F["meets_sla"] = rankOf(M, *Space, *O.Cell).Feasible;
        C.push_back(F);
      }
      E["confirmed"] = C;
    }
    CellsJ.push_back(E);
  }
  J["cells"] = CellsJ;
  // As typed (relative paths stay relative): the command runs from where
  // this one ran, and two result directories of one tune read alike.
  std::vector<std::string> Confirm = {"arecipe-tune", InputFile.getValue()};
  for (const std::string &D : IncludeDirs)
    Confirm.push_back("-I" + D);
  for (const std::string &S : Sets)
    Confirm.insert(Confirm.end(), {"--set", S});
  Confirm.insert(Confirm.end(),
                 {"--out", OutDir.empty() ? "tune/" + Space->Name : OutDir.getValue(), "--executor",
                  "slurm", "--confirm-top", "2"});
  if (!TuneName.empty())
    Confirm.insert(Confirm.end(), {"--tune", TuneName.getValue()});
  if (!Window.empty())
    Confirm.insert(Confirm.end(), {"--window", Window.getValue()});
  // Every option that shapes the search, so the confirming run reads the
  // same measurements back and confirms the same configurations.
  auto Given = [&](const cl::Option &O, const std::string &Value) {
    if (O.getNumOccurrences())
      Confirm.push_back(fmt::format("--{}={}", O.ArgStr.str(), Value));
  };
  Given(Strategy, Strategy.getValue());
  Given(Seed, std::to_string(Seed.getValue()));
  Given(BudgetCells, std::to_string(BudgetCells.getValue()));
  Given(BudgetWall, fmt::format("{}", BudgetWall.getValue()));
  Given(ShortFraction, fmt::format("{}", ShortFraction.getValue()));
  Given(Finalists, std::to_string(Finalists.getValue()));
  Given(MinGain, fmt::format("{}", MinGain.getValue()));
  Given(MaxPasses, std::to_string(MaxPasses.getValue()));
  Given(TimeScale, fmt::format("{}", TimeScale.getValue()));
  Given(SimClock, SimClock.getValue());
  if (!Concs.empty()) {
    std::string List;
    for (int C : Concs)
      List += (List.empty() ? "" : ",") + std::to_string(C);
    Confirm.push_back("--conc=" + List);
  }
  if (Simulated)
    J["confirm_command"] = support::shellJoin(support::redactArgv(Confirm));
  if (!runtime::writeOutputJson(OutPath + "/tune.json", J, Err))
    return usageError(Err);
  ordered_json Shared = J;
  support::redactJson(Shared);
  std::string Html = report::renderTuneReport(support::dumpJson(Shared), Err);
  if (Html.empty() ||
      !runtime::writeOutputFile(OutPath + "/" + report::TuneReportFileName, Html, Err))
    return usageError(Err);

  // The text summary on standard output.
  std::string Text;
  Text += fmt::format("tune {} of recipe {}: {} {}\n", Space->Name, Space->Recipe,
                      Space->Maximize ? "maximize" : "minimize", Space->Objective);
  if (Simulated) {
    Text += fmt::format("SIMULATED (arecipe-sim at time scale {}): the figures are the "
                        "simulator's model, not measurements of GPUs\n",
                        TimeScale.getValue());
    std::vector<std::string> Cal = report::simulatorCalibration(EngineName, HardwareName);
    if (Cal.empty())
      Text += fmt::format("simulator calibration for {} on {}: not calibrated\n", EngineName,
                          HardwareName);
    for (const std::string &L : Cal)
      Text += fmt::format("simulator calibration for {} on {}: {}\n", EngineName, HardwareName, L);
  }
  Text += fmt::format("strategy {}, seed {}: {} cells used ({} measured now), windows {} / {}\n",
                      Strategy.getValue(), Seed.getValue(), T.Used.size(), T.Measured,
                      windowText(ShortWindow), windowText(FullWindow));
  for (const auto &[Reason, Which] : T.Pruned)
    Text += fmt::format("pruned {}: {}\n", Which.size(), Reason);
  for (const CellOutcome &O : Outcomes) {
    Text += fmt::format("conc {}: ", O.Cell->Conc);
    if (O.Winner) {
      auto It = O.Winner->Metrics.find(Space->Objective);
      std::string Before;
      if (O.Baseline && O.Baseline->Metrics.count(Space->Objective))
        Before =
            fmt::format(" (the recipe's values: {:.6g})", O.Baseline->Metrics.at(Space->Objective));
      Text +=
          fmt::format("{} -> {} = {:.6g}{}\n",
                      O.Changes.empty() ? "keep the recipe's values" : describe(O.Changes),
                      Space->Objective, It == O.Winner->Metrics.end() ? 0.0 : It->second, Before);
    } else {
      Text += O.Note + "\n";
    }
    for (const Measurement &M : O.Confirmed) {
      auto It = M.Metrics.find(Space->Objective);
      Text += fmt::format(
          "  confirmed with the real engines: {} -> {} {}\n", describe(M.Values), M.Status,
          It == M.Metrics.end() ? std::string()
                                : fmt::format("{} = {:.6g}", Space->Objective, It->second));
    }
  }
  Text += fmt::format("patched recipe: {}\n", PatchedPath);
  Text += fmt::format("report: {}/{}\n", OutPath, report::TuneReportFileName);
  if (Simulated)
    Text += fmt::format("confirm on GPUs: {}\n", support::shellJoin(support::redactArgv(Confirm)));
  Text = support::redact(Text);
  if (!runtime::writeOutputFile(OutPath + "/tune.txt", Text, Err))
    return usageError(Err);
  std::fwrite(Text.data(), 1, Text.size(), stdout);
  return 0;
}
