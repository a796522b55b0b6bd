//===- Explain.cpp - `arecipec --explain KNOB --conc N` -------------------===//
//
// Prints why a knob has its value in a cell: the value, the assignment that
// won (its level, place and formula), each operand's value and origin,
// recursively for derived operands (each name once), and the assignments
// that lost to it. Everything comes from the resolved cells; nothing is
// evaluated again.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Basic/SourceLocation.h"
#include "arecipe/Sema/Sema.h"
#include "arecipe/Support/Suggestions.h"

#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <set>

using namespace arecipe;
using namespace arecipe::sema;

namespace {
class Explainer {
public:
  Explainer(const llvm::SourceMgr &SM, const RecipeCells &R,
            llvm::raw_ostream &OS)
      : SM(SM), R(R), OS(OS) {}

  std::string where(llvm::SMRange Rg) const {
    return formatLocation(SM, Rg.Start).value_or("built in");
  }

  static llvm::StringRef text(llvm::SMRange Rg) {
    if (!Rg.isValid())
      return {};
    return llvm::StringRef(Rg.Start.getPointer(),
                           Rg.End.getPointer() - Rg.Start.getPointer());
  }

  std::string origin(const ResolvedValue &RV) const {
    if (!RV.From)
      return "no assignment (none)";
    std::string S = RV.From->describeSite() + ", " + where(RV.From->Range) +
                    " [" + getSpelling(RV.From->L).str() + "]";
    if (RV.ServerFrom)
      S += ", as in cell conc=" + std::to_string(*RV.ServerFrom) +
           " (server = cell(" + std::to_string(*RV.ServerFrom) + "))";
    return S;
  }

  void operands(const Cell &C, const ResolvedValue &RV, unsigned Depth) {
    const Cell *Source = &C;
    if (RV.ServerFrom)
      Source = R.findCell(C.Arm ? C.Arm->Name : "", *RV.ServerFrom);
    for (const std::string &Dep : RV.Deps) {
      std::string Pad(2 * Depth, ' ');
      if (Dep == "conc") {
        OS << Pad << "conc = " << Source->Conc << "\n";
        continue;
      }
      const ResolvedValue *D = R.find(*Source, Dep);
      if (!D)
        continue;
      OS << Pad << Dep << " = " << D->V.str() << "    <- " << origin(*D)
         << "\n";
      if (!Seen.insert(Dep).second || !D->From ||
          !D->From->FormulaRange.isValid() || D->Deps.empty())
        continue;
      OS << Pad << "  = " << text(D->From->FormulaRange) << "\n";
      operands(*Source, *D, Depth + 2);
    }
  }

  const llvm::SourceMgr &SM;
  const RecipeCells &R;
  llvm::raw_ostream &OS;
  std::set<std::string> Seen;
};
} // namespace

bool arecipe::sema::explainValue(const Compilation &Comp, const RecipeCells &R,
                                 const Cell &C, llvm::StringRef Knob,
                                 llvm::raw_ostream &OS) {
  const ResolvedValue *RV = R.find(C, Knob);
  if (!RV)
    return false;
  int64_t Conc = C.Conc;
  Explainer E(Comp.getSourceMgr(), R, OS);
  E.Seen.insert(Knob.str());
  OS << Knob << " = " << RV->V.str() << " in cell " << C.label()
     << " of recipe '" << R.Name << "'\n";
  if (C.ServerFrom)
    OS << "  the server of cell " << C.label()
       << " is cell conc=" << *C.ServerRoot
       << "'s verbatim; the client keeps conc=" << Conc << "\n";
  OS << "  from " << E.origin(*RV) << "\n";
  if (RV->From && RV->From->FormulaRange.isValid())
    OS << "  formula: " << Explainer::text(RV->From->FormulaRange) << "\n";
  if (!RV->Deps.empty()) {
    OS << "  operands:\n";
    E.operands(C, *RV, 2);
  }
  OS << "  shadowed in this cell:\n";
  unsigned Shadowed = 0;
  int64_t Source = RV->ServerFrom ? *RV->ServerFrom : Conc;
  // `prefill.tp`: the assignments to `tp` that may define it for prefill.
  llvm::StringRef Name = Knob, Role;
  if (Name.startswith("prefill.") || Name.startswith("decode."))
    std::tie(Role, Name) = Name.split('.');
  for (const Assignment *A : R.assignmentsTo(Name)) {
    if (A == RV->From || (!A->Role.empty() && A->Role != Role) ||
        (A->Arm && A->Arm != C.Arm))
      continue;
    bool Applies = true;
    if (A->L == Level::Band)
      Applies = std::binary_search(A->Band->Concs.begin(), A->Band->Concs.end(),
                                   Source);
    if (A->L == Level::AtConc)
      Applies =
          std::binary_search(A->At->Concs.begin(), A->At->Concs.end(), Source);
    if (!Applies)
      continue;
    ++Shadowed;
    OS << "    " << A->describeSite() << ", " << E.where(A->Range) << " ["
       << getSpelling(A->L) << "]";
    if (A->FormulaRange.isValid())
      OS << ": " << Explainer::text(A->FormulaRange);
    else if (A->Literal)
      OS << ": " << A->Literal->str();
    OS << "\n";
  }
  if (!Shadowed)
    OS << "    none\n";
  return true;
}

bool arecipe::sema::explainKnob(const Compilation &Comp, llvm::StringRef Knob,
                                int64_t Conc, llvm::StringRef Arm,
                                llvm::raw_ostream &OS,
                                DiagnosticEngine &Diags) {
  bool Any = false;
  for (const auto &RP : Comp.recipes()) {
    const RecipeCells &R = *RP;
    const Cell *C = nullptr;
    if (!Arm.empty() || !R.hasArms()) {
      C = R.findCell(Arm, Conc);
    } else {
      // Without --arm the concurrency must name one cell.
      std::string Arms;
      for (const Cell &Each : R.Cells)
        if (Each.Conc == Conc) {
          Arms += (Arms.empty() ? "'" : ", '") + Each.Arm->Name + "'";
          C = C ? C : &Each;
        }
      if (C && Arms.find(',') != std::string::npos) {
        Diags.report(R.NameRange, DiagID::err_explain_ambiguous_cell)
            << Conc << R.Name << Arms;
        continue;
      }
    }
    if (!C) {
      std::string Label = Arm.empty() ? "conc=" + std::to_string(Conc)
                                      : Arm.str() + ".c" + std::to_string(Conc);
      Diags.report(R.NameRange, DiagID::err_explain_no_cell) << Label << R.Name;
      continue;
    }
    const ResolvedValue *RV = R.find(*C, Knob);
    if (!RV) {
      SpellingSuggester Suggest(Knob);
      for (const auto &[Name, _] : C->Values)
        Suggest.add(Name);
      auto B = Diags.report(R.NameRange, DiagID::err_explain_no_value);
      B << Knob << R.Name;
      // The name was written on the command line: no place for a fix-it.
      if (std::optional<std::string> Best = Suggest.best())
        B.note(llvm::SMLoc(), DiagID::note_did_you_mean) << *Best;
      continue;
    }
    Any = true;
    explainValue(Comp, R, *C, Knob, OS);
  }
  return Any;
}
