//===- SemaRecipe.cpp - A recipe's statements, levels, bands, overrides --===//
//
// Turns a recipe's body into assignments tagged with their precedence level
// (default < recipe < arm < band < at conc < command line), their arm and
// their role (`prefill.tp = 4`), checks each assigned name against the
// closed set (recipe fields, the engine's knobs, `let` values, the open
// `env.*`, `labels.*`, `services.*` and `router.*` maps), gives each arm its
// concurrency list, matches bands and `at conc` lists against the arms'
// lists, links `server = cell(N)` chains within an arm, and then resolves
// every cell (SemaCells.cpp).
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

using namespace arecipe;
using namespace arecipe::sema;

namespace {
struct FieldDecl {
  const char *Name;
  Type Ty;
  bool ServerSide;
  bool PerCell;
  bool PerArm = false;
};
} // namespace

/// The first segments of the open and structured recipe names: never a
/// role's name.
static bool isRecipePrefix(llvm::StringRef N) {
  return N == "env" || N == "labels" || N == "client" || N == "profile" ||
         N == "slurm" || N == "ready" || N == "router" || N == "services";
}

static bool isRoleName(llvm::StringRef N) {
  return N == "prefill" || N == "decode";
}

static std::string joinPath(llvm::ArrayRef<ast::Identifier> Path,
                            llvm::StringRef Prefix) {
  std::string Name = Prefix.str();
  for (const ast::Identifier &Seg : Path)
    Name += (Name.empty() ? "" : ".") + Seg.Name.str();
  return Name;
}

void SemaImpl::evaluateRecipeHeader(RecipeState &R) {
  RecipeCells &Out = *R.Out;
  const ast::EntityDecl *D = R.Recipe->Decl;
  std::map<std::string, const ast::AssignStmt *> Header;
  for (ast::Stmt *S : D->getBody().Stmts)
    if (auto *A = llvm::dyn_cast<ast::AssignStmt>(S))
      if (A->getPath().size() == 1) {
        llvm::StringRef N = A->getPath()[0].Name;
        if (N == "engine" || N == "hardware" || N == "model")
          Header.try_emplace(N.str(), A);
      }
  // A `--set` of a header field replaces the recipe's assignment here, so
  // the knob set follows it. (`concurrency` is evaluated per arm, after
  // the statements are collected: evaluateArmConcurrency.)
  auto Eval = [&](const char *Name, Type T) -> std::optional<Value> {
    const ast::Expr *E = nullptr;
    if (const SetOption *S = findSetOption(Name)) {
      if (!S->Value)
        return std::nullopt; // Its parse error is reported.
      E = S->Value;
    } else if (auto It = Header.find(Name); It != Header.end()) {
      E = It->second->getValue();
    } else {
      diag(Out.NameRange, DiagID::err_missing_field) << Out.Name << Name;
      return std::nullopt;
    }
    EvalCtx Ctx;
    Ctx.M = R.M;
    std::string What = std::string("the recipe's '") + Name + "'";
    Ctx.What = What;
    std::optional<Value> V = eval(E, Ctx);
    if (!V)
      return std::nullopt;
    std::optional<Value> C = conformTo(*V, T);
    if (!C) {
      diag(E->getRange(), DiagID::err_type_mismatch)
          << Name << T.str() << V->describeType() << V->str();
      return std::nullopt;
    }
    return C;
  };
  if (auto V = Eval("engine", Type::of(Type::Engine))) {
    Out.Engine = V->getEntity();
    R.Engine = &stateOf(*Out.Engine);
    evaluateEntityFields(stateOf(*Out.Engine));
  } else {
    R.EngineFailed = true;
  }
  if (auto V = Eval("hardware", Type::of(Type::Hardware)))
    Out.Hardware = V->getEntity();
  if (auto V = Eval("model", Type::of(Type::Model)))
    Out.Model = V->getEntity();
}

void SemaImpl::declareRecipeNames(RecipeState &R) {
  Type Str = Type::of(Type::String);
  const FieldDecl Fields[] = {
      {"model", Type::of(Type::Model), true, false},
      {"hardware", Type::of(Type::Hardware), true, false},
      {"engine", Type::of(Type::Engine), true, false},
      {"concurrency", Type::listOf(Type::of(Type::Int)), false, false, true},
      {"server_reuse", Type::enumOf(builtinEnum("server_reuse")), false, false,
       true},
      {"image", Type::of(Type::String, true), true, true},
      {"precision", Type::enumOf(builtinEnum("precision"), true), true, true},
      {"mode", Type::enumOf(builtinEnum("mode")), true, false},
      {"scenario", Type::of(Type::Scenario, true), false, true},
      {"topology", Type::of(Type::Topology), true, true},
      {"client.model", Str, false, true},
      {"client.warmup", Type::of(Type::Any, true), false, true},
      {"client.duration", Type::of(Type::Duration, true), false, true},
      {"client.session_header", Type::of(Type::String, true), false, true},
      {"client.error_threshold", Type::of(Type::Float, true), false, true},
      {"client.num_prompts", Type::of(Type::Int, true), false, true},
      {"client.use_chat_template", Type::of(Type::Bool, true), false, true},
      {"client.endpoint",
       Type::enumOf(builtinEnum("client_endpoint"), /*Optional=*/true), false,
       true},
      {"profile.start", Type::of(Type::Duration, true), false, true},
      {"profile.duration", Type::of(Type::Duration, true), false, true},
      {"ready.startup_timeout", Type::of(Type::Duration, true), true, true},
      {"ready.stall_timeout", Type::of(Type::Duration, true), true, true},
      {"slurm.partition", Type::of(Type::String, true), true, true},
      {"slurm.account", Type::of(Type::String, true), true, true},
      {"slurm.time_limit", Type::of(Type::Duration, true), true, true},
      {"slurm.nodelist", Type::of(Type::Any, true), true, true},
  };
  for (const FieldDecl &F : Fields) {
    CellName N;
    N.K = CellName::Field;
    N.Ty = F.Ty;
    N.ServerSide = F.ServerSide;
    N.PerCell = F.PerCell;
    N.PerArm = F.PerArm;
    R.Names[F.Name] = N;
  }
  if (R.Engine)
    for (const KnobInfo &K : R.Engine->Knobs) {
      CellName N;
      N.K = CellName::Knob;
      N.Ty = K.Ty;
      N.KnobDecl = &K;
      if (R.Names.count(K.Name)) {
        diag(K.Stmt->getName().Range, DiagID::err_redefinition) << K.Name;
        continue;
      }
      R.Names[K.Name] = N;
    }
  for (ast::Stmt *S : R.Recipe->Decl->getBody().Stmts) {
    auto *L = llvm::dyn_cast<ast::LetStmt>(S);
    if (!L)
      continue;
    std::string Name = L->getName().Name.str();
    auto It = R.Names.find(Name);
    if (It != R.Names.end()) {
      diag(L->getName().Range, DiagID::err_redefinition) << Name;
      if (It->second.LetDecl)
        Diags.report(It->second.LetDecl->NameRange,
                     DiagID::note_previous_definition)
            << Name;
      else if (It->second.KnobDecl)
        Diags.report(It->second.KnobDecl->Stmt->getName().Range,
                     DiagID::note_previous_definition)
            << Name;
      continue;
    }
    CellName N;
    N.K = CellName::Let;
    auto A = std::make_unique<AssignmentState>();
    A->Name = Name;
    A->L = Level::Recipe;
    A->setValueExpr(L->getValue());
    A->Range = L->getRange();
    A->NameRange = L->getName().Range;
    A->M = R.M;
    A->IsLet = true;
    N.LetDecl = A.get();
    R.Names[Name] = N;
    R.ByName[Name].push_back(A.get());
    keepAssignment(R, std::move(A));
  }
}

