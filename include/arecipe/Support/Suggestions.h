//===- Suggestions.h - "Did you mean" spelling suggestions -----*- C++ -*-===//
//
// The one place that decides which declared name a misspelt one most likely
// meant: the candidate with the smallest edit distance (insertions,
// deletions and replacements each cost 1), ties broken by the
// lexicographically smallest candidate so the answer never depends on the
// order candidates were offered, and only when the distance is at most a
// third of the name's length (at least 1) -- farther guesses mislead more
// than they help. Every "did you mean" of the compiler goes through it;
// the diagnostic that shows the suggestion is Sema's business. Plain C++,
// no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_SUPPORT_SUGGESTIONS_H
#define ARECIPE_SUPPORT_SUGGESTIONS_H

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arecipe {

/// The Levenshtein distance between A and B.
unsigned editDistance(std::string_view A, std::string_view B);

/// Collects candidates for one misspelt name and keeps the best.
class SpellingSuggester {
public:
  explicit SpellingSuggester(std::string_view Name);

  /// Offers one candidate; the name itself is never suggested.
  void add(std::string_view Candidate);
  template <typename Range> void addAll(const Range &Candidates) {
    for (const auto &C : Candidates)
      add(C);
  }

  /// The closest candidate within the distance limit, if any.
  std::optional<std::string> best() const;

private:
  std::string Name;
  std::string Best;
  unsigned BestDistance = ~0u;
  bool HasBest = false;
};

/// SpellingSuggester over a list of candidates.
std::optional<std::string>
suggestSpelling(std::string_view Name,
                const std::vector<std::string> &Candidates);

} // namespace arecipe

#endif // ARECIPE_SUPPORT_SUGGESTIONS_H
