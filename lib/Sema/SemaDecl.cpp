//===- SemaDecl.cpp - Hardware, models, engines, knobs and types ---------===//
//
// The constant declarations: each hardware, model and engine has a closed
// set of fields evaluated once, in its own file's scope; an engine also
// declares its closed set of knobs with their types, defaults, constraints
// and renderings. File-level `let` constants are evaluated on first use.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <set>

using namespace arecipe;
using namespace arecipe::sema;

namespace {
struct FieldSpec {
  const char *Name;
  Type::Kind K;
};
} // namespace

static const std::vector<FieldSpec> &fieldsOf(EntityInfo::Kind K) {
  static const std::vector<FieldSpec> Hardware = {
      {"vendor", Type::Any},          {"gpus_per_node", Type::Int},
      {"hbm", Type::Size},            {"hbm_bandwidth", Type::Rate},
      {"flops_fp4", Type::Float},     {"flops_fp8", Type::Float},
      {"flops_bf16", Type::Float},    {"dram", Type::Size},
      {"numa_nodes", Type::Int},      {"gpu_numa", Type::List},
      {"visible_devices_env", Type::String},
      {"smi", Type::String},          {"profile", Type::String},
      // What the simulator alone needs (docs/language.md §5.3).
      {"interconnect_bandwidth", Type::Rate},
      {"host_to_device_bandwidth", Type::Rate},
      {"calibration.mem_efficiency", Type::Float},
      {"calibration.flops_efficiency", Type::Float},
      {"calibration.step_overhead", Type::Duration},
      {"calibration.stage_overhead", Type::Duration},
      {"calibration.weight_load_bandwidth", Type::Rate},
      {"calibration.graph_capture_per_size", Type::Duration},
  };
  static const std::vector<FieldSpec> Model = {
      {"id", Type::String},           {"path", Type::String},
      {"precision", Type::Any},       {"checkpoint", Type::Size},
      {"params_total", Type::Float},  {"params_active", Type::Float},
      {"context_length", Type::Int},  {"kv_bytes_per_token", Type::Int},
      // The shape a roofline simulation needs (docs/language.md §5.3).
      {"layers", Type::Int},          {"hidden_size", Type::Int},
      {"attention", Type::String},    {"kv_heads", Type::Int},
      {"head_dim", Type::Int},        {"kv_lora_rank", Type::Int},
      {"rope_dim", Type::Int},        {"kv_layers", Type::Int},
      {"attention_heads", Type::Int}, {"experts", Type::Int},
      {"experts_per_token", Type::Int},
      {"attention_flops_per_token_pair", Type::Float},
      {"state_per_sequence", Type::Size},
      {"activation_reserve", Type::Size},
      {"draft_checkpoint", Type::Size},
      {"acceptance_lengths", Type::List},
  };
  static const std::vector<FieldSpec> Engine = {
      {"command", Type::List},
      {"metric_prefix", Type::String},
      {"endpoints.health", Type::String},
      {"endpoints.models", Type::String},
      {"endpoints.metrics", Type::String},
      {"endpoints.start_profile", Type::String},
      {"endpoints.stop_profile", Type::String},
      {"endpoints.completions", Type::String},
      {"endpoints.chat_completions", Type::String},
      {"prompt_token_ids", Type::Bool},
      {"metrics_knob", Type::String},
      {"context_knob", Type::String},
      {"framework", Type::String},
      {"framework_disagg", Type::String},
  };
  // Routers and side services: placed (`on`), ordered (`start`), with a
  // readiness rule (docs/language.md §5.2).
  static const std::vector<FieldSpec> Process = {
      {"command", Type::List},
      {"metric_prefix", Type::String},
      {"endpoints.health", Type::String},
      {"endpoints.models", Type::String},
      {"endpoints.metrics", Type::String},
      {"on", Type::Any},
      {"start", Type::Any},
      {"ready", Type::Any},
      {"inherits_env", Type::Bool},
      {"node_env", Type::Bool},
      {"process_name", Type::String},
      {"framework", Type::String},
      // The knobs that carry a router's policy and session header, for
      // the simulator that stands in for it (docs/language.md §5.2).
      {"sim_policy_knob", Type::String},
      {"sim_header_knob", Type::String},
  };
  static const std::vector<FieldSpec> None;
  switch (K) {
  case EntityInfo::Hardware:
    return Hardware;
  case EntityInfo::Model:
    return Model;
  case EntityInfo::Engine:
    return Engine;
  case EntityInfo::Router:
  case EntityInfo::Service:
    return Process;
  case EntityInfo::Recipe:
    return None;
  }
  return None;
}

