//===- SemaChecks.cpp - Checks, constraints, pre-flights -----------------===//
//
// What is evaluated once a cell's values are resolved: knob `where`
// constraints and `check` statements, once per role in a disaggregated cell
// (a failure names the cell and shows the operands' values), the
// served-name check, pre-flight actions, and finally the assignments that
// took effect in no cell. Layouts (GPUs, nodes, processes) are
// SemaProcesses.cpp's; what each process renders, SemaRender.cpp's.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

using namespace arecipe;
using namespace arecipe::sema;

static bool isLiteral(const ast::Expr *E) {
  switch (E->getKind()) {
  case ast::NodeKind::IntegerLiteral:
  case ast::NodeKind::FloatLiteral:
  case ast::NodeKind::QuantityLiteral:
  case ast::NodeKind::BoolLiteral:
  case ast::NodeKind::NoneLiteral:
  case ast::NodeKind::StringLiteral:
    return true;
  case ast::NodeKind::RangeExpr: {
    auto *R = llvm::cast<ast::RangeExpr>(E);
    return isLiteral(R->getLo()) && isLiteral(R->getHi()) &&
           (!R->getStep() || isLiteral(R->getStep()));
  }
  default:
    return false;
  }
}

/// `x == none` (either way round): the guard an optional knob's constraint
/// starts with (`where x == none or x >= 1`).
static bool isNoneTest(const ast::Expr *E) {
  auto *Bin = llvm::dyn_cast<ast::BinaryExpr>(E);
  return Bin && Bin->getOp() == ast::BinaryOp::Eq &&
         (llvm::isa<ast::NoneLiteral>(Bin->getLHS()) ||
          llvm::isa<ast::NoneLiteral>(Bin->getRHS()));
}

void SemaImpl::explainFailure(const ast::Expr *Cond, const EvalCtx &Ctx,
                              DiagnosticBuilder &B) {
  bool Was = Silent;
  Silent = true;
  // Descend to the operand that made the condition false. A false `x ==
  // none or C` failed because of C: the guard only says the value is set.
  while (true) {
    if (auto *Bin = llvm::dyn_cast<ast::BinaryExpr>(Cond)) {
      if (Bin->getOp() == ast::BinaryOp::And) {
        std::optional<Value> L = eval(Bin->getLHS(), Ctx);
        Cond = L && L->kind() == ValueKind::Bool && !L->getBool()
                   ? Bin->getLHS()
                   : Bin->getRHS();
        continue;
      }
      if (Bin->getOp() == ast::BinaryOp::Or && isNoneTest(Bin->getLHS())) {
        Cond = Bin->getRHS();
        continue;
      }
    }
    break;
  }
  std::vector<const ast::Expr *> Operands;
  auto *Bin = llvm::dyn_cast<ast::BinaryExpr>(Cond);
  if (Bin && ast::isComparison(Bin->getOp())) {
    Operands = {Bin->getLHS(), Bin->getRHS()};
  } else if (Bin && Bin->getOp() == ast::BinaryOp::Or) {
    Operands = {Bin->getLHS(), Bin->getRHS()};
  } else {
    Operands = {Cond};
  }
  std::vector<std::tuple<llvm::SMRange, std::string, std::string>> Notes;
  std::function<void(const ast::Expr *)> Add = [&](const ast::Expr *E) {
    if (isLiteral(E))
      return;
    if (auto *Inner = llvm::dyn_cast<ast::BinaryExpr>(E))
      if (Inner->getOp() == ast::BinaryOp::Or ||
          Inner->getOp() == ast::BinaryOp::And) {
        Add(Inner->getLHS());
        Add(Inner->getRHS());
        return;
      }
    std::optional<Value> V = eval(E, Ctx);
    if (V)
      Notes.emplace_back(E->getRange(), sourceText(E->getRange()).str(),
                         V->str());
    if (auto *Cmp = llvm::dyn_cast<ast::BinaryExpr>(E)) {
      if (!isLiteral(Cmp->getLHS()) && !llvm::isa<ast::NameExpr>(Cmp->getLHS()))
        return;
      for (const ast::Expr *Side : {Cmp->getLHS(), Cmp->getRHS()})
        if (llvm::isa<ast::NameExpr>(Side) || llvm::isa<ast::MemberExpr>(Side)) {
          std::optional<Value> SV = eval(Side, Ctx);
          if (SV)
            Notes.emplace_back(Side->getRange(),
                               sourceText(Side->getRange()).str(), SV->str());
        }
    }
  };
  for (const ast::Expr *E : Operands)
    Add(E);
  Silent = Was;
  for (auto &[Range, Text, Val] : Notes)
    B.note(Range.Start, DiagID::note_operand_value) << Text << Val << Range;
}

