//===- SemaCells.cpp - Resolving each cell: precedence and late binding --===//
//
// In each cell, every name takes the value of the highest-level assignment
// that applies to the cell; formulas are evaluated on demand, so each sees
// the values chosen for its operands (dependency order, not text order),
// and a name met again while it is being evaluated is a cycle. A cell whose
// server is cell N (`server = cell(N)`) takes every server-side value from
// cell N, already resolved; only client-side names are its own.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

using namespace arecipe;
using namespace arecipe::sema;

bool SemaImpl::applies(const Assignment &A, int64_t Conc) const {
  // Both lists are ascending; a band may hold almost every cell.
  switch (A.L) {
  case Level::Band:
    return std::binary_search(A.Band->Concs.begin(), A.Band->Concs.end(), Conc);
  case Level::AtConc:
    return std::binary_search(A.At->Concs.begin(), A.At->Concs.end(), Conc);
  default:
    return true;
  }
}

static void addDep(std::vector<std::string> *Deps, llvm::StringRef Name) {
  if (Deps && std::find(Deps->begin(), Deps->end(), Name) == Deps->end())
    Deps->push_back(Name.str());
}

std::optional<Value> SemaImpl::resolveName(CellState &CS, llvm::StringRef Name,
                                           llvm::SMRange Use,
                                           std::vector<std::string> *Deps) {
  addDep(Deps, Name);
  Cell &C = *CS.C;
  RecipeState &R = *CS.R;
  std::string Key = Name.str();
  // The recipe's list, evaluated once before the cells (bindConcurrency):
  // shared, never copied into each cell (F12).
  if (Key == "concurrency") {
    if (!R.Out->ConcurrencyValue.From)
      return std::nullopt;
    return R.Out->ConcurrencyValue.V;
  }
  if (const ResolvedValue *RV = C.find(Key))
    return RV->V;
  if (CS.Failed.count(Key))
    return std::nullopt;

  auto Pos = std::find(CS.Stack.begin(), CS.Stack.end(), Key);
  if (Pos != CS.Stack.end()) {
    size_t First = Pos - CS.Stack.begin();
    std::string Text;
    for (size_t N = First; N < CS.Stack.size(); ++N)
      Text += CS.Stack[N] + " -> ";
    Text += Key;
    const Assignment *Head = CS.StackFrom[First];
    auto B = report(Head->Range, DiagID::err_dependency_cycle);
    B << (" in cell conc=" + std::to_string(C.Conc)) << Text;
    for (size_t N = First + 1; N < CS.Stack.size(); ++N)
      B.note(CS.StackFrom[N]->Range.Start, DiagID::note_cycle_step)
          << CS.Stack[N]
          << (N + 1 < CS.Stack.size() ? CS.Stack[N + 1] : Key)
          << CS.StackFrom[N]->Range;
    for (size_t N = First; N < CS.Stack.size(); ++N)
      CS.Failed.insert(CS.Stack[N]);
    return std::nullopt;
  }

  auto NameIt = R.Names.find(Key);
  if (NameIt == R.Names.end())
    return Value::none();
  const CellName &CN = NameIt->second;
  std::vector<AssignmentState *> &As = R.ByName[Key];

  if (C.ServerRoot && CN.ServerSide) {
    CellState &Root = R.Cells[*C.ServerRoot];
    std::optional<Value> V = resolveName(Root, Name, Use, nullptr);
    if (!V) {
      CS.Failed.insert(Key);
      return std::nullopt;
    }
    ResolvedValue RV = *Root.C->find(Key);
    if (RV.L != Level::ServerFrom)
      RV.ServerFrom = *C.ServerRoot;
    RV.L = Level::ServerFrom;
    for (AssignmentState *A : As)
      if (A->L != Level::Default && A->L != Level::CommandLine &&
          applies(*A, C.Conc) && !A->ShadowedBy && !A->ShadowedInServerOf)
        A->ShadowedInServerOf = C.Conc;
    C.Values[Key] = RV;
    return RV.V;
  }

  AssignmentState *Best = nullptr;
  bool Uniform = true; // Every assignment applies to every cell.
  for (AssignmentState *A : As) {
    if (A->L == Level::Band || A->L == Level::AtConc)
      Uniform = false;
    if (applies(*A, C.Conc) && (!Best || A->L > Best->L))
      Best = A;
  }
  if (!Best) {
    ResolvedValue RV;
    if (Key == "client.model" && R.Out->Model) {
      std::optional<Value> Id = entityField(*R.Out->Model, "id", Use);
      if (!Id)
        return std::nullopt;
      RV.V = *Id;
      RV.Deps = {"model"};
    } else if (!CN.Ty.Optional && CN.K != CellName::OpenMap &&
               CN.Ty.K != Type::Any) {
      report(Use, DiagID::err_no_value) << Name << C.Conc;
      CS.Failed.insert(Key);
      return std::nullopt;
    }
    if (Uniform)
      R.SameInEveryCell.insert(Key);
    C.Values[Key] = RV;
    return RV.V;
  }
  Best->EffectiveIn.push_back(C.Conc);
  for (AssignmentState *A : As)
    if (A != Best && A->L < Best->L && applies(*A, C.Conc) && !A->ShadowedBy)
      A->ShadowedBy = Best;

  ResolvedValue RV;
  RV.L = Best->L;
  RV.From = Best;
  if (auto It = R.Shared.find(Best); It != R.Shared.end()) {
    RV.V = It->second.V;
    RV.Deps = It->second.Deps;
    C.Values[Key] = RV;
    return RV.V;
  }
  unsigned CellReads = CS.CellReads;
  std::optional<Value> V;
  if (Best->Literal) {
    V = Best->Literal;
  } else {
    CS.Stack.push_back(Key);
    CS.StackFrom.push_back(Best);
    EvalCtx Ctx;
    Ctx.M = Best->M;
    Ctx.Cell = &CS;
    Ctx.Recipe = &R;
    Ctx.What = "a cell";
    Ctx.Expected = &CN.Ty;
    Ctx.Deps = &RV.Deps;
    V = eval(Best->ValueExpr, Ctx);
    CS.Stack.pop_back();
    CS.StackFrom.pop_back();
  }
  if (!V) {
    CS.Failed.insert(Key);
    return std::nullopt;
  }
  std::optional<Value> Conformed = conformTo(*V, CN.Ty);
  if (!Conformed) {
    llvm::SMRange Where =
        Best->ValueExpr ? Best->ValueExpr->getRange() : Best->Range;
    diag(Where, DiagID::err_type_mismatch)
        << Name << CN.Ty.str() << V->describeType() << V->str();
    CS.Failed.insert(Key);
    return std::nullopt;
  }
  RV.V = *Conformed;
  C.Values[Key] = RV;
  bool SameEverywhere =
      Uniform && CS.CellReads == CellReads &&
      std::all_of(RV.Deps.begin(), RV.Deps.end(), [&](const std::string &D) {
        return R.SameInEveryCell.count(D) != 0;
      });
  if (SameEverywhere) {
    R.SameInEveryCell.insert(Key);
    if (!Best->Literal)
      R.Shared[Best] = {RV.V, RV.Deps};
  }
  return RV.V;
}

