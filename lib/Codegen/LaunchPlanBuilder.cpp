//===- LaunchPlanBuilder.cpp - Resolved cells to a launch plan ------------===//
//
// One function per part of a cell (knobs, pre-flight, processes, client);
// each reads Sema's resolved values and fills the plan structures of
// LaunchPlan.h. Defaults the language leaves to the plan (readiness
// timeouts, the GPU poll interval, the error-rate threshold) are stated
// here once and documented in docs/plan-schema.md.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Codegen/LaunchPlan.h"

#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Basic/SourceLocation.h"
#include "arecipe/Sema/Sema.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include <set>

using namespace arecipe;
using namespace arecipe::codegen;
using sema::Value;
using sema::ValueKind;

namespace {
/// Defaults for what a recipe may leave unsaid (docs/plan-schema.md).
constexpr int64_t DefaultStartupTimeoutS = 3600;
constexpr int64_t DefaultStallTimeoutS = 600;
constexpr int64_t GpuPollS = 5;
constexpr int64_t DefaultErrorRatePercent = 10;

class PlanBuilder {
public:
  PlanBuilder(const llvm::SourceMgr &SM, DiagnosticEngine &Diags)
      : SM(SM), Diags(Diags) {}

  bool lowerHeader(const sema::RecipeCells &R, LaunchPlan &Plan);
  bool lowerCell(const sema::RecipeCells &R, const sema::Cell &C,
                 bool QualifyIds, PlanCell &Out);

private:
  const llvm::SourceMgr &SM;
  DiagnosticEngine &Diags;
  const sema::RecipeCells *Recipe = nullptr;
  const sema::Cell *Cell = nullptr;
  bool Failed = false;
  /// Recipe-level errors already reported: one per recipe, not per cell (F9).
  std::set<std::pair<const sema::RecipeCells *, unsigned>> RecipeErrors;
  bool firstForRecipe(DiagID ID) {
    return RecipeErrors.insert({Recipe, static_cast<unsigned>(ID)}).second;
  }
  /// Errors at an assignment already reported: one per place, not per cell.
  std::set<std::pair<const char *, unsigned>> PlaceErrors;
  bool firstAt(llvm::SMRange Where, DiagID ID) {
    return PlaceErrors.insert({Where.Start.getPointer(), unsigned(ID)}).second;
  }
  /// Where Name's value in the cell was written, else the recipe's name.
  llvm::SMRange whereSet(llvm::StringRef Name) const {
    const sema::ResolvedValue *RV = Cell->find(Name);
    if (RV && RV->From && RV->From->NameRange.isValid())
      return RV->From->NameRange;
    return Recipe->NameRange;
  }

  const Value *get(llvm::StringRef Name) const;
  std::string render(const Value &V, llvm::StringRef What);
  std::vector<PlanKnob> lowerKnobs();
  std::vector<PreflightStep> lowerPreflight();
  std::vector<std::string> argvOf(const sema::ServerProcess &P);
  std::map<std::string, std::string> envOf(const sema::ServerProcess &P);
  std::vector<ProcessSpec> lowerProcesses();
  std::optional<ProcessSpec> lowerRouter(const std::vector<ProcessSpec> &Servers);
  ClientSpec lowerClient(const std::vector<ProcessSpec> &Processes);
};
} // namespace

/// Exact numbers stay exact: integers as JSON integers, anything else as
/// the nearest double (plan fields are seconds and fractions).
static OrderedJSON number(const Rational &R) {
  if (R.isInteger())
    return R.numerator();
  return static_cast<double>(R.numerator()) /
         static_cast<double>(R.denominator());
}

static OrderedJSON seconds(const Value &V) {
  return number(*V.getQuantity().in(Unit::Second));
}

static const Value *field(const sema::EntityInfo *E, llvm::StringRef Name) {
  if (!E)
    return nullptr;
  auto It = E->Fields.find(Name.str());
  return It == E->Fields.end() ? nullptr : &It->second;
}

static std::string fieldString(const sema::EntityInfo *E, llvm::StringRef Name,
                               llvm::StringRef Default = "") {
  const Value *V = field(E, Name);
  return V && V->kind() == ValueKind::String ? V->getString() : Default.str();
}