static bool inScope(const ArmInfo *Arm, const BandInfo *Band,
                    const AtConcInfo *At, const Cell &C) {
  if (Arm && Arm != C.Arm)
    return false;
  if (Band)
    return std::binary_search(Band->Concs.begin(), Band->Concs.end(), C.Conc);
  if (At)
    return std::binary_search(At->Concs.begin(), At->Concs.end(), C.Conc);
  return true;
}

/// Whether a formula read a role's value (`prefill.tp`): it then holds per
/// role and is checked for each.
static bool readsRole(const std::vector<std::string> &Deps) {
  for (llvm::StringRef D : Deps)
    if (D.startswith("prefill.") || D.startswith("decode."))
      return true;
  return false;
}

/// Whether a condition that held in a cell is kept in R.HeldWith: it was
/// evaluated without a role (a role's values are not what memoRead
/// compares), read nothing of the cell (CellReads unchanged), reported
/// nothing, and does not hold everywhere already.
static bool keepHeld(const RecipeState &R, const CellState &CS,
                     const ast::Expr *Cond, llvm::StringRef Role,
                     unsigned CellReads, bool Reported) {
  return Role.empty() && !Reported && CS.CellReads == CellReads &&
         !R.HoldsEverywhere.count({Cond, 0});
}

void SemaImpl::runChecks(RecipeState &R, CellState &CS) {
  auto ValueRead = [&](llvm::StringRef Dep) { return memoRead(R, CS, Dep); };
  // Once per role where the check reads a role's values (docs/sema.md);
  // once otherwise.
  auto Run = [&](const ast::Expr *Cond, const ast::StringLiteral *Message,
                 Module *M) {
    for (const std::string &Role : CS.C->Roles) {
      if (auto It = R.HoldsEverywhere.find({Cond, R.roleIndex(Role)});
          It != R.HoldsEverywhere.end()) {
        if (!It->second)
          return;
        continue;
      }
      // Held in an earlier cell with the same values: a check kept there
      // read no role's value, so it is not run per role either.
      if (Role.empty() && R.HeldWith.find(Cond, ValueRead))
        return;
      std::vector<std::string> Deps;
      EvalCtx Ctx;
      Ctx.M = M;
      Ctx.Cell = &CS;
      Ctx.Recipe = &R;
      Ctx.What = "a check";
      Ctx.Role = Role;
      Ctx.Deps = &Deps;
      unsigned CellReads = CS.CellReads;
      unsigned Reports = Diags.errorCount() + Diags.warningCount();
      std::optional<bool> Ok = evalBool(Cond, Ctx, "a check condition");
      bool PerRole = readsRole(Deps);
      if (Ok && *Ok) {
        R.noteHolds(CS, Cond, Role, Deps, CellReads, PerRole);
        if (!PerRole &&
            keepHeld(R, CS, Cond, Role, CellReads,
                     Diags.errorCount() + Diags.warningCount() != Reports))
          R.HeldWith.add(Cond, std::move(Deps), ValueRead, true);
      }
      if (Ok && !*Ok) {
        Ctx.Deps = nullptr;
        std::optional<Value> Msg = Message ? eval(Message, Ctx) : std::nullopt;
        auto B = report(Cond->getRange(), DiagID::err_check_failed);
        B << cellLabel(CS, PerRole ? llvm::StringRef(Role) : "")
          << (Msg ? Msg->getString() : sourceText(Cond->getRange()).str());
        explainFailure(Cond, Ctx, B);
      }
      if (!PerRole)
        return;
    }
  };
  for (const CheckInfo &C : R.Checks)
    if (inScope(C.Arm, C.Band, C.At, *CS.C))
      Run(C.Cond, C.Message, C.M);
  if (R.Engine)
    for (const TemplateMember &M : R.Engine->Body)
      if (auto *C = llvm::dyn_cast<ast::CheckStmt>(M.S))
        Run(C->getCondition(), C->getMessage(), M.M);

  // The served model name is what the client asks for on the wire.
  const ResolvedValue *Client = CS.C->find("client.model");
  for (const std::string &Role : CS.C->Roles) {
    const ResolvedValue *Served = CS.C->find("served_model_name", Role);
    if (Served && Client && Served->V.kind() == ValueKind::String &&
        Client->V.kind() == ValueKind::String &&
        Served->V.getString() != Client->V.getString()) {
      const ResolvedValue *Blame =
          Served->From && Served->From->L != Level::Default ? Served : Client;
      llvm::SMRange Where = Blame->From ? Blame->From->Range : R.Out->NameRange;
      if (!Where.isValid())
        Where = R.Out->NameRange;
      report(Where, DiagID::err_served_name_mismatch)
          << Served->V.getString() << Client->V.getString()
          << cellLabel(CS,
                       CS.C->isDisaggregated() ? llvm::StringRef(Role) : "");
    }
  }
}