bool SemaImpl::checkAssignable(RecipeState &R, llvm::StringRef Name,
                               llvm::SMRange NameRange, Level L) {
  auto It = R.Names.find(Name.str());
  if (It != R.Names.end()) {
    const CellName &N = It->second;
    bool Allowed = N.PerCell || L == Level::Recipe || L == Level::CommandLine ||
                   (N.PerArm && L == Level::Arm);
    if (!Allowed) {
      diag(NameRange, DiagID::err_field_not_per_cell) << Name;
      return false;
    }
    return true;
  }
  // `router.NAME` sets a knob of the cell's router, whichever it is: the
  // name is checked against the router of each cell it applies to.
  if (Name.startswith("router.") && Name.count('.') == 1)
    return true;
  if ((Name.startswith("env.") || Name.startswith("labels.") ||
       Name.startswith("services.")) &&
      Name.count('.') == 1) {
    CellName N;
    N.K = CellName::OpenMap;
    // `none` removes the variable in the cells where it is none.
    N.Ty = Name.startswith("services.") ? Type::of(Type::Service, true)
                                        : Type::of(Type::Scalar, true);
    N.ServerSide = !Name.startswith("labels.");
    R.Names[Name.str()] = N;
    return true;
  }
  // Without an engine every engine knob would be unknown: the engine's
  // error is the one to show (`engine = vlm` gave seven more).
  if (R.EngineFailed)
    return false;
  std::vector<std::string> Candidates;
  for (const auto &[N, _] : R.Names)
    Candidates.push_back(N);
  // `client.x`, `profile.x`, `slurm.x`, `ready.x` are the recipe's own
  // fields, never the engine's knobs.
  auto [Prefix, Field] = Name.split('.');
  bool RecipeField = !Field.empty() && isRecipePrefix(Prefix);
  std::string Owner = R.Out->Engine && !RecipeField
                          ? "engine '" + R.Out->Engine->Name + "'"
                          : "recipe '" + R.Out->Name + "'";
  auto B = RecipeField ? diag(NameRange, DiagID::err_unknown_field)
                       : diag(NameRange, DiagID::err_unknown_knob);
  if (RecipeField)
    B << Owner << Name;
  else
    B << Name << Owner;
  if (suggestSpelling(Name, Candidates))
    didYouMean(B, NameRange, Name, Candidates);
  else
    suggestByMeaning(B, R, Name, NameRange);
  return false;
}

bool SemaImpl::splitRole(RecipeState &R, std::string &Name, std::string &Role,
                         llvm::SMRange NameRange) {
  llvm::StringRef Full = Name;
  auto [First, Rest] = Full.split('.');
  if (Rest.empty() || isRecipePrefix(First) || R.Names.count(Name))
    return true;
  // A knob, `let` or `env.*` behind the first segment: the segment names a
  // role, written right or wrong.
  auto Known = R.Names.find(Rest.str());
  bool PerRoleName = Rest.startswith("env.") ||
                     (Known != R.Names.end() && Known->second.isPerRole(Rest));
  if (!isRoleName(First)) {
    if (Known == R.Names.end() && !Rest.startswith("env."))
      return true; // Not a role at all: checkAssignable reports the name.
    llvm::SMRange RoleRange(NameRange.Start,
                            llvm::SMLoc::getFromPointer(
                                NameRange.Start.getPointer() + First.size()));
    auto B = diag(RoleRange, DiagID::err_unknown_role);
    B << First;
    didYouMean(B, RoleRange, First, {"prefill", "decode"});
    return false;
  }
  if (Known != R.Names.end() && !PerRoleName) {
    diag(NameRange, DiagID::err_not_per_role) << Rest;
    return false;
  }
  Role = First.str();
  Name = Rest.str();
  return true;
}

void SemaImpl::keepAssignment(RecipeState &R,
                              std::unique_ptr<AssignmentState> A) {
  R.Assignments.push_back(A.get());
  R.Out->Assignments.push_back(A.get());
  Assignments.push_back(std::move(A));
}

ArmState *SemaImpl::newArm(RecipeState &R) {
  auto A = std::make_unique<ArmState>();
  A->Index = R.Arms.size();
  R.Arms.push_back(A.get());
  R.Out->Arms.push_back(A.get());
  Arms.push_back(std::move(A));
  return R.Arms.back();
}

