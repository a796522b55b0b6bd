//===- ReadMemoTest.cpp - Results kept by the values they read ------------===//
//
// ReadMemo (lib/Sema/ReadMemo.h) is what lets a cell take an earlier cell's
// render condition, held check or pre-flight action: these tests pin down
// when it must not, since a wrong reuse changes a plan or drops a
// diagnostic without any other sign.
//
//===----------------------------------------------------------------------===//

#include "ReadMemo.h"

#include "gtest/gtest.h"

#include <map>

using namespace arecipe;
using namespace arecipe::sema;

namespace {
/// A cell's values by name, as memoRead would find them.
struct FakeCell {
  std::map<std::string, ResolvedValue, std::less<>> Values;
  void set(llvm::StringRef Name, Value V, Level L = Level::Recipe) {
    ResolvedValue RV;
    RV.V = std::move(V);
    RV.L = L;
    Values[Name.str()] = std::move(RV);
  }
  const ResolvedValue *read(llvm::StringRef Name) const {
    auto It = Values.find(Name);
    return It == Values.end() ? nullptr : &It->second;
  }
};

using Memo = ReadMemo<int, std::string>;

TEST(ReadMemoTest, TakesAResultOnlyWhenEveryValueReadIsTheSame) {
  Memo M;
  FakeCell A;
  A.set("draft", Value::integer(3));
  A.set("tag", Value::string("b"));
  auto ReadA = [&](llvm::StringRef N) { return A.read(N); };
  EXPECT_EQ(M.find(1, ReadA), nullptr);
  M.add(1, {"draft", "tag"}, ReadA, "on");
  ASSERT_NE(M.find(1, ReadA), nullptr);
  EXPECT_EQ(*M.find(1, ReadA), "on");
  EXPECT_EQ(M.find(2, ReadA), nullptr); // Another key.

  FakeCell B = A;
  auto ReadB = [&](llvm::StringRef N) { return B.read(N); };
  // A value the result did not read may differ.
  B.set("other", Value::integer(1));
  EXPECT_NE(M.find(1, ReadB), nullptr);
  // One value read differs.
  B.set("tag", Value::string("c"));
  EXPECT_EQ(M.find(1, ReadB), nullptr);
  // Equal but distinguishable: 3 and 3.0 are of two kinds.
  B = A;
  B.set("draft", Value::number(Rational(3)));
  EXPECT_EQ(M.find(1, ReadB), nullptr);
  // The same value from another level (a `--set`) is not the same read.
  B = A;
  B.set("draft", Value::integer(3), Level::CommandLine);
  EXPECT_EQ(M.find(1, ReadB), nullptr);
  // A value the cell has not resolved is never taken as the same.
  B = A;
  B.Values.erase("tag");
  EXPECT_EQ(M.find(1, ReadB), nullptr);
}

TEST(ReadMemoTest, KeepsNothingWhenAValueReadIsMissing) {
  Memo M;
  FakeCell A;
  A.set("draft", Value::integer(3));
  auto ReadA = [&](llvm::StringRef N) { return A.read(N); };
  // `conc` has no value in the cell: a result that read it is per cell.
  M.add(1, {"draft", "conc"}, ReadA, "on");
  EXPECT_EQ(M.find(1, ReadA), nullptr);
  A.set("conc", Value::integer(8));
  EXPECT_EQ(M.find(1, ReadA), nullptr);
}

TEST(ReadMemoTest, KeepsAFewResultsPerKey) {
  Memo M;
  FakeCell A;
  auto ReadA = [&](llvm::StringRef N) { return A.read(N); };
  for (int64_t I = 0; I < int64_t(Memo::MaxPerKey) + 2; ++I) {
    A.set("draft", Value::integer(I));
    M.add(1, {"draft"}, ReadA, std::to_string(I));
  }
  for (int64_t I = 0; I < int64_t(Memo::MaxPerKey) + 2; ++I) {
    A.set("draft", Value::integer(I));
    const std::string *Kept = M.find(1, ReadA);
    if (I < int64_t(Memo::MaxPerKey)) {
      ASSERT_NE(Kept, nullptr) << I;
      EXPECT_EQ(*Kept, std::to_string(I));
    } else {
      EXPECT_EQ(Kept, nullptr) << I;
    }
  }
}

TEST(ReadMemoTest, AResultThatReadNothingHoldsForEveryCell) {
  Memo M;
  FakeCell A, B;
  B.set("draft", Value::integer(1));
  M.add(
      1, {}, [&](llvm::StringRef N) { return A.read(N); }, "constant");
  const std::string *Kept =
      M.find(1, [&](llvm::StringRef N) { return B.read(N); });
  ASSERT_NE(Kept, nullptr);
  EXPECT_EQ(*Kept, "constant");
}
} // namespace
