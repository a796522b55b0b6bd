//===- Cell.cpp - Helpers of Sema's resolved cells ------------------------===//
//
// The small accessors of Cell.h: level spellings, where an assignment sits,
// finding a cell by arm and concurrency and a value by role.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Sema/Cell.h"

#include "llvm/ADT/SmallString.h"

#include <algorithm>

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
  auto It = Values.find(Name);
  return It == Values.end() ? nullptr : &It->second;
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