static std::string entityLabel(const EntityInfo &E) {
  static const char *Kinds[] = {"recipe", "hardware", "engine",
                                "model",  "router",   "service"};
  return std::string(Kinds[E.K]) + " '" + E.Name + "'";
}

std::optional<Type> SemaImpl::resolveType(Module &M, const ast::TypeRef &T) {
  static const std::pair<const char *, Type::Kind> Simple[] = {
      {"int", Type::Int},       {"float", Type::Float},
      {"bool", Type::Bool},     {"string", Type::String},
      {"size", Type::Size},     {"duration", Type::Duration},
      {"rate", Type::Rate},     {"list", Type::List},
      {"map", Type::Map},
  };
  std::optional<Type> Out;
  llvm::StringRef Name = T.Name.Name;
  for (const auto &[N, K] : Simple)
    if (Name == N)
      Out = Type::of(K);
  if (!Out) {
    const Symbol *S = lookupSymbol(M, Name);
    if (S && S->K == Symbol::Enum)
      Out = Type::enumOf(S->En);
    else if (const EnumInfo *E = builtinEnum(Name))
      Out = Type::enumOf(E);
  }
  if (!Out) {
    std::vector<std::string> Candidates;
    for (const auto &[N, K] : Simple)
      Candidates.push_back(N);
    for (const EnumInfo *E : M.VisibleEnums)
      Candidates.push_back(E->Name);
    auto B = diag(T.Name.Range, DiagID::err_unknown_type);
    B << Name;
    didYouMean(B, T.Name.Range, Name, Candidates);
    return std::nullopt;
  }
  for (const ast::TypeRef *Arg : T.Args) {
    std::optional<Type> A = resolveType(M, *Arg);
    if (!A)
      return std::nullopt;
    Out->Args.push_back(*A);
  }
  Out->Optional = T.Optional;
  return Out;
}

/// Whether a redeclared knob keeps the inherited knob's type: the same
/// type, or the same type made optional.
static bool conformsToInherited(const Type &New, const Type &Old) {
  if (New.str() == Old.str())
    return true;
  Type Optional = Old;
  Optional.Optional = true;
  return New.str() == Optional.str();
}

static bool isMemberPath(llvm::StringRef Key) {
  llvm::SmallVector<llvm::StringRef, 4> Segments;
  Key.split(Segments, '.');
  return llvm::none_of(Segments, [](llvm::StringRef S) { return S.empty(); });
}

std::optional<KnobInfo> SemaImpl::declareKnob(EntityState &E,
                                              const ast::KnobStmt *K) {
  KnobInfo Info;
  Info.Name = K->getName().Name.str();
  Info.Stmt = K;
  Info.M = E.Owner;
  std::optional<Type> T = K->getType() ? resolveType(*E.Owner, *K->getType())
                                       : std::optional<Type>(Type());
  Info.Ty = T ? *T : Type();
  for (const ast::RenderClause &R : K->getRenders()) {
    RenderInfo RI;
    RI.K = static_cast<RenderInfo::Kind>(R.Kind);
    if (R.Target)
      RI.Target = R.Target->getPlainValue().str();
    if (R.Key)
      RI.Key = R.Key->getPlainValue().str();
    if (R.Negative)
      RI.Negative = R.Negative->getPlainValue().str();
    RI.Mode = static_cast<Rendering::ListMode>(R.Mode);
    RI.Cond = R.Cond;
    // What a render clause can say is checked once, here, not per cell.
    bool List = !T || T->K == Type::List || T->K == Type::Any;
    if ((RI.Mode != Rendering::Single || RI.K == RenderInfo::Args) && !List)
      diag(R.Range, DiagID::err_render_needs_list)
          << Info.Name
          << (RI.K == RenderInfo::Args     ? "args"
              : RI.Mode == Rendering::Each ? "each"
                                           : "spread")
          << T->str();
    if (RI.K == RenderInfo::Switch && T && T->K != Type::Bool &&
        T->K != Type::Any)
      diag(R.Range, DiagID::err_render_switch_type) << Info.Name << T->str();
    if ((RI.K == RenderInfo::Yaml || RI.K == RenderInfo::JsonFile) &&
        !isValidFileName(RI.Target))
      diag(R.Target->getRange(), DiagID::err_bad_file_name) << RI.Target;
    if (R.Key && !isMemberPath(RI.Key))
      diag(R.Key->getRange(), DiagID::err_bad_member_path) << RI.Key;
    Info.Renders.push_back(RI);
  }
  return Info;
}

