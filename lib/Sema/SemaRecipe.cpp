//===- SemaRecipe.cpp - A recipe's statements, levels, bands, overrides --===//
//
// Turns a recipe's body into assignments tagged with their precedence level
// (default < recipe < band < at conc < command line), checks each assigned
// name against the closed set (recipe fields, the engine's knobs, `let`
// values, the open `env.*` and `labels.*` maps), matches bands and
// `at conc` lists against the concurrency list, links `server = cell(N)`
// chains, and then resolves every cell (SemaCells.cpp).
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
};
} // namespace

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
        if (N == "engine" || N == "hardware" || N == "model" ||
            N == "concurrency")
          Header.try_emplace(N.str(), A);
      }
  // A `--set` of a header field replaces the recipe's assignment here, so
  // the knob set (engine) and the cells (concurrency) follow it.
  std::map<std::string, const ast::Expr *> Exprs;
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
    Exprs[Name] = E;
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
  if (auto V = Eval("concurrency", Type::listOf(Type::of(Type::Int)))) {
    const ast::Expr *List = Exprs["concurrency"];
    warnLinearConcurrency(List, R.M);
    Out.ConcurrencyValue.V = *V;
    if (V->listSize() == 0)
      diag(List->getRange(), DiagID::err_concurrency_empty);
    for (Value E : V->elements()) {
      int64_t C = E.getInt();
      // The runtime runs a conc in [1, MaxConcurrency] only (F11).
      if (C < 1 || C > MaxConcurrency) {
        report(List->getRange(), DiagID::err_concurrency_out_of_range)
            << C << MaxConcurrency;
        continue;
      }
      if (!Out.Concurrency.empty() && C <= Out.Concurrency.back()) {
        diag(List->getRange(), DiagID::err_concurrency_order)
            << C << Out.Concurrency.back();
        continue;
      }
      Out.Concurrency.push_back(C);
    }
    // Past the cap no cell is expanded: the list is refused as a whole.
    if (Out.Concurrency.size() > size_t(MaxCellsPerRecipe)) {
      diag(List->getRange(), DiagID::err_too_many_cells)
          << Out.Name << Out.Concurrency.size() << MaxCellsPerRecipe;
      Out.Concurrency.clear();
    }
  }
}

