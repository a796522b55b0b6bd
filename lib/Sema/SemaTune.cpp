//===- SemaTune.cpp - Checking `tune` blocks ------------------------------===//
//
// Turns the `tune` blocks of the main file into search spaces (Tune.h),
// checked against the recipe Sema has analysed. It reads the recipe only
// through its resolved cells (Cell.h): the knob names a cell has, its band,
// its `server = cell(N)`; it evaluates no candidate (a candidate is
// compiled with the recipe by arecipe-tune, where the recipe's checks and
// the engine's schema decide whether it is kept).
//
//===----------------------------------------------------------------------===//

#include "arecipe/Sema/Tune.h"

#include "arecipe/AST/Decl.h"
#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Basic/Unit.h"
#include "arecipe/Sema/Sema.h"
#include "arecipe/Support/Suggestions.h"

#include "llvm/Support/Casting.h"

#include <cmath>
#include <map>
#include <set>

using namespace arecipe;
using namespace arecipe::sema;

const std::vector<TuneMetric> &sema::tuneMetrics() {
  static const std::vector<TuneMetric> Metrics = {
      {"tput_per_gpu", "tok/s/gpu", true},
      {"output_tput_per_gpu", "tok/s/gpu", true},
      {"p90_interactivity", "tok/s/user", true},
      {"p50_ttft", "s", false},
      {"p90_ttft", "s", false},
      {"p50_itl", "s", false},
      {"p90_itl", "s", false},
      {"p50_e2e", "s", false},
      {"p90_e2e", "s", false},
      {"error_rate", "", false},
  };
  return Metrics;
}

const TuneMetric *sema::findTuneMetric(llvm::StringRef Name) {
  for (const TuneMetric &M : tuneMetrics())
    if (Name == M.Name)
      return &M;
  return nullptr;
}

bool TuneConstraint::holds(double V) const {
  if (Op == "<=")
    return V <= Bound;
  if (Op == ">=")
    return V >= Bound;
  if (Op == "<")
    return V < Bound;
  if (Op == ">")
    return V > Bound;
  if (Op == "==")
    return V == Bound;
  return V != Bound;
}

namespace {

llvm::StringRef textOf(llvm::SMRange R) {
  if (!R.isValid())
    return {};
  return llvm::StringRef(R.Start.getPointer(),
                         R.End.getPointer() - R.Start.getPointer());
}

/// A literal number, possibly negated; nullopt for anything else.
std::optional<double> literalNumber(const ast::Expr *E) {
  bool Negate = false;
  if (auto *U = llvm::dyn_cast<ast::UnaryExpr>(E)) {
    if (U->getOp() != ast::UnaryOp::Negate)
      return std::nullopt;
    Negate = true;
    E = U->getOperand();
  }
  double V;
  if (auto *I = llvm::dyn_cast<ast::IntegerLiteral>(E))
    V = double(I->getValue());
  else if (auto *F = llvm::dyn_cast<ast::FloatLiteral>(E))
    V = std::strtod(F->getText().str().c_str(), nullptr);
  else
    return std::nullopt;
  return Negate ? -V : V;
}

/// What one scope (the block, a band, an `at conc`) says.
struct Scope {
  std::map<std::string, TuneKnob> Knobs; ///< By knob name.
  std::vector<std::string> Order;        ///< Knobs in source order.
  std::vector<TuneConstraint> Constraints;
};

class TuneChecker {
public:
  TuneChecker(const RecipeCells &R, DiagnosticEngine &Diags)
      : R(R), Diags(Diags) {
    for (const Cell &C : R.Cells) {
      for (const auto &[Name, V] : C.Values)
        Knobs.insert(Name);
      for (const ProcessInfo &P : C.Processes)
        for (const auto &[Name, V] : P.Knobs)
          Knobs.insert(Name);
    }
  }

