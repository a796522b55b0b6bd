//===- KnobTableEmitter.cpp - `arecipec --emit table` ---------------------===//

#include "arecipe/Codegen/KnobTableEmitter.h"

#include "arecipe/Sema/Sema.h"

#include "llvm/Support/raw_ostream.h"

#include <set>

using namespace arecipe;
using namespace arecipe::codegen;
using sema::Value;
using sema::ValueKind;

std::string codegen::displayValue(const Value &V) {
  if (V.kind() == ValueKind::List && V.listSize() > 2) {
    Value First = V.element(0);
    bool Consecutive = First.kind() == ValueKind::Int;
    if (auto Range = V.asIntRange())
      Consecutive = std::get<1>(*Range) == 1;
    else
      for (size_t I = 1; Consecutive && I < V.listSize(); ++I) {
        Value E = V.element(I);
        Consecutive = E.kind() == ValueKind::Int &&
                      E.getInt() == First.getInt() + int64_t(I);
      }
    if (Consecutive)
      return std::to_string(First.getInt()) + ".." +
             std::to_string(V.element(V.listSize() - 1).getInt());
  }
  if (V.kind() == ValueKind::String)
    return V.getString();
  return V.str();
}

static void emitTable(const sema::RecipeCells &R, llvm::raw_ostream &OS) {
  // A column per name whose value is not the same in every cell (a role's
  // value, `prefill.tp`, exists only in the cells where the roles differ).
  std::vector<std::string> Columns;
  std::set<std::string> Names;
  for (const sema::Cell &C : R.Cells)
    for (const auto &[Name, RV] : C.Values)
      Names.insert(Name);
  const sema::Cell &First = R.Cells.front();
  for (const std::string &Name : Names) {
    const sema::ResolvedValue *RV = First.find(Name);
    for (const sema::Cell &C : R.Cells) {
      const sema::ResolvedValue *Other = C.find(Name);
      if (!RV || !Other || Other->V != RV->V) {
        Columns.push_back(Name);
        break;
      }
    }
  }
  // A recipe with arms names each cell's arm in a first column.
  bool Arms = R.hasArms();
  OS << (Arms ? "| arm " : "") << "| conc | gpus |";
  for (const std::string &Name : Columns)
    OS << " " << Name << " |";
  OS << (Arms ? "\n|---" : "\n") << "|---|---|";
  for (size_t I = 0; I < Columns.size(); ++I)
    OS << "---|";
  OS << "\n";
  for (const sema::Cell &C : R.Cells) {
    if (Arms)
      OS << "| " << C.Arm->Name << " ";
    OS << "| " << C.Conc;
    if (C.ServerFrom)
      OS << " (server of " << *C.ServerFrom << ")";
    OS << " | " << C.Gpus << " |";
    for (const std::string &Name : Columns) {
      const sema::ResolvedValue *RV = C.find(Name);
      std::string Text = RV ? displayValue(RV->V) : "";
      // A cell's text must not end the markdown cell early.
      for (size_t P = Text.find('|'); P != std::string::npos;
           P = Text.find('|', P + 2))
        Text.replace(P, 1, "\\|");
      OS << " " << Text << " |";
    }
    OS << "\n";
  }
}

void codegen::emitKnobTable(const sema::Compilation &C, llvm::raw_ostream &OS) {
  auto Recipes = C.recipes();
  for (size_t I = 0; I < Recipes.size(); ++I) {
    if (Recipes[I]->Cells.empty())
      continue;
    if (I)
      OS << "\n";
    OS << "### " << Recipes[I]->Name << "\n\n";
    emitTable(*Recipes[I], OS);
  }
}