void SemaImpl::declareTemplate(EntityState &E) {
  const EntityState *Parent = E.Parent;
  if (Parent) {
    evaluateEntityFields(const_cast<EntityState &>(*Parent));
    E.Knobs = Parent->Knobs;
    E.Body = Parent->Body;
  }
  std::set<std::string> Own; // Knobs this declaration declares itself.
  for (ast::Stmt *S : E.Decl->getBody().Stmts) {
    auto *K = llvm::dyn_cast<ast::KnobStmt>(S);
    if (!K) {
      if (llvm::isa<ast::EmitStmt>(S) || llvm::isa<ast::CheckStmt>(S) ||
          llvm::isa<ast::FileStmt>(S))
        E.Body.push_back({S, E.Owner});
      continue;
    }
    llvm::StringRef Name = K->getName().Name;
    auto Prev = std::find_if(E.Knobs.begin(), E.Knobs.end(),
                             [&](const KnobInfo &I) { return I.Name == Name; });
    if (Prev != E.Knobs.end() && Own.count(Name.str())) {
      diag(K->getName().Range, DiagID::err_redefinition) << Name;
      Diags.report(Prev->Stmt->getName().Range,
                   DiagID::note_previous_definition)
          << Prev->Name;
      continue;
    }
    Own.insert(Name.str());
    std::optional<KnobInfo> Info = declareKnob(E, K);
    if (!Info)
      continue;
    if (Prev == E.Knobs.end()) {
      E.Knobs.push_back(std::move(*Info));
      E.Body.push_back({K, E.Owner, int(E.Knobs.size() - 1)});
      continue;
    }
    // `extends`: the knob replaces the inherited one in its place, with
    // the inherited type or that type made optional.
    if (!conformsToInherited(Info->Ty, Prev->Ty)) {
      auto B = diag(K->getType()->Range, DiagID::err_extends_knob_type);
      B << Name << Prev->Ty.str() << Parent->Name << Info->Ty.str();
      B.note(Prev->Stmt->getName().Range.Start,
             DiagID::note_inherited_knob_here)
          << Name << Parent->Name << Prev->Stmt->getName().Range;
    }
    for (TemplateMember &M : E.Body)
      if (M.S == Prev->Stmt)
        M = {K, E.Owner, int(Prev - E.Knobs.begin())};
    *Prev = std::move(*Info);
  }
}

