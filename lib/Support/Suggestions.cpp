//===- Suggestions.cpp - "Did you mean" spelling suggestions -------------===//

#include "arecipe/Support/Suggestions.h"

#include <algorithm>
#include <numeric>

using namespace arecipe;

unsigned arecipe::editDistance(std::string_view A, std::string_view B) {
  // One row of the dynamic-programming table at a time.
  std::vector<unsigned> Row(B.size() + 1);
  std::iota(Row.begin(), Row.end(), 0u);
  for (size_t I = 1; I <= A.size(); ++I) {
    unsigned Diagonal = Row[0];
    Row[0] = unsigned(I);
    for (size_t J = 1; J <= B.size(); ++J) {
      unsigned Above = Row[J];
      unsigned Replace = Diagonal + (A[I - 1] == B[J - 1] ? 0 : 1);
      Row[J] = std::min({Row[J - 1] + 1, Above + 1, Replace});
      Diagonal = Above;
    }
  }
  return Row[B.size()];
}

SpellingSuggester::SpellingSuggester(std::string_view Name) : Name(Name) {}

void SpellingSuggester::add(std::string_view Candidate) {
  if (Candidate == Name)
    return;
  unsigned D = editDistance(Name, Candidate);
  if (!HasBest || D < BestDistance ||
      (D == BestDistance && Candidate < std::string_view(Best))) {
    Best = std::string(Candidate);
    BestDistance = D;
    HasBest = true;
  }
}

std::optional<std::string> SpellingSuggester::best() const {
  size_t Limit = std::max<size_t>(1, (Name.size() + 2) / 3);
  if (!HasBest || BestDistance > Limit)
    return std::nullopt;
  return Best;
}

std::optional<std::string>
arecipe::suggestSpelling(std::string_view Name,
                         const std::vector<std::string> &Candidates) {
  SpellingSuggester S(Name);
  S.addAll(Candidates);
  return S.best();
}