void SemaImpl::checkConstraints(RecipeState &R, CellState &CS) {
  if (!R.Engine || CS.C->ServerRoot)
    return;
  auto ValueRead = [&](llvm::StringRef Dep) { return memoRead(R, CS, Dep); };
  for (const KnobInfo &K : R.Engine->Knobs) {
    const ast::Expr *Constraint = K.Stmt->getConstraint();
    if (!Constraint)
      continue;
    // In a disaggregated cell each role's value is checked; a failure the
    // roles share (one value, one assignment) is reported once.
    const ResolvedValue *Reported = nullptr;
    for (const std::string &Role : CS.C->Roles) {
      const ResolvedValue *RV = findCellValue(R, CS, K.Name, Role);
      if (!RV || R.HoldsEverywhere.count({Constraint, R.roleIndex(Role)}) ||
          (Role.empty() && R.HeldWith.find(Constraint, ValueRead)))
        continue;
      std::vector<std::string> Deps;
      EvalCtx Ctx;
      Ctx.M = K.M;
      Ctx.Cell = &CS;
      Ctx.Recipe = &R;
      Ctx.What = "a constraint";
      Ctx.Role = Role;
      Ctx.Deps = &Deps;
      unsigned CellReads = CS.CellReads;
      unsigned Reports = Diags.errorCount() + Diags.warningCount();
      std::optional<bool> Ok = evalBool(Constraint, Ctx, "a constraint");
      if (Ok && *Ok) {
        R.noteHolds(CS, Constraint, Role, Deps, CellReads, false);
        if (keepHeld(R, CS, Constraint, Role, CellReads,
                     Diags.errorCount() + Diags.warningCount() != Reports))
          R.HeldWith.add(Constraint, std::move(Deps), ValueRead, true);
      }
      if (!Ok || *Ok)
        continue;
      Ctx.Deps = nullptr;
      if (Reported && Reported->From == RV->From && Reported->V == RV->V)
        continue;
      bool Shared = !CS.C->isDisaggregated() || [&] {
        const ResolvedValue *P = CS.C->find(K.Name, "prefill");
        const ResolvedValue *D = CS.C->find(K.Name, "decode");
        return P && D && P->From == D->From && P->V == D->V;
      }();
      llvm::SMRange Where = K.Stmt->getName().Range;
      if (RV->From && RV->From->FormulaRange.isValid() &&
          RV->From->L != Level::Default)
        Where = RV->From->FormulaRange;
      auto B = report(Where, DiagID::err_constraint_failed);
      B << K.Name << RV->V.str()
        << cellLabel(CS, Shared ? llvm::StringRef() : llvm::StringRef(Role));
      B.note(Constraint->getLoc(), DiagID::note_constraint_here)
          << Constraint->getRange();
      explainFailure(Constraint, Ctx, B);
      Reported = RV;
    }
  }
}

