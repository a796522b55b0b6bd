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

  const Value *get(llvm::StringRef Name, llvm::StringRef Role = "") const;
  std::string render(const Value &V, llvm::StringRef What);
  std::vector<PlanKnob> lowerKnobs();
  std::vector<PreflightStep> lowerPreflight();
  std::vector<std::string> argvOf(const sema::ProcessInfo &P);
  std::map<std::string, std::string> envOf(const sema::ProcessInfo &P);
  std::vector<ProcessSpec> lowerProcesses();
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

const Value *PlanBuilder::get(llvm::StringRef Name,
                              llvm::StringRef Role) const {
  const sema::ResolvedValue *RV = Cell->find(Name, Role);
  return RV && !RV->V.isNone() ? &RV->V : nullptr;
}

std::string PlanBuilder::render(const Value &V, llvm::StringRef What) {
  std::string Why;
  if (std::optional<std::string> S = sema::renderValue(V, &Why))
    return *S;
  Diags.report(Recipe->NameRange, DiagID::err_plan_cannot_render)
      << What << Cell->label() << Why;
  Failed = true;
  return "";
}

std::vector<PlanKnob> PlanBuilder::lowerKnobs() {
  std::vector<PlanKnob> Out;
  for (const auto &[Name, RV] : Cell->Values) {
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
    }
    Out.push_back(std::move(S));
  }
  return Out;
}

/// The template's command, then each rendering in its declaration order;
/// the members of one JSON flag form one object at the place of the first.
std::vector<std::string> PlanBuilder::argvOf(const sema::ProcessInfo &P) {
  std::vector<std::string> Argv;
  if (const Value *Cmd = field(P.Template, "command"))
    Argv = strings(*Cmd);
  std::map<std::string, std::pair<size_t, nlohmann::json>> JsonFlags;
  for (const sema::Rendering &R : P.Renderings) {
    llvm::StringRef What =
        R.Knob.empty() ? llvm::StringRef(R.Target) : llvm::StringRef(R.Knob);
    switch (R.K) {
    case sema::Rendering::Flag:
      // `each` repeats the flag before every element of a list, `spread`
      // puts the elements after one flag; an empty list renders nothing.
      if (R.V && R.Mode != sema::RenderInfo::Single) {
        if (R.V->kind() != ValueKind::List) {
          Diags.report(Recipe->NameRange, DiagID::err_plan_cannot_render)
              << What << Cell->label()
              << ("'" + R.Target +
                  (R.Mode == sema::RenderInfo::Each ? "' each" : "' spread") +
                  " needs a list, not " + R.V->describeType());
          Failed = true;
          break;
        }
        const std::vector<Value> &Elems = R.V->getElements();
        for (size_t N = 0; N < Elems.size(); ++N) {
          if (N == 0 || R.Mode == sema::RenderInfo::Each)
            Argv.push_back(R.Target);
          Argv.push_back(render(Elems[N], What));
        }
        break;
      }
      Argv.push_back(R.Target);
      if (R.V)
        Argv.push_back(render(*R.V, What));
      break;
    case sema::Rendering::Switch:
      Argv.push_back(R.Target);
      break;
    case sema::Rendering::Arg:
      Argv.push_back(render(*R.V, What));
      break;
    case sema::Rendering::Json: {
      auto [It, New] = JsonFlags.try_emplace(R.Target, Argv.size() + 1,
                                             nlohmann::json::object());
      if (New) {
        Argv.push_back(R.Target);
        Argv.emplace_back();
      }
      It->second.second[R.Key] = nlohmann::json::parse(sema::toJSON(*R.V));
      break;
    }
    case sema::Rendering::Env:
    case sema::Rendering::Args:
    case sema::Rendering::Yaml:
    case sema::Rendering::JsonFile:
      break;
    }
  }
  for (auto &[Flag, Slot] : JsonFlags)
    Argv[Slot.first] = Slot.second.dump();
  return Argv;
}

/// The recipe's `env.*` (an engine process's role's; a router or service
/// only with `inherits_env`), then the template's environment renderings
/// (which win: they are what the process needs for the knobs it was given).
std::map<std::string, std::string>
PlanBuilder::envOf(const sema::ProcessInfo &P) {
  std::map<std::string, std::string> Env;
  std::string RolePrefix = P.ValueRole.empty() ? "" : P.ValueRole + ".env.";
  for (const auto &[Name, RV] : Cell->Values) {
    if (!P.InheritsEnv || RV.V.isNone())
      continue;
    llvm::StringRef N = Name;
    if (N.startswith("env."))
      Env[N.substr(4).str()] = render(RV.V, Name);
    else if (!RolePrefix.empty() && N.startswith(RolePrefix))
      Env[N.substr(RolePrefix.size()).str()] = render(RV.V, Name);
  }
  for (const sema::Rendering &R : P.Renderings) {
    if (R.K != sema::Rendering::Env || !R.V)
      continue;
    // `-> env` renders bools as 1/0 (docs/language.md §6.6).
    if (R.V->kind() == ValueKind::Bool)
      Env[R.Target] = R.V->getBool() ? "1" : "0";
    else
      Env[R.Target] = render(*R.V, R.Knob.empty() ? R.Target : R.Knob);
  }
  return Env;
}

