//===- SemaChecks.cpp - Checks, constraints, layouts, pre-flights --------===//
//
// What is evaluated once a cell's values are resolved: knob `where`
// constraints, `check` statements (a failure names the cell and shows the
// operands' values), GPU and node counting per topology
// (docs/sema.md#gpus-and-nodes) with the layout and served-name checks,
// pre-flight actions, and finally the assignments that took effect in no
// cell. The engine's renderings are SemaRender.cpp's.
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

void SemaImpl::explainFailure(const ast::Expr *Cond, const EvalCtx &Ctx,
                              DiagnosticBuilder &B) {
  bool Was = Silent;
  Silent = true;
  // Descend to the operand that made the condition false.
  while (true) {
    if (auto *Bin = llvm::dyn_cast<ast::BinaryExpr>(Cond)) {
      if (Bin->getOp() == ast::BinaryOp::And) {
        std::optional<Value> L = eval(Bin->getLHS(), Ctx);
        Cond = L && L->kind() == ValueKind::Bool && !L->getBool()
                   ? Bin->getLHS()
                   : Bin->getRHS();
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

static bool inScope(const BandInfo *Band, const AtConcInfo *At, int64_t C) {
  if (Band)
    return std::binary_search(Band->Concs.begin(), Band->Concs.end(), C);
  if (At)
    return std::binary_search(At->Concs.begin(), At->Concs.end(), C);
  return true;
}

void SemaImpl::runChecks(RecipeState &R, CellState &CS) {
  auto Run = [&](const ast::Expr *Cond, const ast::StringLiteral *Message,
                 Module *M) {
    EvalCtx Ctx;
    Ctx.M = M;
    Ctx.Cell = &CS;
    Ctx.Recipe = &R;
    Ctx.What = "a check";
    std::optional<bool> Ok = evalBool(Cond, Ctx, "a check condition");
    if (!Ok || *Ok)
      return;
    std::optional<Value> Msg = Message ? eval(Message, Ctx) : std::nullopt;
    auto B = report(Cond->getRange(), DiagID::err_check_failed);
    B << CS.C->Conc
      << (Msg ? Msg->getString() : sourceText(Cond->getRange()).str());
    explainFailure(Cond, Ctx, B);
  };
  for (const CheckInfo &C : R.Checks)
    if (inScope(C.Band, C.At, CS.C->Conc))
      Run(C.Cond, C.Message, C.M);
  if (R.Engine)
    for (const TemplateMember &M : R.Engine->Body)
      if (auto *C = llvm::dyn_cast<ast::CheckStmt>(M.S))
        Run(C->getCondition(), C->getMessage(), M.M);

  // The served model name is what the client asks for on the wire.
  const ResolvedValue *Served = CS.C->find("served_model_name");
  const ResolvedValue *Client = CS.C->find("client.model");
  if (Served && Client && Served->V.kind() == ValueKind::String &&
      Client->V.kind() == ValueKind::String &&
      Served->V.getString() != Client->V.getString()) {
    const ResolvedValue *Blame =
        Served->From && Served->From->L != Level::Default ? Served : Client;
    llvm::SMRange Where = Blame->From ? Blame->From->Range : R.Out->NameRange;
    if (!Where.isValid())
      Where = R.Out->NameRange;
    report(Where, DiagID::err_served_name_mismatch)
        << Served->V.getString() << Client->V.getString() << CS.C->Conc;
  }
}

void SemaImpl::checkConstraints(RecipeState &R, CellState &CS) {
  if (!R.Engine || CS.C->ServerRoot)
    return;
  for (const KnobInfo &K : R.Engine->Knobs) {
    const ast::Expr *Constraint = K.Stmt->getConstraint();
    const ResolvedValue *RV = CS.C->find(K.Name);
    if (!Constraint || !RV)
      continue;
    EvalCtx Ctx;
    Ctx.M = K.M;
    Ctx.Cell = &CS;
    Ctx.Recipe = &R;
    Ctx.What = "a constraint";
    std::optional<bool> Ok = evalBool(Constraint, Ctx, "a constraint");
    if (!Ok || *Ok)
      continue;
    llvm::SMRange Where = K.Stmt->getName().Range;
    if (RV->From && RV->From->FormulaRange.isValid() &&
        RV->From->L != Level::Default)
      Where = RV->From->FormulaRange;
    auto B = report(Where, DiagID::err_constraint_failed);
    B << K.Name << RV->V.str() << CS.C->Conc;
    B.note(Constraint->getLoc(), DiagID::note_constraint_here)
        << Constraint->getRange();
    explainFailure(Constraint, Ctx, B);
  }
}

void SemaImpl::countGpus(RecipeState &R, CellState &CS) {
  Cell &C = *CS.C;
  const ResolvedValue *Topo = C.find("topology");
  if (!Topo || Topo->V.kind() != ValueKind::Record || !R.Out->Hardware)
    return;
  int64_t PerServer = cellGpusPerServer(CS, R.Out->NameRange);
  std::optional<Value> PerNodeV =
      entityField(*R.Out->Hardware, "gpus_per_node", R.Out->NameRange);
  if (PerServer <= 0 || !PerNodeV || PerNodeV->getInt() <= 0)
    return;
  int64_t PerNode = PerNodeV->getInt();
  auto NodesFor = [&](int64_t Gpus) { return (Gpus + PerNode - 1) / PerNode; };
  const Value &T = Topo->V;
  if (T.getRecordName() == "aggregated") {
    int64_t Nodes = T.lookup("nodes")->getInt();
    C.Gpus = PerServer;
    C.Nodes = Nodes;
    // One process per node: rank 0 serves the API, the others are workers
    // of the same server (pipeline stages).
    for (int64_t N = 0; N < Nodes; ++N)
      C.Servers.push_back({N == 0 ? "server" : "worker",
                           N,
                           N,
                           std::min(PerNode, PerServer - N * PerNode),
                           {},
                           {}});
    if (PerServer > Nodes * PerNode) {
      const ResolvedValue *TP = C.find("tp");
      llvm::SMRange Where = R.Out->NameRange;
      if (TP && TP->From && TP->From->FormulaRange.isValid() &&
          TP->From->L != Level::Default)
        Where = TP->From->FormulaRange;
      else if (Topo->From && Topo->From->FormulaRange.isValid())
        Where = Topo->From->FormulaRange;
      diag(Where, DiagID::err_layout_too_large)
          << C.Conc << PerServer << R.Out->Hardware->Name << PerNode << Nodes;
    }
    return;
  }
  // Disaggregated: prefill servers use tp x pp each, decode servers tp.
  int64_t Prefill = T.lookup("prefill")->getInt();
  int64_t Decode = T.lookup("decode")->getInt();
  int64_t TP = 1;
  if (const ResolvedValue *V = C.find("tp"))
    if (V->V.kind() == ValueKind::Int)
      TP = V->V.getInt();
  C.Gpus = Prefill * PerServer + Decode * TP;
  C.Nodes = Prefill * NodesFor(PerServer) + Decode * NodesFor(TP);
  // Each server starts on its own first node, prefill servers first; a
  // server larger than a node is one process on its first node.
  int64_t Node = 0;
  for (int64_t I = 0; I < Prefill; ++I, Node += NodesFor(PerServer))
    C.Servers.push_back({"prefill", I, Node, PerServer, {}, {}});
  for (int64_t I = 0; I < Decode; ++I, Node += NodesFor(TP))
    C.Servers.push_back({"decode", I, Node, TP, {}, {}});
}

void SemaImpl::evaluatePreflights(RecipeState &R, CellState &CS) {
  int64_t Conc = CS.C->Conc;
  EvalCtx Ctx;
  Ctx.M = R.M;
  Ctx.Cell = &CS;
  Ctx.Recipe = &R;
  Ctx.What = "a pre-flight action";
  for (int Pass = 0; Pass < 3; ++Pass)
    for (const PreflightInfo &P : R.Preflights) {
      int Which = P.Band ? 1 : P.At ? 2 : 0;
      if (Which != Pass || !inScope(P.Band, P.At, Conc))
        continue;
      if (std::optional<PreflightAction> A = evalPreflight(*P.Stmt, Ctx))
        CS.C->Preflight.push_back(std::move(*A));
    }
}

void SemaImpl::reportDeadAssignments(RecipeState &R) {
  for (const AssignmentState *A : R.Assignments) {
    if (A->L != Level::Recipe && A->L != Level::Band && A->L != Level::AtConc)
      continue;
    if (A->Name == "server" || !A->EffectiveIn.empty() ||
        R.PinnedByServer.count(A))
      continue;
    if ((A->Band && A->Band->Concs.empty()) || (A->At && A->At->Concs.empty()))
      continue;
    if (A->ShadowedBy) {
      // A `--set` override is deliberate: what it shadows is not a mistake
      // in the recipe.
      if (A->ShadowedBy->L == Level::CommandLine)
        continue;
      auto B = diag(A->NameRange, DiagID::warn_dead_assignment);
      B << A->Name;
      if (A->ShadowedBy->Range.isValid())
        B.note(A->ShadowedBy->Range.Start, DiagID::note_shadowed_by)
            << A->ShadowedBy->describeSite() << A->ShadowedBy->Range;
    } else if (A->ShadowedInServerOf) {
      auto B = diag(A->NameRange, DiagID::warn_dead_assignment);
      B << A->Name;
      const Assignment *S = R.ServerAssign[A->ShadowedInServerOf];
      if (S)
        B.note(S->Range.Start, DiagID::note_shadowed_by_server)
            << S->Literal->getServerConc() << S->Range;
    }
  }
}
