//===- SemaCells.cpp - Resolving each cell: precedence and late binding --===//
//
// In each cell, every name takes the value of the highest-level assignment
// that applies to the cell (its arm, band and `at conc` lists); formulas
// are evaluated on demand, so each sees the values chosen for its operands
// (dependency order, not text order), and a name met again while it is
// being evaluated is a cycle. In a disaggregated cell every server-side
// name is resolved once per role: `prefill.tp` beats `tp` at equal level,
// and a formula evaluated for a role sees that role's values. A cell whose
// server is cell N (`server = cell(N)`) takes every server-side value from
// cell N of its arm, already resolved; only client-side names are its own.
//
//===----------------------------------------------------------------------===//

#include "SemaImpl.h"

#include "llvm/ADT/SmallString.h"

using namespace arecipe;
using namespace arecipe::sema;

CellKey CellState::key() const { return {C->Arm ? C->Arm->Index : 0, C->Conc}; }

RecipeState::NameSlot &RecipeState::slot(llvm::StringRef Name) {
  auto [It, New] = Slots.try_emplace(Name);
  NameSlot &S = It->second;
  if (New) {
    S.Id = Slots.size() - 1;
    if (Name == "concurrency")
      ConcurrencySlot = &S;
    else if (Name == "topology")
      TopologySlot = &S;
  }
  // Looked up again while missing and the map has grown since: a name
  // declared or assigned after its first read is then found.
  if (!S.As && S.ByNameSeen != ByName.size()) {
    S.ByNameSeen = ByName.size();
    auto ByIt = ByName.find(Name);
    if (ByIt != ByName.end())
      S.As = &ByIt->second;
  }
  if (!S.CN && S.NamesSeen != Names.size()) {
    S.NamesSeen = Names.size();
    auto NameIt = Names.find(Name);
    if (NameIt != Names.end())
      S.CN = &NameIt->second;
  }
  return S;
}

RecipeState::NameSlot &RecipeState::slot(const ast::NameExpr *E) {
  NameSlot *&S = SlotOfName[E];
  if (!S)
    return *(S = &slot(E->getName().Name));
  // What slot(Name) would look up again (the slot itself never moves).
  if ((!S->As && S->ByNameSeen != ByName.size()) ||
      (!S->CN && S->NamesSeen != Names.size()))
    return slot(E->getName().Name);
  return *S;
}

void RecipeState::noteHolds(const CellState &CS, const ast::Expr *Cond,
                            llvm::StringRef Role,
                            const std::vector<std::string> &Deps,
                            unsigned CellReads, bool PerRole) {
  if (CS.CellReads == CellReads && sameInEveryCell(Deps))
    HoldsEverywhere[{Cond, roleIndex(Role)}] = PerRole;
}

bool RecipeState::sameInEveryCell(const std::vector<std::string> &Deps) const {
  for (const std::string &D : Deps)
    if (!SameInEveryCell.count(D))
      return false;
  return true;
}

unsigned RecipeState::roleIndex(llvm::StringRef Role) {
  if (Role.empty())
    return 0;
  for (size_t N = 0; N < RoleNames.size(); ++N)
    if (RoleNames[N] == Role)
      return N + 1;
  RoleNames.push_back(Role.str());
  return RoleNames.size();
}

bool SemaImpl::applies(const Assignment &A, const Cell &C) const {
  if (A.Arm && A.Arm != C.Arm)
    return false;
  // Both lists are ascending; a band may hold almost every cell.
  switch (A.L) {
  case Level::Band:
    return std::binary_search(A.Band->Concs.begin(), A.Band->Concs.end(),
                              C.Conc);
  case Level::AtConc:
    return std::binary_search(A.At->Concs.begin(), A.At->Concs.end(), C.Conc);
  default:
    return true;
  }
}

unsigned RecipeState::keyId(const NameSlot &S, unsigned RoleIdx,
                            llvm::StringRef Key) {
  if (RoleIdx >= KnownRoles)
    return Keys->add(Key);
  size_t Base = size_t(S.Id) * KnownRoles, Index = Base + RoleIdx;
  // Whole groups of KnownRoles entries, so findKnown may read a name's
  // group once its first entry is in range.
  if (Index >= KeyIds.size())
    KeyIds.resize(std::max(Base + KnownRoles, KeyIds.size() * 2),
                  CellKeys::None);
  if (KeyIds[Index] == CellKeys::None)
    KeyIds[Index] = Keys->add(Key);
  return KeyIds[Index];
}