void SemaImpl::resolveParent(EntityState &E) {
  if (E.ParentResolved)
    return;
  E.ParentResolved = true;
  llvm::ArrayRef<ast::Identifier> Path = E.Decl->getExtends();
  if (Path.empty())
    return;
  llvm::SMRange Range(Path.front().Range.Start, Path.back().Range.End);
  if (E.K == EntityInfo::Recipe) {
    diag(Range, DiagID::err_not_allowed_here) << "'extends'"
                                              << "a recipe";
    return;
  }
  const Symbol *S = lookupSymbol(*E.Owner, Path[0].Name);
  if (S && S->K == Symbol::Alias && Path.size() == 2) {
    auto It = S->Target->Own.find(Path[1].Name);
    S = It == S->Target->Own.end() ? nullptr : &It->second;
  } else if (Path.size() != 1) {
    S = nullptr;
  }
  if (!S) {
    std::vector<std::string> Candidates;
    for (const auto &Ent : Entities)
      if (Ent->K == E.K && Ent.get() != &E && lookupSymbol(*E.Owner, Ent->Name))
        Candidates.push_back(Ent->Name);
    auto B = diag(Range, DiagID::err_undeclared_name);
    B << sourceText(Range);
    didYouMean(B, Range, sourceText(Range), Candidates);
    return;
  }
  if (S->K != Symbol::Entity) {
    diag(Range, DiagID::err_extends_not_declaration) << sourceText(Range);
    return;
  }
  EntityState *P = S->Ent;
  if (P->K != E.K) {
    auto B = diag(Range, DiagID::err_extends_kind);
    B << entityLabel(E) << entityLabel(*P);
    B.note(P->Decl->getName().Range.Start, DiagID::note_previous_definition)
        << P->Name << P->Decl->getName().Range;
    return;
  }
  E.Parent = P;
  resolveParent(*P);
  for (const EntityState *X = P; X; X = X->Parent) {
    if (X != &E)
      continue;
    // A cycle: report it here, where it closed, and break it.
    std::string Chain = "'" + E.Name + "'";
    for (const EntityState *Y = P; Y != &E; Y = Y->Parent)
      Chain += " -> '" + Y->Name + "'";
    Chain += " -> '" + E.Name + "'";
    diag(Range, DiagID::err_extends_cycle) << Chain;
    E.Parent = nullptr;
    break;
  }
}