void SemaImpl::addAssignment(RecipeState &R, const ast::AssignStmt &S,
                             const Site &Where, llvm::StringRef Prefix) {
  std::string Name = joinPath(S.getPath(), Prefix);
  llvm::SMRange NameRange(S.getPath().front().Range.Start,
                          S.getPath().back().Range.End);
  // A block's prefix (`prefill { tp = 4 }`) starts before the path.
  llvm::SMRange WholeName = NameRange;
  if (Name == "server") {
    AtConcState *At = Where.At;
    if (!At) {
      diag(NameRange, DiagID::err_not_allowed_here)
          << "'server'"
          << (Where.Band ? "a band"
              : Where.L == Level::Arm
                  ? "an arm; set it inside 'at conc'"
                  : "the recipe body; set it inside 'at conc'");
      return;
    }
    auto *Call = llvm::dyn_cast<ast::CallExpr>(S.getValue());
    auto *Callee = Call ? llvm::dyn_cast<ast::NameExpr>(Call->getCallee()) : nullptr;
    if (!Callee || Callee->getName().Name != "cell" ||
        Call->getArgs().size() != 1 || Call->getArgs()[0].isNamed()) {
      diag(S.getValue()->getRange(), DiagID::err_type_mismatch)
          << "server" << "'cell(N)'" << "expression"
          << sourceText(S.getValue()->getRange());
      return;
    }
    EvalCtx Ctx;
    Ctx.M = R.M;
    Ctx.Recipe = &R;
    Ctx.What = "'cell(N)'";
    std::optional<int64_t> N =
        evalInt(Call->getArgs()[0].Value, Ctx, "cell");
    if (!N)
      return;
    auto A = std::make_unique<AssignmentState>();
    A->Name = Name;
    A->L = Level::AtConc;
    A->setValueExpr(S.getValue());
    A->Literal = Value::server(*N);
    A->Range = S.getRange();
    A->NameRange = NameRange;
    A->M = R.M;
    A->At = At;
    A->Arm = Where.Arm;
    if (At->Server) {
      diag(NameRange, DiagID::err_redefinition) << "server";
      Diags.report(At->Server->NameRange, DiagID::note_previous_definition)
          << "server";
      return;
    }
    At->Server = A.get();
    At->ServerConc = *N;
    keepAssignment(R, std::move(A));
    return;
  }
  std::string Role;
  if (!splitRole(R, Name, Role, WholeName))
    return;
  if (!checkAssignable(R, Name, NameRange, Where.L))
    return;
  auto A = std::make_unique<AssignmentState>();
  A->Name = Name;
  A->Role = Role;
  A->L = Where.L;
  A->setValueExpr(S.getValue());
  A->Range = S.getRange();
  A->NameRange = NameRange;
  A->M = R.M;
  A->Arm = Where.Arm;
  A->Band = Where.Band;
  A->At = Where.At;
  if (llvm::StringRef(Name).startswith("router."))
    R.RouterAssignments.push_back(A.get());
  else
    R.ByName[Name].push_back(A.get());
  keepAssignment(R, std::move(A));
}

void SemaImpl::addFileAssignment(RecipeState &R, const ast::FileStmt &S,
                                 const Site &Where) {
  // A recipe's `file "NAME" = expr` is an assignment to the cell name
  // `file:NAME`: per cell, late-bound, with the levels, conflicts and
  // dead-assignment warnings of any other assignment; `none` drops it.
  const ast::StringLiteral *NameLit = S.getName();
  if (NameLit->isInterpolated() || !isValidFileName(NameLit->getPlainValue())) {
    diag(NameLit->getRange(), DiagID::err_bad_file_name)
        << sourceText(NameLit->getRange()).trim('"');
    return;
  }
  std::string Name = "file:" + NameLit->getPlainValue().str();
  if (!R.Names.count(Name)) {
    CellName N;
    N.K = CellName::Field;
    N.Ty = Type::of(Type::String, /*Optional=*/true);
    R.Names[Name] = N;
  }
  auto A = std::make_unique<AssignmentState>();
  A->Name = Name;
  A->L = Where.L;
  A->setValueExpr(S.getValue());
  A->Range = S.getRange();
  A->NameRange = NameLit->getRange();
  A->M = R.M;
  A->Arm = Where.Arm;
  A->Band = Where.Band;
  A->At = Where.At;
  R.ByName[Name].push_back(A.get());
  keepAssignment(R, std::move(A));
}