  bool scope(llvm::ArrayRef<ast::TuneItem> Items, Scope &S, bool TopLevel) {
    bool Ok = true;
    for (const ast::TuneItem &I : Items) {
      switch (I.K) {
      case ast::TuneItem::Candidates:
        Ok &= candidates(I, S);
        break;
      case ast::TuneItem::Constraint:
        Ok &= constraint(I, S);
        break;
      case ast::TuneItem::Band:
      case ast::TuneItem::At:
        if (!TopLevel) {
          Diags.report(I.Range, DiagID::err_tune_nested_scope) << I.Range;
          Ok = false;
        }
        break;
      case ast::TuneItem::Objective:
        break; // checked by the caller, at the top level only
      }
    }
    return Ok;
  }

  const RecipeCells &R;
  DiagnosticEngine &Diags;
  std::set<std::string> Knobs;

private:
  bool candidates(const ast::TuneItem &I, Scope &S) {
    std::string Name = I.Name.Name.str();
    if (!Knobs.count(Name)) {
      DiagnosticBuilder B =
          Diags.report(I.Name.Range, DiagID::err_tune_unknown_knob);
      B << Name << R.Name << I.Name.Range;
      std::vector<std::string> All(Knobs.begin(), Knobs.end());
      if (std::optional<std::string> Best = suggestSpelling(Name, All))
        B.note(I.Name.Range.Start, DiagID::note_did_you_mean)
            << *Best << I.Name.Range << FixIt::replace(I.Name.Range, *Best);
      return false;
    }
    if (S.Knobs.count(Name)) {
      Diags.report(I.Name.Range, DiagID::err_tune_duplicate_knob)
          << Name << I.Name.Range;
      return false;
    }
    TuneKnob K;
    K.Knob = Name;
    if (auto *L = llvm::dyn_cast<ast::ListExpr>(I.Value)) {
      for (const ast::Expr *E : L->getElements())
        K.Candidates.push_back(textOf(E->getRange()).str());
    } else if (auto *Rg = llvm::dyn_cast<ast::RangeExpr>(I.Value)) {
      auto *Lo = llvm::dyn_cast<ast::IntegerLiteral>(Rg->getLo());
      auto *Hi = llvm::dyn_cast<ast::IntegerLiteral>(Rg->getHi());
      auto *Step = llvm::dyn_cast_or_null<ast::IntegerLiteral>(Rg->getStep());
      if (!Lo || !Hi || (Rg->getStep() && (!Step || Step->getValue() <= 0))) {
        Diags.report(I.Value->getRange(), DiagID::err_tune_candidates_shape)
            << Name << I.Value->getRange();
        return false;
      }
      int64_t By = Step ? Step->getValue() : 1;
      // At most a few thousand candidates: a search space, not a sweep.
      for (int64_t V = Lo->getValue();
           V <= Hi->getValue() && K.Candidates.size() < 4096; V += By)
        K.Candidates.push_back(std::to_string(V));
    } else {
      Diags.report(I.Value->getRange(), DiagID::err_tune_candidates_shape)
          << Name << I.Value->getRange();
      return false;
    }
    if (K.Candidates.empty()) {
      Diags.report(I.Value->getRange(), DiagID::err_tune_empty_candidates)
          << Name << I.Value->getRange();
      return false;
    }
    S.Order.push_back(Name);
    S.Knobs[Name] = std::move(K);
    return true;
  }