const Value *PlanBuilder::get(llvm::StringRef Name) const {
  const sema::ResolvedValue *RV = Cell->find(Name);
  return RV && !RV->V.isNone() ? &RV->V : nullptr;
}

std::string PlanBuilder::render(const Value &V, llvm::StringRef What) {
  std::string Why;
  if (std::optional<std::string> S = sema::renderValue(V, &Why))
    return *S;
  // At the assignment that set the value, once: the same formula fails in
  // every cell it gives the value (a new user saw one error per cell, at
  // the recipe's name).
  llvm::SMRange Where = whereSet(What);
  if (firstAt(Where, DiagID::err_plan_cannot_render))
    Diags.report(Where, DiagID::err_plan_cannot_render)
        << What << Cell->Conc << Why;
  Failed = true;
  return "";
}

std::vector<PlanKnob> PlanBuilder::lowerKnobs() {
  std::vector<PlanKnob> Out;
  for (const auto &[Name, RV] : Cell->Values) {
    // A recipe's files are the cell's `files`, not knobs.
    if (llvm::StringRef(Name).startswith("file:"))
      continue;
    // The v1.1 client fields are in the knob list only when the recipe sets
    // them: a plan that does not use them stays v1 byte for byte.
    if ((Name == "client.num_prompts" || Name == "client.use_chat_template" ||
         Name == "client.endpoint") &&
        RV.L == sema::Level::Default && RV.V.isNone())
      continue;
    PlanKnob K;
    K.Name = Name;
    K.Value = OrderedJSON::parse(sema::toJSON(RV.V));
    K.Origin = OrderedJSON::object();
    llvm::SMRange Where = RV.From ? RV.From->Range : llvm::SMRange();
    if (std::optional<PresumedLoc> P = getPresumedLoc(SM, Where.Start)) {
      K.Origin["file"] = P->File.str();
      K.Origin["line"] = P->Line;
      K.Origin["col"] = P->Column;
    }
    K.Origin["level"] = sema::getSpelling(RV.L).str();
    Out.push_back(std::move(K));
  }
  return Out;
}

static std::vector<std::string> strings(const Value &List) {
  std::vector<std::string> Out;
  for (const Value &E : List.getElements())
    Out.push_back(E.getString());
  return Out;
}

std::vector<PreflightStep> PlanBuilder::lowerPreflight() {
  std::vector<PreflightStep> Out;
  for (const sema::PreflightAction &A : Cell->Preflight) {
    auto Arg = [&](llvm::StringRef Name) -> const Value & {
      for (const auto &[N, V] : A.Args)
        if (N == Name)
          return V;
      llvm_unreachable("Sema fills every argument of a pre-flight action");
    };
    PreflightStep S;
    S.Action = A.Action;
    OrderedJSON &F = S.Fields;
    if (A.Action == "unset_env") {
      F["names"] = strings(Arg("names"));
    } else if (A.Action == "require_version") {
      // The tool is a Python package: the probe prints the version the
      // servers will import.
      std::string Tool = Arg("tool").getString();
      F["tool"] = Tool;
      F["probe"] = {"python3", "-c",
                    "import " + Tool + "; print(" + Tool + ".__version__)"};
      F["pattern"] = Arg("pattern").getString();
      F["on_mismatch"] = Arg("on_mismatch").getString();
    } else if (A.Action == "stage_model") {
      F["repo"] = Arg("repo").getString();
      F["attempts"] = Arg("attempts").getInt();
      F["delay_s"] = seconds(Arg("delay"));
      F["env"] = OrderedJSON::object();
    } else if (A.Action == "check_paths") {
      F["paths"] = strings(Arg("paths"));
      F["nodes"] = Arg("on").getString() == "all_nodes" ? "all" : "rank0";
    } else if (A.Action == "wait_clean_gpus") {
      F["max_used_fraction"] = number(Arg("max_used").getNumber());
      F["timeout_s"] = seconds(Arg("timeout"));
      F["poll_s"] = GpuPollS;
    } else if (A.Action == "prepare_cache") {
      F["dir"] = Arg("dir").getString();
      if (!Arg("from_image").isNone())
        F["from_image_path"] = Arg("from_image").getString();
      F["scope"] = Arg("scope").getString();
      F["fallback"] = "private";
    } else if (A.Action == "verify_import") {
      F["package"] = Arg("package").getString();
      F["python"] = {"python3"};
      F["expect_prefix"] = Arg("expect").getString();
    } else if (A.Action == "run") {
      F["argv"] = strings(Arg("argv"));
      F["timeout_s"] = seconds(Arg("timeout"));
    } else if (A.Action == "capture") {
      F["name"] = Arg("name").getString();
      F["argv"] = strings(Arg("argv"));
      F["timeout_s"] = seconds(Arg("timeout"));
    }
    Out.push_back(std::move(S));
  }
  return Out;
}