void RecipeState::markSameInEveryCell(const NameSlot &S, unsigned RoleIdx,
                                      llvm::StringRef Key) {
  unsigned Id = keyId(S, RoleIdx, Key);
  if (Id >= SameById.size())
    SameById.resize(std::max<size_t>(Id + 1, Keys->size()), false);
  if (!SameById[Id]) {
    SameById[Id] = true;
    SameInEveryCell.insert(Key);
  }
}

/// Cell::find(Name, Role) through R.KeyIds: the role's own value, else the
/// unqualified one.
static const ResolvedValue *findKnown(const CellState &CS,
                                      const RecipeState::NameSlot &S,
                                      unsigned RoleIdx, llvm::StringRef Name,
                                      llvm::StringRef Role) {
  const RecipeState &R = *CS.R;
  if (RoleIdx >= RecipeState::KnownRoles)
    return CS.C->find(Name, Role);
  size_t Base = size_t(S.Id) * RecipeState::KnownRoles;
  if (Base >= R.KeyIds.size())
    return nullptr;
  if (RoleIdx)
    if (const ResolvedValue *RV = CS.C->Values.at(R.KeyIds[Base + RoleIdx]))
      return RV;
  return CS.C->Values.at(R.KeyIds[Base]);
}

/// Sets Key (Name, or `Role.Name`) in the cell's values; returns the value.
static Value store(CellState &CS, const RecipeState::NameSlot &S,
                   unsigned RoleIdx, llvm::StringRef Key, ResolvedValue RV) {
  return CS.C->Values.set(CS.R->keyId(S, RoleIdx, Key), std::move(RV)).V;
}

const ResolvedValue *SemaImpl::findCellValue(RecipeState &R, CellState &CS,
                                             llvm::StringRef Name,
                                             llvm::StringRef Role) {
  return findKnown(CS, R.slot(Name), R.roleIndex(Role), Name, Role);
}

/// Whether Key failed in the cell; most cells have no failure, and then
/// no key is hashed.
static bool hasFailed(const CellState &CS, llvm::StringRef Key) {
  return !CS.Failed.empty() && CS.Failed.count(Key);
}

static void addDep(DepSink Deps, llvm::StringRef Name) { Deps.add(Name); }

/// Whether A may define the name for Role: a shared assignment everywhere,
/// a role's own only in that role.
static bool forRole(const Assignment &A, llvm::StringRef Role) {
  return A.Role.empty() || A.Role == Role;
}

/// The stronger of two assignments that both apply: the higher level, and
/// at equal level the role's own over the shared one.
static bool stronger(const Assignment &A, const Assignment &B) {
  if (A.L != B.L)
    return A.L > B.L;
  return !A.Role.empty() && B.Role.empty();
}

