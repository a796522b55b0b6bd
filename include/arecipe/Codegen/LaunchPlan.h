//===- LaunchPlan.h - The launch plan as the compiler builds it -*- C++ -*-===//
//
// Lowering of Sema's resolved cells (Cell.h) to the launch plan of
// docs/plan-schema.md: per cell the processes Sema placed (engine replicas
// node by node, the router, side services) with argv lists, environment,
// GPUs, ports and readiness, the typed pre-flight actions, the client and
// the validity rules. Every value is final; the
// emitters (PlanEmitter for JSON, ShellEmitter for bash) only print it, so
// the two outputs cannot disagree. It reads Sema's cells, never the syntax
// tree, and reports what a recipe leaves out (no scenario, no trace, a value
// with no rendering) to the diagnostics engine.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CODEGEN_LAUNCHPLAN_H
#define ARECIPE_CODEGEN_LAUNCHPLAN_H

#include "nlohmann/json.hpp"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace arecipe {
class DiagnosticEngine;
namespace sema {
class Compilation;
}

namespace codegen {

/// JSON with keys kept in insertion order: plans list keys in the order
/// docs/plan-schema.md gives.
using OrderedJSON = nlohmann::ordered_json;

struct PlanKnob {
  std::string Name;
  OrderedJSON Value;
  OrderedJSON Origin; ///< {file, line, col, level}; only level when built in.
};

/// One pre-flight action: its `action` name and its fields, in schema order.
struct PreflightStep {
  std::string Action;
  OrderedJSON Fields;
};

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
  std::map<std::string, std::string> Env;
  std::vector<std::string> EnvUnset;
  std::optional<std::vector<int64_t>> Gpus;
  std::optional<int64_t> Port;
  /// Endpoint paths in schema order; absent for a headless worker.
  std::optional<std::vector<std::pair<std::string, std::string>>> Endpoints;
  std::vector<std::string> After;
  OrderedJSON StartupTimeoutS, StallTimeoutS;
  std::optional<std::string> RequiresModel;
  /// `tcp` or `alive` (with AliveS); empty: the default for the process
  /// (its health endpoint, or running when it has none).
  std::string ReadyKind;
  OrderedJSON AliveS;
  bool ServesApi = false;
};

struct ClientSpec {
  std::string Target;
  std::string ServedModelName;
  int64_t Concurrency = 0;
  OrderedJSON Workload;
  std::optional<std::string> SessionHeader;
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
  /// `cell` (a fresh server per cell) or `arm` (one server allocation for
  /// the arm's cells, in order).
  std::string ServerReuse = "cell";
  std::vector<PlanKnob> Knobs; ///< Sorted by name.
  std::vector<PreflightStep> Preflight;
  std::vector<ProcessSpec> Processes;
  ClientSpec Client;
  std::vector<std::pair<OrderedJSON, OrderedJSON>> Profile; ///< start_s, duration_s
  OrderedJSON MaxErrorRate;
  std::optional<std::string> RequiredMetricPrefix;
};

struct LaunchPlan {
  std::string RecipeName, RecipeFile, Mode;
  std::string ModelId, ModelPath;
  std::optional<std::string> Image;
  std::string HardwareName;
  int64_t GpusPerNode = 0;
  std::string VisibleDevicesEnv, Smi, HardwareProfile;
  std::string EngineName;
  std::optional<std::string> MetricPrefix;
  OrderedJSON Slurm; ///< null or {partition, account, time_limit_s, nodelist}
  /// Ascending concurrency, then recipe order; a recipe with arms keeps its
  /// arms' cells together, arm by arm.
  std::vector<PlanCell> Cells;
};

struct PlanOptions {
  /// `--recipe NAME`: lower only this recipe of the file; empty: all of
  /// them, which must then share model, image, hardware and engine.
  std::string Recipe;
};

/// Lowers the analysed recipes of C. Returns nullopt after reporting to
/// Diags when a recipe cannot become a complete plan.
std::optional<LaunchPlan> buildLaunchPlan(const sema::Compilation &C,
                                          const PlanOptions &Opts,
                                          DiagnosticEngine &Diags);

} // namespace codegen
} // namespace arecipe

#endif // ARECIPE_CODEGEN_LAUNCHPLAN_H
