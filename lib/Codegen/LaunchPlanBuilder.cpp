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

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

#include "nlohmann/json.hpp"

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

/// The argv words one rendering gave, and the rendering they came from
/// (null: none to reuse, e.g. a JSON flag's member, whose word the
/// rendering shares with its flag's other members).
struct RenderedWords {
  const sema::Rendering *From = nullptr;
  std::vector<std::string> Words;
};

class PlanBuilder {
public:
  PlanBuilder(const llvm::SourceMgr &SM, DiagnosticEngine &Diags)
      : SM(SM), Diags(Diags) {}

  bool lowerHeader(const sema::RecipeCells &R, PlanHeader &Plan);
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

  /// Where A (an assignment; null for none) was written, by assignment.
  llvm::DenseMap<const sema::Assignment *, std::optional<KnobOrigin::Position>>
      Positions;
  std::optional<KnobOrigin::Position> positionOf(const sema::Assignment *A);

  const Value *get(llvm::StringRef Name, llvm::StringRef Role = "") const;
  std::string render(const Value &V, llvm::StringRef What);
  std::vector<PlanKnob> lowerKnobs();
  std::vector<PreflightStep> lowerPreflight();
  std::vector<std::string> argvOf(const sema::ProcessInfo &P,
                                  std::vector<RenderedWords> &Memo);
  ProcessSpec::EnvMap envOf(const sema::ProcessInfo &P);

  /// What the process at each index of the cell lowered last was lowered
  /// from, and what it gave. The cells of a recipe hold the same processes
  /// and mostly the same renderings (a few flags follow the concurrency),
  /// so lowerProcesses reuses what Sema hands again instead of rendering
  /// and copying it in every cell; what differs is lowered anew. Only what
  /// lowered without an error is kept, so a reused part never skips a
  /// diagnostic.
  struct LoweredProcess {
    const sema::Cell *InCell = nullptr;
    /// The process Env was lowered from; null: nothing to reuse.
    const sema::ProcessInfo *EnvFrom = nullptr;
    std::shared_ptr<const ProcessSpec::EnvMap> Env;
    /// By rendering index: its words in the argv.
    std::vector<RenderedWords> Words;
  };
  std::vector<LoweredProcess> LastProcesses;
  std::vector<ProcessSpec> lowerProcesses();
  ClientSpec lowerClient(const std::vector<ProcessSpec> &Processes);
};
} // namespace

const char *codegen::actionName(const PreflightStep &Step) {
  return std::visit(
      [](const auto &S) { return std::decay_t<decltype(S)>::Action; }, Step);
}

bool codegen::usesV11(const PlanCell &C) {
  if (!C.Files.empty())
    return true;
  // An arm, a server kept across an arm, a service, a TCP or alive
  // readiness; GPUs split between roles (a disaggregated cell: its per-GPU
  // figures divide by the GPUs of a role, so the plan says how many each
  // role has).
  if (C.Arm || C.ServerReuse == PlanCell::Reuse::Arm || C.GpusByRole.size() > 1)
    return true;
  for (const ProcessSpec &P : C.Processes)
    if (P.Ready != ProcessSpec::Readiness::Default || P.Role == "service" ||
        P.SimRouter)
      return true;
  for (const PreflightStep &S : C.Preflight)
    if (std::holds_alternative<preflight::Capture>(S))
      return true;
  if (const auto *A = std::get_if<AgenticWorkload>(&C.Client.Workload))
    return A->Endpoint.has_value();
  if (const auto *F = std::get_if<FixedWorkload>(&C.Client.Workload))
    return F->UseChatTemplate || F->Endpoint || F->PromptMode ||
           F->RangeRule == "below";
  return false;
}

/// "c14", or "recipe.c14" when several recipes share the plan.
/// `c14`, `tp4.c14` in an arm; `<recipe>.` before it in a merged plan.
static std::string cellIdOf(const sema::RecipeCells &R, const sema::Cell &C,
                            int64_t Conc, bool Qualify) {
  std::string Id = "c" + std::to_string(Conc);
  if (R.hasArms())
    Id = C.Arm->Name + "." + Id;
  return Qualify ? R.Name + "." + Id : Id;
}

static PlanNumber seconds(const Value &V) {
  return *V.getQuantity().in(Unit::Second);
}

static const Value *field(const sema::EntityInfo *E, llvm::StringRef Name) {
  if (!E)
    return nullptr;
  // Fields compares transparently: no string is built for the lookup.
  auto It = E->Fields.find(std::string_view(Name.data(), Name.size()));
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
    return std::move(*S);
  // At the assignment that set the value, once: the same formula fails in
  // every cell it gives the value (a new user saw one error per cell, at
  // the recipe's name).
  llvm::SMRange Where = whereSet(What);
  if (firstAt(Where, DiagID::err_plan_cannot_render))
    Diags.report(Where, DiagID::err_plan_cannot_render)
        << What << Cell->label() << Why;
  Failed = true;
  return "";
}

std::optional<KnobOrigin::Position>
PlanBuilder::positionOf(const sema::Assignment *A) {
  if (!A)
    return std::nullopt;
  // Most assignments set a knob in every cell: the SourceMgr's line
  // lookup is done once per assignment, not once per knob and cell.
  auto [It, New] = Positions.try_emplace(A);
  if (New)
    if (std::optional<PresumedLoc> P = getPresumedLoc(SM, A->Range.Start))
      It->second = KnobOrigin::Position{P->File, P->Line, P->Column};
  return It->second;
}