std::optional<Value> SemaImpl::resolveName(CellState &CS, llvm::StringRef Name,
                                           llvm::SMRange Use, DepSink Deps,
                                           llvm::StringRef RoleIn,
                                           RecipeState::NameSlot *GivenSlot) {
  Cell &C = *CS.C;
  RecipeState &R = *CS.R;
  RecipeState::NameSlot &Slot = GivenSlot ? *GivenSlot : R.slot(Name);
  // The arm's list, evaluated once before the cells: shared, never copied
  // into each cell (F12).
  if (&Slot == R.ConcurrencySlot) {
    addDep(Deps, Name);
    const ResolvedValue *RV = R.Out->find(C, Name);
    if (!RV)
      return std::nullopt;
    return RV->V;
  }
  const CellName *CN = Slot.CN;
  bool PerRole = CN && CN->isPerRole(Name);
  // RoleIn outlives this call (an EvalCtx's role or a literal).
  llvm::StringRef Role = PerRole ? RoleIn : llvm::StringRef();
  static const std::vector<AssignmentState *> NoAssignments;
  const std::vector<AssignmentState *> &As = Slot.As ? *Slot.As : NoAssignments;
  unsigned RoleIdx = R.roleIndex(Role);

  if (PerRole && Role.empty() && CS.TopologyKnown && C.isDisaggregated()) {
    // A shared formula reads a per-role name: fine where the roles agree.
    addDep(Deps, Name);
    if (const ResolvedValue *RV = findKnown(CS, Slot, 0, Name, ""))
      return RV->V;
    if (hasFailed(CS, Name))
      return std::nullopt;
    std::optional<Value> P = resolveName(CS, Name, Use, nullptr, "prefill");
    std::optional<Value> D = resolveName(CS, Name, Use, nullptr, "decode");
    if (!P || !D)
      return std::nullopt;
    if (*P == *D) {
      store(CS, Slot, 0, Name, *C.find(Name, "prefill"));
      return P;
    }
    diag(Use, DiagID::err_role_values_differ)
        << Name << cellLabel(CS) << P->str() << D->str();
    CS.Failed.insert(Name);
    return std::nullopt;
  }
  if (PerRole && !CS.TopologyKnown)
    // The roles are not known while the topology is resolved: it may read
    // only what no role sets on its own.
    for (AssignmentState *A : As)
      if (!A->Role.empty() && applies(*A, C)) {
        diag(Use, DiagID::err_role_topology_dependency) << Name;
        CS.Failed.insert(Name);
        return std::nullopt;
      }

  // `prefill.tp` in a role; built on the stack, since most reads find the
  // value already resolved.
  llvm::SmallString<64> KeyBuf;
  llvm::StringRef Key = Name;
  if (!Role.empty()) {
    KeyBuf = Role;
    KeyBuf += '.';
    KeyBuf += Name;
    Key = KeyBuf.str();
  }
  addDep(Deps, Key);
  // A role's value is kept unqualified where the roles agree (a shared
  // read, or a resolved cell's compacted values).
  if (const ResolvedValue *RV = findKnown(CS, Slot, RoleIdx, Name, Role))
    return RV->V;
  if (hasFailed(CS, Key))
    return std::nullopt;

  std::pair<unsigned, unsigned> StackId(Slot.Id, RoleIdx);
  auto Pos = std::find(CS.StackIds.begin(), CS.StackIds.end(), StackId);
  if (Pos != CS.StackIds.end()) {
    size_t First = Pos - CS.StackIds.begin();
    std::string Text;
    for (size_t N = First; N < CS.Stack.size(); ++N)
      Text += (CS.Stack[N] + " -> ").str();
    Text += Key.str();
    const AssignmentState *Head = CS.StackFrom[First];
    auto B = report(Head->Range, DiagID::err_dependency_cycle);
    B << (" in cell " + cellLabel(CS)) << Text;
    for (size_t N = First + 1; N < CS.Stack.size(); ++N)
      B.note(CS.StackFrom[N]->Range.Start, DiagID::note_cycle_step)
          << CS.Stack[N] << (N + 1 < CS.Stack.size() ? CS.Stack[N + 1] : Key)
          << CS.StackFrom[N]->Range;
    for (size_t N = First; N < CS.Stack.size(); ++N)
      CS.Failed.insert(CS.Stack[N]);
    return std::nullopt;
  }

  if (!CN)
    return Value::none();

  if (C.ServerRoot && CN->ServerSide) {
    CellState &Root = R.Cells[{CS.key().first, *C.ServerRoot}];
    std::optional<Value> V = resolveName(Root, Name, Use, nullptr, Role);
    if (!V) {
      CS.Failed.insert(Key);
      return std::nullopt;
    }
    ResolvedValue RV = *Root.C->find(Name, Role);
    if (RV.L != Level::ServerFrom)
      RV.ServerFrom = *C.ServerRoot;
    RV.L = Level::ServerFrom;
    const AssignmentState *Server = R.ServerAssign[CS.key()];
    for (AssignmentState *A : As)
      if (A->L != Level::Default && A->L != Level::CommandLine &&
          forRole(*A, Role) && applies(*A, C) && !A->ShadowedBy &&
          !A->ShadowedInServerOf)
        A->ShadowedInServerOf = Server;
    return store(CS, Slot, RoleIdx, Key, std::move(RV));
  }

  AssignmentState *Best = nullptr;
  bool Uniform = true; // Every assignment applies to every cell.
  for (AssignmentState *A : As) {
    if (!forRole(*A, Role))
      continue;
    if (A->L == Level::Band || A->L == Level::AtConc || A->Arm)
      Uniform = false;
    if (applies(*A, C) && (!Best || stronger(*A, *Best)))
      Best = A;
  }
  if (!Best) {
    ResolvedValue RV;
    if (Name == "client.model" && R.Out->Model) {
      std::optional<Value> Id = entityField(*R.Out->Model, "id", Use);
      if (!Id)
        return std::nullopt;
      RV.V = *Id;
      RV.Deps = {"model"};
    } else if (!CN->Ty.Optional && CN->K != CellName::OpenMap &&
               CN->Ty.K != Type::Any) {
      report(Use, DiagID::err_no_value) << Name << cellLabel(CS, Role);
      CS.Failed.insert(Key);
      return std::nullopt;
    }
    if (Uniform)
      R.markSameInEveryCell(Slot, RoleIdx, Key);
    return store(CS, Slot, RoleIdx, Key, std::move(RV));
  }
  // Once per cell (and role) it wins in: room for every cell at once, not
  // a reallocation each time the count doubles.
  if (Best->EffectiveIn.empty())
    Best->EffectiveIn.reserve(R.Cells.size());
  Best->EffectiveIn.push_back(C.Conc);
  for (AssignmentState *A : As)
    if (A != Best && forRole(*A, Role) && stronger(*Best, *A) &&
        applies(*A, C) && !A->ShadowedBy)
      A->ShadowedBy = Best;

  ResolvedValue RV;
  RV.L = Best->L;
  RV.From = Best;
  if (auto It = R.Shared.find({Best, RoleIdx}); It != R.Shared.end()) {
    RV.V = It->second.V;
    RV.Deps = It->second.Deps;
    return store(CS, Slot, RoleIdx, Key, std::move(RV));
  }
  unsigned CellReads = CS.CellReads;
  std::optional<Value> V;
  if (Best->Literal) {
    V = Best->Literal;
  } else {
    CS.Stack.push_back(Key);
    CS.StackIds.push_back(StackId);
    CS.StackFrom.push_back(Best);
    EvalCtx Ctx;
    Ctx.M = Best->M;
    Ctx.Cell = &CS;
    Ctx.Recipe = &R;
    Ctx.What = "a cell";
    Ctx.Expected = &CN->Ty;
    Ctx.Deps = &RV.Deps;
    Ctx.Role = Role;
    V = eval(Best->ValueExpr, Ctx);
    CS.Stack.pop_back();
    CS.StackIds.pop_back();
    CS.StackFrom.pop_back();
  }
  if (!V) {
    CS.Failed.insert(Key);
    return std::nullopt;
  }
  std::optional<Value> Conformed = conformTo(*V, CN->Ty);
  if (!Conformed) {
    llvm::SMRange Where =
        Best->ValueExpr ? Best->ValueExpr->getRange() : Best->Range;
    diag(Where, DiagID::err_type_mismatch)
        << Name << CN->Ty.str() << V->describeType() << V->str();
    CS.Failed.insert(Key);
    return std::nullopt;
  }
  RV.V = std::move(*Conformed);
  // The formula read nothing of the cell and only names that are the same
  // in every cell: it has this value wherever it wins, so it is evaluated
  // once (a recipe-level formula that a band overrides in some cells
  // included). The name itself is the same in every cell only when every
  // cell picks this assignment.
  bool FormulaSame =
      CS.CellReads == CellReads &&
      std::all_of(RV.Deps.begin(), RV.Deps.end(), [&](const std::string &D) {
        return R.SameInEveryCell.count(D) != 0;
      });
  if (FormulaSame) {
    if (Uniform)
      R.markSameInEveryCell(Slot, RoleIdx, Key);
    if (!Best->Literal)
      R.Shared[{Best, RoleIdx}] = {RV.V, RV.Deps};
  }
  return store(CS, Slot, RoleIdx, Key, std::move(RV));
}