/// Sets member Key ("a.b") of a JSON flag's object, creating the objects on
/// the way; Sema has checked that no member is rendered twice.
static void setMember(OrderedJSON &Object, llvm::StringRef Key,
                      OrderedJSON Value) {
  auto [Head, Rest] = Key.split('.');
  if (Rest.empty()) {
    Object[Head.str()] = std::move(Value);
    return;
  }
  OrderedJSON &Inner = Object[Head.str()];
  if (!Inner.is_object())
    Inner = OrderedJSON::object();
  setMember(Inner, Rest, std::move(Value));
}

/// The engine's command, then each rendering in engine declaration order;
/// the members of one JSON flag form one object at the place of the first,
/// in the order they are rendered.
std::vector<std::string> PlanBuilder::argvOf(const sema::ServerProcess &P) {
  std::vector<std::string> Argv;
  if (const Value *Cmd = field(Recipe->Engine, "command"))
    Argv = strings(*Cmd);
  std::map<std::string, std::pair<size_t, OrderedJSON>> JsonFlags;
  for (const sema::Rendering &R : P.Renderings) {
    llvm::StringRef What = R.Knob.empty() ? llvm::StringRef(R.Target)
                                          : llvm::StringRef(R.Knob);
    switch (R.K) {
    case sema::Rendering::Flag: {
      if (!R.V) {
        Argv.push_back(R.Target);
        break;
      }
      // `--x=` renders one word per value; `each` repeats the flag per
      // element; `spread` puts the elements after one flag.
      bool Glued = llvm::StringRef(R.Target).endswith("=");
      auto Put = [&](const Value &V) {
        if (Glued)
          Argv.push_back(R.Target + render(V, What));
        else {
          Argv.push_back(R.Target);
          Argv.push_back(render(V, What));
        }
      };
      if (R.Mode == sema::RenderInfo::Each) {
        for (const Value &E : R.V->getElements())
          Put(E);
      } else if (R.Mode == sema::RenderInfo::Spread) {
        const std::vector<Value> &Elems = R.V->getElements();
        Put(Elems.front());
        for (size_t N = 1; N < Elems.size(); ++N)
          Argv.push_back(render(Elems[N], What));
      } else {
        Put(*R.V);
      }
      break;
    }
    case sema::Rendering::Switch:
      Argv.push_back(R.Target);
      break;
    case sema::Rendering::Arg:
      Argv.push_back(render(*R.V, What));
      break;
    case sema::Rendering::Args:
      for (const Value &E : R.V->getElements())
        Argv.push_back(E.getString());
      break;
    case sema::Rendering::Json: {
      auto [It, New] = JsonFlags.try_emplace(R.Target, Argv.size() + 1,
                                             OrderedJSON::object());
      if (New) {
        Argv.push_back(R.Target);
        Argv.emplace_back();
      }
      setMember(It->second.second, R.Key,
                OrderedJSON::parse(sema::toJSON(*R.V)));
      break;
    }
    case sema::Rendering::Env:
    case sema::Rendering::Yaml:
    case sema::Rendering::JsonFile:
      break;
    }
  }
  for (auto &[Flag, Slot] : JsonFlags)
    Argv[Slot.first] = Slot.second.dump();
  return Argv;
}