bool SemaImpl::evaluateEntityFields(EntityState &E) {
  if (E.FieldsEvaluated || E.Evaluating)
    return true;
  E.Evaluating = true;
  resolveParent(E);
  // Inherited fields first; this declaration's own replace them.
  std::set<std::string> Inherited;
  if (E.Parent) {
    evaluateEntityFields(const_cast<EntityState &>(*E.Parent));
    E.Fields = E.Parent->Fields;
    for (const auto &[Name, _] : E.Fields)
      Inherited.insert(Name);
  }
  if (E.isTemplate())
    declareTemplate(E);
  const std::vector<FieldSpec> &Specs = fieldsOf(E.K);

  EvalCtx Ctx;
  Ctx.M = E.Owner;
  std::string What = "the fields of " + entityLabel(E);
  Ctx.What = What;

  auto Assign = [&](llvm::StringRef Name, llvm::SMRange NameRange,
                    const ast::Expr *ValueExpr) {
    const FieldSpec *Spec = nullptr;
    for (const FieldSpec &F : Specs)
      if (Name == F.Name)
        Spec = &F;
    if (!Spec) {
      // The field names are copied for the suggestion only: every
      // compilation evaluates the std entities, which have no mistake.
      std::vector<std::string> Names;
      for (const FieldSpec &F : Specs)
        Names.push_back(F.Name);
      auto B = diag(NameRange, DiagID::err_unknown_field);
      B << entityLabel(E) << Name;
      didYouMean(B, NameRange, Name, Names);
      return;
    }
    Inherited.erase(Name.str());
    auto [It, Inserted] = E.FieldLocs.try_emplace(Name.str(), NameRange);
    if (!Inserted) {
      diag(NameRange, DiagID::err_redefinition) << Name;
      Diags.report(It->second, DiagID::note_previous_definition) << Name;
      return;
    }
    std::optional<Value> V = eval(ValueExpr, Ctx);
    if (!V)
      return;
    Type T = Type::of(Spec->K);
    std::optional<Value> C = conformTo(*V, T);
    if (!C) {
      diag(ValueExpr->getRange(), DiagID::err_type_mismatch)
          << Name << T.str() << V->describeType() << V->str();
      return;
    }
    if (T.K == Type::Size &&
        !checkWholeBytes(*C, Name, ValueExpr->getRange()))
      return;
    E.Fields[Name.str()] = *C;
  };

  std::function<void(llvm::ArrayRef<ast::Stmt *>, std::string)> Walk =
      [&](llvm::ArrayRef<ast::Stmt *> Stmts, std::string Prefix) {
        for (ast::Stmt *S : Stmts) {
          // An engine's `gpus`, `headless` and `report { }` are formulas
          // over its knobs, evaluated per cell (SemaProcesses.cpp).
          if (Prefix.empty() && collectTemplateFormula(E, S))
            continue;
          if (auto *A = llvm::dyn_cast<ast::AssignStmt>(S)) {
            std::string Name = Prefix;
            for (const ast::Identifier &Seg : A->getPath())
              Name += (Name.empty() ? "" : ".") + Seg.Name.str();
            llvm::SMRange R(A->getPath().front().Range.Start,
                            A->getPath().back().Range.End);
            Assign(Name, R, A->getValue());
          } else if (auto *B = llvm::dyn_cast<ast::BlockStmt>(S)) {
            Walk(B->getBody().Stmts,
                 Prefix + (Prefix.empty() ? "" : ".") + B->getName().Name.str());
          } else if (E.isTemplate() && Prefix.empty() &&
                     (llvm::isa<ast::KnobStmt>(S) ||
                      llvm::isa<ast::CheckStmt>(S) ||
                      llvm::isa<ast::EmitStmt>(S) ||
                      llvm::isa<ast::FileStmt>(S))) {
            continue; // Per-cell parts, evaluated in each recipe's cells.
          } else {
            diag(S->getRange(), DiagID::err_not_allowed_here)
                << "this statement" << entityLabel(E);
          }
        }
      };
  Walk(E.Decl->getBody().Stmts, "");
  // Inherited values stay where the parent set them, for later messages.
  if (E.Parent)
    for (const std::string &Name : Inherited)
      if (auto It = E.Parent->FieldLocs.find(Name);
          It != E.Parent->FieldLocs.end())
        E.FieldLocs.try_emplace(Name, It->second);
  // An engine's `gpus`, `headless` and `report` members it does not state
  // itself are its parent's.
  if (E.Parent && E.K == EntityInfo::Engine) {
    if (!E.GpusExpr)
      E.GpusExpr = E.Parent->GpusExpr;
    if (!E.HeadlessExpr)
      E.HeadlessExpr = E.Parent->HeadlessExpr;
    for (const auto &Member : E.Parent->Report)
      if (llvm::none_of(E.Report,
                        [&](const auto &M) { return M.first == Member.first; }))
        E.Report.push_back(Member);
  }
  if (E.K == EntityInfo::Hardware)
    checkVendor(E);
  if (E.K == EntityInfo::Model)
    checkModelFigures(E);
  if (E.K == EntityInfo::Engine) {
    // Codegen reads the metrics knob per cell to decide whether the cell
    // may require the engine's metrics; the context knob bounds the
    // longest request (checkContextLength). A name that is no knob of the
    // right type would be ignored there, so it is an error here.
    checkKnobField(E, "metrics_knob", Type::Bool, DiagID::err_metrics_knob);
    checkKnobField(E, "context_knob", Type::Int, DiagID::err_context_knob);
  }
  if (E.K == EntityInfo::Router || E.K == EntityInfo::Service)
    checkSimRouterKnobs(E);
  E.Evaluating = false;
  E.FieldsEvaluated = true;
  return true;
}

void SemaImpl::checkVendor(EntityState &E) {
  // The vendor picks the visible-devices variable and the SMI tool; a
  // hardware without one used to become NVIDIA silently.
  auto It = E.Fields.find("vendor");
  if (It == E.Fields.end()) {
    if (!E.FieldLocs.count("vendor"))
      diag(E.Decl->getName().Range, DiagID::err_hardware_no_vendor) << E.Name;
    return;
  }
  const Value &V = It->second;
  if (V.kind() != ValueKind::Enum ||
      (V.getString() != "amd" && V.getString() != "nvidia"))
    diag(E.FieldLocs["vendor"], DiagID::err_hardware_vendor)
        << V.describeType() << V.str();
}

void SemaImpl::checkKnobField(EntityState &E, llvm::StringRef Field,
                              Type::Kind Kind, DiagID ID) {
  auto It = E.Fields.find(Field.str());
  if (It == E.Fields.end() || !E.FieldLocs.count(Field.str()))
    return;
  const std::string &Name = It->second.getString();
  const KnobInfo *K = E.findKnob(Name);
  if (!K || K->Ty.K != Kind)
    diag(E.FieldLocs[Field.str()], ID) << Name << E.Name;
}

