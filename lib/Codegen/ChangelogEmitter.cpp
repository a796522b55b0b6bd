//===- ChangelogEmitter.cpp - `arecipec --emit changelog` -----------------===//

#include "arecipe/Codegen/ChangelogEmitter.h"

#include "arecipe/Codegen/InferenceXEmitter.h"
#include "arecipe/Codegen/KnobTableEmitter.h"
#include "arecipe/Sema/Sema.h"

#include "llvm/Support/raw_ostream.h"

#include <map>
#include <tuple>

using namespace arecipe;
using namespace arecipe::codegen;

namespace {
struct Change {
  std::string Name, Old, New;
};
/// A cell as a changelog names it: its concurrency, and its arm when the
/// recipe has arms (cells of two versions pair by arm and concurrency).
struct CellName {
  std::string Arm;
  int64_t Conc = 0;
  bool operator<(const CellName &O) const {
    return std::tie(Arm, Conc) < std::tie(O.Arm, O.Conc);
  }
  /// `8`, or `tp4.c8` in an arm.
  std::string str() const {
    return Arm.empty() ? std::to_string(Conc)
                       : Arm + ".c" + std::to_string(Conc);
  }
};
/// Per cell: what changed; a cell only in one version has no list.
struct RecipeDiff {
  std::string Key;
  std::map<CellName, std::vector<Change>> Changed;
  std::vector<CellName> Added, Removed;
};
} // namespace

static std::string yamlQuote(llvm::StringRef S) {
  std::string Out = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\')
      Out += '\\';
    Out += C;
  }
  return Out + "\"";
}

/// A knob with render clauses that rendered nothing in cell C.
static bool rendersNothing(const sema::Cell &C, const std::string &Name) {
  return C.Silent.count(Name) != 0;
}

static RecipeDiff diffRecipes(const sema::RecipeCells &Old,
                              const sema::RecipeCells &New) {
  RecipeDiff D;
  D.Key = configKey(New);
  auto NameOf = [](const sema::Cell &C) {
    return CellName{C.Arm ? C.Arm->Name : "", C.Conc};
  };
  for (const sema::Cell &C : Old.Cells)
    if (!New.findCell(NameOf(C).Arm, C.Conc))
      D.Removed.push_back(NameOf(C));
  for (const sema::Cell &C : New.Cells) {
    const sema::Cell *Before = Old.findCell(NameOf(C).Arm, C.Conc);
    if (!Before) {
      D.Added.push_back(NameOf(C));
      continue;
    }
    std::vector<Change> &Out = D.Changed[NameOf(C)];
    // Both maps are sorted by name: one merge pass.
    auto I = Before->Values.begin(), E = Before->Values.end();
    auto J = C.Values.begin(), F = C.Values.end();
    while (I != E || J != F) {
      if (J == F || (I != E && I->first < J->first)) {
        Out.push_back({I->first, displayValue(I->second.V), "(removed)"});
        ++I;
      } else if (I == E || J->first < I->first) {
        Out.push_back({J->first, "(new)", displayValue(J->second.V)});
        ++J;
      } else {
        // Declarations of two analyses are distinct objects: compare the
        // values' exact JSON text, which names a declaration by its name.
        // A knob that renders nothing in either version of the cell (its
        // render conditions are false there) changes nothing the engine
        // sees.
        if (sema::toJSON(I->second.V) != sema::toJSON(J->second.V) &&
            !(rendersNothing(*Before, I->first) && rendersNothing(C, J->first)))
          Out.push_back({I->first, displayValue(I->second.V),
                         displayValue(J->second.V)});
        ++I, ++J;
      }
    }
  }
  return D;
}

/// "max_num_batched_tokens 8192 -> 4096 at conc 8": one line per change,
/// cells with the same change folded together.
static std::vector<std::string> describeChanges(const RecipeDiff &D) {
  std::map<std::string, std::vector<CellName>> Lines;
  std::vector<std::string> Order;
  for (const auto &[Name, Changes] : D.Changed)
    for (const Change &Ch : Changes) {
      std::string L = Ch.Name + " " + Ch.Old + " -> " + Ch.New;
      if (!Lines.count(L))
        Order.push_back(L);
      Lines[L].push_back(Name);
    }
  std::vector<std::string> Out;
  auto List = [](const std::vector<CellName> &Cells) {
    std::string S;
    for (const CellName &C : Cells)
      S += (S.empty() ? "" : ", ") + C.str();
    return S;
  };
  // `at conc 8, 12`; cells of arms by their ids: `in tp4.c8, tp8.c8`.
  auto Where = [&](const std::vector<CellName> &Cells, const char *Verb) {
    bool Arms = !Cells.empty() && !Cells.front().Arm.empty();
    return std::string(Verb) + (Arms ? " " : " conc ") + List(Cells);
  };
  for (const std::string &L : Order)
    Out.push_back(
        L + " " +
        Where(Lines[L], D.Changed.begin()->first.Arm.empty() ? "at" : "in"));
  if (!D.Added.empty())
    Out.push_back(Where(D.Added, "adds"));
  if (!D.Removed.empty())
    Out.push_back(Where(D.Removed, "drops"));
  return Out;
}

void codegen::emitChangelog(const sema::Compilation &Old,
                            const sema::Compilation &New,
                            llvm::raw_ostream &OS) {
  std::vector<RecipeDiff> Diffs;
  auto OldRecipes = Old.recipes(), NewRecipes = New.recipes();
  for (const auto &R : NewRecipes) {
    const sema::RecipeCells *Match = nullptr;
    for (const auto &O : OldRecipes)
      if (O->Name == R->Name)
        Match = O.get();
    if (!Match && OldRecipes.size() == 1 && NewRecipes.size() == 1)
      Match = OldRecipes.front().get();
    if (Match)
      Diffs.push_back(diffRecipes(*Match, *R));
  }
  OS << "- config-keys:\n";
  for (const RecipeDiff &D : Diffs)
    OS << "    - " << D.Key << "\n";
  OS << "  description:\n";
  bool Any = false;
  for (const RecipeDiff &D : Diffs)
    for (const std::string &L : describeChanges(D)) {
      OS << "    - " << yamlQuote(L) << "\n";
      Any = true;
    }
  if (!Any)
    OS << "    - \"no change to any cell\"\n";
  OS << "  pr-link: https://github.com/SemiAnalysisAI/InferenceX/pull/XXX\n";
  for (const RecipeDiff &D : Diffs) {
    OS << "# per-cell diff of " << D.Key << "\n";
    // Cell ids as the plan writes them: `c8`, `tp4.c8`.
    auto Id = [](const CellName &C) {
      return C.Arm.empty() ? "c" + std::to_string(C.Conc) : C.str();
    };
    for (const auto &[Name, Changes] : D.Changed) {
      OS << "# " << Id(Name) << ":" << (Changes.empty() ? " unchanged" : "")
         << "\n";
      for (const Change &Ch : Changes)
        OS << "#   " << Ch.Name << ": " << Ch.Old << " -> " << Ch.New << "\n";
    }
    for (const CellName &C : D.Added)
      OS << "# " << Id(C) << ": new cell\n";
    for (const CellName &C : D.Removed)
      OS << "# " << Id(C) << ": removed\n";
  }
}
