//===- ShellQuoteTest.cpp - One quoting rule for every shell line ---------===//

#include "arecipe/Support/ShellQuote.h"

#include <gtest/gtest.h>

using namespace arecipe::support;

TEST(ShellQuote, SafeWordsStayBare) {
  EXPECT_EQ(shellQuote("--max-num-seqs=64"), "--max-num-seqs=64");
  EXPECT_EQ(shellQuote("/models/org/m:v1@x%+_."), "/models/org/m:v1@x%+_.");
}

TEST(ShellQuote, EverythingElseIsSingleQuoted) {
  EXPECT_EQ(shellQuote(""), "''");
  EXPECT_EQ(shellQuote("a b"), "'a b'");
  EXPECT_EQ(shellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(shellQuote("$(rm -rf /)"), "'$(rm -rf /)'");
  // A comma is harmless to a shell but not in the shared safe set: the
  // compiler's launcher always quoted it, and its bytes must not change.
  EXPECT_EQ(shellQuote("0,1"), "'0,1'");
}

TEST(ShellQuote, JoinQuotesEachWord) {
  EXPECT_EQ(shellJoin({"a", "b c", "it's", "[1,2]", ""}), "a 'b c' 'it'\\''s' '[1,2]' ''");
  EXPECT_EQ(shellJoin({}), "");
}
