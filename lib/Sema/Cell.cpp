//===- Cell.cpp - Helpers of Sema's resolved cells ------------------------===//
//
// The small accessors of Cell.h: level spellings, where an assignment sits,
// finding a cell by arm and concurrency and a value by role.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Sema/Cell.h"

#include "llvm/ADT/SmallString.h"

#include <algorithm>
#include <cassert>

using namespace arecipe;
using namespace arecipe::sema;

llvm::StringRef arecipe::sema::getSpelling(Level L) {
  switch (L) {
  case Level::Default:
    return "default";
  case Level::Recipe:
    return "recipe";
  case Level::Arm:
    return "arm";
  case Level::Band:
    return "band";
  case Level::AtConc:
    return "at-conc";
  case Level::ServerFrom:
    return "server-from";
  case Level::CommandLine:
    return "command-line";
  }
  return "?";
}

bool EnumInfo::hasMember(llvm::StringRef M) const {
  return std::find(Members.begin(), Members.end(), M) != Members.end();
}

std::string Assignment::describeSite() const {
  std::string Site;
  switch (L) {
  case Level::Default:
    return IsKnobDefault ? "the engine default" : "the built-in default";
  case Level::Recipe:
    Site = "the recipe body";
    break;
  case Level::Arm:
    Site = "arm '" + Arm->Name + "'";
    break;
  case Level::Band:
    Site = "band '" + Band->Name + "'";
    break;
  case Level::AtConc: {
    Site = "'at conc ";
    for (size_t N = 0; N < At->Concs.size(); ++N)
      Site += (N ? ", " : "") + std::to_string(At->Concs[N]);
    Site += "'";
    break;
  }
  case Level::ServerFrom:
    return "'server = cell(...)'";
  case Level::CommandLine:
    return "the command line";
  }
  if (Arm && L != Level::Arm)
    Site += " of arm '" + Arm->Name + "'";
  return Site;
}

void DepList::add(llvm::StringRef Name) {
  if (std::find(begin(), end(), Name) != end())
    return;
  auto Names = L && L.use_count() == 1
                   ? std::const_pointer_cast<std::vector<std::string>>(L)
                   : std::make_shared<std::vector<std::string>>(names());
  // A formula reads a few names: room for them at once, not a reallocation
  // at the second and third.
  if (Names->capacity() < 4)
    Names->reserve(4);
  Names->push_back(Name.str());
  L = std::move(Names);
}

unsigned CellKeys::add(llvm::StringRef Key) {
  auto [It, New] = Ids.try_emplace(Key, unsigned(Keys.size()));
  if (!New)
    return It->second;
  Keys.push_back(std::make_unique<std::string>(Key.str()));
  // Once per key and recipe, not per cell: an insertion into the order.
  auto Pos = std::lower_bound(
      Order.begin(), Order.end(), Key,
      [&](unsigned Id, llvm::StringRef K) { return *Keys[Id] < K; });
  Order.insert(Pos, It->second);
  return It->second;
}

void ValueTable::const_iterator::skipAbsent() {
  llvm::ArrayRef<unsigned> Sorted =
      T->Keys ? T->Keys->sorted() : llvm::ArrayRef<unsigned>();
  while (Pos < Sorted.size() &&
         (Sorted[Pos] >= T->ById.size() || !T->ById[Sorted[Pos]]))
    ++Pos;
}

ValueTable::ValueTable(const ValueTable &O) : Keys(O.Keys) {
  for (unsigned Id = 0; Id < O.ById.size(); ++Id)
    if (O.ById[Id])
      set(Id, O.ById[Id]->second);
}

ValueTable &ValueTable::operator=(const ValueTable &O) {
  if (this != &O)
    *this = ValueTable(O);
  return *this;
}

ValueTable::const_iterator ValueTable::lower_bound(llvm::StringRef Key) const {
  if (!Keys)
    return end();
  llvm::ArrayRef<unsigned> Sorted = Keys->sorted();
  auto Pos = std::lower_bound(
      Sorted.begin(), Sorted.end(), Key,
      [&](unsigned Id, llvm::StringRef K) { return Keys->key(Id) < K; });
  return {this, size_t(Pos - Sorted.begin())};
}

const ResolvedValue *ValueTable::lookup(llvm::StringRef Key) const {
  return Keys ? at(Keys->lookup(Key)) : nullptr;
}

