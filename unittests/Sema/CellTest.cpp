//===- CellTest.cpp - A cell's value table, its keys and dependency lists -===//
//
// Cell::Values stores each value by the id of its key in the recipe's
// CellKeys and iterates in key order; these tests pin the behaviour the
// std::map it replaced had and its readers rely on: key order whatever the
// order of insertion, size and lookup after an erase, a prefix scan from
// lower_bound, and values that stay where they are while more are added.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Sema/Cell.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <string>
#include <vector>

using namespace arecipe;
using namespace arecipe::sema;

namespace {

ResolvedValue valueOf(int64_t N) {
  ResolvedValue RV;
  RV.V = Value::integer(N);
  return RV;
}

std::vector<std::string> keysOf(const ValueTable &T) {
  std::vector<std::string> Out;
  for (const auto &[Name, RV] : T)
    Out.push_back(Name);
  return Out;
}

TEST(CellKeysTest, IdsAreDenseAndOrderIsByKey) {
  CellKeys K;
  unsigned Tp = K.add("tp");
  unsigned Env = K.add("env.X");
  unsigned Decode = K.add("decode.tp");
  EXPECT_EQ(K.add("tp"), Tp);
  EXPECT_EQ(K.size(), 3u);
  EXPECT_EQ(K.lookup("env.X"), Env);
  EXPECT_EQ(K.lookup("missing"), CellKeys::None);
  EXPECT_EQ(K.key(Decode), "decode.tp");
  std::vector<unsigned> Sorted(K.sorted().begin(), K.sorted().end());
  EXPECT_EQ(Sorted, (std::vector<unsigned>{Decode, Env, Tp}));
}

TEST(ValueTableTest, IteratesInKeyOrderAndSkipsAbsentKeys) {
  auto K = std::make_shared<CellKeys>();
  ValueTable T(K);
  T.set(K->add("window"), valueOf(1));
  unsigned Gap = K->add("gap"); // A key another cell holds.
  T.set(K->add("file:b"), valueOf(2));
  T.set(K->add("conc_list"), valueOf(3));
  T.set(K->add("file:a"), valueOf(4));
  EXPECT_EQ(keysOf(T), (std::vector<std::string>{"conc_list", "file:a",
                                                 "file:b", "window"}));
  EXPECT_EQ(T.size(), 4u);
  EXPECT_EQ(T.at(Gap), nullptr);
  EXPECT_EQ(T.lookup("gap"), nullptr);
  ASSERT_TRUE(T.lookup("file:a"));
  EXPECT_EQ(T.lookup("file:a")->V, Value::integer(4));

  // A prefix scan, as SemaRender reads the `file:` values.
  std::vector<std::string> Files;
  for (auto It = T.lower_bound("file:");
       It != T.end() && llvm::StringRef(It->first).startswith("file:"); ++It)
    Files.push_back(It->first);
  EXPECT_EQ(Files, (std::vector<std::string>{"file:a", "file:b"}));
  EXPECT_TRUE(T.lower_bound("zzz") == T.end());
}

TEST(ValueTableTest, EraseAndOverwrite) {
  auto K = std::make_shared<CellKeys>();
  ValueTable T(K);
  unsigned A = K->add("a"), B = K->add("b");
  ResolvedValue &Kept = T.set(A, valueOf(1));
  T.set(B, valueOf(2));
  ResolvedValue &Again = T.set(A, valueOf(5));
  EXPECT_EQ(&Kept, &Again);
  EXPECT_EQ(T.at(A)->V, Value::integer(5));
  EXPECT_EQ(T.size(), 2u);
  T.erase(B);
  T.erase(B);
  EXPECT_EQ(T.size(), 1u);
  EXPECT_EQ(keysOf(T), (std::vector<std::string>{"a"}));
  T.set(B, valueOf(6));
  EXPECT_EQ(keysOf(T), (std::vector<std::string>{"a", "b"}));
}

TEST(ValueTableTest, ValuesStayPutWhileMoreAreAdded) {
  auto K = std::make_shared<CellKeys>();
  ValueTable T(K);
  const ResolvedValue *First = &T.set(K->add("k0000"), valueOf(0));
  // Past several blocks, with keys the recipe adds on the way.
  for (int N = 1; N < 500; ++N)
    T.set(K->add("k" + std::string(4 - std::to_string(N).size(), '0') +
                 std::to_string(N)),
          valueOf(N));
  EXPECT_EQ(T.lookup("k0000"), First);
  EXPECT_EQ(First->V, Value::integer(0));
  EXPECT_EQ(T.size(), 500u);
  std::vector<std::string> Keys = keysOf(T);
  EXPECT_TRUE(std::is_sorted(Keys.begin(), Keys.end()));

  // A copy holds its own values, in the same order.
  ValueTable Copy = T;
  EXPECT_EQ(keysOf(Copy), Keys);
  EXPECT_NE(Copy.lookup("k0000"), First);
  EXPECT_EQ(Copy.lookup("k0499")->V, Value::integer(499));
}

TEST(DepListTest, AddsOnceAndCopiesShareUntilWritten) {
  DepList D;
  EXPECT_TRUE(D.empty());
  D.add("tp");
  D.add("conc");
  D.add("tp");
  EXPECT_EQ(D.names(), (std::vector<std::string>{"tp", "conc"}));
  DepList Shared = D;
  Shared.add("window");
  EXPECT_EQ(D.names(), (std::vector<std::string>{"tp", "conc"}));
  EXPECT_EQ(Shared.names(), (std::vector<std::string>{"tp", "conc", "window"}));
  DepList Init = {"model"};
  EXPECT_EQ(Init.size(), 1u);
}

} // namespace