void SemaImpl::reportConflicts(RecipeState &R, CellState &CS) {
  const Cell &C = *CS.C;
  std::pair<size_t, size_t> Sizes(R.ByName.size(), R.Assignments.size());
  if (R.MultiplyAssignedFor != Sizes) {
    R.MultiplyAssignedFor = Sizes;
    R.MultiplyAssigned.clear();
    for (const auto &Entry : R.ByName)
      if (std::count_if(Entry.second.begin(), Entry.second.end(),
                        [](const AssignmentState *A) {
                          return A->L != Level::Default;
                        }) > 1)
        R.MultiplyAssigned.push_back(&Entry);
  }
  for (const auto *Entry : R.MultiplyAssigned) {
    const auto &[Name, As] = *Entry;
    // Most names have at most one assignment above the defaults that
    // applies to the cell: nothing to group, and no map is built.
    unsigned Applying = 0;
    for (AssignmentState *A : As)
      if (A->L != Level::Default && applies(*A, C) && ++Applying > 1)
        break;
    if (Applying < 2)
      continue;
    // Two assignments conflict when they apply at one level to the same
    // role: a shared one and a role's own do not (the role's wins).
    std::map<std::pair<Level, std::string>, std::vector<AssignmentState *>> Groups;
    for (AssignmentState *A : As)
      if (A->L != Level::Default && applies(*A, C))
        Groups[{A->L, A->Role}].push_back(A);
    auto NameIt = R.Names.find(Name);
    bool PerRole = NameIt != R.Names.end() && NameIt->second.isPerRole(Name);
    for (auto &[LevelRole, Group] : Groups) {
      Level L = LevelRole.first;
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
          Ctx.Role = !A->Role.empty()                 ? A->Role
                     : PerRole && C.isDisaggregated() ? "prefill"
                                                      : "";
          bool Was = Silent;
          Silent = true;
          std::optional<Value> V = eval(A->ValueExpr, Ctx);
          Silent = Was;
          return V;
        };
        std::optional<Value> V1 = Quiet(First), V2 = Quiet(Second);
        llvm::SMRange Where =
            Second->ValueExpr ? Second->ValueExpr->getRange() : Second->Range;
        std::string Shown =
            LevelRole.second.empty() ? Name : LevelRole.second + "." + Name;
        if (V1 && V2 && *V1 != *V2) {
          auto B = report(Where, DiagID::err_conflicting_values);
          B << Shown << C.label() << V2->str() << V1->str();
          B.note(First->NameRange.Start, DiagID::note_also_set_here)
              << First->describeSite() << First->Range;
        } else {
          auto B = report(Second->NameRange, DiagID::err_duplicate_assignment);
          B << Shown << C.label();
          B.note(First->NameRange.Start, DiagID::note_also_set_here)
              << First->describeSite() << First->Range;
        }
      }
    }
  }
}

