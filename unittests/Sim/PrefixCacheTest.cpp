//===- PrefixCacheTest.cpp - Block LRU and prompt hashing -----------------===//
#include "arecipe/Sim/PrefixCache.h"

#include <gtest/gtest.h>

#include <string>

using namespace arecipe::sim;

namespace {

std::string words(int From, int Count) {
  std::string S;
  for (int I = From; I < From + Count; ++I)
  {
    // Appended piecewise: GCC 12 warns (-Wrestrict, a false positive) on
    // "w" + std::to_string(I) + " ".
    S += 'w';
    S += std::to_string(I);
    S += ' ';
  }
  return S;
}

TEST(PromptHasher, OneWordIsOneTokenAndBlocksAreChained) {
  PromptHasher A;
  A.add(words(0, 130));
  EXPECT_EQ(A.tokens(), 130);
  std::vector<uint64_t> BlocksA = A.takeBlocks();
  ASSERT_EQ(BlocksA.size(), 2u); // 130 words: two full 64-word blocks

  // Same first block, different second block: only the first hash agrees.
  PromptHasher B;
  B.add(words(0, 64) + words(1000, 64));
  std::vector<uint64_t> BlocksB = B.takeBlocks();
  ASSERT_EQ(BlocksB.size(), 2u);
  EXPECT_EQ(BlocksA[0], BlocksB[0]);
  EXPECT_NE(BlocksA[1], BlocksB[1]);

  // A block equal in content but after a different prefix hashes apart.
  PromptHasher C;
  C.add(words(1000, 64) + words(64, 64));
  EXPECT_NE(C.takeBlocks()[1], BlocksA[1]);
}

TEST(PromptHasher, WhitespaceRunsAndMessageBoundaries) {
  PromptHasher H;
  H.add("  alpha\tbeta\n\ngamma  ");
  H.add("delta");
  EXPECT_EQ(H.tokens(), 4);
  // Contents never join: "ab" + "c" is two words, not "abc".
  PromptHasher J;
  J.add("ab");
  J.add("c");
  EXPECT_EQ(J.tokens(), 2);
}

TEST(PrefixCache, MatchesLeadingBlocksAndEvictsLeastRecentlyUsed) {
  PrefixCache Cache(3);
  Cache.insert(1);
  Cache.insert(2);
  Cache.insert(3);
  EXPECT_EQ(Cache.matchPrefix({1, 2, 3, 4}), 3u);
  EXPECT_EQ(Cache.matchPrefix({2, 1}), 2u);
  EXPECT_EQ(Cache.matchPrefix({4, 1}), 0u); // a miss stops the prefix
  Cache.insert(4);                          // evicts 3, the least recent
  EXPECT_EQ(Cache.matchPrefix({3}), 0u);
  EXPECT_EQ(Cache.matchPrefix({1, 2, 4}), 3u);
  Cache.setCapacity(1);
  EXPECT_EQ(Cache.size(), 1u);
  EXPECT_EQ(Cache.matchPrefix({4}), 1u);
  PrefixCache Off(0);
  Off.insert(9);
  EXPECT_EQ(Off.size(), 0u);
}

} // namespace