ResolvedValue &ValueTable::set(unsigned Id, ResolvedValue RV) {
  assert(Keys && Id < Keys->size() && "a key of the recipe's CellKeys");
  if (Id >= ById.size())
    ById.resize(std::max<size_t>(Id + 1, Keys->size()), nullptr);
  if (Entry *E = ById[Id]) {
    E->second = std::move(RV);
    return E->second;
  }
  // A block holds about as many values as a small recipe's cell.
  constexpr size_t BlockSize = 64;
  if (Blocks.empty() || Blocks.back().size() == Blocks.back().capacity()) {
    Blocks.emplace_back();
    Blocks.back().reserve(BlockSize);
  }
  Blocks.back().push_back(Entry{Keys->key(Id), std::move(RV)});
  ById[Id] = &Blocks.back().back();
  ++Count;
  return ById[Id]->second;
}

void ValueTable::erase(unsigned Id) {
  if (Id < ById.size() && ById[Id]) {
    ById[Id] = nullptr;
    --Count;
  }
}

const ResolvedValue *ProcessInfo::findKnob(llvm::StringRef Name) const {
  auto It = Knobs.find(Name);
  return It == Knobs.end() ? nullptr : &It->second;
}

llvm::ArrayRef<Rendering> Cell::renderings() const {
  for (const ProcessInfo &P : Processes)
    if (P.K == ProcessInfo::Engine)
      return P.Renderings;
  return {};
}

const ResolvedValue *Cell::find(llvm::StringRef Name) const {
  return Values.lookup(Name);
}

const ResolvedValue *Cell::find(llvm::StringRef Name,
                                llvm::StringRef Role) const {
  if (!Role.empty()) {
    // Sema asks this for every name a formula reads: the key is built on
    // the stack, not in a new string.
    llvm::SmallString<64> Key(Role);
    Key += '.';
    Key += Name;
    if (const ResolvedValue *RV = find(Key.str()))
      return RV;
  }
  return find(Name);
}

std::string Cell::id() const {
  std::string C = "c" + std::to_string(Conc);
  return Arm && !Arm->Name.empty() ? Arm->Name + "." + C : C;
}

std::string Cell::label() const {
  return Arm && !Arm->Name.empty() ? id() : "conc=" + std::to_string(Conc);
}

const Cell *RecipeCells::findCell(int64_t Conc) const {
  if (hasArms()) {
    for (const Cell &C : Cells)
      if (C.Conc == Conc)
        return &C;
    return nullptr;
  }
  return findCell("", Conc);
}

const Cell *RecipeCells::findCell(llvm::StringRef Arm, int64_t Conc) const {
  // Cells are sorted by arm, then concurrency: a binary search in the
  // arm's run (F12: a lookup per cell must not make a pass quadratic).
  auto ArmOf = [](const Cell &C) { return C.Arm ? C.Arm->Index : 0; };
  const ArmInfo *Which = nullptr;
  for (const ArmInfo *A : Arms)
    if (A->Name == Arm)
      Which = A;
  if (!Which)
    return nullptr;
  auto It = std::lower_bound(
      Cells.begin(), Cells.end(), std::make_pair(Which->Index, Conc),
      [&](const Cell &C, const std::pair<size_t, int64_t> &X) {
        return std::make_pair(ArmOf(C), C.Conc) < X;
      });
  return It != Cells.end() && It->Conc == Conc && ArmOf(*It) == Which->Index
             ? &*It
             : nullptr;
}

const ResolvedValue *RecipeCells::find(const Cell &C,
                                       llvm::StringRef Name) const {
  if (Name == "concurrency") {
    if (C.Arm && C.Arm->Index < ArmConcurrency.size() &&
        ArmConcurrency[C.Arm->Index].From)
      return &ArmConcurrency[C.Arm->Index];
    return ConcurrencyValue.From ? &ConcurrencyValue : nullptr;
  }
  // `prefill.tp`: the role's value, kept unqualified where the roles agree.
  if (C.isDisaggregated())
    for (llvm::StringRef Role : {"prefill", "decode"})
      if (Name.startswith(Role) && Name.drop_front(Role.size()).startswith("."))
        return C.find(Name.drop_front(Role.size() + 1), Role);
  return C.find(Name);
}

std::vector<const Assignment *>
RecipeCells::assignmentsTo(llvm::StringRef Name) const {
  std::vector<const Assignment *> Out;
  for (const Assignment *A : Assignments)
    if (A->Name == Name)
      Out.push_back(A);
  std::stable_sort(
      Out.begin(), Out.end(),
      [](const Assignment *A, const Assignment *B) { return A->L < B->L; });
  return Out;
}
