//===- LaunchPlan.h - The launch plan as the runtime sees it ----*- C++ -*-===//
//
// The in-memory form of a launch plan (docs/plan-schema.md, schema v1): the
// only input the runtime consumes. Every value is already resolved by the
// compiler, so these are plain structs with no behaviour; loading and
// validating the JSON lives in PlanLoader.h. Nothing here may evaluate a
// formula, touch the file system or start a process.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_LAUNCHPLAN_H
#define ARECIPE_RUNTIME_LAUNCHPLAN_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace arecipe::runtime {

/// The version string this runtime understands; other minors of major 1 are
/// accepted, other majors refused.
inline constexpr const char *PlanSchemaV1 = "arecipe.plan/v1";

using Argv = std::vector<std::string>;
using EnvMap = std::map<std::string, std::string>;

struct KnobOrigin {
  std::string File;
  int Line = 0, Col = 0;
  std::string Level; ///< default | recipe | band | at-conc | server-from | command-line
};

struct Knob {
  std::string Name;
  std::string ValueJson; ///< the resolved value, as compact JSON
  KnobOrigin Origin;
};

// Pre-flight actions, one struct per `action` kind.

struct UnsetEnvAction {
  std::vector<std::string> Names;
};

struct RequireVersionAction {
  std::string Tool;
  Argv Probe;          ///< prints the version
  std::string Pattern; ///< glob, e.g. "3.7.*"
  bool FailOnMismatch = false;
};

struct StageModelAction {
  std::string Repo;
  int Attempts = 1;
  double DelayS = 0;
  EnvMap Env;
  Argv Command; ///< defaults to `hf download <repo>` when the plan omits argv
};

struct CheckPathsAction {
  std::vector<std::string> Paths;
  bool AllNodes = true; ///< `all` vs `rank0`; a local run has one node
};

struct WaitCleanGpusAction {
  double MaxUsedFraction = 0.01;
  double TimeoutS = 600;
  double PollS = 5;
};

struct PrepareCacheAction {
  std::string Dir;
  std::string FromImagePath;
  std::string Scope;
  std::string Fallback;
};

struct VerifyImportAction {
  std::string Package;
  Argv Python; ///< argv prefix of the interpreter the servers will use
  std::string ExpectPrefix;
};

struct RunAction {
  Argv Command;
  double TimeoutS = 0; ///< 0 = no limit
};

/// Plan v1.1: runs Command on the cell's first node and keeps its trimmed
/// standard output as the value of `{capture:NAME}`.
struct CaptureAction {
  std::string Name;
  Argv Command;
  double TimeoutS = 300;
  /// What --simulate uses instead of running Command (the answer of a GPU
  /// node's hardware, which a machine without one cannot give).
  std::optional<std::string> SimulatedOutput;
};

using PreflightAction = std::variant<UnsetEnvAction, RequireVersionAction, StageModelAction,
                                     CheckPathsAction, WaitCleanGpusAction, PrepareCacheAction,
                                     VerifyImportAction, RunAction, CaptureAction>;

/// The `action` name of a pre-flight action, as written in the plan.
const char *actionName(const PreflightAction &Action);

struct NumaBinding {
  std::string CpuNodeBind, MemBind;
};

struct Endpoints {
  std::string Health = "/health";
  std::string Models = "/v1/models";
  std::string Metrics = "/metrics";
  std::string StartProfile = "/start_profile";
  std::string StopProfile = "/stop_profile";
};

struct ReadinessSpec {
  double StartupTimeoutS = 1800;
  double StallTimeoutS = 600;
  std::string RequiresModel; ///< empty: any answer from /v1/models will do
  /// How readiness is known (plan v1.1): `http` (the health endpoint; the
  /// default with endpoints), `running` (the default without), `tcp` (a
  /// connect to the port succeeds) or `alive` (still running after
  /// AliveS seconds).
  std::string Kind;
  double AliveS = 0;
};

/// Plan v1.1 `sim_router` of a router process: how arecipe-sim stands in
/// for it under --simulate (the router's policy and session header in the
/// cell, each absent when the router declares none or the knob is none).
struct SimRouterSpec {
  std::optional<std::string> Policy, Header;
};

struct ProcessSpec {
  std::string Name;
  std::string Role; ///< server | prefill | decode | router | worker | service
  int NodeRank = 0;
  /// Plan v1.1: the engine, router or service declaration it runs; for an
  /// engine process its replica (within its role) and node (within the
  /// replica), for a router or service its instance (Node absent).
  std::string Template;
  int Replica = 0;
  std::optional<int> Node;
  Argv Command;
  EnvMap Env;
  std::vector<std::string> EnvUnset;
  std::optional<std::vector<int>> Gpus;
  std::optional<NumaBinding> Numa;
  std::optional<int> Port; ///< 0: learned from the simulator (--simulate only)
  std::optional<Endpoints> HttpEndpoints;
  std::vector<std::string> After;
  ReadinessSpec Ready;
  bool ServesApi = false;
  std::optional<SimRouterSpec> SimRouter;
};