void SemaImpl::collectStatements(RecipeState &R,
                                 llvm::ArrayRef<ast::Stmt *> Stmts,
                                 const Site &Where, llvm::StringRef Prefix) {
  const char *Here = Where.Band              ? "a band"
                     : Where.At              ? "an 'at conc' block"
                     : Where.L == Level::Arm ? "an arm"
                                             : "a recipe";
  bool TopOfBody =
      (Where.L == Level::Recipe || Where.L == Level::Arm) && Prefix.empty();
  for (ast::Stmt *S : Stmts) {
    switch (S->getKind()) {
    case ast::NodeKind::AssignStmt:
      addAssignment(R, *llvm::cast<ast::AssignStmt>(S), Where, Prefix);
      break;
    case ast::NodeKind::LetStmt:
      if (Where.L != Level::Recipe || !Prefix.empty())
        diag(S->getRange(), DiagID::err_not_allowed_here)
            << "'let'"
            << (std::string(Here) +
                "; declare it in the recipe body and assign it here");
      break; // Declared by declareRecipeNames.
    case ast::NodeKind::BlockStmt: {
      auto *B = llvm::cast<ast::BlockStmt>(S);
      std::string P = (Prefix.empty() ? "" : Prefix.str() + ".") +
                      B->getName().Name.str();
      collectStatements(R, B->getBody().Stmts, Where, P);
      break;
    }
    case ast::NodeKind::ArmStmt: {
      auto *A = llvm::cast<ast::ArmStmt>(S);
      if (Where.L != Level::Recipe || !Prefix.empty()) {
        diag(S->getRange(), DiagID::err_not_allowed_here) << "'arm'" << Here;
        break;
      }
      bool Duplicate = false;
      for (const ArmState *Prev : R.Arms)
        if (Prev->Name == A->getName().Name) {
          diag(A->getName().Range, DiagID::err_redefinition) << Prev->Name;
          Diags.report(Prev->NameRange, DiagID::note_previous_definition)
              << Prev->Name;
          Duplicate = true;
        }
      if (Duplicate)
        break;
      ArmState *Ptr = newArm(R);
      Ptr->Name = A->getName().Name.str();
      Ptr->Stmt = A;
      Ptr->NameRange = A->getName().Range;
      collectStatements(R, A->getBody().Stmts,
                        {Level::Arm, Ptr, nullptr, nullptr}, "");
      break;
    }
    case ast::NodeKind::BandStmt: {
      auto *B = llvm::cast<ast::BandStmt>(S);
      if (!TopOfBody) {
        diag(S->getRange(), DiagID::err_not_allowed_here) << "'band'" << Here;
        break;
      }
      // Band names are unique among the bands a cell can see: the recipe's
      // and its own arm's.
      for (const BandState *Prev : R.Bands)
        if (Prev->Name == B->getName().Name &&
            (!Prev->Arm || !Where.Arm || Prev->Arm == Where.Arm)) {
          diag(B->getName().Range, DiagID::err_redefinition) << Prev->Name;
          Diags.report(Prev->NameRange, DiagID::note_previous_definition)
              << Prev->Name;
        }
      auto Info = std::make_unique<BandState>();
      Info->Name = B->getName().Name.str();
      Info->Stmt = B;
      Info->NameRange = B->getName().Range;
      Info->Arm = Where.Arm;
      BandState *Ptr = Info.get();
      R.Bands.push_back(Ptr);
      Bands.push_back(std::move(Info));
      R.HasBands = true;
      collectStatements(R, B->getBody().Stmts,
                        {Level::Band, Where.Arm, Ptr, nullptr}, "");
      break;
    }
    case ast::NodeKind::AtConcStmt: {
      auto *A = llvm::cast<ast::AtConcStmt>(S);
      if (!TopOfBody) {
        diag(S->getRange(), DiagID::err_not_allowed_here)
            << "'at conc'" << Here;
        break;
      }
      auto Info = std::make_unique<AtConcState>();
      Info->Stmt = A;
      Info->Arm = Where.Arm;
      Info->Range = A->getRange();
      AtConcState *Ptr = Info.get();
      R.Ats.push_back(Ptr);
      Ats.push_back(std::move(Info));
      collectStatements(R, A->getBody().Stmts,
                        {Level::AtConc, Where.Arm, nullptr, Ptr}, "");
      break;
    }
    case ast::NodeKind::CheckStmt: {
      auto *C = llvm::cast<ast::CheckStmt>(S);
      R.Checks.push_back({C->getCondition(), C->getMessage(), R.M, Where.Arm,
                          Where.Band, Where.At});
      break;
    }
    case ast::NodeKind::PreflightStmt:
      R.Preflights.push_back(
          {llvm::cast<ast::PreflightStmt>(S), Where.Arm, Where.Band, Where.At});
      break;
    case ast::NodeKind::FileStmt:
      addFileAssignment(R, *llvm::cast<ast::FileStmt>(S), Where);
      break;
    default:
      diag(S->getRange(), DiagID::err_not_allowed_here)
          << ("'" + sourceText(S->getRange()).split(' ').first.str() + "'")
          << Here;
      break;
    }
  }
}

/// Where each concurrency of a list is written, for errors: its literal in
/// the list, else the whole list (or the recipe's name without a list).
static llvm::SMRange concRange(const AssignmentState *List, llvm::SMRange Fallback,
                               int64_t C) {
  if (!List || !List->ValueExpr)
    return Fallback;
  if (auto *L = llvm::dyn_cast<ast::ListExpr>(List->ValueExpr))
    for (const ast::Expr *E : L->getElements())
      if (auto *I = llvm::dyn_cast<ast::IntegerLiteral>(E))
        if (I->getValue() == C)
          return I->getRange();
  return List->ValueExpr->getRange();
}

void SemaImpl::matchBands(RecipeState &R) {
  RecipeCells &Out = *R.Out;
  for (BandState *B : R.Bands) {
    // A recipe band is tested against every arm's concurrencies.
    const std::vector<int64_t> &Concs =
        B->Arm ? B->Arm->Concurrency : Out.Concurrency;
    for (int64_t C : Concs) {
      EvalCtx Ctx;
      Ctx.M = R.M;
      Ctx.Recipe = &R;
      Ctx.Conc = C;
      Ctx.What = "a band condition";
      std::optional<bool> In = evalBool(B->Stmt->getCondition(), Ctx,
                                        "a band condition");
      if (!In) {
        R.BandsFailed = true;
        break;
      }
      if (*In)
        B->Concs.push_back(C);
    }
  }
  if (!R.HasBands || R.BandsFailed)
    return;
  for (ArmState *Arm : R.Arms) {
    std::vector<const BandInfo *> Visible;
    for (BandState *B : R.Bands)
      if (!B->Arm || B->Arm == Arm)
        Visible.push_back(B);
    if (Visible.empty())
      continue;
    const AssignmentState *List = R.ArmConcurrencyAssign[Arm->Index];
    for (int64_t C : Arm->Concurrency) {
      std::vector<const BandInfo *> In;
      for (const BandInfo *B : Visible)
        if (std::binary_search(B->Concs.begin(), B->Concs.end(), C))
          In.push_back(B);
      llvm::SMRange Where = concRange(List, Out.NameRange, C);
      if (In.empty()) {
        diag(Where, DiagID::err_conc_in_no_band) << C;
        continue;
      }
      if (In.size() > 1) {
        // One list shared by several arms: one report per place.
        auto Diag = diag(Where, DiagID::err_band_overlap);
        Diag << C << In[0]->Name << In[1]->Name;
        Diag.note(In[0]->NameRange.Start, DiagID::note_band_here)
            << In[0]->Name << In[0]->NameRange;
        Diag.note(In[1]->NameRange.Start, DiagID::note_band_here)
            << In[1]->Name << In[1]->NameRange;
      }
    }
  }
  for (BandState *B : R.Bands)
    if (B->Concs.empty() && !(B->Arm && B->Arm->Concurrency.empty()))
      diag(B->NameRange, DiagID::warn_band_matches_nothing) << B->Name;
}