std::vector<PlanKnob> PlanBuilder::lowerKnobs() {
  std::vector<PlanKnob> Out;
  Out.reserve(Cell->Values.size());
  for (const auto &[Name, RV] : Cell->Values) {
    llvm::StringRef N = Name;
    // A recipe's files are the cell's `files`, not knobs.
    if (N.startswith("file:"))
      continue;
    // The v1.1 client fields are in the knob list only when the recipe sets
    // them: a plan that does not use them stays v1 byte for byte. (The
    // cheap test first: most knobs have a value.)
    if (RV.V.isNone() && RV.L == sema::Level::Default &&
        (N == "client.num_prompts" || N == "client.use_chat_template" ||
         N == "client.endpoint"))
      continue;
    PlanKnob &K = Out.emplace_back();
    K.Name = Name;
    K.Value = &RV.V;
    K.Origin.Where = positionOf(RV.From);
    K.Origin.Level = RV.L;
  }
  return Out;
}

static std::vector<std::string> strings(const Value &List) {
  std::vector<std::string> Out;
  for (Value E : List.elements())
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
    if (A.Action == "unset_env") {
      Out.push_back(preflight::UnsetEnv{strings(Arg("names"))});
    } else if (A.Action == "require_version") {
      // The tool is a Python package: the probe prints the version the
      // servers will import.
      std::string Tool = Arg("tool").getString();
      preflight::RequireVersion S;
      S.Tool = Tool;
      S.Probe = {"python3", "-c",
                 "import " + Tool + "; print(" + Tool + ".__version__)"};
      S.Pattern = Arg("pattern").getString();
      S.OnMismatchDo = Arg("on_mismatch").getString() == "fail"
                           ? preflight::RequireVersion::OnMismatch::Fail
                           : preflight::RequireVersion::OnMismatch::Warn;
      Out.push_back(std::move(S));
    } else if (A.Action == "stage_model") {
      Out.push_back(preflight::StageModel{Arg("repo").getString(),
                                          Arg("attempts").getInt(),
                                          seconds(Arg("delay"))});
    } else if (A.Action == "check_paths") {
      Out.push_back(preflight::CheckPaths{
          strings(Arg("paths")), Arg("on").getString() == "all_nodes"
                                     ? preflight::CheckPaths::Nodes::All
                                     : preflight::CheckPaths::Nodes::Rank0});
    } else if (A.Action == "wait_clean_gpus") {
      Out.push_back(preflight::WaitCleanGpus{
          Arg("max_used").getNumber(), seconds(Arg("timeout")), GpuPollS});
    } else if (A.Action == "prepare_cache") {
      preflight::PrepareCache S;
      S.Dir = Arg("dir").getString();
      if (!Arg("from_image").isNone())
        S.FromImagePath = Arg("from_image").getString();
      S.Scope = Arg("scope").getString();
      Out.push_back(std::move(S));
    } else if (A.Action == "verify_import") {
      Out.push_back(preflight::VerifyImport{
          Arg("package").getString(), {"python3"}, Arg("expect").getString()});
    } else if (A.Action == "run") {
      Out.push_back(
          preflight::RunStep{strings(Arg("argv")), seconds(Arg("timeout"))});
    } else if (A.Action == "capture") {
      preflight::Capture S{Arg("name").getString(), strings(Arg("argv")),
                           seconds(Arg("timeout")), std::nullopt};
      if (!Arg("simulated").isNone())
        S.SimulatedOutput = Arg("simulated").getString();
      Out.push_back(std::move(S));
    } else {
      llvm_unreachable("Sema knows no other pre-flight action");
    }
  }
  return Out;
}

/// Sets member Key ("a.b") of a JSON flag's object, creating the objects on
/// the way; Sema has checked that no member is rendered twice.
static void setMember(nlohmann::ordered_json &Object, llvm::StringRef Key,
                      nlohmann::ordered_json Value) {
  auto [Head, Rest] = Key.split('.');
  if (Rest.empty()) {
    Object[Head.str()] = std::move(Value);
    return;
  }
  nlohmann::ordered_json &Inner = Object[Head.str()];
  if (!Inner.is_object())
    Inner = nlohmann::ordered_json::object();
  setMember(Inner, Rest, std::move(Value));
}

/// Whether A and B render the same words and environment: the same kind,
/// flag, member and mode, and values that print the same (what render
/// reads; the knob is only named in a diagnostic, but compared so a reuse
/// never changes one).
static bool sameRendering(const sema::Rendering &A, const sema::Rendering &B) {
  if (A.K != B.K || A.Mode != B.Mode || A.V.has_value() != B.V.has_value() ||
      A.Target != B.Target || A.Key != B.Key || A.Knob != B.Knob)
    return false;
  return !A.V || A.V->isIndistinguishableFrom(*B.V);
}