  bool constraint(const ast::TuneItem &I, Scope &S) {
    const TuneMetric *M = metric(I.Name);
    if (!M)
      return false;
    TuneConstraint C;
    C.Metric = M->Name;
    C.Op = ast::getSpelling(I.Op).str();
    C.Text = textOf(I.Range).str();
    llvm::StringRef Unit = M->Unit;
    if (Unit == "s") {
      // A duration: a quantity literal of time (`2s`, `500ms`).
      auto *Q = llvm::dyn_cast<ast::QuantityLiteral>(I.Value);
      if (!Q || getDimension(Q->getUnit()) != Dimension::time() ||
          !I.Unit.empty()) {
        llvm::SMRange Where =
            I.Unit.empty() ? I.Value->getRange() : I.Unit.Range;
        std::string Got = Q ? ("in " + getSymbol(Q->getUnit()).str())
                          : I.Unit.empty() ? std::string("a plain number")
                                           : "in " + I.Unit.Name.str();
        Diags.report(Where, DiagID::err_tune_unit_mismatch)
            << C.Metric << "a duration (ms, s, min, h)" << Got << Where;
        return false;
      }
      C.Bound = std::strtod(Q->getNumberText().str().c_str(), nullptr) *
                double(getScale(Q->getUnit())) / 1e9;
    } else {
      std::optional<double> V = literalNumber(I.Value);
      if (!V) {
        Diags.report(I.Value->getRange(), DiagID::err_tune_bound_not_number)
            << C.Metric
            << (Unit.empty() ? std::string() : " followed by " + Unit.str())
            << I.Value->getRange();
        return false;
      }
      if (I.Unit.Name != Unit) {
        llvm::SMRange Where =
            I.Unit.empty() ? I.Value->getRange() : I.Unit.Range;
        Diags.report(Where, DiagID::err_tune_unit_mismatch)
            << C.Metric
            << (Unit.empty() ? std::string("a plain number") : Unit.str())
            << (I.Unit.empty() ? std::string("a plain number")
                               : "in " + I.Unit.Name.str())
            << Where;
        return false;
      }
      C.Bound = *V;
    }
    S.Constraints.push_back(std::move(C));
    return true;
  }

public:
  const TuneMetric *metric(const ast::Identifier &Name) {
    if (const TuneMetric *M = findTuneMetric(Name.Name))
      return M;
    std::string List;
    for (const TuneMetric &M : tuneMetrics())
      List += (List.empty() ? "" : ", ") + std::string(M.Name);
    Diags.report(Name.Range, DiagID::err_tune_unknown_metric)
        << Name.Name << List << Name.Range;
    return nullptr;
  }
};

/// The concurrencies an `at conc` item names, or nullopt after reporting.
std::optional<std::set<int64_t>>
atConcs(const ast::TuneItem &I, const RecipeCells &R, DiagnosticEngine &Diags) {
  std::set<int64_t> Out;
  auto Has = [&](int64_t C) { return R.findCell(C) != nullptr; };
  for (const ast::Expr *E : I.Concs) {
    if (auto *N = llvm::dyn_cast<ast::IntegerLiteral>(E)) {
      if (!Has(N->getValue())) {
        Diags.report(E->getRange(), DiagID::err_tune_bad_conc)
            << (std::to_string(N->getValue()) + " is not one") << E->getRange();
        return std::nullopt;
      }
      Out.insert(N->getValue());
      continue;
    }
    auto *Rg = llvm::dyn_cast<ast::RangeExpr>(E);
    auto *Lo = Rg ? llvm::dyn_cast<ast::IntegerLiteral>(Rg->getLo()) : nullptr;
    auto *Hi = Rg ? llvm::dyn_cast<ast::IntegerLiteral>(Rg->getHi()) : nullptr;
    if (!Lo || !Hi || Rg->getStep()) {
      Diags.report(E->getRange(), DiagID::err_tune_bad_conc)
          << ("'" + textOf(E->getRange()).str() + "' is neither")
          << E->getRange();
      return std::nullopt;
    }
    size_t Before = Out.size();
    for (int64_t C : R.Concurrency)
      if (C >= Lo->getValue() && C <= Hi->getValue())
        Out.insert(C);
    if (Out.size() == Before) {
      Diags.report(E->getRange(), DiagID::err_tune_bad_conc)
          << ("'" + textOf(E->getRange()).str() + "' holds none")
          << E->getRange();
      return std::nullopt;
    }
  }
  return Out;
}

/// Applies scope \p S to cell \p C: its candidates replace those of a wider
/// scope for the same knob, its constraints add to them.
void apply(const Scope &S, TuneCell &C) {
  for (const std::string &Name : S.Order) {
    const TuneKnob &K = S.Knobs.at(Name);
    auto It = std::find_if(C.Knobs.begin(), C.Knobs.end(),
                           [&](const TuneKnob &T) { return T.Knob == Name; });
    if (It == C.Knobs.end())
      C.Knobs.push_back(K);
    else
      *It = K;
  }
  C.Constraints.insert(C.Constraints.end(), S.Constraints.begin(),
                       S.Constraints.end());
}

} // namespace