void SemaImpl::compactRoleValues(CellState &CS) {
  Cell &C = *CS.C;
  if (!C.isDisaggregated())
    return;
  // Names resolved for both roles; equal ones are kept once, unqualified.
  // Each name is decided on its own, so the keys' order does not matter.
  RecipeState &R = *CS.R;
  CellKeys &Keys = *R.Keys;
  for (size_t Id = 0, E = Keys.size(); Id < E; ++Id) {
    llvm::StringRef Name = Keys.key(Id);
    if (!Name.consume_front("prefill."))
      continue;
    const ResolvedValue *P = C.Values.at(Id);
    unsigned DId = Keys.lookup(("decode." + Name).str());
    const ResolvedValue *D = C.Values.at(DId);
    if (!P || !D)
      continue;
    if (P->V == D->V) {
      ResolvedValue Keep = *P;
      C.Values.erase(Id);
      C.Values.erase(DId);
      // Through the name's slot, so findKnown sees the value (a cell whose
      // server is this one reads it).
      C.Values.set(R.keyId(R.slot(Name), 0, Name), std::move(Keep));
    } else {
      C.Values.erase(Keys.lookup(Name));
    }
  }
}

void SemaImpl::resolveCell(RecipeState &R, CellState &CS) {
  if (CS.Resolved)
    return;
  CS.Resolved = true;
  if (CS.C->ServerRoot)
    resolveCell(R, R.Cells[{CS.key().first, *CS.C->ServerRoot}]);
  // The topology first: it says which roles the server-side names are
  // resolved for.
  RecipeState::NameSlot *Topology = R.TopologySlot;
  if (!Topology || !Topology->CN || !Topology->As)
    Topology = &R.slot("topology");
  resolveName(CS, "topology", R.Out->NameRange, nullptr, "", Topology);
  setRoles(CS);
  CS.TopologyKnown = true;
  // (A topology that failed is reported; its roles are not known.)
  if (!CS.C->isDisaggregated() && !hasFailed(CS, "topology"))
    for (const AssignmentState *A : R.Assignments)
      if (!A->Role.empty() && applies(*A, *CS.C) &&
          R.ReportedOnce.insert({A, 0}).second)
        diag(A->NameRange, DiagID::err_role_needs_disaggregated)
            << A->Role << CS.C->label();
  if (R.NameOrder.size() != R.Names.size()) {
    R.NameOrder.clear();
    for (const auto &Entry : R.Names)
      R.NameOrder.push_back({Entry.first, &R.slot(Entry.first)});
  }
  for (auto [Name, Slot] : R.NameOrder) {
    const CellName &CN = *Slot->CN;
    llvm::SMRange Use = R.Out->NameRange;
    if (CN.KnobDecl)
      Use = CN.KnobDecl->Stmt->getName().Range;
    if (CN.isPerRole(Name) && CS.C->isDisaggregated()) {
      for (const std::string &Role : CS.C->Roles)
        resolveName(CS, Name, Use, nullptr, Role, Slot);
      continue;
    }
    resolveName(CS, Name, Use, nullptr, "", Slot);
  }
  reportConflicts(R, CS);
  layoutCell(R, CS);
  checkConstraints(R, CS);
  runChecks(R, CS);
  checkContextLength(R, CS);
  evaluateRenderings(R, CS);
  evaluateReport(R, CS);
  evaluatePreflights(R, CS);
  compactRoleValues(CS);
  if (CS.C->ServerRoot && !CS.C->DramUtilization)
    CS.C->DramUtilization =
        R.Cells[{CS.key().first, *CS.C->ServerRoot}].C->DramUtilization;
}
