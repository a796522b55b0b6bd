//===- Utf8Test.cpp - Text from outside, made safe ------------------------===//

#include "arecipe/Support/Utf8.h"

#include <gtest/gtest.h>

using namespace arecipe::support;

TEST(Utf8, ValidTextIsKept) {
  EXPECT_TRUE(isValidUtf8("plain \xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"));
  EXPECT_EQ(sanitizeUtf8("caf\xc3\xa9"), "caf\xc3\xa9");
}

TEST(Utf8, InvalidBytesBecomeReplacementCharacters) {
  EXPECT_FALSE(isValidUtf8("\xff"));
  EXPECT_EQ(sanitizeUtf8("a\xff" "b"), "a\xef\xbf\xbd" "b");
  // Half of a three-byte character at the end (an engine killed mid-write).
  EXPECT_EQ(sanitizeUtf8("cut \xe2\x82"), "cut \xef\xbf\xbd\xef\xbf\xbd");
  EXPECT_EQ(sanitizeUtf8("\xed\xa0\x80"), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); // a surrogate
  EXPECT_EQ(sanitizeUtf8("\xc0\xaf"), "\xef\xbf\xbd\xef\xbf\xbd");                // overlong
  EXPECT_TRUE(isValidUtf8(sanitizeUtf8("\xf5\x80\x80\x80 \x80")));
}

TEST(Utf8, ErrorLinesShowControlAndInvalidBytes) {
  EXPECT_EQ(escapeForErrorLine("a\nb\tc\rd\x1b"), "a\\nb\\tc\\rd\\x1b");
  EXPECT_EQ(escapeForErrorLine("a\xff\xc3("), "a\\xff\\xc3(");
  EXPECT_EQ(escapeForErrorLine("\xed\xa0\x80"), "\\xed\\xa0\\x80"); // a surrogate
  EXPECT_EQ(escapeForErrorLine("CAF\xc3\x89"), "CAF\xc3\x89");
}