struct FixedWorkload {
  int64_t Isl = 0, Osl = 0;
  double RangeRatio = 0;
  /// `range_rule` (v1.1): "below" (InferenceX) or "around" (vLLM, and a
  /// plan without the field).
  bool RangeBelow = false;
  int64_t NumPrompts = 0;
  int64_t Warmup = 0;
  bool IgnoreEos = true;
  double RequestRate = 0; ///< 0 = closed loop
  /// plan v1.1: "words" | "token_ids" | "text" (docs/plan-schema.md).
  std::string PromptMode = "words";
  std::string Tokenizer; ///< tokenizer.json or model directory; empty = none
  int64_t VocabSize = 0; ///< token_ids without a tokenizer; 0 = none
};

struct AgenticWorkload {
  std::string Trace;
  /// plan v1.1: "arecipe" | "mooncake" | "weka" (docs/traces.md).
  std::string TraceFormat = "arecipe";
  double DurationS = 0, WarmupS = 0;
  double MaxFailedFraction = 0.1;
};

struct ClientSpec {
  std::string Target;
  std::string ServedModelName;
  int Concurrency = 1;
  std::variant<FixedWorkload, AgenticWorkload> Workload;
  std::string SessionHeader; ///< empty: none
  /// Measurement-time stall window: no request in flight made progress for
  /// this long ends the cell as failed (stalled). 0 = never.
  double StallTimeoutS = 600;
};

/// Plan v1.1: a file the runtime writes into the cell's directory before
/// the cell runs; its content may hold placeholders (Placeholders.h).
struct GeneratedFile {
  std::string Name;
  std::string Content;
};

struct ProfileWindow {
  double StartS = 0, DurationS = 0;
};

struct ValidityRules {
  double MaxErrorRate = 0.1;
  std::string RequiredMetricPrefix; ///< empty: no requirement
};

struct Cell {
  std::string Id;
  int Conc = 0;
  std::string Arm; ///< plan v1.1: the recipe's arm; empty without arms
  std::string Band;
  std::string ServerFrom;
  int Gpus = 1;
  int Nodes = 1;
  /// Plan v1.1: GPUs per engine role ({server} or {prefill, decode}), in
  /// plan order; their sum is Gpus. Empty in an older plan.
  std::vector<std::pair<std::string, int>> GpusByRole;
  /// Plan v1.1: `cell` (a server per cell) or `arm` (one server for the
  /// arm's cells, in order).
  std::string ServerReuse = "cell";
  std::vector<Knob> Knobs;
  std::vector<PreflightAction> Preflight;
  std::vector<GeneratedFile> Files;
  std::vector<ProcessSpec> Processes;
  ClientSpec Client;
  std::vector<ProfileWindow> Profile;
  ValidityRules Validity;
  /// FNV-1a of the cell's JSON as loaded: a resumed run only trusts a
  /// finished cell whose digest matches the plan it is running now.
  std::string Digest;

  const ProcessSpec *findProcess(const std::string &Name) const;
};

struct ContainerMount {
  std::string Source, Target;
  bool ReadOnly = true;
};

struct ContainerSpec {
  std::string Runtime; ///< docker | podman
  std::vector<ContainerMount> Mounts;
  std::string Entrypoint; ///< empty: argv[0] is the entrypoint
};

/// Where and how the Slurm executor submits the cells (docs/slurm.md); the
/// command line overrides each field.
struct SlurmSpec {
  std::string Partition, Account; ///< empty: the cluster's default
  double TimeLimitS = 0;          ///< 0: the partition's default
  std::vector<std::string> NodeList; ///< empty: `auto`, Slurm picks idle nodes
  int GpusPerNode = 0;               ///< 0: no --gpus-per-node request
  std::string ContainerRuntime;      ///< empty: the plan's container runtime
  std::vector<ContainerMount> ContainerMounts; ///< added to the plan's mounts on the nodes
};

struct HardwareSpec {
  std::string Name;
  int GpusPerNode = 8;
  std::string VisibleDevicesEnv = "HIP_VISIBLE_DEVICES";
  std::string Smi = "amd-smi";
  std::string Profile; ///< simulator hardware profile
};

struct LaunchPlan {
  std::string Schema;
  std::string RecipeName, RecipeFile, Mode;
  std::string ModelId, ModelPath;
  std::string ModelProfile; ///< simulator model profile; empty: the model id
  /// The plan's simulation figures of the model and the hardware as the
  /// arecipe-sim --sim-spec document (compact JSON); empty when the plan
  /// carries none, and the simulator reads its profiles instead.
  std::string SimSpec;
  std::string Image;        ///< empty: no image
  HardwareSpec Hardware;
  std::string EngineName, MetricPrefix;
  std::optional<ContainerSpec> Container;
  std::optional<SlurmSpec> Slurm;
  std::vector<Cell> Cells;

  const Cell *findCell(const std::string &Id) const;
};

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_LAUNCHPLAN_H
