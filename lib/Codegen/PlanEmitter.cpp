//===- PlanEmitter.cpp - `arecipec --emit plan` ---------------------------===//

#include "arecipe/Codegen/PlanEmitter.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace arecipe;
using namespace arecipe::codegen;

OrderedJSON codegen::toJSON(const PlanNumber &N) {
  if (N.isInteger())
    return N.numerator();
  return static_cast<double>(N.numerator()) /
         static_cast<double>(N.denominator());
}

std::string codegen::toText(const PlanNumber &N) { return toJSON(N).dump(); }

template <typename T> static OrderedJSON orNull(const std::optional<T> &V) {
  return V ? OrderedJSON(*V) : OrderedJSON(nullptr);
}

static OrderedJSON valueJSON(const sema::Value &V) {
  return OrderedJSON::parse(sema::toJSON(V));
}

static OrderedJSON originJSON(const KnobOrigin &O) {
  OrderedJSON J = OrderedJSON::object();
  if (O.Where) {
    J["file"] = O.Where->File;
    J["line"] = O.Where->Line;
    J["col"] = O.Where->Col;
  }
  J["level"] = sema::getSpelling(O.Level).str();
  return J;
}

namespace {
/// The fields of each pre-flight action after its `action`, in schema
/// order.
struct PreflightFields {
  OrderedJSON &J;
  void operator()(const preflight::UnsetEnv &S) { J["names"] = S.Names; }
  void operator()(const preflight::RequireVersion &S) {
    J["tool"] = S.Tool;
    J["probe"] = S.Probe;
    J["pattern"] = S.Pattern;
    J["on_mismatch"] =
        S.OnMismatchDo == preflight::RequireVersion::OnMismatch::Fail ? "fail"
                                                                      : "warn";
  }
  void operator()(const preflight::StageModel &S) {
    J["repo"] = S.Repo;
    J["attempts"] = S.Attempts;
    J["delay_s"] = toJSON(S.DelayS);
    J["env"] = OrderedJSON::object();
  }
  void operator()(const preflight::CheckPaths &S) {
    J["paths"] = S.Paths;
    J["nodes"] = S.On == preflight::CheckPaths::Nodes::All ? "all" : "rank0";
  }
  void operator()(const preflight::WaitCleanGpus &S) {
    J["max_used_fraction"] = toJSON(S.MaxUsedFraction);
    J["timeout_s"] = toJSON(S.TimeoutS);
    J["poll_s"] = S.PollS;
  }
  void operator()(const preflight::PrepareCache &S) {
    J["dir"] = S.Dir;
    if (S.FromImagePath)
      J["from_image_path"] = *S.FromImagePath;
    J["scope"] = S.Scope;
    J["fallback"] = "private";
  }
  void operator()(const preflight::VerifyImport &S) {
    J["package"] = S.Package;
    J["python"] = S.Python;
    J["expect_prefix"] = S.ExpectPrefix;
  }
  void operator()(const preflight::RunStep &S) {
    J["argv"] = S.Argv;
    J["timeout_s"] = toJSON(S.TimeoutS);
  }
  void operator()(const preflight::Capture &S) {
    J["name"] = S.Name;
    J["argv"] = S.Argv;
    J["timeout_s"] = toJSON(S.TimeoutS);
    if (S.SimulatedOutput)
      J["simulated_output"] = *S.SimulatedOutput;
  }
};

static const char *endpointName(ClientEndpoint E) {
  return E == ClientEndpoint::Chat ? "chat" : "completions";
}

struct WorkloadFields {
  OrderedJSON &W;
  void operator()(std::monostate) {}
  void operator()(const AgenticWorkload &A) {
    W["kind"] = "agentic";
    W["trace"] = A.Trace;
    W["duration_s"] = toJSON(A.DurationS);
    W["warmup_s"] = toJSON(A.WarmupS);
    W["max_failed_fraction"] = toJSON(A.MaxFailedFraction);
    if (A.Endpoint)
      W["endpoint"] = endpointName(*A.Endpoint);
  }
  void operator()(const FixedWorkload &F) {
    W["kind"] = "fixed";
    W["isl"] = F.Isl;
    W["osl"] = F.Osl;
    W["range_ratio"] = toJSON(F.RangeRatio);
    // v1.1: a v1 plan's lengths are vLLM's rule, so "around" needs no
    // field and such a plan stays v1.
    if (F.RangeRule == "below")
      W["range_rule"] = F.RangeRule;
    W["num_prompts"] = F.NumPrompts;
    W["warmup"] = F.Warmup;
    W["ignore_eos"] = true;
    W["request_rate"] = toJSON(F.RequestRate);
    if (F.UseChatTemplate)
      W["use_chat_template"] = *F.UseChatTemplate;
    if (F.Endpoint)
      W["endpoint"] = endpointName(*F.Endpoint);
    if (F.PromptMode) {
      W["prompt_mode"] = *F.PromptMode;
      W["tokenizer"] = F.Tokenizer;
    }
  }
};
} // namespace