void SemaImpl::checkSimRouterKnobs(EntityState &E) {
  // Codegen reads the named knobs per cell into the router's `sim_router`;
  // a name that is no knob would silently give none, so it is an error.
  for (const char *Field : {"sim_policy_knob", "sim_header_knob"}) {
    auto It = E.Fields.find(Field);
    if (It == E.Fields.end() || !E.FieldLocs.count(Field))
      continue;
    const std::string &Name = It->second.getString();
    if (E.K != EntityInfo::Router)
      diag(E.FieldLocs[Field], DiagID::err_sim_router_knob_service)
          << Field << E.Name;
    else if (!E.findKnob(Name))
      diag(E.FieldLocs[Field], DiagID::err_sim_router_knob)
          << Field << Name << E.Name;
  }
}

void SemaImpl::checkModelFigures(EntityState &E) {
  // The attention kind decides how the simulator stores and shards the KV
  // cache; the plan loader would refuse any other word at run time.
  auto It = E.Fields.find("attention");
  if (It != E.Fields.end() && E.FieldLocs.count("attention")) {
    const std::string &Kind = It->second.getString();
    if (Kind != "gqa" && Kind != "mla")
      diag(E.FieldLocs["attention"], DiagID::err_model_attention)
          << It->second.describeType() << It->second.str();
  }
  // Mean acceptance lengths are numbers, one per draft length.
  It = E.Fields.find("acceptance_lengths");
  if (It != E.Fields.end() && E.FieldLocs.count("acceptance_lengths"))
    for (const Value &El : It->second.elements())
      if (!El.isNumeric()) {
        diag(E.FieldLocs["acceptance_lengths"], DiagID::err_type_mismatch)
            << "acceptance_lengths" << "list of float"
            << It->second.describeType() << It->second.str();
        break;
      }
}

std::optional<Value> SemaImpl::entityField(const EntityInfo &CE,
                                           llvm::StringRef Field,
                                           llvm::SMRange Loc) {
  EntityState &E = stateOf(CE);
  evaluateEntityFields(E);
  auto It = E.Fields.find(Field.str());
  if (It != E.Fields.end())
    return It->second;
  const std::vector<FieldSpec> &Specs = fieldsOf(E.K);
  std::vector<std::string> Names;
  bool Known = false;
  for (const FieldSpec &F : Specs) {
    Names.push_back(F.Name);
    Known |= Field == F.Name;
  }
  if (Known) {
    // Declared by the schema but not set by this declaration.
    diag(Loc, DiagID::err_field_not_set) << entityLabel(E) << Field;
    return std::nullopt;
  }
  auto B = diag(Loc, DiagID::err_unknown_field);
  B << entityLabel(E) << Field;
  didYouMean(B, Loc, Field, Names);
  return std::nullopt;
}

std::optional<Value> SemaImpl::constantValue(ConstantInfo &C,
                                             llvm::SMRange Use) {
  if (C.Evaluated)
    return C.V;
  if (C.Evaluating) {
    // Print the whole cycle, 'a' -> 'b' -> 'a' (F13); a constant that
    // names itself directly still "depends on itself".
    auto Quoted = [](const ConstantInfo *K) {
      return "'" + K->Decl->getName().Name.str() + "'";
    };
    auto It = std::find(ConstStack.begin(), ConstStack.end(), &C);
    std::string Text;
    if (It == ConstStack.end() || It + 1 == ConstStack.end()) {
      Text = Quoted(&C) + " depends on itself";
    } else {
      for (; It != ConstStack.end(); ++It)
        Text += Quoted(*It) + " -> ";
      Text += Quoted(&C);
    }
    diag(Use, DiagID::err_dependency_cycle) << "" << Text;
    return std::nullopt;
  }
  C.Evaluating = true;
  ConstStack.push_back(&C);
  EvalCtx Ctx;
  Ctx.M = C.Owner;
  Ctx.What = "a file-level constant";
  C.V = eval(C.Decl->getValue(), Ctx);
  ConstStack.pop_back();
  C.Evaluating = false;
  C.Evaluated = true;
  return C.V;
}