void SemaImpl::declareRecipeNames(RecipeState &R) {
  Type Str = Type::of(Type::String);
  const FieldDecl Fields[] = {
      {"model", Type::of(Type::Model), true, false},
      {"hardware", Type::of(Type::Hardware), true, false},
      {"engine", Type::of(Type::Engine), true, false},
      {"concurrency", Type::listOf(Type::of(Type::Int)), false, false},
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
    if (!It->second.PerCell && L != Level::Recipe && L != Level::CommandLine) {
      diag(NameRange, DiagID::err_field_not_per_cell) << Name;
      return false;
    }
    return true;
  }
  if ((Name.startswith("env.") || Name.startswith("labels.")) &&
      Name.count('.') == 1) {
    CellName N;
    N.K = CellName::OpenMap;
    // `none` removes the variable in the cells where it is none.
    N.Ty = Type::of(Type::Scalar, /*Optional=*/true);
    N.ServerSide = Name.startswith("env.");
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
  std::string Owner = R.Out->Engine ? "engine '" + R.Out->Engine->Name + "'"
                                    : "recipe '" + R.Out->Name + "'";
  auto B = diag(NameRange, DiagID::err_unknown_knob);
  B << Name << Owner;
  if (suggestSpelling(Name, Candidates))
    didYouMean(B, NameRange, Name, Candidates);
  else
    suggestByMeaning(B, R, Name, NameRange);
  return false;
}

void SemaImpl::keepAssignment(RecipeState &R,
                              std::unique_ptr<AssignmentState> A) {
  R.Assignments.push_back(A.get());
  R.Out->Assignments.push_back(A.get());
  Assignments.push_back(std::move(A));
}

void SemaImpl::addAssignment(RecipeState &R, const ast::AssignStmt &S, Level L,
                             const BandState *Band, AtConcState *At,
                             llvm::StringRef Prefix) {
  std::string Name = joinPath(S.getPath(), Prefix);
  llvm::SMRange NameRange(S.getPath().front().Range.Start,
                          S.getPath().back().Range.End);
  if (Name == "server") {
    if (!At) {
      diag(NameRange, DiagID::err_not_allowed_here)
          << "'server'" << (Band ? "a band" : "the recipe body; set it inside 'at conc'");
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
  if (!checkAssignable(R, Name, NameRange, L))
    return;
  auto A = std::make_unique<AssignmentState>();
  A->Name = Name;
  A->L = L;
  A->setValueExpr(S.getValue());
  A->Range = S.getRange();
  A->NameRange = NameRange;
  A->M = R.M;
  A->Band = Band;
  A->At = At;
  R.ByName[Name].push_back(A.get());
  keepAssignment(R, std::move(A));
}

void SemaImpl::addFileAssignment(RecipeState &R, const ast::FileStmt &S,
                                 Level L, const BandState *Band,
                                 AtConcState *At) {
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
  A->L = L;
  A->setValueExpr(S.getValue());
  A->Range = S.getRange();
  A->NameRange = NameLit->getRange();
  A->M = R.M;
  A->Band = Band;
  A->At = At;
  R.ByName[Name].push_back(A.get());
  keepAssignment(R, std::move(A));
}

void SemaImpl::collectStatements(RecipeState &R,
                                 llvm::ArrayRef<ast::Stmt *> Stmts, Level L,
                                 const BandState *Band, AtConcState *At,
                                 llvm::StringRef Prefix) {
  const char *Where = Band ? "a band" : At ? "an 'at conc' block" : "a recipe";
  for (ast::Stmt *S : Stmts) {
    switch (S->getKind()) {
    case ast::NodeKind::AssignStmt:
      addAssignment(R, *llvm::cast<ast::AssignStmt>(S), L, Band, At, Prefix);
      break;
    case ast::NodeKind::LetStmt:
      if (L != Level::Recipe || !Prefix.empty())
        diag(S->getRange(), DiagID::err_not_allowed_here)
            << "'let'"
            << (std::string(Where) +
                "; declare it in the recipe body and assign it here");
      break; // Declared by declareRecipeNames.
    case ast::NodeKind::BlockStmt: {
      auto *B = llvm::cast<ast::BlockStmt>(S);
      std::string P = (Prefix.empty() ? "" : Prefix.str() + ".") +
                      B->getName().Name.str();
      collectStatements(R, B->getBody().Stmts, L, Band, At, P);
      break;
    }
    case ast::NodeKind::BandStmt: {
      auto *B = llvm::cast<ast::BandStmt>(S);
      if (L != Level::Recipe || !Prefix.empty()) {
        diag(S->getRange(), DiagID::err_not_allowed_here) << "'band'" << Where;
        break;
      }
      for (const BandState *Prev : R.Bands)
        if (Prev->Name == B->getName().Name) {
          diag(B->getName().Range, DiagID::err_redefinition) << Prev->Name;
          Diags.report(Prev->NameRange, DiagID::note_previous_definition)
              << Prev->Name;
        }
      auto Info = std::make_unique<BandState>();
      Info->Name = B->getName().Name.str();
      Info->Stmt = B;
      Info->NameRange = B->getName().Range;
      BandState *Ptr = Info.get();
      R.Bands.push_back(Ptr);
      Bands.push_back(std::move(Info));
      R.HasBands = true;
      collectStatements(R, B->getBody().Stmts, Level::Band, Ptr, nullptr, "");
      break;
    }
    case ast::NodeKind::AtConcStmt: {
      auto *A = llvm::cast<ast::AtConcStmt>(S);
      if (L != Level::Recipe || !Prefix.empty()) {
        diag(S->getRange(), DiagID::err_not_allowed_here) << "'at conc'" << Where;
        break;
      }
      auto Info = std::make_unique<AtConcState>();
      Info->Stmt = A;
      AtConcState *Ptr = Info.get();
      R.Ats.push_back(Ptr);
      Ats.push_back(std::move(Info));
      collectStatements(R, A->getBody().Stmts, Level::AtConc, nullptr, Ptr, "");
      break;
    }
    case ast::NodeKind::CheckStmt: {
      auto *C = llvm::cast<ast::CheckStmt>(S);
      R.Checks.push_back({C->getCondition(), C->getMessage(), R.M, Band, At});
      break;
    }
    case ast::NodeKind::PreflightStmt:
      R.Preflights.push_back({llvm::cast<ast::PreflightStmt>(S), Band, At});
      break;
    case ast::NodeKind::FileStmt:
      addFileAssignment(R, *llvm::cast<ast::FileStmt>(S), L, Band, At);
      break;
    default:
      diag(S->getRange(), DiagID::err_not_allowed_here)
          << ("'" + sourceText(S->getRange()).split(' ').first.str() + "'")
          << Where;
      break;
    }
  }
}

void SemaImpl::matchBands(RecipeState &R) {
  RecipeCells &Out = *R.Out;
  for (BandState *B : R.Bands) {
    for (int64_t C : Out.Concurrency) {
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
  // Where each concurrency is written, for errors: its literal in the
  // list, else the whole list.
  std::map<int64_t, llvm::SMRange> Literals;
  if (R.ConcurrencyAssign)
    if (auto *L = llvm::dyn_cast<ast::ListExpr>(R.ConcurrencyAssign->ValueExpr))
      for (const ast::Expr *E : L->getElements())
        if (auto *I = llvm::dyn_cast<ast::IntegerLiteral>(E))
          Literals.try_emplace(I->getValue(), I->getRange());
  auto ConcRange = [&](int64_t C) -> llvm::SMRange {
    if (!R.ConcurrencyAssign)
      return Out.NameRange;
    auto It = Literals.find(C);
    return It != Literals.end() ? It->second
                                : R.ConcurrencyAssign->ValueExpr->getRange();
  };
  for (int64_t C : Out.Concurrency) {
    std::vector<const BandInfo *> In;
    for (BandState *B : R.Bands)
      if (std::binary_search(B->Concs.begin(), B->Concs.end(), C))
        In.push_back(B);
    if (In.empty()) {
      diag(ConcRange(C), DiagID::err_conc_in_no_band) << C;
      continue;
    }
    if (In.size() > 1) {
      auto Diag = report(ConcRange(C), DiagID::err_band_overlap);
      Diag << C << In[0]->Name << In[1]->Name;
      Diag.note(In[0]->NameRange.Start, DiagID::note_band_here)
          << In[0]->Name << In[0]->NameRange;
      Diag.note(In[1]->NameRange.Start, DiagID::note_band_here)
          << In[1]->Name << In[1]->NameRange;
    }
  }
  for (BandState *B : R.Bands)
    if (B->Concs.empty())
      diag(B->NameRange, DiagID::warn_band_matches_nothing) << B->Name;
}

void SemaImpl::matchAts(RecipeState &R) {
  RecipeCells &Out = *R.Out;
  auto InList = [&](int64_t C) {
    return std::binary_search(Out.Concurrency.begin(), Out.Concurrency.end(),
                              C);
  };
  auto NoteList = [&](DiagnosticBuilder &B) {
    if (R.ConcurrencyAssign)
      B.note(R.ConcurrencyAssign->Range.Start, DiagID::note_concurrency_here)
          << R.ConcurrencyAssign->Range;
  };
  for (AtConcState *At : R.Ats) {
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
          auto B = diag(E->getRange(), DiagID::err_conc_not_in_list);
          B << V->getInt();
          NoteList(B);
          continue;
        }
        Items.push_back(V->getInt());
      } else if (V->kind() == ValueKind::Range) {
        // Only the recipe's concurrencies, never the range itself (F12).
        for (int64_t C : Out.Concurrency)
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
  RecipeCells &Out = *R.Out;
  for (AtConcState *At : R.Ats) {
    if (!At->Server)
      continue;
    bool Known = std::binary_search(Out.Concurrency.begin(),
                                    Out.Concurrency.end(), At->ServerConc);
    if (!Known) {
      auto B = diag(At->Server->ValueExpr->getRange(),
                    DiagID::err_server_cell_not_conc);
      B << At->ServerConc;
      if (R.ConcurrencyAssign)
        B.note(R.ConcurrencyAssign->Range.Start, DiagID::note_concurrency_here)
            << R.ConcurrencyAssign->Range;
      continue;
    }
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
    for (int64_t C : At->Concs) {
      CellState &CS = R.Cells[C];
      if (CS.C->ServerFrom) {
        const Assignment *Prev = R.ServerAssign[C];
        auto B = report(At->Server->Range, DiagID::err_duplicate_assignment);
        B << "server" << C;
        B.note(Prev->Range.Start, DiagID::note_also_set_here)
            << Prev->describeSite() << Prev->Range;
        continue;
      }
      CS.C->ServerFrom = At->ServerConc;
      R.ServerAssign[C] = At->Server;
    }
  }
  // Follow chains to their end; a cycle is an error and leaves its cells
  // with their own servers.
  for (auto &[Conc, CS] : R.Cells) {
    if (!CS.C->ServerFrom)
      continue;
    std::vector<int64_t> Chain = {Conc};
    int64_t Next = *CS.C->ServerFrom;
    bool Cycle = false;
    while (true) {
      if (std::find(Chain.begin(), Chain.end(), Next) != Chain.end()) {
        Cycle = true;
        Chain.push_back(Next);
        break;
      }
      Chain.push_back(Next);
      const Cell *NC = R.Cells[Next].C;
      if (!NC->ServerFrom)
        break;
      Next = *NC->ServerFrom;
    }
    if (Cycle) {
      std::string Text;
      for (size_t N = 0; N < Chain.size(); ++N)
        Text += (N ? " -> " : "") + std::to_string(Chain[N]);
      diag(R.ServerAssign[Conc]->Range, DiagID::err_server_cell_cycle) << Text;
      continue;
    }
    CS.C->ServerRoot = Chain.back();
  }
  for (auto &[Conc, CS] : R.Cells)
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
    if (!checkAssignable(R, S.Name, S.NameRange, Level::CommandLine) ||
        !S.Value)
      continue;
    // Evaluated in each cell like an assignment in the recipe body: it may
    // read `conc` and other knobs, late-bound.
    auto A = std::make_unique<AssignmentState>();
    A->Name = S.Name;
    A->L = Level::CommandLine;
    A->setValueExpr(S.Value);
    A->Range = S.Range;
    A->NameRange = S.NameRange;
    A->M = R.M;
    R.ByName[A->Name].push_back(A.get());
    keepAssignment(R, std::move(A));
  }
}

void SemaImpl::bindConcurrency(RecipeState &R) {
  // The header evaluated the first assignment of the highest level.
  AssignmentState *From = nullptr;
  for (AssignmentState *A : R.ByName["concurrency"])
    if (!From || A->L > From->L)
      From = A;
  R.ConcurrencyAssign = From;
  RecipeCells &Out = *R.Out;
  if (!From || Out.Concurrency.empty())
    return;
  Out.ConcurrencyValue.L = From->L;
  Out.ConcurrencyValue.From = From;
  R.SameInEveryCell.insert("concurrency");
  From->EffectiveIn = Out.Concurrency;
  for (AssignmentState *A : R.ByName["concurrency"])
    if (A->L < From->L)
      A->ShadowedBy = From;
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
  Builtin("topology",
          Value::record("aggregated", {{Value::string("nodes"), Value::integer(1)}}));

  collectStatements(R, Recipe.Decl->getBody().Stmts, Level::Recipe, nullptr,
                    nullptr, "");
  applySets(R);
  bindConcurrency(R);

  Out.Cells.resize(Out.Concurrency.size());
  for (size_t N = 0; N < Out.Concurrency.size(); ++N) {
    Out.Cells[N].Conc = Out.Concurrency[N];
    CellState &CS = R.Cells[Out.Concurrency[N]];
    CS.C = &Out.Cells[N];
    CS.R = &R;
  }
  // An empty list has been reported (empty, out of range, too long, not
  // evaluable); bands and `at conc` lists have nothing to match.
  if (!Out.Concurrency.empty()) {
    matchBands(R);
    matchAts(R);
    linkServerCells(R);
  }
  for (BandState *B : R.Bands)
    for (int64_t C : B->Concs)
      if (!R.Cells[C].C->Band)
        R.Cells[C].C->Band = B;

  if (Out.Engine && Out.Hardware && Out.Model && !Out.Concurrency.empty()) {
    unsigned Errors = Diags.errorCount();
    for (auto &[Conc, CS] : R.Cells)
      if (!CS.C->ServerRoot)
        resolveCell(R, CS);
    for (auto &[Conc, CS] : R.Cells)
      resolveCell(R, CS);
    R.CellsFailed = Diags.errorCount() > Errors;
    reportDeadAssignments(R);
    reportSilentKnobs(R);
    checkFileReferences(R);
  }
  Recipes.push_back(std::move(Owned));
}