bool SemaImpl::checkWholeBytes(const Value &V, llvm::StringRef Name,
                               llvm::SMRange Where) {
  if (V.kind() != ValueKind::Quantity)
    return true;
  NumericResult<Rational> Bytes = V.getQuantity().in(Unit::B);
  if (!Bytes || Bytes->isInteger())
    return true;
  NumericResult<int64_t> Down = Bytes->round(Rounding::Floor);
  NumericResult<std::string> Exact = Bytes->toDecimalString();
  diag(Where, DiagID::err_size_not_whole_bytes)
      << Name << V.str() << (Exact ? *Exact : Bytes->str())
      << (Down ? std::to_string(*Down) : std::string("?"));
  return false;
}

void SemaImpl::checkContextLength(RecipeState &R, CellState &CS) {
  // A fixed scenario draws each input length up to isl and each output
  // length up to osl (range "below"), or up to isl x (1 + ratio) and
  // osl x (1 + ratio) (range "around"), as the client does
  // (client::lengthRange): the longest request needs both maxima of
  // context. An engine whose context limit is set below that rejects or
  // truncates every such request on a real server.
  if (!R.Engine || CS.C->ServerRoot)
    return;
  auto Field = R.Engine->Fields.find("context_knob");
  if (Field == R.Engine->Fields.end() ||
      Field->second.kind() != ValueKind::String)
    return;
  const std::string &Knob = Field->second.getString();
  const KnobInfo *K = R.Engine->findKnob(Knob);
  if (!K || K->Ty.K != Type::Int)
    return; // Reported with the engine (err_context_knob).
  const ResolvedValue *Scenario = CS.C->find("scenario");
  if (!Scenario || Scenario->V.kind() != ValueKind::Record ||
      Scenario->V.getRecordName() != "fixed")
    return;
  const Value *Isl = Scenario->V.lookup("isl");
  const Value *Osl = Scenario->V.lookup("osl");
  const Value *Ratio = Scenario->V.lookup("ratio");
  const Value *Range = Scenario->V.lookup("range");
  if (!Isl || !Osl || !Ratio || !Range || Isl->kind() != ValueKind::Int ||
      Osl->kind() != ValueKind::Int || !Ratio->isNumeric() ||
      Range->kind() != ValueKind::String)
    return;
  bool Around = Range->getString() == "around";
  NumericResult<Rational> Scale =
      Around ? Rational(1).add(Ratio->getNumber()) : Rational(1);
  if (!Scale)
    return;
  NumericResult<Rational> InR = Rational(Isl->getInt()).mul(*Scale);
  NumericResult<Rational> OutR = Rational(Osl->getInt()).mul(*Scale);
  if (!InR || !OutR)
    return;
  NumericResult<int64_t> InMax = InR->round(Rounding::Floor);
  NumericResult<int64_t> OutMax = OutR->round(Rounding::Floor);
  if (!InMax || !OutMax)
    return;
  int64_t Need = *InMax + *OutMax;
  for (const std::string &Role : CS.C->Roles) {
    const ResolvedValue *Limit = CS.C->find(Knob, Role);
    if (!Limit || Limit->V.kind() != ValueKind::Int ||
        Limit->V.getInt() >= Need)
      continue;
    // The assignment that set the limit, if the recipe did; else the
    // scenario that asks for the longer requests.
    const Assignment *Blame = Limit->From && Limit->From->L != Level::Default
                                  ? Limit->From
                                  : Scenario->From;
    llvm::SMRange Where = Blame ? Blame->Range : R.Out->NameRange;
    if (!Where.isValid())
      Where = R.Out->NameRange;
    bool Shared = !CS.C->isDisaggregated() || [&] {
      const ResolvedValue *P = CS.C->find(Knob, "prefill");
      const ResolvedValue *D = CS.C->find(Knob, "decode");
      return P && D && P->From == D->From && P->V == D->V;
    }();
    std::string Numbers =
        std::to_string(Need) + " " + std::to_string(Limit->V.getInt()) + " " +
        std::to_string(Isl->getInt()) + " " + std::to_string(Osl->getInt()) +
        " " + Ratio->getNumber().str() + " " + Range->getString();
    if (!R.ContextOverflows.insert({Where.Start.getPointer(), Numbers}).second)
      continue;
    report(Where, DiagID::warn_context_overflow)
        << cellLabel(CS, Shared ? llvm::StringRef() : llvm::StringRef(Role))
        << Need << *InMax << *OutMax
        << ("isl " + std::to_string(Isl->getInt()) + " and osl " +
            std::to_string(Osl->getInt()) +
            (Around ? " × (1 + ratio " + Ratio->getNumber().str() + ")"
                    : std::string(", the longest of range 'below'")))
        << Knob << Limit->V.getInt();
  }
}

