//===- DiagnosticIDsTest.cpp - The diagnostic table follows the rules -----===//
//
// Checks every declared diagnostic against the message style of
// docs/diagnostics.md, so a new table line that breaks it fails here rather
// than in review.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Basic/DiagnosticIDs.h"

#include "llvm/ADT/StringSet.h"

#include <gtest/gtest.h>

using namespace arecipe;

namespace {

llvm::StringRef prefixFor(DiagLevel Level) {
  switch (Level) {
  case DiagLevel::Error:
    return "err_";
  case DiagLevel::Warning:
    return "warn_";
  case DiagLevel::Note:
    return "note_";
  case DiagLevel::Remark:
    return "remark_";
  }
  return "";
}

/// The highest {N} used plus one; fails the test on a malformed brace.
unsigned countArgs(llvm::StringRef Format) {
  unsigned Count = 0;
  for (size_t I = 0; I < Format.size(); ++I) {
    if (Format.substr(I).startswith("{{") ||
        Format.substr(I).startswith("}}")) {
      ++I;
      continue;
    }
    if (Format[I] != '{')
      continue;
    size_t Close = Format.find('}', I);
    unsigned Index;
    EXPECT_FALSE(Close == llvm::StringRef::npos ||
                 Format.slice(I + 1, Close).getAsInteger(10, Index))
        << "malformed placeholder in: " << Format.str();
    if (Close == llvm::StringRef::npos)
      return Count;
    if (!Format.slice(I + 1, Close).getAsInteger(10, Index))
      Count = std::max(Count, Index + 1);
    I = Close;
  }
  return Count;
}

TEST(DiagnosticIDsTest, TableIsIndexedByID) {
  llvm::ArrayRef<DiagInfo> All = listDiagnostics();
  ASSERT_FALSE(All.empty());
  for (size_t I = 0; I < All.size(); ++I) {
    EXPECT_EQ(static_cast<size_t>(All[I].ID), I);
    EXPECT_EQ(&getDiagInfo(All[I].ID), &All[I]);
  }
  EXPECT_EQ(getDiagInfo(DiagID::err_expected_expr).Name, "err_expected_expr");
  EXPECT_EQ(getDiagInfo(DiagID::err_expected_expr).Level, DiagLevel::Error);
}

TEST(DiagnosticIDsTest, EveryEntryFollowsTheStyle) {
  llvm::StringSet<> Names;
  for (const DiagInfo &Info : listDiagnostics()) {
    SCOPED_TRACE(Info.Name.str());
    EXPECT_TRUE(Names.insert(Info.Name).second) << "duplicate id";
    EXPECT_TRUE(Info.Name.startswith(prefixFor(Info.Level)))
        << "id prefix does not match level " << getLevelName(Info.Level).str();
    ASSERT_FALSE(Info.Format.empty());
    EXPECT_FALSE(Info.Format.front() >= 'A' && Info.Format.front() <= 'Z')
        << "message starts with a capital";
    EXPECT_FALSE(Info.Format.endswith(".")) << "message ends with a period";
    EXPECT_FALSE(Info.Format.contains('"')) << "code is quoted with '...'";
    // Placeholders are contiguous: {0}..{N-1} all used.
    unsigned Args = countArgs(Info.Format);
    for (unsigned I = 0; I < Args; ++I) {
      std::string Placeholder = "{";
      Placeholder += std::to_string(I);
      Placeholder += '}';
      EXPECT_TRUE(Info.Format.contains(Placeholder))
          << "placeholder " << Placeholder << " unused";
    }
  }
}

TEST(DiagnosticIDsTest, LevelNames) {
  EXPECT_EQ(getLevelName(DiagLevel::Error), "error");
  EXPECT_EQ(getLevelName(DiagLevel::Warning), "warning");
  EXPECT_EQ(getLevelName(DiagLevel::Note), "note");
  EXPECT_EQ(getLevelName(DiagLevel::Remark), "remark");
}

} // namespace