void SemaImpl::matchAts(RecipeState &R) {
  RecipeCells &Out = *R.Out;
  for (AtConcState *At : R.Ats) {
    // An arm without cells in this mode (its list is empty here): the
    // block applies to none of them.
    if (At->Arm && At->Arm->Concurrency.empty())
      continue;
    const std::vector<int64_t> &List =
        At->Arm ? At->Arm->Concurrency : Out.Concurrency;
    const AssignmentState *ListAssign =
        At->Arm ? R.ArmConcurrencyAssign[At->Arm->Index] : R.ConcurrencyAssign;
    auto InList = [&](int64_t C) {
      return std::binary_search(List.begin(), List.end(), C);
    };
    auto NoteList = [&](DiagnosticBuilder &B) {
      if (ListAssign && ListAssign->Range.isValid())
        B.note(ListAssign->Range.Start, DiagID::note_concurrency_here)
            << ListAssign->Range;
    };
    for (const ast::Expr *E : At->Stmt->getConcs()) {
      EvalCtx Ctx;
      Ctx.M = R.M;
      Ctx.Recipe = &R;
      Ctx.What = "an 'at conc' list";
      std::optional<Value> V = eval(E, Ctx);
      if (!V)
        continue;
      std::vector<int64_t> Items;
      if (V->kind() == ValueKind::Int) {
        if (!InList(V->getInt())) {
          auto B = At->Arm ? diag(E->getRange(), DiagID::err_conc_not_in_arm)
                           : diag(E->getRange(), DiagID::err_conc_not_in_list);
          B << V->getInt();
          if (At->Arm)
            B << At->Arm->Name;
          NoteList(B);
          continue;
        }
        Items.push_back(V->getInt());
      } else if (V->kind() == ValueKind::Range) {
        // Only the listed concurrencies, never the range itself (F12).
        for (int64_t C : List)
          if (rangeContains(V->getLo(), V->getHi(), V->getStep(), C))
            Items.push_back(C);
        if (Items.empty()) {
          auto B = diag(E->getRange(), DiagID::err_conc_range_empty);
          B << V->str();
          NoteList(B);
          continue;
        }
      } else {
        diag(E->getRange(), DiagID::err_type_mismatch)
            << "at conc" << "int or range" << V->describeType() << V->str();
        continue;
      }
      At->Concs.insert(At->Concs.end(), Items.begin(), Items.end());
    }
    std::sort(At->Concs.begin(), At->Concs.end());
    At->Concs.erase(std::unique(At->Concs.begin(), At->Concs.end()),
                    At->Concs.end());
  }
}

void SemaImpl::linkServerCells(RecipeState &R) {
  for (AtConcState *At : R.Ats) {
    if (!At->Server)
      continue;
    // The block pins the whole server: a server-side assignment beside it
    // would be silently ignored.
    for (const AssignmentState *A : R.Assignments)
      if (A->At == At && A != At->Server && R.Names.count(A->Name) &&
          R.Names[A->Name].ServerSide) {
        R.PinnedByServer.insert(A);
        auto B = diag(A->NameRange, DiagID::err_server_cell_override);
        B << (At->Concs.empty() ? std::string("?")
                                : std::to_string(At->Concs.front()))
          << At->ServerConc;
        B.note(At->Server->Range.Start, DiagID::note_server_cell_here)
            << At->ServerConc << At->Server->Range;
      }
    for (ArmState *Arm : R.Arms) {
      if (At->Arm && At->Arm != Arm)
        continue;
      std::vector<int64_t> Mine;
      for (int64_t C : At->Concs)
        if (std::binary_search(Arm->Concurrency.begin(), Arm->Concurrency.end(),
                               C))
          Mine.push_back(C);
      if (Mine.empty())
        continue;
      // N is a cell of the same arm.
      if (!std::binary_search(Arm->Concurrency.begin(), Arm->Concurrency.end(),
                              At->ServerConc)) {
        auto B = diag(At->Server->ValueExpr->getRange(),
                      DiagID::err_server_cell_not_conc);
        B << At->ServerConc
          << (Arm->Name.empty() ? std::string("the recipe")
                                : "arm '" + Arm->Name + "'");
        if (const AssignmentState *L = R.ArmConcurrencyAssign[Arm->Index];
            L && L->Range.isValid())
          B.note(L->Range.Start, DiagID::note_concurrency_here) << L->Range;
        continue;
      }
      for (int64_t C : Mine) {
        CellState &CS = R.Cells[{Arm->Index, C}];
        if (CS.C->ServerFrom) {
          const AssignmentState *Prev = R.ServerAssign[{Arm->Index, C}];
          auto B = report(At->Server->Range, DiagID::err_duplicate_assignment);
          B << "server" << CS.C->label();
          B.note(Prev->Range.Start, DiagID::note_also_set_here)
              << Prev->describeSite() << Prev->Range;
          continue;
        }
        CS.C->ServerFrom = At->ServerConc;
        R.ServerAssign[{Arm->Index, C}] = At->Server;
      }
    }
  }
  // Follow chains to their end; a cycle is an error and leaves its cells
  // with their own servers.
  for (auto &[Key, CS] : R.Cells) {
    if (!CS.C->ServerFrom)
      continue;
    std::vector<int64_t> Chain = {Key.second};
    int64_t Next = *CS.C->ServerFrom;
    bool Cycle = false;
    while (true) {
      if (std::find(Chain.begin(), Chain.end(), Next) != Chain.end()) {
        Cycle = true;
        Chain.push_back(Next);
        break;
      }
      Chain.push_back(Next);
      const Cell *NC = R.Cells[{Key.first, Next}].C;
      if (!NC->ServerFrom)
        break;
      Next = *NC->ServerFrom;
    }
    if (Cycle) {
      std::string Text;
      for (size_t N = 0; N < Chain.size(); ++N)
        Text += (N ? " -> " : "") + std::to_string(Chain[N]);
      diag(R.ServerAssign[Key]->Range, DiagID::err_server_cell_cycle) << Text;
      continue;
    }
    CS.C->ServerRoot = Chain.back();
  }
  for (auto &[Key, CS] : R.Cells)
    if (CS.C->ServerFrom && !CS.C->ServerRoot)
      CS.C->ServerFrom.reset();
}