std::vector<TuneSpace> sema::checkTuneBlocks(const Compilation &Comp,
                                             const ast::File &Main,
                                             DiagnosticEngine &Diags) {
  std::vector<TuneSpace> Out;
  for (const ast::Decl *D : Main.getDecls()) {
    auto *T = llvm::dyn_cast<ast::TuneDecl>(D);
    if (!T)
      continue;
    const RecipeCells *Recipe = nullptr;
    std::vector<std::string> Names;
    for (const std::unique_ptr<RecipeCells> &R : Comp.recipes()) {
      Names.push_back(R->Name);
      if (R->Name == T->getRecipe().Name)
        Recipe = R.get();
    }
    if (!Recipe) {
      llvm::SMRange Where = T->getRecipe().Range;
      DiagnosticBuilder B =
          Diags.report(Where, DiagID::err_tune_unknown_recipe);
      B << T->getRecipe().Name << Where;
      if (std::optional<std::string> Best =
              suggestSpelling(T->getRecipe().Name.str(), Names))
        B.note(Where.Start, DiagID::note_did_you_mean)
            << *Best << Where << FixIt::replace(Where, *Best);
      continue;
    }
    TuneChecker Check(*Recipe, Diags);
    TuneSpace Space;
    Space.Name = T->getName().Name.str();
    Space.Recipe = Recipe->Name;
    bool Ok = true;
    unsigned Objectives = 0;
    for (const ast::TuneItem &I : T->getItems())
      if (I.K == ast::TuneItem::Objective) {
        ++Objectives;
        if (const TuneMetric *M = Check.metric(I.Name)) {
          Space.Objective = M->Name;
          Space.Maximize = I.Maximize;
        } else {
          Ok = false;
        }
      }
    if (Objectives != 1) {
      Diags.report(T->getName().Range, DiagID::err_tune_objective)
          << Space.Name << Objectives << T->getName().Range;
      Ok = false;
    }
    Scope Top;
    Ok &= Check.scope(T->getItems(), Top, /*TopLevel=*/true);
    // Band scopes, then `at conc` scopes: the narrower wins per knob.
    std::vector<std::pair<std::set<int64_t>, Scope>> Narrow[2];
    for (const ast::TuneItem &I : T->getItems()) {
      if (I.K != ast::TuneItem::Band && I.K != ast::TuneItem::At)
        continue;
      std::set<int64_t> Concs;
      if (I.K == ast::TuneItem::Band) {
        bool Found = false;
        for (const Cell &C : Recipe->Cells)
          if (C.Band && C.Band->Name == I.Name.Name) {
            Found = true;
            Concs.insert(C.Conc);
          }
        if (!Found) {
          Diags.report(I.Name.Range, DiagID::err_tune_unknown_band)
              << Recipe->Name << I.Name.Name << I.Name.Range;
          Ok = false;
          continue;
        }
      } else if (std::optional<std::set<int64_t>> Named =
                     atConcs(I, *Recipe, Diags)) {
        Concs = std::move(*Named);
      } else {
        Ok = false;
        continue;
      }
      Scope S;
      Ok &= Check.scope(I.Items, S, /*TopLevel=*/false);
      Narrow[I.K == ast::TuneItem::At].emplace_back(std::move(Concs),
                                                    std::move(S));
    }
    if (!Ok)
      continue;
    std::set<int64_t> Seen;
    for (const Cell &C : Recipe->Cells) {
      if (!Seen.insert(C.Conc).second)
        continue; // one per concurrency (arms share the search)
      TuneCell TC;
      TC.Conc = C.Conc;
      TC.Band = C.Band ? C.Band->Name : "";
      TC.ServerFrom = C.ServerFrom;
      apply(Top, TC);
      for (auto &Level : Narrow)
        for (auto &[Concs, S] : Level)
          if (Concs.count(C.Conc))
            apply(S, TC);
      Space.Cells.push_back(std::move(TC));
    }
    Out.push_back(std::move(Space));
  }
  return Out;
}