/// The recipe's `env.*`, then the engine's environment renderings (which
/// win: they are what the engine needs for the knobs it was given).
std::map<std::string, std::string>
PlanBuilder::envOf(const sema::ServerProcess &P) {
  std::map<std::string, std::string> Env;
  std::set<std::string> Removed; // `env.X = none` in this cell.
  for (const auto &[Name, RV] : Cell->Values) {
    if (!llvm::StringRef(Name).startswith("env."))
      continue;
    if (RV.V.isNone()) {
      if (RV.From)
        Removed.insert(Name.substr(4));
      continue;
    }
    Env[Name.substr(4)] = render(RV.V, Name);
  }
  for (const sema::Rendering &R : P.Renderings) {
    if (R.K != sema::Rendering::Env || !R.V || Removed.count(R.Target))
      continue;
    // `-> env` renders bools as 1/0 (docs/language.md §6.6).
    if (R.V->kind() == ValueKind::Bool)
      Env[R.Target] = R.V->getBool() ? "1" : "0";
    else
      Env[R.Target] = render(*R.V, R.Knob.empty() ? R.Target : R.Knob);
  }
  return Env;
}

static std::string processName(const sema::ServerProcess &P) {
  if (P.Role == "server")
    return "server";
  if (P.Role == "worker")
    return "rank" + std::to_string(P.NodeRank);
  return P.Role + std::to_string(P.Rank);
}

std::vector<ProcessSpec> PlanBuilder::lowerProcesses() {
  std::vector<ProcessSpec> Out;
  const Value *Port = get("port");
  const Value *Served = get("served_model_name");
  const Value *Startup = get("ready.startup_timeout");
  const Value *Stall = get("ready.stall_timeout");
  for (const sema::ServerProcess &P : Cell->Servers) {
    ProcessSpec S;
    S.Name = processName(P);
    S.Role = P.Role;
    S.NodeRank = P.NodeRank;
    S.Argv = argvOf(P);
    S.Env = envOf(P);
    S.Gpus.emplace();
    for (int64_t G = 0; G < P.Gpus; ++G)
      S.Gpus->push_back(G);
    // A headless worker has no HTTP server: it is ready once running.
    if (P.Role != "worker") {
      S.Port = Port && Port->kind() == ValueKind::Int ? Port->getInt() : 0;
      S.Endpoints.emplace();
      for (const char *E : {"health", "models", "metrics", "start_profile",
                            "stop_profile"})
        S.Endpoints->emplace_back(
            E, fieldString(Recipe->Engine, std::string("endpoints.") + E,
                           std::string("/") + E));
      if (Served && Served->kind() == ValueKind::String)
        S.RequiresModel = Served->getString();
    }
    S.StartupTimeoutS =
        Startup ? seconds(*Startup) : OrderedJSON(DefaultStartupTimeoutS);
    S.StallTimeoutS = Stall ? seconds(*Stall) : OrderedJSON(DefaultStallTimeoutS);
    S.ServesApi = P.Role == "server";
    Out.push_back(std::move(S));
  }
  if (std::optional<ProcessSpec> Router = lowerRouter(Out))
    Out.push_back(std::move(*Router));
  return Out;
}

/// The address of a cell's node is known only once it is allocated; argv
/// names it `{node_addr:K}` for the runtime to substitute.
static std::string url(const ProcessSpec &P) {
  return "http://{node_addr:" + std::to_string(P.NodeRank) +
         "}:" + std::to_string(P.Port.value_or(0));
}