const SetOption *SemaImpl::findSetOption(llvm::StringRef Name) const {
  for (const SetOption &S : SetOptions)
    if (S.Name == Name)
      return &S;
  return nullptr;
}

void SemaImpl::applySets(RecipeState &R) {
  for (const SetOption &S : SetOptions) {
    if (S.Name == "server") {
      diag(S.NameRange, DiagID::err_not_allowed_here) << "'server'"
                                                      << "'--set'";
      continue;
    }
    std::string Name = S.Name, Role;
    if (!splitRole(R, Name, Role, S.NameRange) ||
        !checkAssignable(R, Name, S.NameRange, Level::CommandLine) || !S.Value)
      continue;
    // Evaluated in each cell like an assignment in the recipe body: it may
    // read `conc` and other knobs, late-bound.
    auto A = std::make_unique<AssignmentState>();
    A->Name = Name;
    A->Role = Role;
    A->L = Level::CommandLine;
    A->setValueExpr(S.Value);
    A->Range = S.Range;
    A->NameRange = S.NameRange;
    A->M = R.M;
    if (llvm::StringRef(Name).startswith("router."))
      R.RouterAssignments.push_back(A.get());
    else
      R.ByName[A->Name].push_back(A.get());
    keepAssignment(R, std::move(A));
  }
}

const ast::CallExpr *
SemaImpl::geometricCall(const ast::Expr *E, Module &M,
                        const std::vector<int64_t> &List,
                        const std::optional<LocalScope> &Mode, int Depth) {
  if (!E || Depth > 8)
    return nullptr;
  if (auto *C = llvm::dyn_cast<ast::ConditionalExpr>(E)) {
    if (const ast::CallExpr *T =
            geometricCall(C->getThen(), M, List, Mode, Depth + 1))
      return T;
    return geometricCall(C->getElse(), M, List, Mode, Depth + 1);
  }
  if (auto *N = llvm::dyn_cast<ast::NameExpr>(E)) {
    const Symbol *S = lookupSymbol(M, N->getName().Name);
    if (!S || S->K != Symbol::Constant || !S->Const || !S->Const->Decl)
      return nullptr;
    return geometricCall(S->Const->Decl->getValue(), *S->Const->Owner, List,
                         Mode, Depth + 1);
  }
  auto *Call = llvm::dyn_cast<ast::CallExpr>(E);
  if (!Call)
    return nullptr;
  auto *Callee = llvm::dyn_cast<ast::NameExpr>(Call->getCallee());
  if (!Callee || Callee->getName().Name != "geometric")
    return nullptr;
  for (size_t I = 0; I < Call->getArgs().size(); ++I) {
    const ast::Argument &A = Call->getArgs()[I];
    if (A.isNamed() ? A.Name.Name == "factor" : I == 2) {
      auto *Lit = llvm::dyn_cast<ast::IntegerLiteral>(A.Value);
      if (!Lit || Lit->getValue() != 2)
        return nullptr;
    }
  }
  // The list must be this call's value, not one derived from it.
  EvalCtx Ctx;
  Ctx.M = &M;
  Ctx.Locals = Mode ? &*Mode : nullptr;
  Ctx.What = "the recipe's 'concurrency'";
  bool Was = Silent;
  Silent = true;
  std::optional<Value> V = eval(Call, Ctx);
  Silent = Was;
  if (!V || V->listSize() != List.size())
    return nullptr;
  size_t I = 0;
  for (Value X : V->elements())
    if (X.kind() != ValueKind::Int || X.getInt() != List[I++])
      return nullptr;
  return Call;
}