void SemaImpl::evaluatePreflights(RecipeState &R, CellState &CS) {
  auto ValueRead = [&](llvm::StringRef Dep) { return memoRead(R, CS, Dep); };
  std::vector<std::string> Deps;
  EvalCtx Ctx;
  Ctx.M = R.M;
  Ctx.Cell = &CS;
  Ctx.Recipe = &R;
  Ctx.What = "a pre-flight action";
  Ctx.Deps = &Deps;
  // The recipe's actions, then its arm's, its band's, its `at conc`'s.
  for (int Pass = 0; Pass < 4; ++Pass)
    for (const PreflightInfo &P : R.Preflights) {
      int Which = P.At ? 3 : P.Band ? 2 : P.Arm ? 1 : 0;
      if (Which != Pass || !inScope(P.Arm, P.Band, P.At, *CS.C))
        continue;
      // An action whose arguments read the same values as in an earlier
      // cell is that cell's (most read none, or recipe-level names).
      if (const PreflightAction *Kept =
              R.PreflightMemos.find(P.Stmt, ValueRead)) {
        CS.C->Preflight.push_back(*Kept);
        continue;
      }
      Deps.clear();
      unsigned CellReads = CS.CellReads;
      unsigned Reports = Diags.errorCount() + Diags.warningCount();
      std::optional<PreflightAction> A = evalPreflight(*P.Stmt, Ctx);
      if (!A)
        continue;
      if (CS.CellReads == CellReads &&
          Diags.errorCount() + Diags.warningCount() == Reports)
        R.PreflightMemos.add(P.Stmt, Deps, ValueRead, *A);
      CS.C->Preflight.push_back(std::move(*A));
    }
}

void SemaImpl::reportDeadAssignments(RecipeState &R) {
  for (const AssignmentState *A : R.Assignments) {
    if (A->L != Level::Recipe && A->L != Level::Arm && A->L != Level::Band &&
        A->L != Level::AtConc)
      continue;
    // Assignments already reported as errors (a role in an aggregated
    // cell, a router knob without a router) are not dead code as well.
    if (A->Name == "server" || !A->EffectiveIn.empty() ||
        R.PinnedByServer.count(A) || R.ReportedOnce.count({A, 0}))
      continue;
    if (A->Arm && A->Arm->Concurrency.empty())
      continue;
    std::string Shown = A->Role.empty() ? A->Name : A->Role + "." + A->Name;
    if ((A->Band && A->Band->Concs.empty()) || (A->At && A->At->Concs.empty()))
      continue;
    if (A->ShadowedBy) {
      // A `--set` override is deliberate: what it shadows is not a mistake
      // in the recipe.
      if (A->ShadowedBy->L == Level::CommandLine)
        continue;
      auto B = diag(A->NameRange, DiagID::warn_dead_assignment);
      B << Shown;
      if (A->ShadowedBy->Range.isValid())
        B.note(A->ShadowedBy->Range.Start, DiagID::note_shadowed_by)
            << A->ShadowedBy->describeSite() << A->ShadowedBy->Range;
    } else if (A->ShadowedInServerOf) {
      auto B = diag(A->NameRange, DiagID::warn_dead_assignment);
      B << Shown;
      const AssignmentState *S = A->ShadowedInServerOf;
      if (S)
        B.note(S->Range.Start, DiagID::note_shadowed_by_server)
            << S->Literal->getServerConc() << S->Range;
    }
  }
}