std::optional<ProcessSpec>
PlanBuilder::lowerRouter(const std::vector<ProcessSpec> &Servers) {
  const Value *Topo = get("topology");
  const Value *Router = Topo ? Topo->lookup("router") : nullptr;
  if (!Router || Router->isNone())
    return std::nullopt;
  ProcessSpec R;
  R.Name = "router";
  R.Role = "router";
  R.Port = Router->lookup("port")->getInt();
  R.Argv = {"atomesh", "launch", "--pd-disaggregation", "--port",
            std::to_string(*R.Port)};
  for (const char *Role : {"prefill", "decode"})
    for (const ProcessSpec &S : Servers)
      if (S.Role == Role) {
        R.Argv.push_back(std::string("--") + Role);
        R.Argv.push_back(url(S));
        R.After.push_back(S.Name);
      }
  R.Argv.push_back("--prefill-policy");
  R.Argv.push_back(Router->lookup("policy")->getString());
  if (const Value *Header = Router->lookup("session_header");
      Header && !Header->isNone()) {
    R.Argv.push_back("--session-header");
    R.Argv.push_back(Header->getString());
  }
  R.Endpoints.emplace();
  R.Endpoints->emplace_back("health", "/health");
  R.Endpoints->emplace_back("models", "/v1/models");
  if (const Value *Served = get("served_model_name"))
    R.RequiresModel = Served->getString();
  R.StartupTimeoutS = Servers.front().StartupTimeoutS;
  R.StallTimeoutS = Servers.front().StallTimeoutS;
  R.ServesApi = true;
  return R;
}

ClientSpec PlanBuilder::lowerClient(const std::vector<ProcessSpec> &Processes) {
  ClientSpec C;
  for (const ProcessSpec &P : Processes)
    if (P.ServesApi)
      C.Target = P.Name;
  if (const Value *M = get("client.model"))
    C.ServedModelName = M->getString();
  C.Concurrency = Cell->Conc;
  if (const Value *H = get("client.session_header"))
    C.SessionHeader = H->getString();
  const Value *Scenario = get("scenario");
  if (!Scenario) {
    if (firstForRecipe(DiagID::err_plan_no_scenario))
      Diags.report(Recipe->NameRange, DiagID::err_plan_no_scenario)
          << Recipe->Name;
    Failed = true;
    return C;
  }
  OrderedJSON &W = C.Workload;
  const Value *Warmup = get("client.warmup");
  const Value *NumPrompts = get("client.num_prompts");
  const Value *ChatTemplate = get("client.use_chat_template");
  const Value *Endpoint = get("client.endpoint");
  // Fields of plan v1.1, written only when the recipe sets them.
  auto AddClientFields = [&] {
    if (ChatTemplate)
      W["use_chat_template"] = ChatTemplate->getBool();
    if (Endpoint)
      W["endpoint"] = Endpoint->getString();
  };
  if (Scenario->getRecordName() == "agentic") {
    for (const char *Name : {"client.num_prompts", "client.use_chat_template"})
      if (get(Name)) {
        if (firstAt(whereSet(Name), DiagID::err_plan_client_fixed_only))
          Diags.report(whereSet(Name), DiagID::err_plan_client_fixed_only)
              << Recipe->Name << Name;
        Failed = true;
        return C;
      }
    const Value *Trace = Scenario->lookup("trace");
    if (Trace->isNone()) {
      if (firstForRecipe(DiagID::err_plan_agentic_trace))
        Diags.report(whereSet("scenario"), DiagID::err_plan_agentic_trace)
            << Recipe->Name;
      Failed = true;
      return C;
    }
    W["kind"] = "agentic";
    W["trace"] = Trace->getString();
    // client.duration shortens or lengthens the measured window without
    // restating the scenario (e.g. a quick simulated sweep).
    const Value *Duration = get("client.duration");
    W["duration_s"] = seconds(Duration ? *Duration : *Scenario->lookup("duration"));
    W["warmup_s"] = Warmup && Warmup->kind() == ValueKind::Quantity
                        ? seconds(*Warmup)
                        : OrderedJSON(0);
    const Value *Threshold = get("client.error_threshold");
    W["max_failed_fraction"] =
        Threshold ? number(Threshold->getNumber())
                  : number(*Rational::fraction(DefaultErrorRatePercent, 100));
    AddClientFields();
    return C;
  }
  // A fixed run is as long as its prompts take; a duration would be
  // silently ignored, so it is an error.
  if (get("client.duration")) {
    if (firstForRecipe(DiagID::err_plan_fixed_duration))
      Diags.report(whereSet("client.duration"), DiagID::err_plan_fixed_duration)
          << Recipe->Name;
    Failed = true;
    return C;
  }
  // fixed(isl, osl): InferenceX's defaults, 10 x conc prompts after a
  // warm-up of 2 x conc requests (domain.md §6).
  const Value *Prompts = Scenario->lookup("num_prompts");
  const Value *Rate = Scenario->lookup("request_rate");
  W["kind"] = "fixed";
  W["isl"] = Scenario->lookup("isl")->getInt();
  W["osl"] = Scenario->lookup("osl")->getInt();
  W["range_ratio"] = number(Scenario->lookup("ratio")->getNumber());
  // client.num_prompts, else the scenario's, else InferenceX's 10 x conc.
  W["num_prompts"] = NumPrompts          ? NumPrompts->getInt()
                     : Prompts->isNone() ? 10 * Cell->Conc
                                         : Prompts->getInt();
  W["warmup"] = Warmup && Warmup->kind() == ValueKind::Int ? Warmup->getInt()
                                                           : 2 * Cell->Conc;
  W["ignore_eos"] = true;
  W["request_rate"] = Rate->isNone() ? OrderedJSON(0) : number(Rate->getNumber());
  AddClientFields();
  return C;
}