void SemaImpl::evaluateArmConcurrency(RecipeState &R) {
  RecipeCells &Out = *R.Out;
  std::vector<AssignmentState *> &As = R.ByName["concurrency"];
  // Each list is evaluated once, whatever the number of arms sharing it.
  std::map<const AssignmentState *, std::optional<std::vector<int64_t>>> Lists;
  std::map<const AssignmentState *, Value> Values;
  // The list may depend on `mode` (an accuracy run at other concurrencies
  // than the benchmark): the mode is one for the whole recipe, its
  // highest assignment of the recipe body or the command line
  // (`--mode eval`), and must be a constant there.
  std::optional<LocalScope> Mode;
  {
    const AssignmentState *From = nullptr;
    for (const AssignmentState *A : R.ByName["mode"])
      if ((A->L == Level::Default || A->L == Level::Recipe ||
           A->L == Level::CommandLine) &&
          (!From || A->L > From->L))
        From = A;
    std::optional<Value> V;
    if (From && From->Literal) {
      V = From->Literal;
    } else if (From && From->ValueExpr) {
      Type ModeType = Type::enumOf(builtinEnum("mode"));
      EvalCtx Ctx;
      Ctx.M = From->M;
      Ctx.Expected = &ModeType;
      Ctx.What = "the recipe's 'mode'";
      bool Was = Silent;
      Silent = true; // Reported where `mode` itself is resolved.
      V = eval(From->ValueExpr, Ctx);
      Silent = Was;
    }
    if (V && V->kind() == ValueKind::Enum)
      Mode = LocalScope{"mode", *V, nullptr};
  }
  auto Evaluate = [&](AssignmentState *A) -> std::optional<std::vector<int64_t>> {
    auto [It, New] = Lists.try_emplace(A);
    if (!New)
      return It->second;
    EvalCtx Ctx;
    Ctx.M = A->M;
    Ctx.Recipe = &R;
    Ctx.Locals = Mode ? &*Mode : nullptr;
    Ctx.What = "the recipe's 'concurrency'";
    std::optional<Value> V = eval(A->ValueExpr, Ctx);
    if (!V)
      return std::nullopt;
    Type T = Type::listOf(Type::of(Type::Int));
    std::optional<Value> C = conformTo(*V, T);
    if (!C) {
      diag(A->ValueExpr->getRange(), DiagID::err_type_mismatch)
          << "concurrency" << T.str() << V->describeType() << V->str();
      return std::nullopt;
    }
    std::vector<int64_t> List;
    const ast::Expr *Where = A->ValueExpr;
    warnLinearConcurrency(Where, A->M);
    // An empty list is an arm without cells in this mode; whether that is
    // an error is decided once every arm's list is known.
    for (Value E : C->elements()) {
      int64_t N = E.getInt();
      // The runtime runs a conc in [1, MaxConcurrency] only (F11).
      if (N < 1 || N > MaxConcurrency) {
        report(Where->getRange(), DiagID::err_concurrency_out_of_range)
            << N << MaxConcurrency;
        continue;
      }
      if (!List.empty() && N <= List.back()) {
        diag(Where->getRange(), DiagID::err_concurrency_order)
            << N << List.back();
        continue;
      }
      List.push_back(N);
    }
    // Past the cap no cell is expanded: the list is refused as a whole.
    if (List.size() > size_t(MaxCellsPerRecipe)) {
      diag(Where->getRange(), DiagID::err_too_many_cells)
          << Out.Name << List.size() << MaxCellsPerRecipe;
      List.clear();
    }
    Values[A] = *C;
    It->second = List;
    return List;
  };

  // The size of A's list in another mode, silently; none when it cannot be
  // evaluated there.
  auto SizeInMode = [&](const AssignmentState *A,
                        llvm::StringRef Other) -> std::optional<size_t> {
    LocalScope OtherMode{
        "mode", Value::enumMember(builtinEnum("mode"), Other.str()), nullptr};
    EvalCtx Ctx;
    Ctx.M = A->M;
    Ctx.Recipe = &R;
    Ctx.Locals = &OtherMode;
    Ctx.What = "the recipe's 'concurrency'";
    bool Was = Silent;
    Silent = true;
    std::optional<Value> V = eval(A->ValueExpr, Ctx);
    Silent = Was;
    if (!V)
      return std::nullopt;
    std::optional<Value> C = conformTo(*V, Type::listOf(Type::of(Type::Int)));
    if (!C)
      return std::nullopt;
    return C->listSize();
  };

  R.ArmConcurrencyAssign.assign(R.Arms.size(), nullptr);
  Out.ArmConcurrency.assign(R.Arms.size(), ResolvedValue());
  size_t Total = 0;
  // The lists that evaluated to no concurrency in this mode, in arm order.
  std::vector<AssignmentState *> EmptyLists;
  // Some list failed to evaluate or was refused (already reported).
  bool AnyFailed = false;
  for (ArmState *Arm : R.Arms) {
    AssignmentState *From = nullptr;
    for (AssignmentState *A : As)
      if ((!A->Arm || A->Arm == Arm) && (!From || A->L > From->L))
        From = A;
    if (!From) {
      if (Arm->Name.empty())
        diag(Out.NameRange, DiagID::err_missing_field)
            << Out.Name << "concurrency";
      else
        diag(Arm->NameRange, DiagID::err_arm_no_concurrency) << Arm->Name;
      continue;
    }
    R.ArmConcurrencyAssign[Arm->Index] = From;
    for (AssignmentState *A : As)
      if (A != From && (!A->Arm || A->Arm == Arm) && A->L < From->L &&
          !A->ShadowedBy)
        A->ShadowedBy = From;
    std::optional<std::vector<int64_t>> List = Evaluate(From);
    if (!List || (List->empty() &&
                  !(Values.count(From) && Values[From].listSize() == 0)))
      AnyFailed = true;
    if (List && List->empty() && Values.count(From) &&
        Values[From].listSize() == 0 &&
        std::find(EmptyLists.begin(), EmptyLists.end(), From) ==
            EmptyLists.end())
      EmptyLists.push_back(From);
    if (!List || List->empty())
      continue;
    Arm->Concurrency = *List;
    Total += List->size();
    // `geometric(a, b)` with InferenceX's factor 2: a `conc-start`/`conc-end`
    // pair in --emit inferencex. The call may be a branch of `x if c else
    // y` or a file-level constant's value (an accuracy run's list is
    // derived from the sweep); it counts where the list is its value.
    if (geometricCall(From->ValueExpr, *From->M, *List, Mode))
      Arm->Geometric = std::make_pair(List->front(), List->back());
    ResolvedValue &V = Out.ArmConcurrency[Arm->Index];
    V.V = Values[From];
    V.L = From->L;
    V.From = From;
    From->EffectiveIn.insert(From->EffectiveIn.end(), List->begin(),
                             List->end());
  }
  // An arm may have no cell in one mode (InferenceX evaluates accuracy on
  // some arms only: `[] if mode == eval else [4, 8]`), but a list empty in
  // every mode is a mistake, and so is a recipe with no cell at all.
  bool EmptyEverywhere = false;
  for (AssignmentState *A : EmptyLists) {
    bool Elsewhere = false;
    if (Mode)
      for (llvm::StringRef Other : {"bench", "eval"})
        if (Other != Mode->V.getString())
          if (std::optional<size_t> N = SizeInMode(A, Other); N && *N > 0)
            Elsewhere = true;
    if (!Elsewhere) {
      diag(A->ValueExpr->getRange(), DiagID::err_concurrency_empty);
      EmptyEverywhere = true;
    }
  }
  if (Total == 0 && !EmptyLists.empty() && !EmptyEverywhere && !AnyFailed &&
      Mode) {
    // Reported at the recipe body's list when the arms share it, otherwise
    // at the first arm's, with a note at each other arm's.
    AssignmentState *At = EmptyLists.front();
    for (AssignmentState *A : EmptyLists)
      if (!A->Arm) {
        At = A;
        break;
      }
    auto B = diag(At->ValueExpr->getRange(), DiagID::err_concurrency_no_cell);
    B << Mode->V.getString() << (Out.hasArms() ? " in every arm" : "");
    for (AssignmentState *A : EmptyLists)
      if (A != At && A->Range.isValid())
        B.note(A->Range.Start, DiagID::note_concurrency_here) << A->Range;
  }
  // Every arm's cells count toward the cap.
  if (Total > size_t(MaxCellsPerRecipe) && Out.hasArms()) {
    diag(Out.NameRange, DiagID::err_too_many_cells)
        << Out.Name << Total << MaxCellsPerRecipe;
    for (ArmState *Arm : R.Arms)
      Arm->Concurrency.clear();
  }
  for (ArmState *Arm : R.Arms)
    Out.Concurrency.insert(Out.Concurrency.end(), Arm->Concurrency.begin(),
                           Arm->Concurrency.end());
  std::sort(Out.Concurrency.begin(), Out.Concurrency.end());
  Out.Concurrency.erase(
      std::unique(Out.Concurrency.begin(), Out.Concurrency.end()),
      Out.Concurrency.end());
  // The recipe's own list (what `--emit cells` shows once).
  AssignmentState *RecipeList = nullptr;
  for (AssignmentState *A : As)
    if (!A->Arm && (!RecipeList || A->L > RecipeList->L))
      RecipeList = A;
  R.ConcurrencyAssign = RecipeList;
  if (RecipeList && Values.count(RecipeList)) {
    Out.ConcurrencyValue.V = Values[RecipeList];
    Out.ConcurrencyValue.L = RecipeList->L;
    Out.ConcurrencyValue.From = RecipeList;
  }
  // One arm: the list is the same in every cell (F12).
  if (R.Arms.size() == 1 && Out.ArmConcurrency[0].From)
    R.SameInEveryCell.insert("concurrency");
}