static OrderedJSON processJSON(const ProcessSpec &P, bool V11) {
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
  J["ready"]["startup_timeout_s"] = toJSON(P.StartupTimeoutS);
  J["ready"]["stall_timeout_s"] = toJSON(P.StallTimeoutS);
  J["ready"]["requires_model"] = orNull(P.RequiresModel);
  switch (P.Ready) {
  case ProcessSpec::Readiness::Default:
    break;
  case ProcessSpec::Readiness::Tcp:
    J["ready"]["kind"] = "tcp";
    break;
  case ProcessSpec::Readiness::Alive:
    J["ready"]["kind"] = "alive";
    J["ready"]["alive_s"] = toJSON(P.AliveS);
    break;
  }
  J["serves_api"] = P.ServesApi;
  if (V11) {
    J["template"] = P.Template;
    J["replica"] = P.Replica;
    J["node"] = orNull(P.Node);
    if (P.SimRouter) {
      J["sim_router"]["policy"] = orNull(P.SimRouter->Policy);
      J["sim_router"]["header"] = orNull(P.SimRouter->Header);
    }
  }
  return J;
}

OrderedJSON codegen::toJSON(const PlanCell &C) {
  OrderedJSON J;
  J["id"] = C.Id;
  J["recipe"] = C.Recipe;
  // v1.1's fields only in a cell that uses v1.1, so a v1 plan stays v1.
  bool V11 = usesV11(C);
  if (V11)
    J["arm"] = orNull(C.Arm);
  J["conc"] = C.Conc;
  J["band"] = orNull(C.Band);
  J["server_from"] = orNull(C.ServerFrom);
  J["gpus"] = C.Gpus;
  J["nodes"] = C.Nodes;
  if (V11) {
    J["gpus_by_role"] = OrderedJSON::object();
    for (const auto &[Role, Gpus] : C.GpusByRole)
      J["gpus_by_role"][Role] = Gpus;
    J["server_reuse"] = C.ServerReuse == PlanCell::Reuse::Arm ? "arm" : "cell";
  }
  J["knobs"] = OrderedJSON::array();
  for (const PlanKnob &K : C.Knobs)
    J["knobs"].push_back({{"name", K.Name},
                          {"value", valueJSON(K.Value)},
                          {"origin", originJSON(K.Origin)}});
  J["preflight"] = OrderedJSON::array();
  for (const PreflightStep &S : C.Preflight) {
    OrderedJSON A = {{"action", actionName(S)}};
    std::visit(PreflightFields{A}, S);
    J["preflight"].push_back(std::move(A));
  }
  J["processes"] = OrderedJSON::array();
  for (const ProcessSpec &P : C.Processes)
    J["processes"].push_back(processJSON(P, V11));
  // v1.1: only a cell with files has the field, so a v1 plan stays v1.
  if (!C.Files.empty()) {
    J["files"] = OrderedJSON::array();
    for (const PlanFile &F : C.Files)
      J["files"].push_back({{"name", F.Name}, {"content", F.Content}});
  }
  OrderedJSON &Client = J["client"];
  Client["target"] = C.Client.Target;
  Client["served_model_name"] = C.Client.ServedModelName;
  Client["concurrency"] = C.Client.Concurrency;
  Client["workload"] = nullptr;
  std::visit(WorkloadFields{Client["workload"]}, C.Client.Workload);
  Client["session_header"] = orNull(C.Client.SessionHeader);
  J["profile"] = OrderedJSON::array();
  for (const ProfileWindow &W : C.Profile)
    J["profile"].push_back(
        {{"start_s", toJSON(W.StartS)}, {"duration_s", toJSON(W.DurationS)}});
  J["validity"]["max_error_rate"] = toJSON(C.MaxErrorRate);
  J["validity"]["required_metric_prefix"] = orNull(C.RequiredMetricPrefix);
  return J;
}