/// The template's command, then each rendering in its declaration order;
/// the members of one JSON flag form one object at the place of the first,
/// in the order they are rendered.
std::vector<std::string> PlanBuilder::argvOf(const sema::ProcessInfo &P,
                                             std::vector<RenderedWords> &Memo) {
  if (Memo.size() < P.Renderings.size())
    Memo.resize(P.Renderings.size());
  std::vector<std::string> Argv;
  const Value *Cmd = field(P.Template, "command");
  // The command, then at most two words per rendering but for lists: one
  // allocation for most processes' argv.
  Argv.reserve((Cmd ? Cmd->listSize() : 0) + 2 * P.Renderings.size());
  if (Cmd)
    for (Value E : Cmd->elements())
      Argv.push_back(E.getString());
  std::map<std::string, std::pair<size_t, nlohmann::ordered_json>> JsonFlags;
  for (size_t Index = 0; Index < P.Renderings.size(); ++Index) {
    const sema::Rendering &R = P.Renderings[Index];
    RenderedWords &M = Memo[Index];
    // The same rendering as the process's in the cell before: its words
    // again, without rendering the values. (Words has the room of the
    // longest seen, so the memo allocates only when a rendering grows.)
    if (M.From && sameRendering(*M.From, R)) {
      Argv.insert(Argv.end(), M.Words.begin(), M.Words.end());
      M.From = &R;
      continue;
    }
    size_t FirstWord = Argv.size();
    bool FailedBefore = Failed;
    Failed = false;
    llvm::StringRef What =
        R.Knob.empty() ? llvm::StringRef(R.Target) : llvm::StringRef(R.Knob);
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
        if (Glued) {
          // `--x=` and the value in one string, built in place.
          std::string Text = render(V, What);
          std::string &Word = Argv.emplace_back();
          Word.reserve(R.Target.size() + Text.size());
          Word += R.Target;
          Word += Text;
        } else {
          Argv.push_back(R.Target);
          Argv.push_back(render(V, What));
        }
      };
      if (R.Mode == sema::Rendering::Each) {
        for (Value E : R.V->elements())
          Put(E);
      } else if (R.Mode == sema::Rendering::Spread) {
        bool First = true;
        for (Value E : R.V->elements()) {
          if (First)
            Put(E);
          else
            Argv.push_back(render(E, What));
          First = false;
        }
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
      for (Value E : R.V->elements())
        Argv.push_back(E.getString());
      break;
    case sema::Rendering::Json: {
      auto [It, New] = JsonFlags.try_emplace(R.Target, Argv.size() + 1,
                                             nlohmann::ordered_json::object());
      if (New) {
        Argv.push_back(R.Target);
        Argv.emplace_back();
      }
      setMember(It->second.second, R.Key,
                nlohmann::ordered_json::parse(sema::toJSON(*R.V)));
      break;
    }
    case sema::Rendering::Env:
    case sema::Rendering::Yaml:
    case sema::Rendering::JsonFile:
      break;
    }
    // Kept for the next cell when it rendered without an error; a JSON
    // member's word is written after the loop, so it is never kept.
    if (!Failed && R.K != sema::Rendering::Json) {
      M.From = &R;
      M.Words.assign(Argv.begin() + FirstWord, Argv.end());
    } else {
      M.From = nullptr;
    }
    Failed |= FailedBefore;
  }
  for (auto &[Flag, Slot] : JsonFlags)
    Argv[Slot.first] = Slot.second.dump();
  return Argv;
}