bool PlanBuilder::lowerCell(const sema::RecipeCells &R, const sema::Cell &C,
                            bool QualifyIds, PlanCell &Out) {
  Recipe = &R;
  Cell = &C;
  Failed = false;
  auto IdOf = [&](int64_t Conc) {
    std::string Id = "c" + std::to_string(Conc);
    return QualifyIds ? R.Name + "." + Id : Id;
  };
  Out.Id = IdOf(C.Conc);
  Out.Recipe = R.Name;
  Out.Conc = C.Conc;
  if (C.Band)
    Out.Band = C.Band->Name;
  if (C.ServerFrom)
    Out.ServerFrom = IdOf(*C.ServerFrom);
  Out.Gpus = C.Gpus;
  Out.Nodes = C.Nodes;
  Out.Knobs = lowerKnobs();
  Out.Preflight = lowerPreflight();
  for (const sema::GeneratedFile &F : C.Files)
    Out.Files.emplace_back(F.Name, F.Content);
  Out.Processes = lowerProcesses();
  Out.Client = lowerClient(Out.Processes);
  const Value *Start = get("profile.start");
  const Value *Duration = get("profile.duration");
  if (Start && Duration)
    Out.Profile.emplace_back(seconds(*Start), seconds(*Duration));
  const Value *Threshold = get("client.error_threshold");
  Out.MaxErrorRate = Threshold
                         ? number(Threshold->getNumber())
                         : number(*Rational::fraction(DefaultErrorRatePercent, 100));
  if (const Value *Prefix = field(R.Engine, "metric_prefix"))
    Out.RequiredMetricPrefix = Prefix->getString();
  return !Failed;
}