void SemaImpl::reportConflicts(RecipeState &R, CellState &CS) {
  int64_t Conc = CS.C->Conc;
  for (auto &[Name, As] : R.ByName) {
    std::map<Level, std::vector<AssignmentState *>> ByLevel;
    for (AssignmentState *A : As)
      if (A->L != Level::Default && applies(*A, Conc))
        ByLevel[A->L].push_back(A);
    for (auto &[L, Group] : ByLevel) {
      // Two bands holding one cell are already an overlap error.
      if (L == Level::Band && Group.size() > 1 && Group[0]->Band != Group[1]->Band)
        continue;
      for (size_t N = 1; N < Group.size(); ++N) {
        AssignmentState *First = Group[0], *Second = Group[N];
        if (!R.ReportedPairs.insert({First, Second}).second)
          continue;
        // The values, for the message; evaluated quietly, since the
        // losing assignment may not even be valid in this cell.
        auto Quiet = [&, &Name =
                             Name](AssignmentState *A) -> std::optional<Value> {
          if (A->Literal)
            return A->Literal;
          EvalCtx Ctx;
          Ctx.M = A->M;
          Ctx.Cell = &CS;
          Ctx.Recipe = &R;
          Ctx.What = "a cell";
          Ctx.Expected = &R.Names[Name].Ty;
          bool Was = Silent;
          Silent = true;
          std::optional<Value> V = eval(A->ValueExpr, Ctx);
          Silent = Was;
          return V;
        };
        std::optional<Value> V1 = Quiet(First), V2 = Quiet(Second);
        llvm::SMRange Where =
            Second->ValueExpr ? Second->ValueExpr->getRange() : Second->Range;
        if (V1 && V2 && *V1 != *V2) {
          auto B = report(Where, DiagID::err_conflicting_values);
          B << Name << Conc << V2->str() << V1->str();
          B.note(First->NameRange.Start, DiagID::note_also_set_here)
              << First->describeSite() << First->Range;
        } else {
          auto B = report(Second->NameRange, DiagID::err_duplicate_assignment);
          B << Name << Conc;
          B.note(First->NameRange.Start, DiagID::note_also_set_here)
              << First->describeSite() << First->Range;
        }
      }
    }
  }
}

int64_t SemaImpl::cellGpusPerServer(CellState &CS, llvm::SMRange Use) {
  int64_t Product = 1;
  for (const char *Name : {"tp", "pp", "pcp"}) {
    auto It = CS.R->Names.find(Name);
    if (It == CS.R->Names.end() || It->second.K != CellName::Knob)
      continue;
    std::optional<Value> V = resolveName(CS, Name, Use, nullptr);
    if (!V || V->kind() != ValueKind::Int)
      return -1;
    Product *= V->getInt();
  }
  return Product;
}

void SemaImpl::resolveCell(RecipeState &R, CellState &CS) {
  if (CS.Resolved)
    return;
  CS.Resolved = true;
  if (CS.C->ServerRoot)
    resolveCell(R, R.Cells[*CS.C->ServerRoot]);
  for (auto &[Name, CN] : R.Names) {
    llvm::SMRange Use = R.Out->NameRange;
    if (CN.KnobDecl)
      Use = CN.KnobDecl->Stmt->getName().Range;
    resolveName(CS, Name, Use, nullptr);
  }
  reportConflicts(R, CS);
  countGpus(R, CS);
  checkConstraints(R, CS);
  runChecks(R, CS);
  evaluateRenderings(R, CS);
  evaluatePreflights(R, CS);
  if (CS.C->ServerRoot && !CS.C->DramUtilization)
    CS.C->DramUtilization = R.Cells[*CS.C->ServerRoot].C->DramUtilization;
}