/// `--tensor-parallel-size`, `tensor-parallel-size=`, `TENSOR_PARALLEL_SIZE`
/// all become `tensor_parallel_size`.
static std::string normalizeSpelling(llvm::StringRef S) {
  S = S.ltrim('-');
  S.consume_back("=");
  std::string Out = S.lower();
  std::replace(Out.begin(), Out.end(), '-', '_');
  return Out;
}

/// `num_spec_tokens` abbreviates `num_speculative_tokens`: as many words,
/// each a prefix of the other's.
static bool abbreviates(llvm::StringRef Short, llvm::StringRef Long) {
  llvm::SmallVector<llvm::StringRef, 6> A, B;
  Short.split(A, '_');
  Long.split(B, '_');
  if (A.size() != B.size() || A.size() < 2 || Short == Long)
    return false;
  for (size_t N = 0; N < A.size(); ++N)
    if (A[N].empty() || !B[N].startswith(A[N]))
      return false;
  return true;
}

void SemaImpl::suggestByMeaning(DiagnosticBuilder &B, const RecipeState &R,
                                llvm::StringRef Name, llvm::SMRange Range) {
  std::string Wanted = normalizeSpelling(Name);
  auto Suggest = [&](llvm::StringRef Knob) {
    DiagnosticBuilder Note = B.note(Range.Start, DiagID::note_did_you_mean);
    Note << Knob << Range;
    if (sourceText(Range) == Name)
      Note << FixIt::replace(Range, Knob);
  };
  // The engine's own spellings: what each knob renders.
  if (const EntityState *Engine = R.Engine)
    for (const KnobInfo &K : Engine->Knobs)
      for (const RenderInfo &RI : K.Renders) {
        // A member is spelled by its last part: `num_speculative_tokens`
        // of `--speculative-config`.
        llvm::StringRef Member = llvm::StringRef(RI.Key).rsplit('.').second;
        if (Member.empty())
          Member = RI.Key;
        std::string Spelled = normalizeSpelling(
            RI.Key.empty() ? llvm::StringRef(RI.Target) : Member);
        if (Spelled.empty() ||
            !(Spelled == Wanted || abbreviates(Wanted, Spelled)))
          continue;
        Suggest(K.Name);
        B.note(K.Stmt->getName().Range.Start, DiagID::note_knob_renders)
            << K.Name
            << (RI.K == RenderInfo::Env ? "variable '" + RI.Target + "'"
                : RI.Key.empty()        ? "'" + RI.Target + "'"
                                 : "'" + RI.Key + "' of '" + RI.Target + "'")
            << K.Stmt->getName().Range;
        return;
      }
  // A knob or field the name abbreviates, or the last part of a field.
  for (const auto &[Candidate, _] : R.Names) {
    llvm::StringRef C = Candidate;
    if (abbreviates(Wanted, C) ||
        (C.contains('.') && C.rsplit('.').second == Wanted)) {
      Suggest(Candidate);
      return;
    }
  }
  // InferenceX's and the launchers' names for scenario parameters.
  if (std::optional<llvm::StringRef> Param = scenarioParameterFor(Wanted)) {
    B.note(Range.Start, DiagID::note_scenario_parameter)
        << Name << *Param
        << (*Param == "duration" || *Param == "trace"
                ? "agentic(duration = ..., trace = ...)"
                : "fixed(isl = ..., osl = ..., " + Param->str() + " = ...)")
        << Range;
    return;
  }
}

std::optional<llvm::StringRef>
arecipe::sema::scenarioParameterFor(llvm::StringRef Name) {
  static const std::pair<const char *, const char *> Scenario[] = {
      {"range_ratio", "ratio"}, {"random_range_ratio", "ratio"},
      {"ratio", "ratio"},       {"isl", "isl"},
      {"osl", "osl"},           {"input_len", "isl"},
      {"output_len", "osl"},    {"request_rate", "request_rate"},
      {"duration", "duration"}, {"trace", "trace"},
  };
  for (const auto &[Alias, Param] : Scenario)
    if (Name == Alias)
      return llvm::StringRef(Param);
  return std::nullopt;
}