bool PlanBuilder::lowerHeader(const sema::RecipeCells &R, LaunchPlan &Plan) {
  const sema::Cell &First = R.Cells.front();
  Plan.RecipeName = R.Name;
  Plan.RecipeFile = R.File;
  const sema::ResolvedValue *Mode = First.find("mode");
  Plan.Mode = Mode ? Mode->V.getString() : "bench";
  Plan.ModelId = fieldString(R.Model, "id");
  Plan.ModelPath = fieldString(R.Model, "path");
  if (const sema::ResolvedValue *Image = First.find("image"); Image && !Image->V.isNone())
    Plan.Image = Image->V.getString();
  Plan.HardwareName = R.Hardware ? R.Hardware->Name : "";
  if (const Value *G = field(R.Hardware, "gpus_per_node"))
    Plan.GpusPerNode = G->getInt();
  // Sema requires `vendor`; it picks what the hardware does not say.
  const Value *Vendor = field(R.Hardware, "vendor");
  bool Amd = Vendor && Vendor->kind() == ValueKind::Enum &&
             Vendor->getString() == "amd";
  Plan.VisibleDevicesEnv =
      fieldString(R.Hardware, "visible_devices_env",
                  Amd ? "HIP_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES");
  Plan.Smi = fieldString(R.Hardware, "smi", Amd ? "amd-smi" : "nvidia-smi");
  Plan.HardwareProfile = fieldString(R.Hardware, "profile", Plan.HardwareName);
  Plan.EngineName = R.Engine ? R.Engine->Name : "";
  if (const Value *Prefix = field(R.Engine, "metric_prefix"))
    Plan.MetricPrefix = Prefix->getString();
  Plan.Slurm = nullptr;
  Recipe = &R;
  Cell = &First;
  const Value *Partition = get("slurm.partition");
  const Value *Account = get("slurm.account");
  const Value *Limit = get("slurm.time_limit");
  const Value *Nodelist = get("slurm.nodelist");
  if (Partition || Account || Limit || Nodelist) {
    Plan.Slurm = OrderedJSON::object();
    Plan.Slurm["partition"] = Partition ? OrderedJSON(Partition->getString()) : nullptr;
    Plan.Slurm["account"] = Account ? OrderedJSON(Account->getString()) : nullptr;
    Plan.Slurm["time_limit_s"] = Limit ? seconds(*Limit) : nullptr;
    Plan.Slurm["nodelist"] =
        Nodelist ? OrderedJSON::parse(sema::toJSON(*Nodelist)) : OrderedJSON("auto");
  }
  return true;
}

/// What a merged plan holds once: the values two recipes must agree on.
static std::vector<std::pair<const char *, std::string>>
sharedHeader(const LaunchPlan &P) {
  return {{"model", P.ModelId},
          {"image", P.Image.value_or("none")},
          {"hardware", P.HardwareName},
          {"engine", P.EngineName},
          {"mode", P.Mode}};
}

std::optional<LaunchPlan>
codegen::buildLaunchPlan(const sema::Compilation &C, const PlanOptions &Opts,
                         DiagnosticEngine &Diags) {
  std::vector<const sema::RecipeCells *> Recipes;
  std::string Names;
  for (const auto &R : C.recipes()) {
    Names += (Names.empty() ? "" : ", ") + ("'" + R->Name + "'");
    if (Opts.Recipe.empty() || R->Name == Opts.Recipe)
      Recipes.push_back(R.get());
  }
  if (Recipes.empty()) {
    if (Opts.Recipe.empty())
      Diags.report(llvm::SMLoc(), DiagID::err_plan_no_recipe);
    else
      Diags.report(llvm::SMLoc(), DiagID::err_plan_unknown_recipe)
          << Opts.Recipe << (Names.empty() ? "" : "; recipes: " + Names);
    return std::nullopt;
  }
  PlanBuilder B(C.getSourceMgr(), Diags);
  LaunchPlan Plan;
  bool Ok = B.lowerHeader(*Recipes.front(), Plan);
  // Several recipes share one plan: its name is the file's, cell ids name
  // their recipe.
  bool Merged = Recipes.size() > 1;
  if (Merged)
    Plan.RecipeName = llvm::sys::path::stem(Plan.RecipeFile).str();
  for (const sema::RecipeCells *R : Recipes) {
    if (R != Recipes.front()) {
      LaunchPlan Other;
      B.lowerHeader(*R, Other);
      auto Mine = sharedHeader(Plan), Theirs = sharedHeader(Other);
      for (size_t I = 0; I < Mine.size(); ++I)
        if (Mine[I].second != Theirs[I].second) {
          Diags.report(R->NameRange, DiagID::err_plan_recipes_differ)
              << Recipes.front()->Name << R->Name << Mine[I].first
              << ("'" + Mine[I].second + "'") << ("'" + Theirs[I].second + "'");
          Ok = false;
        }
    }
    for (const sema::Cell &Cell : R->Cells) {
      Plan.Cells.emplace_back();
      Ok &= B.lowerCell(*R, Cell, Merged, Plan.Cells.back());
    }
  }
  std::stable_sort(Plan.Cells.begin(), Plan.Cells.end(),
                   [](const PlanCell &A, const PlanCell &B) {
                     return A.Conc < B.Conc;
                   });
  if (!Ok)
    return std::nullopt;
  return Plan;
}
