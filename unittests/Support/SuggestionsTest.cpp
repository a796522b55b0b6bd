//===- SuggestionsTest.cpp - One rule for "did you mean" ------------------===//

#include "arecipe/Support/Suggestions.h"

#include <gtest/gtest.h>

using namespace arecipe;

namespace {

TEST(SuggestionsTest, EditDistanceIsLevenshtein) {
  EXPECT_EQ(editDistance("", ""), 0u);
  EXPECT_EQ(editDistance("abc", ""), 3u);
  EXPECT_EQ(editDistance("", "abc"), 3u);
  EXPECT_EQ(editDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(editDistance("max_num_seq", "max_num_seqs"), 1u);
  EXPECT_EQ(editDistance("windw", "window"), 1u);
  EXPECT_EQ(editDistance("ab", "ba"), 2u); // no transpositions
}

TEST(SuggestionsTest, ClosestCandidateWithinAThirdOfTheName) {
  EXPECT_EQ(suggestSpelling("max_num_seq", {"tp", "max_num_seqs", "dcp"}),
            std::optional<std::string>("max_num_seqs"));
  // "tpp": the limit is max(1, 5 / 3) = 1.
  EXPECT_EQ(suggestSpelling("tpp", {"tp", "dcp"}),
            std::optional<std::string>("tp"));
  EXPECT_EQ(suggestSpelling("abcdef", {"uvwxyz"}), std::nullopt);
  EXPECT_EQ(suggestSpelling("x", {}), std::nullopt);
}

TEST(SuggestionsTest, TiesGoToTheSmallestNameWhateverTheOrder) {
  EXPECT_EQ(suggestSpelling("cat", {"cbt", "cas"}),
            std::optional<std::string>("cas"));
  EXPECT_EQ(suggestSpelling("cat", {"cas", "cbt"}),
            std::optional<std::string>("cas"));
}

TEST(SuggestionsTest, TheNameItselfIsNeverSuggested) {
  EXPECT_EQ(suggestSpelling("tp", {"tp"}), std::nullopt);
  SpellingSuggester S("tp");
  S.add("tp");
  S.add("pp");
  EXPECT_EQ(S.best(), std::optional<std::string>("pp"));
}

} // namespace
