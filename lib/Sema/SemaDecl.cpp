//===- SemaDecl.cpp - Hardware, models, engines, knobs and types ---------===//
//
// The constant declarations: each hardware, model and engine has a closed
// set of fields evaluated once, in its own file's scope; an engine also
// declares its closed set of knobs with their types, defaults, constraints
// and renderings. File-level `let` constants are evaluated on first use.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include <algorithm>

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
  };
  static const std::vector<FieldSpec> Model = {
      {"id", Type::String},           {"path", Type::String},
      {"precision", Type::Any},       {"checkpoint", Type::Size},
      {"params_total", Type::Float},  {"params_active", Type::Float},
      {"context_length", Type::Int},  {"kv_bytes_per_token", Type::Int},
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

void SemaImpl::declareEngineKnobs(EntityState &E) {
  for (ast::Stmt *S : E.Decl->getBody().Stmts) {
    auto *K = llvm::dyn_cast<ast::KnobStmt>(S);
    if (!K)
      continue;
    if (const KnobInfo *Prev = E.findKnob(K->getName().Name)) {
      diag(K->getName().Range, DiagID::err_redefinition) << K->getName().Name;
      Diags.report(Prev->Stmt->getName().Range,
                   DiagID::note_previous_definition)
          << Prev->Name;
      continue;
    }
    KnobInfo Info;
    Info.Name = K->getName().Name.str();
    Info.Stmt = K;
    std::optional<Type> T = K->getType() ? resolveType(*E.Owner, *K->getType())
                                         : std::optional<Type>(Type());
    Info.Ty = T ? *T : Type();
    for (const ast::RenderClause &R : K->getRenders()) {
      // Parsed, but not rendered yet: an error, never a knob that silently
      // renders nothing.
      const char *NotYet =
          R.Kind == ast::RenderKind::Args       ? "an 'args' render clause"
          : R.Kind == ast::RenderKind::Yaml     ? "a 'yaml' render clause"
          : R.Kind == ast::RenderKind::JsonFile ? "a 'json_file' render clause"
          : R.Negative ? "a 'switch ... else' render clause"
                       : nullptr;
      if (NotYet) {
        diag(R.Range, DiagID::err_not_allowed_here)
            << NotYet << "this version of the compiler";
        continue;
      }
      RenderInfo RI;
      RI.K = static_cast<RenderInfo::Kind>(R.Kind);
      if (R.Target)
        RI.Target = R.Target->getPlainValue().str();
      if (R.Key)
        RI.Key = R.Key->getPlainValue().str();
      RI.Mode = static_cast<RenderInfo::ListMode>(R.Mode);
      RI.Cond = R.Cond;
      Info.Renders.push_back(RI);
    }
    E.Knobs.push_back(std::move(Info));
  }
}

bool SemaImpl::evaluateEntityFields(EntityState &E) {
  if (E.FieldsEvaluated || E.Evaluating)
    return true;
  E.Evaluating = true;
  if (E.isTemplate())
    declareEngineKnobs(E);
  const std::vector<FieldSpec> &Specs = fieldsOf(E.K);
  std::vector<std::string> Names;
  for (const FieldSpec &F : Specs)
    Names.push_back(F.Name);

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
      auto B = diag(NameRange, DiagID::err_unknown_field);
      B << entityLabel(E) << Name;
      didYouMean(B, NameRange, Name, Names);
      return;
    }
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
                      llvm::isa<ast::EmitStmt>(S))) {
            continue; // Per-cell parts, evaluated in each recipe's cells.
          } else {
            diag(S->getRange(), DiagID::err_not_allowed_here)
                << "this statement" << entityLabel(E);
          }
        }
      };
  Walk(E.Decl->getBody().Stmts, "");
  E.Evaluating = false;
  E.FieldsEvaluated = true;
  return true;
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