void SemaImpl::analyzeRecipe(EntityState &Recipe) {
  auto Owned = std::make_unique<RecipeCells>();
  RecipeState R;
  R.Out = Owned.get();
  R.Recipe = &Recipe;
  R.M = Recipe.Owner;
  RecipeCells &Out = *Owned;
  Out.Name = Recipe.Name;
  Out.File = Recipe.Owner->Name;
  Out.NameRange = Recipe.Decl->getName().Range;

  evaluateRecipeHeader(R);
  declareRecipeNames(R);

  // Engine defaults and built-in defaults: the lowest level.
  if (R.Engine)
    for (const KnobInfo &K : R.Engine->Knobs) {
      if (!K.Stmt->getDefault())
        continue;
      auto A = std::make_unique<AssignmentState>();
      A->Name = K.Name;
      A->L = Level::Default;
      A->setValueExpr(K.Stmt->getDefault());
      A->Range = K.Stmt->getRange();
      A->NameRange = K.Stmt->getName().Range;
      A->M = K.M;
      A->IsKnobDefault = true;
      R.ByName[K.Name].push_back(A.get());
      keepAssignment(R, std::move(A));
    }
  auto Builtin = [&](const char *Name, Value V) {
    auto A = std::make_unique<AssignmentState>();
    A->Name = Name;
    A->L = Level::Default;
    A->Literal = std::move(V);
    A->M = R.M;
    R.ByName[Name].push_back(A.get());
    keepAssignment(R, std::move(A));
  };
  Builtin("mode", Value::enumMember(builtinEnum("mode"), "bench"));
  Builtin("server_reuse",
          Value::enumMember(builtinEnum("server_reuse"), "cell"));
  Builtin("topology",
          Value::record("aggregated",
                        {{Value::string("nodes"), Value::none()},
                         {Value::string("replicas"), Value::integer(1)},
                         {Value::string("router"), Value::none()}}));

  collectStatements(R, Recipe.Decl->getBody().Stmts, Site(), "");
  applySets(R);
  // A recipe without `arm` statements is one unnamed arm.
  if (R.Arms.empty())
    newArm(R);
  evaluateArmConcurrency(R);

  size_t NumCells = 0;
  for (ArmState *Arm : R.Arms)
    NumCells += Arm->Concurrency.size();
  Out.Cells.resize(NumCells);
  size_t N = 0;
  for (ArmState *Arm : R.Arms)
    for (int64_t C : Arm->Concurrency) {
      Cell &Cl = Out.Cells[N++];
      Cl.Conc = C;
      Cl.Arm = Arm;
      Cl.Values = ValueTable(R.Keys);
      CellState &CS = R.Cells[{Arm->Index, C}];
      CS.C = &Cl;
      CS.R = &R;
    }
  // An empty list has been reported (empty, out of range, too long, not
  // evaluable); bands and `at conc` lists have nothing to match.
  if (NumCells) {
    matchBands(R);
    matchAts(R);
    linkServerCells(R);
  }
  for (BandState *B : R.Bands)
    for (ArmState *Arm : R.Arms) {
      if (B->Arm && B->Arm != Arm)
        continue;
      for (int64_t C : B->Concs) {
        auto It = R.Cells.find({Arm->Index, C});
        if (It != R.Cells.end() && !It->second.C->Band)
          It->second.C->Band = B;
      }
    }

  if (Out.Engine && Out.Hardware && Out.Model && NumCells) {
    unsigned Errors = Diags.errorCount();
    for (auto &[Key, CS] : R.Cells)
      if (!CS.C->ServerRoot)
        resolveCell(R, CS);
    for (auto &[Key, CS] : R.Cells)
      resolveCell(R, CS);
    R.CellsFailed = Diags.errorCount() > Errors;
    reportDeadAssignments(R);
    reportSilentKnobs(R);
    checkFileReferences(R);
  }
  Recipes.push_back(std::move(Owned));
}
