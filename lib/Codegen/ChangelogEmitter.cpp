//===- ChangelogEmitter.cpp - `arecipec --emit changelog` -----------------===//

#include "arecipe/Codegen/ChangelogEmitter.h"

#include "arecipe/Codegen/InferenceXEmitter.h"
#include "arecipe/Codegen/KnobTableEmitter.h"
#include "arecipe/Sema/Sema.h"

#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace arecipe;
using namespace arecipe::codegen;

namespace {
struct Change {
  std::string Name, Old, New;
};
/// Per concurrency: what changed; a cell only in one version has no list.
struct RecipeDiff {
  std::string Key;
  std::map<int64_t, std::vector<Change>> Changed;
  std::vector<int64_t> Added, Removed;
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
  for (const sema::Cell &C : Old.Cells)
    if (!New.findCell(C.Conc))
      D.Removed.push_back(C.Conc);
  for (const sema::Cell &C : New.Cells) {
    const sema::Cell *Before = Old.findCell(C.Conc);
    if (!Before) {
      D.Added.push_back(C.Conc);
      continue;
    }
    std::vector<Change> &Out = D.Changed[C.Conc];
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
  std::map<std::string, std::vector<int64_t>> Lines;
  std::vector<std::string> Order;
  for (const auto &[Conc, Changes] : D.Changed)
    for (const Change &Ch : Changes) {
      std::string L = Ch.Name + " " + Ch.Old + " -> " + Ch.New;
      if (!Lines.count(L))
        Order.push_back(L);
      Lines[L].push_back(Conc);
    }
  std::vector<std::string> Out;
  auto List = [](const std::vector<int64_t> &Concs) {
    std::string S;
    for (int64_t C : Concs)
      S += (S.empty() ? "" : ", ") + std::to_string(C);
    return S;
  };
  for (const std::string &L : Order)
    Out.push_back(L + " at conc " + List(Lines[L]));
  if (!D.Added.empty())
    Out.push_back("adds conc " + List(D.Added));
  if (!D.Removed.empty())
    Out.push_back("drops conc " + List(D.Removed));
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
    for (const auto &[Conc, Changes] : D.Changed) {
      OS << "# c" << Conc << ":" << (Changes.empty() ? " unchanged" : "") << "\n";
      for (const Change &Ch : Changes)
        OS << "#   " << Ch.Name << ": " << Ch.Old << " -> " << Ch.New << "\n";
    }
    for (int64_t C : D.Added)
      OS << "# c" << C << ": new cell\n";
    for (int64_t C : D.Removed)
      OS << "# c" << C << ": removed\n";
  }
}