/// The recipe's `env.*` (an engine process's role's; a router or service
/// only with `inherits_env`), then the template's environment renderings
/// (which win: they are what the process needs for the knobs it was given).
/// A router or service with `node_env` starts from the whole environment of
/// the first engine process on its node, as a launcher that starts it from
/// that engine's shell.
ProcessSpec::EnvMap PlanBuilder::envOf(const sema::ProcessInfo &P) {
  ProcessSpec::EnvMap Env;
  bool FromNode = false;
  if (P.NodeEnv && P.K != sema::ProcessInfo::Engine)
    for (const sema::ProcessInfo &E : Cell->Processes)
      if (E.K == sema::ProcessInfo::Engine && E.NodeRank == P.NodeRank) {
        Env = envOf(E); // It holds the cell's and its role's `env.*`.
        FromNode = true;
        break;
      }
  std::set<std::string> Removed; // `env.X = none` in this cell.
  // Only a process that inherits the recipe's `env.*` (and did not take
  // its node's) reads the cell's values here.
  if (P.InheritsEnv && !FromNode) {
    // The names under a prefix are one run of the sorted table, so only
    // they are visited, and the runs in the table's order (the cell's
    // `env.X` and its role's `prefill.env.X` are never both set; if they
    // were, the later name would win, as it did when the whole table was
    // scanned).
    std::string RolePrefix = P.ValueRole.empty() ? "" : P.ValueRole + ".env.";
    llvm::StringRef Prefixes[2] = {"env.", RolePrefix};
    if (!RolePrefix.empty() && Prefixes[1] < Prefixes[0])
      std::swap(Prefixes[0], Prefixes[1]);
    for (llvm::StringRef Prefix : Prefixes) {
      if (Prefix.empty())
        continue;
      for (auto It = Cell->Values.lower_bound(Prefix), End = Cell->Values.end();
           It != End && llvm::StringRef(It->first).startswith(Prefix); ++It) {
        const sema::ResolvedValue &RV = It->second;
        llvm::StringRef Var = llvm::StringRef(It->first).substr(Prefix.size());
        if (RV.V.isNone()) {
          if (RV.From)
            Removed.insert(Var.str());
          continue;
        }
        Env[Var.str()] = render(RV.V, It->first);
      }
    }
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

/// Whether cells A and B hold the same values under Prefix (`env.`): the
/// same names, values that print the same, and for none whether an
/// assignment set it (what envOf reads of a cell).
static bool sameValuesUnder(const sema::Cell &A, const sema::Cell &B,
                            llvm::StringRef Prefix) {
  auto IA = A.Values.lower_bound(Prefix), EA = A.Values.end();
  auto IB = B.Values.lower_bound(Prefix), EB = B.Values.end();
  for (;; ++IA, ++IB) {
    bool InA = IA != EA && llvm::StringRef(IA->first).startswith(Prefix);
    bool InB = IB != EB && llvm::StringRef(IB->first).startswith(Prefix);
    if (!InA || !InB)
      return InA == InB;
    const sema::ResolvedValue &VA = IA->second, &VB = IB->second;
    if (IA->first != IB->first || !VA.V.isIndistinguishableFrom(VB.V) ||
        (VA.From == nullptr) != (VB.From == nullptr))
      return false;
  }
}

/// Whether envOf gives process P of cell C what it gave Q of cell D:
/// the same kind of process, the same inherited values and the same
/// environment renderings. A process with `node_env` reads another
/// process's environment and is always lowered anew.
static bool sameEnvInputs(const sema::ProcessInfo &P, const sema::Cell &C,
                          const sema::ProcessInfo &Q, const sema::Cell &D) {
  if (P.NodeEnv || Q.NodeEnv || P.K != Q.K || P.InheritsEnv != Q.InheritsEnv ||
      P.ValueRole != Q.ValueRole)
    return false;
  auto IsEnv = [](const sema::Rendering &R) {
    return R.K == sema::Rendering::Env;
  };
  auto RP = llvm::make_filter_range(P.Renderings, IsEnv);
  auto RQ = llvm::make_filter_range(Q.Renderings, IsEnv);
  auto IP = RP.begin(), IQ = RQ.begin();
  for (; IP != RP.end() && IQ != RQ.end(); ++IP, ++IQ)
    if (!sameRendering(*IP, *IQ))
      return false;
  if (IP != RP.end() || IQ != RQ.end())
    return false;
  if (!P.InheritsEnv || &C == &D)
    return true;
  return sameValuesUnder(C, D, "env.") &&
         (P.ValueRole.empty() || sameValuesUnder(C, D, P.ValueRole + ".env."));
}

/// The endpoint paths a template declares, in schema order; an engine's
/// missing ones take the plan's defaults (`/health`, ...).
static std::vector<std::pair<std::string, std::string>>
endpointsOf(const sema::EntityInfo *T, bool Defaults) {
  // Each endpoint: its name, its field and its default path (literals,
  // so a lookup builds no string).
  static const char *const Endpoints[][3] = {
      {"health", "endpoints.health", "/health"},
      {"models", "endpoints.models", "/models"},
      {"metrics", "endpoints.metrics", "/metrics"},
      {"start_profile", "endpoints.start_profile", "/start_profile"},
      {"stop_profile", "endpoints.stop_profile", "/stop_profile"}};
  std::vector<std::pair<std::string, std::string>> Out;
  Out.reserve(std::size(Endpoints));
  for (const auto &[Name, Field, Path] : Endpoints) {
    const Value *V = field(T, Field);
    if (V && V->kind() == ValueKind::String)
      Out.emplace_back(Name, V->getString());
    else if (Defaults)
      Out.emplace_back(Name, Path);
  }
  return Out;
}

/// The router's policy and session header as its declaration names them
/// (`sim_policy_knob`, `sim_header_knob`), for the simulator standing in
/// for it; nothing when it names neither.
static std::optional<ProcessSpec::SimRouterKnobs>
simRouterOf(const sema::ProcessInfo &P) {
  const Value *PolicyKnob = field(P.Template, "sim_policy_knob");
  const Value *HeaderKnob = field(P.Template, "sim_header_knob");
  if (!PolicyKnob && !HeaderKnob)
    return std::nullopt;
  auto Read = [&](const Value *Knob) -> std::optional<std::string> {
    if (!Knob)
      return std::nullopt;
    const sema::ResolvedValue *V = P.findKnob(Knob->getString());
    if (!V ||
        (V->V.kind() != ValueKind::String && V->V.kind() != ValueKind::Enum))
      return std::nullopt;
    return V->V.getString();
  };
  return ProcessSpec::SimRouterKnobs{Read(PolicyKnob), Read(HeaderKnob)};
}

std::vector<ProcessSpec> PlanBuilder::lowerProcesses() {
  std::vector<ProcessSpec> Out;
  Out.reserve(Cell->Processes.size());
  const Value *Startup = get("ready.startup_timeout");
  const Value *Stall = get("ready.stall_timeout");
  bool HasRouter = false;
  for (const sema::ProcessInfo &P : Cell->Processes)
    HasRouter |= P.K == sema::ProcessInfo::Router;
  size_t Index = 0;
  for (const sema::ProcessInfo &P : Cell->Processes) {
    ProcessSpec S;
    S.Name = P.Name;
    S.Role = P.Role;
    S.NodeRank = P.NodeRank;
    S.Template = P.Template ? P.Template->Name : "";
    S.Replica = P.Replica;
    if (LastProcesses.size() <= Index)
      LastProcesses.resize(Index + 1);
    LoweredProcess &Last = LastProcesses[Index++];
    S.Argv = argvOf(P, Last.Words);
    if (Last.EnvFrom && sameEnvInputs(P, *Cell, *Last.EnvFrom, *Last.InCell)) {
      S.Env = Last.Env;
      Last.EnvFrom = &P;
    } else {
      bool FailedBefore = Failed;
      Failed = false;
      S.Env = std::make_shared<const ProcessSpec::EnvMap>(envOf(P));
      // Kept for the next cell only when nothing failed to render.
      Last.EnvFrom = Failed ? nullptr : &P;
      Last.Env = S.Env;
      Failed |= FailedBefore;
    }
    Last.InCell = Cell;
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
      if (P.K == sema::ProcessInfo::Router)
        S.SimRouter = simRouterOf(P);
    }
    switch (P.Ready) {
    case sema::Readiness::Tcp:
      S.Ready = ProcessSpec::Readiness::Tcp;
      break;
    case sema::Readiness::Alive:
      S.Ready = ProcessSpec::Readiness::Alive;
      S.AliveS = P.AliveFor;
      break;
    case sema::Readiness::Http:
    case sema::Readiness::Running:
      break;
    }
    S.After = P.After;
    S.StartupTimeoutS =
        Startup ? seconds(*Startup) : PlanNumber(DefaultStartupTimeoutS);
    S.StallTimeoutS =
        Stall ? seconds(*Stall) : PlanNumber(DefaultStallTimeoutS);
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
  const Value *Warmup = get("client.warmup");
  const Value *NumPrompts = get("client.num_prompts");
  const Value *ChatTemplate = get("client.use_chat_template");
  const Value *Endpoint = get("client.endpoint");
  // Fields of plan v1.1, in the plan only when the recipe sets them.
  auto EndpointOf = [&]() -> std::optional<ClientEndpoint> {
    if (!Endpoint)
      return std::nullopt;
    return Endpoint->getString() == "chat" ? ClientEndpoint::Chat
                                           : ClientEndpoint::Completions;
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
    AgenticWorkload W;
    W.Trace = Trace->getString();
    // client.duration shortens or lengthens the measured window without
    // restating the scenario (e.g. a quick simulated sweep).
    const Value *Duration = get("client.duration");
    W.DurationS = seconds(Duration ? *Duration : *Scenario->lookup("duration"));
    W.WarmupS = Warmup && Warmup->kind() == ValueKind::Quantity
                    ? seconds(*Warmup)
                    : PlanNumber(0);
    const Value *Threshold = get("client.error_threshold");
    W.MaxFailedFraction =
        Threshold ? Threshold->getNumber()
                  : *Rational::fraction(DefaultErrorRatePercent, 100);
    W.Endpoint = EndpointOf();
    C.Workload = std::move(W);
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
  // warm-up of 2 x conc requests (docs/metrics.md#workloads).
  const Value *Prompts = Scenario->lookup("num_prompts");
  const Value *Rate = Scenario->lookup("request_rate");
  FixedWorkload W;
  W.Isl = Scenario->lookup("isl")->getInt();
  W.Osl = Scenario->lookup("osl")->getInt();
  W.RangeRatio = Scenario->lookup("ratio")->getNumber();
  W.RangeRule = Scenario->lookup("range")->getString();
  // client.num_prompts, else the scenario's, else InferenceX's 10 x conc.
  W.NumPrompts = NumPrompts          ? NumPrompts->getInt()
                 : Prompts->isNone() ? 10 * Cell->Conc
                                     : Prompts->getInt();
  W.Warmup = Warmup && Warmup->kind() == ValueKind::Int ? Warmup->getInt()
                                                        : 2 * Cell->Conc;
  W.RequestRate = Rate->isNone() ? PlanNumber(0) : Rate->getNumber();
  if (ChatTemplate)
    W.UseChatTemplate = ChatTemplate->getBool();
  W.Endpoint = EndpointOf();
  // An engine that takes token-id prompts gets exactly ISL tokens per
  // prompt (docs/metrics.md, token-exact prompts); the ids exist only on the
  // completions API, so not when the recipe asks for chat or its template.
  const Value *TokenIds = field(Recipe->Engine, "prompt_token_ids");
  if (TokenIds && TokenIds->kind() == sema::ValueKind::Bool &&
      TokenIds->getBool() && !(W.UseChatTemplate && *W.UseChatTemplate) &&
      W.Endpoint != ClientEndpoint::Chat) {
    W.PromptMode = "token_ids";
    W.Tokenizer = fieldString(Recipe->Model, "path");
  }
  C.Workload = std::move(W);
  return C;
}

bool PlanBuilder::lowerCell(const sema::RecipeCells &R, const sema::Cell &C,
                            bool QualifyIds, PlanCell &Out) {
  Recipe = &R;
  Cell = &C;
  Failed = false;
  Out.Id = cellIdOf(R, C, C.Conc, QualifyIds);
  Out.Recipe = R.Name;
  if (R.hasArms())
    Out.Arm = C.Arm->Name;
  Out.Conc = C.Conc;
  if (C.Band)
    Out.Band = C.Band->Name;
  if (C.ServerFrom)
    Out.ServerFrom = cellIdOf(R, C, *C.ServerFrom, QualifyIds);
  Out.Gpus = C.Gpus;
  Out.Nodes = C.Nodes;
  Out.GpusByRole = C.GpusByRole;
  if (const Value *Reuse = get("server_reuse"))
    Out.ServerReuse = Reuse->getString() == "arm" ? PlanCell::Reuse::Arm
                                                  : PlanCell::Reuse::Cell;
  Out.Knobs = lowerKnobs();
  Out.Preflight = lowerPreflight();
  for (const sema::GeneratedFile &F : C.Files)
    Out.Files.push_back({F.Name, F.Content});
  Out.Processes = lowerProcesses();
  Out.Client = lowerClient(Out.Processes);
  const Value *Start = get("profile.start");
  const Value *Duration = get("profile.duration");
  if (Start && Duration)
    Out.Profile.push_back({seconds(*Start), seconds(*Duration)});
  const Value *Threshold = get("client.error_threshold");
  Out.MaxErrorRate = Threshold
                         ? Threshold->getNumber()
                         : *Rational::fraction(DefaultErrorRatePercent, 100);
  // The runtime scrapes the metrics of the client's target: behind a
  // router that is the router, which exports none of the engine's.
  bool BehindRouter = llvm::any_of(Out.Processes, [](const ProcessSpec &P) {
    return P.Role == "router" && P.ServesApi;
  });
  const Value *Prefix = field(R.Engine, "metric_prefix");
  if (Prefix && !BehindRouter) {
    // An engine whose metrics endpoint a knob switches on (`metrics_knob`)
    // exports no metrics in a cell where that knob is false, so the cell
    // cannot require them for its validity.
    const Value *Switch = nullptr;
    if (const Value *Knob = field(R.Engine, "metrics_knob"))
      Switch = get(Knob->getString());
    if (!(Switch && Switch->kind() == sema::ValueKind::Bool &&
          !Switch->getBool()))
      Out.RequiredMetricPrefix = Prefix->getString();
  }
  return !Failed;
}

namespace {
/// How a declaration's field becomes a plan figure: the plan's key, the
/// plan's unit, and whether only the simulator reads it.
struct FigureSpec {
  const char *Field, *Key;
  enum As { Number, Bytes, BytesPerSecond, Seconds, Text, Numbers } Unit;
  bool SimOnly;
};
} // namespace

// In the order of docs/plan-schema.md's tables.
static const FigureSpec ModelFigureSpecs[] = {
    {"layers", "layers", FigureSpec::Number, true},
    {"hidden_size", "hidden_size", FigureSpec::Number, true},
    {"attention", "attention", FigureSpec::Text, true},
    {"kv_heads", "kv_heads", FigureSpec::Number, true},
    {"head_dim", "head_dim", FigureSpec::Number, true},
    {"kv_lora_rank", "kv_lora_rank", FigureSpec::Number, true},
    {"rope_dim", "rope_dim", FigureSpec::Number, true},
    {"kv_layers", "kv_layers", FigureSpec::Number, true},
    {"kv_bytes_per_token", "kv_bytes_per_token", FigureSpec::Number, false},
    {"attention_heads", "attention_heads", FigureSpec::Number, true},
    {"params_total", "params_total", FigureSpec::Number, false},
    {"params_active", "params_active", FigureSpec::Number, false},
    {"experts", "experts", FigureSpec::Number, true},
    {"experts_per_token", "experts_per_token", FigureSpec::Number, true},
    {"checkpoint", "checkpoint_bytes", FigureSpec::Bytes, false},
    {"precision", "precision", FigureSpec::Text, false},
    {"context_length", "context_length", FigureSpec::Number, false},
    {"state_per_sequence", "state_bytes_per_sequence", FigureSpec::Bytes, true},
    {"activation_reserve", "activation_reserve_bytes", FigureSpec::Bytes, true},
    {"draft_checkpoint", "draft_checkpoint_bytes", FigureSpec::Bytes, true},
    {"attention_flops_per_token_pair", "attention_flops_per_token_pair",
     FigureSpec::Number, true},
    {"acceptance_lengths", "acceptance_lengths", FigureSpec::Numbers, true},
};

static const FigureSpec HardwareFigureSpecs[] = {
    {"hbm", "hbm_bytes", FigureSpec::Bytes, false},
    {"hbm_bandwidth", "hbm_bandwidth", FigureSpec::BytesPerSecond, false},
    {"flops_bf16", "flops_bf16", FigureSpec::Number, false},
    {"flops_fp8", "flops_fp8", FigureSpec::Number, false},
    {"flops_fp4", "flops_fp4", FigureSpec::Number, false},
    {"interconnect_bandwidth", "interconnect_bandwidth",
     FigureSpec::BytesPerSecond, true},
    {"host_to_device_bandwidth", "host_to_device_bandwidth",
     FigureSpec::BytesPerSecond, true},
    {"dram", "dram_bytes", FigureSpec::Bytes, false},
    {"calibration.mem_efficiency", "calibration.mem_efficiency",
     FigureSpec::Number, true},
    {"calibration.flops_efficiency", "calibration.flops_efficiency",
     FigureSpec::Number, true},
    {"calibration.step_overhead", "calibration.step_overhead_s",
     FigureSpec::Seconds, true},
    {"calibration.stage_overhead", "calibration.stage_overhead_s",
     FigureSpec::Seconds, true},
    {"calibration.weight_load_bandwidth", "calibration.weight_load_bandwidth",
     FigureSpec::BytesPerSecond, true},
    {"calibration.graph_capture_per_size",
     "calibration.graph_capture_s_per_size", FigureSpec::Seconds, true},
};

/// The figures E sets, exactly, in the plan's units. SimOnly tells whether
/// any of them is one only the simulator reads.
template <size_t N>
static std::vector<SimFigure> simFigures(const sema::EntityInfo *E,
                                         const FigureSpec (&Specs)[N],
                                         bool &SimOnly) {
  std::vector<SimFigure> Out;
  for (const FigureSpec &F : Specs) {
    const Value *V = field(E, F.Field);
    if (!V || V->isNone())
      continue;
    SimOnly |= F.SimOnly;
    SimFigure Fig{F.Key, {}};
    // Sema has checked each field's type, so the quantities convert.
    switch (F.Unit) {
    case FigureSpec::Number:
      Fig.V = V->getNumber();
      break;
    case FigureSpec::Bytes:
      Fig.V = *V->getQuantity().in(Unit::B);
      break;
    case FigureSpec::BytesPerSecond: {
      // The base unit of a rate is bytes per nanosecond. A rate beyond
      // 64-bit exactness stays out of the plan, and the simulator then
      // names it as missing rather than reading a wrong figure.
      auto PerSecond = V->getQuantity().baseValue() * Rational(1000000000);
      if (!PerSecond)
        continue;
      Fig.V = *PerSecond;
      break;
    }
    case FigureSpec::Seconds:
      Fig.V = seconds(*V);
      break;
    case FigureSpec::Text:
      Fig.V = V->getString();
      break;
    case FigureSpec::Numbers: {
      std::vector<PlanNumber> List;
      for (const Value &El : V->elements())
        List.push_back(El.getNumber());
      Fig.V = std::move(List);
      break;
    }
    }
    Out.push_back(std::move(Fig));
  }
  return Out;
}

bool PlanBuilder::lowerHeader(const sema::RecipeCells &R, PlanHeader &Plan) {
  const sema::Cell &First = R.Cells.front();
  Plan.RecipeName = R.Name;
  Plan.RecipeFile = R.File;
  const sema::ResolvedValue *Mode = First.find("mode");
  Plan.Mode = Mode ? Mode->V.getString() : "bench";
  Plan.ModelId = fieldString(R.Model, "id");
  Plan.ModelPath = fieldString(R.Model, "path");
  if (const sema::ResolvedValue *Image = First.find("image");
      Image && !Image->V.isNone())
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
  // The simulation figures go into the plan once the recipe describes what
  // only the simulator reads (the model's shape, the hardware's links or
  // calibration): a plan that carries any figure is simulated from its
  // figures alone. Declarations without such a figure keep a v1 plan,
  // simulated from the profile catalogue when it knows them.
  bool SimOnly = false;
  Plan.ModelFigures = simFigures(R.Model, ModelFigureSpecs, SimOnly);
  Plan.HardwareFigures = simFigures(R.Hardware, HardwareFigureSpecs, SimOnly);
  if (!SimOnly) {
    Plan.ModelFigures.clear();
    Plan.HardwareFigures.clear();
  } else {
    Plan.UsesV11 = true;
  }
  Plan.EngineName = R.Engine ? R.Engine->Name : "";
  if (const Value *Prefix = field(R.Engine, "metric_prefix"))
    Plan.MetricPrefix = Prefix->getString();
  Plan.Slurm.reset();
  Recipe = &R;
  Cell = &First;
  const Value *Partition = get("slurm.partition");
  const Value *Account = get("slurm.account");
  const Value *Limit = get("slurm.time_limit");
  const Value *Nodelist = get("slurm.nodelist");
  if (Partition || Account || Limit || Nodelist) {
    SlurmSpec &S = Plan.Slurm.emplace();
    if (Partition)
      S.Partition = Partition->getString();
    if (Account)
      S.Account = Account->getString();
    if (Limit)
      S.TimeLimitS = seconds(*Limit);
    if (Nodelist)
      S.Nodelist = *Nodelist;
  }
  return true;
}

/// `server_reuse = arm`: one server runs every cell of the arm, so their
/// processes must be the same (argv and environment). FirstOfArm holds the
/// first such cell of each arm seen so far (only those are kept, so the
/// check does not hold the plan); C is compared with its arm's.
static bool checkServerReuse(const sema::RecipeCells &R, const PlanCell &C,
                             std::map<std::string, PlanCell> &FirstOfArm,
                             DiagnosticEngine &Diags) {
  if (C.ServerReuse != PlanCell::Reuse::Arm)
    return true;
  std::string Arm = C.Arm.value_or("");
  auto It = FirstOfArm.find(Arm);
  if (It == FirstOfArm.end()) {
    FirstOfArm.emplace(Arm, C);
    return true;
  }
  const PlanCell &Ref = It->second;
  std::string Why;
  if (Ref.Processes.size() != C.Processes.size())
    Why = "a different number of processes";
  for (size_t P = 0; Why.empty() && P < C.Processes.size(); ++P) {
    const ProcessSpec &A = Ref.Processes[P], &B = C.Processes[P];
    if (A.Argv != B.Argv)
      Why = "the argv of '" + B.Name + "'";
    else if (A.env() != B.env())
      Why = "the environment of '" + B.Name + "'";
  }
  if (Why.empty())
    return true;
  Diags.report(R.NameRange, DiagID::err_plan_server_reuse_differs)
      << (C.Arm ? "arm '" + Arm + "'" : "recipe '" + R.Name + "'") << C.Id
      << Ref.Id << Why;
  return false;
}

/// What a merged plan holds once: the values two recipes must agree on.
static std::vector<std::pair<const char *, std::string>>
sharedHeader(const PlanHeader &P) {
  return {{"model", P.ModelId},
          {"image", P.Image.value_or("none")},
          {"hardware", P.HardwareName},
          {"engine", P.EngineName},
          {"mode", P.Mode}};
}

struct PlanLowering::Impl {
  Impl(const sema::Compilation &C, PlanOptions Opts, DiagnosticEngine &Diags)
      : C(C), Opts(std::move(Opts)), Diags(Diags),
        Builder(C.getSourceMgr(), Diags) {}

  const sema::Compilation &C;
  PlanOptions Opts;
  DiagnosticEngine &Diags;
  PlanBuilder Builder;
  PlanHeader Header;
  /// Several recipes share the plan: cell ids name their recipe.
  bool Merged = false;
  /// One cell of the plan, and what check() lowered for it while it is
  /// kept (see KeptCells).
  struct Entry {
    const sema::RecipeCells *R;
    const sema::Cell *C;
    std::unique_ptr<PlanCell> Lowered;
  };
  /// The plan's cells in output order: ascending concurrency, then recipe
  /// order; a recipe with arms keeps its arms' cells together, arm by arm.
  std::vector<Entry> Cells;
  /// check() keeps what it lowered for the first this many cells, so
  /// writing them does not lower them again (lowering is a fifth of
  /// writing); a larger plan's later cells are lowered again one at a
  /// time, so a plan of 10,000 cells is still never whole in memory.
  static constexpr size_t KeptCells = 256;
  bool Checked = false;
};

PlanLowering::PlanLowering(const sema::Compilation &C, PlanOptions Opts,
                           DiagnosticEngine &Diags)
    : P(std::make_unique<Impl>(C, std::move(Opts), Diags)) {}

PlanLowering::~PlanLowering() = default;

bool PlanLowering::check() {
  Impl &I = *P;
  std::vector<const sema::RecipeCells *> Recipes;
  size_t CellCount = 0;
  for (const auto &R : I.C.recipes())
    if (I.Opts.Recipe.empty() || R->Name == I.Opts.Recipe) {
      Recipes.push_back(R.get());
      CellCount += R->Cells.size();
    }
  if (Recipes.empty()) {
    if (I.Opts.Recipe.empty()) {
      I.Diags.report(llvm::SMLoc(), DiagID::err_plan_no_recipe);
      return false;
    }
    // The names only for the error, not in every compilation.
    std::string Names;
    for (const auto &R : I.C.recipes())
      Names += (Names.empty() ? "" : ", ") + ("'" + R->Name + "'");
    I.Diags.report(llvm::SMLoc(), DiagID::err_plan_unknown_recipe)
        << I.Opts.Recipe << (Names.empty() ? "" : "; recipes: " + Names);
    return false;
  }
  I.Cells.reserve(CellCount);
  bool Ok = I.Builder.lowerHeader(*Recipes.front(), I.Header);
  I.Merged = Recipes.size() > 1;
  // A plan of several recipes is named after their file.
  if (I.Merged)
    I.Header.RecipeName = llvm::sys::path::stem(I.Header.RecipeFile).str();
  bool Arms = false;
  for (const sema::RecipeCells *R : Recipes) {
    Arms |= R->hasArms();
    if (R != Recipes.front()) {
      PlanHeader Other;
      I.Builder.lowerHeader(*R, Other);
      auto Mine = sharedHeader(I.Header), Theirs = sharedHeader(Other);
      for (size_t N = 0; N < Mine.size(); ++N)
        if (Mine[N].second != Theirs[N].second) {
          I.Diags.report(R->NameRange, DiagID::err_plan_recipes_differ)
              << Recipes.front()->Name << R->Name << Mine[N].first
              << ("'" + Mine[N].second + "'") << ("'" + Theirs[N].second + "'");
          Ok = false;
        }
    }
    // Each cell is lowered here for its diagnostics; the first KeptCells
    // are kept for cell() to hand out.
    std::map<std::string, PlanCell> FirstOfArm;
    for (const sema::Cell &Cell : R->Cells) {
      auto Lowered = std::make_unique<PlanCell>();
      bool CellOk = I.Builder.lowerCell(*R, Cell, I.Merged, *Lowered);
      Ok &= CellOk;
      I.Header.UsesV11 |= usesV11(*Lowered);
      if (CellOk)
        Ok &= checkServerReuse(*R, *Lowered, FirstOfArm, I.Diags);
      if (!CellOk || I.Cells.size() >= Impl::KeptCells)
        Lowered.reset();
      I.Cells.push_back({R, &Cell, std::move(Lowered)});
    }
  }
  // Arms keep their cells together (`server_reuse = arm` runs them on one
  // server, in order); otherwise cells are in ascending concurrency.
  if (!Arms)
    std::stable_sort(I.Cells.begin(), I.Cells.end(),
                     [](const Impl::Entry &A, const Impl::Entry &B) {
                       return A.C->Conc < B.C->Conc;
                     });
  I.Checked = Ok;
  return Ok;
}

const PlanHeader &PlanLowering::header() const { return P->Header; }

size_t PlanLowering::size() const { return P->Cells.size(); }

PlanCell PlanLowering::cell(size_t N) {
  assert(P->Checked && "check() must succeed before cells are written");
  // What check() lowered is handed out once; a second request for the same
  // cell lowers it again.
  if (std::unique_ptr<PlanCell> Kept = std::move(P->Cells[N].Lowered))
    return std::move(*Kept);
  PlanCell Out;
  bool Ok =
      P->Builder.lowerCell(*P->Cells[N].R, *P->Cells[N].C, P->Merged, Out);
  assert(Ok && "lowering is deterministic: check() saw this cell succeed");
  (void)Ok;
  return Out;
}

std::string PlanLowering::cellId(size_t N) const {
  return cellIdOf(*P->Cells[N].R, *P->Cells[N].C, P->Cells[N].C->Conc,
                  P->Merged);
}

int64_t PlanLowering::cellConc(size_t N) const { return P->Cells[N].C->Conc; }

const std::string &PlanLowering::cellRecipe(size_t N) const {
  return P->Cells[N].R->Name;
}