/// The endpoint paths a template declares, in schema order; an engine's
/// missing ones take the plan's defaults (`/health`, ...).
static std::vector<std::pair<std::string, std::string>>
endpointsOf(const sema::EntityInfo *T, bool Defaults) {
  std::vector<std::pair<std::string, std::string>> Out;
  for (const char *E :
       {"health", "models", "metrics", "start_profile", "stop_profile"}) {
    const Value *V = field(T, std::string("endpoints.") + E);
    if (V && V->kind() == ValueKind::String)
      Out.emplace_back(E, V->getString());
    else if (Defaults)
      Out.emplace_back(E, std::string("/") + E);
  }
  return Out;
}

std::vector<ProcessSpec> PlanBuilder::lowerProcesses() {
  std::vector<ProcessSpec> Out;
  const Value *Startup = get("ready.startup_timeout");
  const Value *Stall = get("ready.stall_timeout");
  bool HasRouter = false;
  for (const sema::ProcessInfo &P : Cell->Processes)
    HasRouter |= P.K == sema::ProcessInfo::Router;
  for (const sema::ProcessInfo &P : Cell->Processes) {
    ProcessSpec S;
    S.Name = P.Name;
    S.Role = P.Role;
    S.NodeRank = P.NodeRank;
    S.Template = P.Template ? P.Template->Name : "";
    S.Replica = P.Replica;
    S.Argv = argvOf(P);
    S.Env = envOf(P);
    const Value *Served = get("served_model_name", P.ValueRole);
    if (P.K == sema::ProcessInfo::Engine) {
      S.Node = P.Node;
      S.Gpus.emplace();
      for (int64_t G = 0; G < P.Gpus; ++G)
        S.Gpus->push_back(P.FirstGpu + G);
      // A headless process has no HTTP server: it is ready once running.
      if (!P.Headless) {
        S.Port = P.Port.value_or(0);
        S.Endpoints = endpointsOf(P.Template, /*Defaults=*/true);
        if (Served && Served->kind() == ValueKind::String)
          S.RequiresModel = Served->getString();
      }
      // The client's target: the router, else the (only) server.
      S.ServesApi = !HasRouter && P.Role == "server" && P.Replica == 0;
    } else {
      S.Port = P.Port;
      std::vector<std::pair<std::string, std::string>> E =
          endpointsOf(P.Template, /*Defaults=*/false);
      if (!E.empty())
        S.Endpoints = std::move(E);
      // A router lists the served model like the engines behind it.
      bool Models = false;
      for (const auto &[Name, Path] : S.Endpoints.value_or(
               std::vector<std::pair<std::string, std::string>>()))
        Models |= Name == "models";
      if (Models && Served && Served->kind() == ValueKind::String)
        S.RequiresModel = Served->getString();
      S.ServesApi = P.K == sema::ProcessInfo::Router;
    }
    switch (P.Ready) {
    case sema::Readiness::Tcp:
      S.ReadyKind = "tcp";
      break;
    case sema::Readiness::Alive:
      S.ReadyKind = "alive";
      S.AliveS = number(P.AliveFor);
      break;
    case sema::Readiness::Http:
    case sema::Readiness::Running:
      break;
    }
    S.After = P.After;
    S.StartupTimeoutS =
        Startup ? seconds(*Startup) : OrderedJSON(DefaultStartupTimeoutS);
    S.StallTimeoutS =
        Stall ? seconds(*Stall) : OrderedJSON(DefaultStallTimeoutS);
    Out.push_back(std::move(S));
  }
  return Out;
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
  if (Scenario->getRecordName() == "agentic") {
    const Value *Trace = Scenario->lookup("trace");
    if (Trace->isNone()) {
      if (firstForRecipe(DiagID::err_plan_agentic_trace))
        Diags.report(Recipe->NameRange, DiagID::err_plan_agentic_trace)
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
    return C;
  }
  // A fixed run is as long as its prompts take; a duration would be
  // silently ignored, so it is an error.
  if (get("client.duration")) {
    Diags.report(Recipe->NameRange, DiagID::err_plan_fixed_duration) << Recipe->Name;
    Failed = true;
    return C;
  }
  // fixed(isl, osl): InferenceX's defaults, 10 x conc prompts after a
  // warm-up of 2 x conc requests.
  const Value *Prompts = Scenario->lookup("num_prompts");
  const Value *Rate = Scenario->lookup("request_rate");
  W["kind"] = "fixed";
  W["isl"] = Scenario->lookup("isl")->getInt();
  W["osl"] = Scenario->lookup("osl")->getInt();
  W["range_ratio"] = number(Scenario->lookup("ratio")->getNumber());
  W["num_prompts"] = Prompts->isNone() ? 10 * Cell->Conc : Prompts->getInt();
  W["warmup"] = Warmup && Warmup->kind() == ValueKind::Int ? Warmup->getInt()
                                                           : 2 * Cell->Conc;
  W["ignore_eos"] = true;
  W["request_rate"] = Rate->isNone() ? OrderedJSON(0) : number(Rate->getNumber());
  return C;
}

bool PlanBuilder::lowerCell(const sema::RecipeCells &R, const sema::Cell &C,
                            bool QualifyIds, PlanCell &Out) {
  Recipe = &R;
  Cell = &C;
  Failed = false;
  // `c14`, `tp4.c14` in an arm; `<recipe>.` before it in a merged plan.
  auto IdOf = [&](int64_t Conc) {
    std::string Id = "c" + std::to_string(Conc);
    if (R.hasArms())
      Id = C.Arm->Name + "." + Id;
    return QualifyIds ? R.Name + "." + Id : Id;
  };
  Out.Id = IdOf(C.Conc);
  Out.Recipe = R.Name;
  if (R.hasArms())
    Out.Arm = C.Arm->Name;
  Out.Conc = C.Conc;
  if (C.Band)
    Out.Band = C.Band->Name;
  if (C.ServerFrom)
    Out.ServerFrom = IdOf(*C.ServerFrom);
  Out.Gpus = C.Gpus;
  Out.Nodes = C.Nodes;
  Out.GpusByRole = C.GpusByRole;
  if (const Value *Reuse = get("server_reuse"))
    Out.ServerReuse = Reuse->getString();
  Out.Knobs = lowerKnobs();
  Out.Preflight = lowerPreflight();
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
  Plan.VisibleDevicesEnv =
      fieldString(R.Hardware, "visible_devices_env", "CUDA_VISIBLE_DEVICES");
  Plan.Smi = fieldString(R.Hardware, "smi", "nvidia-smi");
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

/// `server_reuse = arm`: one server runs every cell of the arm, so their
/// processes must be the same (argv and environment).
static bool checkServerReuse(const sema::RecipeCells &R, const LaunchPlan &Plan,
                             size_t First, DiagnosticEngine &Diags) {
  bool Ok = true;
  std::map<std::string, const PlanCell *> FirstOfArm;
  for (size_t I = First; I < Plan.Cells.size(); ++I) {
    const PlanCell &C = Plan.Cells[I];
    if (C.ServerReuse != "arm")
      continue;
    std::string Arm = C.Arm.value_or("");
    auto [It, New] = FirstOfArm.try_emplace(Arm, &C);
    if (New)
      continue;
    const PlanCell &Ref = *It->second;
    std::string Why;
    if (Ref.Processes.size() != C.Processes.size())
      Why = "a different number of processes";
    for (size_t P = 0; Why.empty() && P < C.Processes.size(); ++P) {
      const ProcessSpec &A = Ref.Processes[P], &B = C.Processes[P];
      if (A.Argv != B.Argv)
        Why = "the argv of '" + B.Name + "'";
      else if (A.Env != B.Env)
        Why = "the environment of '" + B.Name + "'";
    }
    if (Why.empty())
      continue;
    Diags.report(R.NameRange, DiagID::err_plan_server_reuse_differs)
        << (C.Arm ? "arm '" + Arm + "'" : "recipe '" + R.Name + "'") << C.Id
        << Ref.Id << Why;
    Ok = false;
  }
  return Ok;
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
  bool Arms = false;
  for (const sema::RecipeCells *R : Recipes) {
    Arms |= R->hasArms();
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
    size_t First = Plan.Cells.size();
    for (const sema::Cell &Cell : R->Cells) {
      Plan.Cells.emplace_back();
      Ok &= B.lowerCell(*R, Cell, Merged, Plan.Cells.back());
    }
    Ok &= checkServerReuse(*R, Plan, First, Diags);
  }
  // Arms keep their cells together (`server_reuse = arm` runs them on one
  // server, in order); otherwise cells are in ascending concurrency.
  if (!Arms)
    std::stable_sort(
        Plan.Cells.begin(), Plan.Cells.end(),
        [](const PlanCell &A, const PlanCell &B) { return A.Conc < B.Conc; });
  if (!Ok)
    return std::nullopt;
  return Plan;
}
