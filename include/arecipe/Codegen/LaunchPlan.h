//===- LaunchPlan.h - The launch plan as the compiler builds it -*- C++ -*-===//
//
// Lowering of Sema's resolved cells (Cell.h) to the launch plan of
// docs/plan-schema.md, as typed structures: per cell the processes Sema
// placed (engine replicas node by node, the router, side services) with
// argv lists, environment, GPUs, ports and readiness, one
// struct per pre-flight action, the client with its workload, and the
// validity rules. Every value is final; the emitters (PlanEmitter for JSON,
// ShellEmitter for bash) only print it, so the two outputs cannot disagree,
// and a field an emitter reads exists by construction (no lookup by key).
// It reads Sema's cells, never the syntax tree, and reports what a recipe
// leaves out (no scenario, no trace, a value with no rendering) to the
// diagnostics engine.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CODEGEN_LAUNCHPLAN_H
#define ARECIPE_CODEGEN_LAUNCHPLAN_H

#include "arecipe/Basic/Rational.h"
#include "arecipe/Sema/Cell.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace arecipe {
class DiagnosticEngine;
namespace sema {
class Compilation;
}

namespace codegen {

/// A number of the plan (seconds, fractions): exact; printed as a JSON
/// integer when whole, else as the nearest double.
using PlanNumber = Rational;

/// Where a knob's value was assigned: `file:line:col` of the assignment
/// (none for built-in defaults) and its precedence level.
struct KnobOrigin {
  struct Position {
    /// The buffer's name in the compilation's SourceMgr (a view: a cell is
    /// written while the compilation it was lowered from exists).
    llvm::StringRef File;
    unsigned Line = 0;
    unsigned Col = 0;
  };
  std::optional<Position> Where;
  sema::Level Level = sema::Level::Default;
};

/// A cell's knob. Name and Value are views of the name and value in Sema's
/// cell (the plan has about a hundred knobs per cell; they are not copied,
/// and a copy of a value would count a reference to its contents up and
/// down again), so a PlanCell is written while the compilation exists.
struct PlanKnob {
  llvm::StringRef Name;
  const sema::Value *Value = nullptr;
  KnobOrigin Origin;
};

/// The pre-flight actions of docs/plan-schema.md, one struct each, fields
/// in schema order; Action is the plan's `action`.
namespace preflight {
struct UnsetEnv {
  static constexpr const char *Action = "unset_env";
  std::vector<std::string> Names;
};
struct RequireVersion {
  static constexpr const char *Action = "require_version";
  enum class OnMismatch { Warn, Fail };
  std::string Tool;
  /// The command that prints the installed version.
  std::vector<std::string> Probe;
  std::string Pattern;
  OnMismatch OnMismatchDo = OnMismatch::Warn;
};
struct StageModel {
  static constexpr const char *Action = "stage_model";
  std::string Repo;
  int64_t Attempts = 0;
  PlanNumber DelayS;
  // `env` is always empty.
};
struct CheckPaths {
  static constexpr const char *Action = "check_paths";
  enum class Nodes { All, Rank0 };
  std::vector<std::string> Paths;
  Nodes On = Nodes::All;
};
struct WaitCleanGpus {
  static constexpr const char *Action = "wait_clean_gpus";
  PlanNumber MaxUsedFraction;
  PlanNumber TimeoutS;
  int64_t PollS = 0;
};
struct PrepareCache {
  static constexpr const char *Action = "prepare_cache";
  std::string Dir;
  std::optional<std::string> FromImagePath;
  std::string Scope;
  // `fallback` is always "private".
};
struct VerifyImport {
  static constexpr const char *Action = "verify_import";
  std::string Package;
  std::vector<std::string> Python; ///< The interpreter's argv.
  std::string ExpectPrefix;
};
struct RunStep {
  static constexpr const char *Action = "run";
  std::vector<std::string> Argv;
  PlanNumber TimeoutS;
};
/// Plan v1.1: runs Argv; its output is what `{capture:NAME}` stands for.
struct Capture {
  static constexpr const char *Action = "capture";
  std::string Name;
  std::vector<std::string> Argv;
  PlanNumber TimeoutS;
  /// The output `arecipe-run --simulate` uses instead of running Argv.
  std::optional<std::string> SimulatedOutput;
};
} // namespace preflight

using PreflightStep = std::variant<
    preflight::UnsetEnv, preflight::RequireVersion, preflight::StageModel,
    preflight::CheckPaths, preflight::WaitCleanGpus, preflight::PrepareCache,
    preflight::VerifyImport, preflight::RunStep, preflight::Capture>;

/// The plan's `action` of a step: "unset_env", "require_version", ...
const char *actionName(const PreflightStep &Step);

struct ProcessSpec {
  std::string Name;
  std::string Role; ///< server | worker | prefill | decode | router | service
  int64_t NodeRank = 0;
  /// The engine, router or service declaration it runs.
  std::string Template;
  /// Engine processes: the replica (within its role) and the node within
  /// the replica. Routers and services: the instance, and no node.
  int64_t Replica = 0;
  std::optional<int64_t> Node;
  std::vector<std::string> Argv;
  /// The environment by variable name. Most cells of a recipe give a
  /// process the same environment: the lowering builds it once and the
  /// cells share it (no copy per cell), and the plan writer copies the
  /// text it wrote for the same map. Null reads as empty (env()).
  using EnvMap = std::map<std::string, std::string>;
  std::shared_ptr<const EnvMap> Env;
  const EnvMap &env() const {
    static const EnvMap Empty;
    return Env ? *Env : Empty;
  }
  std::vector<std::string> EnvUnset;
  std::optional<std::vector<int64_t>> Gpus;
  std::optional<int64_t> Port;
  /// Endpoint paths in schema order; absent for a headless worker.
  std::optional<std::vector<std::pair<std::string, std::string>>> Endpoints;
  std::vector<std::string> After;
  PlanNumber StartupTimeoutS, StallTimeoutS;
  std::optional<std::string> RequiresModel;
  /// How the runtime knows the process is ready; Default: its health
  /// endpoint, or running when it has none (the plan's `ready.kind`).
  enum class Readiness : uint8_t { Default, Tcp, Alive };
  Readiness Ready = Readiness::Default;
  PlanNumber AliveS; ///< For Readiness::Alive.
  bool ServesApi = false;
  /// Plan v1.1 `sim_router` (a router whose declaration names its policy
  /// or header knob): the knobs' values in the cell, none as null.
  struct SimRouterKnobs {
    std::optional<std::string> Policy, Header;
  };
  std::optional<SimRouterKnobs> SimRouter;
};

/// Plan v1.1 `endpoint`: the API the client calls.
enum class ClientEndpoint { Completions, Chat };

struct AgenticWorkload {
  std::string Trace;
  PlanNumber DurationS;
  PlanNumber WarmupS;
  PlanNumber MaxFailedFraction;
  std::optional<ClientEndpoint> Endpoint; ///< v1.1; only when set.
};

struct FixedWorkload {
  int64_t Isl = 0, Osl = 0;
  PlanNumber RangeRatio;
  /// "below" or "around" (fixed(range)); the plan carries "below" only
  /// (v1.1), since a v1 plan's lengths are "around".
  std::string RangeRule;
  int64_t NumPrompts = 0;
  int64_t Warmup = 0; ///< Requests.
  // `ignore_eos` is always true.
  PlanNumber RequestRate; ///< 0: closed loop.
  /// v1.1, only when set: prompts go through the model's chat template.
  std::optional<bool> UseChatTemplate;
  std::optional<ClientEndpoint> Endpoint; ///< v1.1; only when set.
  /// v1.1, only when the engine declares `prompt_token_ids = true` (and the
  /// client does not use the chat API): "token_ids", with the model's
  /// directory as the tokenizer whose vocabulary the ids come from.
  std::optional<std::string> PromptMode;
  std::string Tokenizer;
};

struct ClientSpec {
  std::string Target;
  std::string ServedModelName;
  int64_t Concurrency = 0;
  /// Empty only when lowering failed (no scenario or trace).
  std::variant<std::monostate, AgenticWorkload, FixedWorkload> Workload;
  std::optional<std::string> SessionHeader;
};

struct ProfileWindow {
  PlanNumber StartS, DurationS;
};

/// A generated file of a cell (plan v1.1 `files`).
struct PlanFile {
  std::string Name;
  std::string Content;
};

struct PlanCell {
  std::string Id;
  std::string Recipe;
  std::optional<std::string> Arm; ///< The recipe's arm, when it has arms.
  int64_t Conc = 0;
  std::optional<std::string> Band;
  std::optional<std::string> ServerFrom;
  int64_t Gpus = 0;
  int64_t Nodes = 0;
  /// {server} or {prefill, decode}: GPUs per engine role.
  std::vector<std::pair<std::string, int64_t>> GpusByRole;
  /// Cell: a fresh server per cell. Arm: one server allocation for the
  /// arm's cells, in order (the plan's `server_reuse`).
  enum class Reuse : uint8_t { Cell, Arm };
  Reuse ServerReuse = Reuse::Cell;
  std::vector<PlanKnob> Knobs; ///< Sorted by name.
  std::vector<PreflightStep> Preflight;
  std::vector<ProcessSpec> Processes;
  /// Plan v1.1: files the runtime writes into the cell's directory before
  /// any process starts, in Sema's order.
  std::vector<PlanFile> Files;
  ClientSpec Client;
  std::vector<ProfileWindow> Profile;
  PlanNumber MaxErrorRate;
  std::optional<std::string> RequiredMetricPrefix;
};

struct SlurmSpec {
  std::optional<std::string> Partition, Account;
  std::optional<PlanNumber> TimeLimitS;
  /// A list of nodes or a count; none: "auto".
  std::optional<sema::Value> Nodelist;
};

/// One simulation figure of the plan's `model` or `hardware` (schema v1.1,
/// docs/plan-schema.md "Simulation figures"): the plan's key ("layers",
/// "calibration.mem_efficiency") and the exact value in the plan's units
/// (bytes, bytes/s, seconds, counts).
struct SimFigure {
  std::string Key;
  std::variant<PlanNumber, std::string, std::vector<PlanNumber>> V;
};

/// What the plan says once, before its cells.
struct PlanHeader {
  std::string RecipeName, RecipeFile, Mode;
  std::string ModelId, ModelPath;
  std::optional<std::string> Image;
  std::string HardwareName;
  int64_t GpusPerNode = 0;
  std::string VisibleDevicesEnv, Smi, HardwareProfile;
  std::string EngineName;
  std::optional<std::string> MetricPrefix;
  std::optional<SlurmSpec> Slurm;
  /// The figures the model and hardware declarations set, in the order of
  /// the schema's tables; empty unless the recipe describes the model's
  /// shape or the hardware's simulation-only figures (LaunchPlanBuilder.cpp
  /// says why).
  std::vector<SimFigure> ModelFigures, HardwareFigures;
  /// Some cell uses a field of plan v1.1 (files, a `capture` step, the
  /// client's `use_chat_template` or `endpoint`): the plan's schema is
  /// `arecipe.plan/v1.1`, else `arecipe.plan/v1`.
  bool UsesV11 = false;
};

/// Whether the cell uses a field of plan v1.1.
bool usesV11(const PlanCell &C);

struct PlanOptions {
  /// `--recipe NAME`: lower only this recipe of the file; empty: all of
  /// them, which must then share model, image, hardware and engine.
  std::string Recipe;
};

/// Lowers the analysed recipes of a compilation into the plan one cell at
/// a time, so the emitters write a plan of any number of cells without
/// holding it whole: memory follows the largest cell, not the plan.
class PlanLowering {
public:
  PlanLowering(const sema::Compilation &C, PlanOptions Opts,
               DiagnosticEngine &Diags);
  ~PlanLowering();
  PlanLowering(const PlanLowering &) = delete;
  PlanLowering &operator=(const PlanLowering &) = delete;

  /// Lowers every cell once and reports to Diags whatever keeps the plan
  /// from being complete (no scenario, a value with no rendering, recipes
  /// that cannot share one plan). Returns false after reporting; the
  /// cells may be lowered for output only when it returned true, so a
  /// plan with a mistake is never partly written.
  bool check();

  const PlanHeader &header() const;
  /// The number of cells: ascending concurrency, then recipe order (arm by
  /// arm in a recipe with arms).
  size_t size() const;
  /// Cell I (after check() returned true): the first time, what check()
  /// lowered for it (kept for the first cells of a plan), otherwise
  /// lowered now.
  PlanCell cell(size_t I);
  /// Cell I's id (`c14`, or `recipe.c14` in a plan of several recipes),
  /// concurrency and recipe, without lowering it.
  std::string cellId(size_t I) const;
  int64_t cellConc(size_t I) const;
  const std::string &cellRecipe(size_t I) const;

private:
  struct Impl;
  std::unique_ptr<Impl> P;
};

} // namespace codegen
} // namespace arecipe

#endif // ARECIPE_CODEGEN_LAUNCHPLAN_H
