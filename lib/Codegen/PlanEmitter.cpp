//===- PlanEmitter.cpp - `arecipec --emit plan` ---------------------------===//

#include "arecipe/Codegen/PlanEmitter.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace arecipe;
using namespace arecipe::codegen;

template <typename T> static OrderedJSON orNull(const std::optional<T> &V) {
  return V ? OrderedJSON(*V) : OrderedJSON(nullptr);
}

static OrderedJSON processJSON(const ProcessSpec &P) {
  OrderedJSON J;
  J["name"] = P.Name;
  J["role"] = P.Role;
  J["node_rank"] = P.NodeRank;
  J["argv"] = P.Argv;
  J["env"] = P.Env;
  J["env_unset"] = P.EnvUnset;
  J["gpus"] = orNull(P.Gpus);
  J["numa"] = nullptr;
  J["port"] = orNull(P.Port);
  if (P.Endpoints) {
    J["endpoints"] = OrderedJSON::object();
    for (const auto &[Name, Path] : *P.Endpoints)
      J["endpoints"][Name] = Path;
  } else {
    J["endpoints"] = nullptr;
  }
  J["after"] = P.After;
  J["ready"]["startup_timeout_s"] = P.StartupTimeoutS;
  J["ready"]["stall_timeout_s"] = P.StallTimeoutS;
  J["ready"]["requires_model"] = orNull(P.RequiresModel);
  J["serves_api"] = P.ServesApi;
  return J;
}

static OrderedJSON cellJSON(const PlanCell &C) {
  OrderedJSON J;
  J["id"] = C.Id;
  J["recipe"] = C.Recipe;
  J["conc"] = C.Conc;
  J["band"] = orNull(C.Band);
  J["server_from"] = orNull(C.ServerFrom);
  J["gpus"] = C.Gpus;
  J["nodes"] = C.Nodes;
  J["knobs"] = OrderedJSON::array();
  for (const PlanKnob &K : C.Knobs)
    J["knobs"].push_back({{"name", K.Name}, {"value", K.Value}, {"origin", K.Origin}});
  J["preflight"] = OrderedJSON::array();
  for (const PreflightStep &S : C.Preflight) {
    OrderedJSON A = {{"action", S.Action}};
    for (const auto &[Key, Value] : S.Fields.items())
      A[Key] = Value;
    J["preflight"].push_back(std::move(A));
  }
  J["processes"] = OrderedJSON::array();
  for (const ProcessSpec &P : C.Processes)
    J["processes"].push_back(processJSON(P));
  // v1.1: only a cell with files has the field, so a v1 plan stays v1.
  if (!C.Files.empty()) {
    J["files"] = OrderedJSON::array();
    for (const auto &[Name, Content] : C.Files)
      J["files"].push_back({{"name", Name}, {"content", Content}});
  }
  OrderedJSON &Client = J["client"];
  Client["target"] = C.Client.Target;
  Client["served_model_name"] = C.Client.ServedModelName;
  Client["concurrency"] = C.Client.Concurrency;
  Client["workload"] = C.Client.Workload;
  Client["session_header"] = orNull(C.Client.SessionHeader);
  J["profile"] = OrderedJSON::array();
  for (const auto &[Start, Duration] : C.Profile)
    J["profile"].push_back({{"start_s", Start}, {"duration_s", Duration}});
  J["validity"]["max_error_rate"] = C.MaxErrorRate;
  J["validity"]["required_metric_prefix"] = orNull(C.RequiredMetricPrefix);
  return J;
}

OrderedJSON codegen::toPlanJSON(const LaunchPlan &Plan) {
  OrderedJSON J;
  // A plan that uses a v1.1 field says so; every other plan stays v1.
  bool V11 =
      std::any_of(Plan.Cells.begin(), Plan.Cells.end(), [](const PlanCell &C) {
        return !C.Files.empty() || C.Client.Workload.contains("endpoint") ||
               C.Client.Workload.contains("use_chat_template") ||
               std::any_of(C.Preflight.begin(), C.Preflight.end(),
                           [](const PreflightStep &S) {
                             return S.Action == "capture";
                           });
      });
  J["schema"] = V11 ? "arecipe.plan/v1.1" : "arecipe.plan/v1";
  J["recipe"] = {{"name", Plan.RecipeName},
                 {"file", Plan.RecipeFile},
                 {"mode", Plan.Mode}};
  J["model"] = {{"id", Plan.ModelId}, {"path", Plan.ModelPath}};
  J["image"] = orNull(Plan.Image);
  J["hardware"] = {{"name", Plan.HardwareName},
                   {"gpus_per_node", Plan.GpusPerNode},
                   {"visible_devices_env", Plan.VisibleDevicesEnv},
                   {"smi", Plan.Smi},
                   {"profile", Plan.HardwareProfile}};
  J["engine"] = {{"name", Plan.EngineName},
                 {"metric_prefix", orNull(Plan.MetricPrefix)}};
  J["container"] = nullptr;
  J["slurm"] = Plan.Slurm;
  J["cells"] = OrderedJSON::array();
  for (const PlanCell &C : Plan.Cells)
    J["cells"].push_back(cellJSON(C));
  return J;
}

void codegen::emitPlan(const LaunchPlan &Plan, llvm::raw_ostream &OS) {
  OS << toPlanJSON(Plan).dump(2) << "\n";
}
