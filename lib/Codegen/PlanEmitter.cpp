//===- PlanEmitter.cpp - `arecipec --emit plan` ---------------------------===//

#include "arecipe/Codegen/PlanEmitter.h"

#include "llvm/Support/raw_ostream.h"

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
  if (!P.ReadyKind.empty())
    J["ready"]["kind"] = P.ReadyKind;
  if (P.ReadyKind == "alive")
    J["ready"]["alive_s"] = P.AliveS;
  J["serves_api"] = P.ServesApi;
  J["template"] = P.Template;
  J["replica"] = P.Replica;
  J["node"] = orNull(P.Node);
  return J;
}

static OrderedJSON cellJSON(const PlanCell &C) {
  OrderedJSON J;
  J["id"] = C.Id;
  J["recipe"] = C.Recipe;
  J["arm"] = orNull(C.Arm);
  J["conc"] = C.Conc;
  J["band"] = orNull(C.Band);
  J["server_from"] = orNull(C.ServerFrom);
  J["gpus"] = C.Gpus;
  J["nodes"] = C.Nodes;
  J["gpus_by_role"] = OrderedJSON::object();
  for (const auto &[Role, Gpus] : C.GpusByRole)
    J["gpus_by_role"][Role] = Gpus;
  J["server_reuse"] = C.ServerReuse;
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
  J["schema"] = "arecipe.plan/v1.1";
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