static OrderedJSON slurmJSON(const std::optional<SlurmSpec> &S) {
  if (!S)
    return nullptr;
  OrderedJSON J = OrderedJSON::object();
  J["partition"] = orNull(S->Partition);
  J["account"] = orNull(S->Account);
  J["time_limit_s"] = S->TimeLimitS ? toJSON(*S->TimeLimitS) : nullptr;
  J["nodelist"] = S->Nodelist ? valueJSON(*S->Nodelist) : OrderedJSON("auto");
  return J;
}

/// Appends the simulation figures to a plan object: "calibration.X" goes
/// into a nested `calibration` object.
static void addFigures(OrderedJSON &J, const std::vector<SimFigure> &Figures) {
  for (const SimFigure &F : Figures) {
    OrderedJSON V;
    if (const auto *N = std::get_if<PlanNumber>(&F.V))
      V = toJSON(*N);
    else if (const auto *S = std::get_if<std::string>(&F.V))
      V = *S;
    else {
      V = OrderedJSON::array();
      for (const PlanNumber &E : std::get<std::vector<PlanNumber>>(F.V))
        V.push_back(toJSON(E));
    }
    llvm::StringRef Key = F.Key;
    if (Key.consume_front("calibration."))
      J["calibration"][Key.str()] = std::move(V);
    else
      J[F.Key] = std::move(V);
  }
}

OrderedJSON codegen::toJSON(const PlanHeader &Plan) {
  OrderedJSON J;
  // A plan that uses a v1.1 field says so; every other plan stays v1.
  J["schema"] = Plan.UsesV11 ? "arecipe.plan/v1.1" : "arecipe.plan/v1";
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
  addFigures(J["model"], Plan.ModelFigures);
  addFigures(J["hardware"], Plan.HardwareFigures);
  J["engine"] = {{"name", Plan.EngineName},
                 {"metric_prefix", orNull(Plan.MetricPrefix)}};
  J["container"] = nullptr;
  J["slurm"] = slurmJSON(Plan.Slurm);
  J["cells"] = OrderedJSON::array();
  return J;
}

/// Text as it appears nested Depth spaces deep in an indented dump: every
/// line but the first shifted right. (A JSON string never holds a raw
/// newline, so lines are the dump's own.)
static void writeIndented(llvm::StringRef Text, unsigned Depth,
                          llvm::raw_ostream &OS) {
  for (size_t Begin = 0; Begin < Text.size();) {
    size_t End = Text.find('\n', Begin);
    if (End == llvm::StringRef::npos)
      End = Text.size();
    OS.indent(Depth) << Text.slice(Begin, End);
    if (End < Text.size())
      OS << '\n';
    Begin = End + 1;
  }
}

void codegen::emitPlan(PlanLowering &Plan, llvm::raw_ostream &OS) {
  // The document is the header with an empty "cells" array, dumped as
  // nlohmann::json dumps it, with the cells written into the array one at
  // a time -- byte for byte the dump of the whole document, which is never
  // built.
  std::string Header = toJSON(Plan.header()).dump(2);
  llvm::StringRef Text(Header);
  const llvm::StringRef EmptyCells = "[]\n}";
  assert(Text.endswith(EmptyCells) && "\"cells\" is the header's last key");
  if (!Plan.size()) {
    OS << Text << "\n";
    return;
  }
  OS << Text.drop_back(EmptyCells.size()) << "[\n";
  for (size_t I = 0; I < Plan.size(); ++I) {
    writeIndented(toJSON(Plan.cell(I)).dump(2), 4, OS);
    OS << (I + 1 < Plan.size() ? ",\n" : "\n");
  }
  OS << "  ]\n}\n";
}
