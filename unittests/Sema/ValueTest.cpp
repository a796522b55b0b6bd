//===- ValueTest.cpp - Values, types and quantity semantics as Sema uses them ===//

#include "arecipe/Sema/Cell.h"
#include "arecipe/Sema/Value.h"

#include "gtest/gtest.h"

using namespace arecipe;
using namespace arecipe::sema;

namespace {

Value qty(int64_t N, Unit U) { return Value::quantity(*Quantity::of(Rational(N), U)); }

TEST(ValueTest, SizeDividedByIntStaysExact) {
  // 1028GB / 8 is 128.5GB: nothing is rounded before rendering.
  NumericResult<Quantity> Q =
      qty(1028, Unit::GB).getQuantity().div(Quantity::number(Rational(8)));
  ASSERT_TRUE(Q);
  EXPECT_EQ(Value::quantity(*Q).str(), "128.5GB");
  EXPECT_EQ(*Q->to(Unit::GB, Rounding::Floor), 128);
  EXPECT_EQ(*Q->to(Unit::GB, Rounding::HalfAwayFromZero), 129);
  EXPECT_FALSE(Q->to(Unit::GB, Rounding::Exact));
}

TEST(ValueTest, SizeOverSizeIsANumber) {
  NumericResult<Quantity> Q =
      qty(2, Unit::GB).getQuantity().div(qty(500, Unit::MB).getQuantity());
  ASSERT_TRUE(Q);
  Value V = Value::quantity(*Q);
  EXPECT_EQ(V.kind(), ValueKind::Float);
  EXPECT_EQ(V.getNumber(), Rational(4));
}

TEST(ValueTest, AddingSizeAndDurationFails) {
  NumericResult<Quantity> Q =
      qty(1, Unit::GB).getQuantity().add(qty(1, Unit::Second).getQuantity());
  ASSERT_FALSE(Q);
  EXPECT_EQ(Q.error(), NumericError::DimensionMismatch);
}

TEST(ValueTest, ShellDivisionTruncatesTowardZero) {
  EXPECT_EQ(*divideTowardZero(-7, 2), -3);
  EXPECT_EQ(*remainderTowardZero(-7, 2), -1);
  EXPECT_EQ(*remainderTowardZero(7, -2), 1);
  EXPECT_FALSE(divideTowardZero(1, 0));
}

TEST(ValueTest, DecimalLiteralsAreExact) {
  Rational U = *Rational::parseDecimal("0.343");
  EXPECT_EQ(U.numerator(), 343);
  EXPECT_EQ(U.denominator(), 1000);
  // The InferenceX budget: floor(2861022 * 1048576 * 0.343 / 1e9) = 1028.
  auto Bytes = NumericResult<Rational>(Rational(2861022)) * Rational(1048576) *
               U / Rational(1000000000);
  ASSERT_TRUE(Bytes);
  EXPECT_EQ(*Bytes->round(Rounding::Floor), 1028);
}

TEST(ValueTest, IntConformsToFloatButNotBack) {
  Type F = Type::of(Type::Float);
  std::optional<Value> V = conformTo(Value::integer(1), F);
  ASSERT_TRUE(V);
  EXPECT_EQ(V->kind(), ValueKind::Float);
  EXPECT_FALSE(conformTo(Value::number(*Rational::parseDecimal("2.5")),
                         Type::of(Type::Int)));
}

TEST(ValueTest, OptionalAcceptsNone) {
  EXPECT_TRUE(conformTo(Value::none(), Type::of(Type::Size, true)));
  EXPECT_FALSE(conformTo(Value::none(), Type::of(Type::Size)));
  EXPECT_EQ(Type::of(Type::Size, true).str(), "size?");
  EXPECT_EQ(Type::listOf(Type::of(Type::Int)).str(), "list<int>");
}

TEST(ValueTest, RenderingFollowsTheLanguage) {
  EXPECT_EQ(*renderValue(Value::number(Rational(3))), "3.0");
  EXPECT_EQ(*renderValue(Value::number(*Rational::parseDecimal("0.86"))), "0.86");
  EXPECT_FALSE(renderValue(Value::number(*Rational::fraction(1, 3))));
  EXPECT_EQ(*renderValue(qty(1, Unit::KiB)), "1024");
  EXPECT_EQ(*renderValue(Value::list({Value::integer(2), Value::integer(3)})),
            "[2,3]");
  // Map keys keep their insertion order (language v2).
  Value M = Value::map({{Value::string("z"), Value::integer(1)},
                        {Value::string("a"), Value::boolean(true)}});
  EXPECT_EQ(*renderValue(M), "{\"z\":1,\"a\":true}");
  EXPECT_EQ(*renderJSON(M, /*Spaced=*/true), "{\"z\": 1, \"a\": true}");
  EXPECT_EQ(*renderYAML(M), "z: 1\na: true\n");
}

/// The list `[Lo .. Hi step Step]`.
Value rangeList(int64_t Lo, int64_t Hi, int64_t Step) {
  ListBuilder B;
  B.addRange(Lo, Hi, Step);
  return B.take();
}

TEST(ValueTest, RangesInListsGoBothWays) {
  EXPECT_EQ(rangeList(2, 5, 1).str(), "[2, 3, 4, 5]");
  EXPECT_EQ(rangeList(0, 64, 32).str(), "[0, 32, 64]");
  EXPECT_EQ(rangeList(5, 2, -2).str(), "[5, 3]");
  EXPECT_EQ(rangeList(5, 2, 1).listSize(), 0u);
  EXPECT_EQ(rangeSize(INT64_MIN, INT64_MAX, 1), UINT64_MAX);
}

TEST(ValueTest, ARangeInAListIsNeverMaterialised) {
  // A million elements cost three numbers; their size counts them all.
  Value L = rangeList(1, 1000000, 1);
  EXPECT_EQ(L.listSize(), 1000000u);
  EXPECT_EQ(L.size(), 1000000u);
  EXPECT_EQ(L.element(0).getInt(), 1);
  EXPECT_EQ(L.element(999999).getInt(), 1000000);
  EXPECT_TRUE(L.asIntRange());
  // Mixed runs: explicit values around a range.
  ListBuilder B;
  B.add(Value::integer(7));
  B.addRange(1, 3, 1);
  B.add(Value::string("abc"));
  Value M = B.take();
  EXPECT_EQ(M.str(), "[7, 1, 2, 3, \"abc\"]");
  EXPECT_EQ(M.size(), 7u); // four numbers and three bytes
  EXPECT_EQ(*renderValue(M), "[7,1,2,3,\"abc\"]");
  EXPECT_EQ(toJSON(M), "[7,1,2,3,\"abc\"]");
}

TEST(ValueTest, ListsCompareByElements) {
  EXPECT_EQ(rangeList(1, 4, 1),
            Value::list({Value::integer(1), Value::integer(2),
                         Value::integer(3), Value::integer(4)}));
  EXPECT_NE(rangeList(1, 4, 1), rangeList(1, 7, 2));
  EXPECT_EQ(rangeList(1, 1, 1), rangeList(1, 8, 8)); // one element each
  EXPECT_NE(rangeList(1, 4, 1), rangeList(1, 5, 1));
  EXPECT_EQ(rangeList(1, 3, 1),
            Value::list({Value::number(Rational(1)), Value::integer(2),
                         Value::integer(3)}));
}

TEST(ValueTest, ConformingListIsSharedNotCopied) {
  Value L = rangeList(1, 512, 1);
  std::optional<Value> Ints = conformTo(L, Type::listOf(Type::of(Type::Int)));
  ASSERT_TRUE(Ints);
  EXPECT_TRUE(Ints->isSameAs(L));
  std::optional<Value> Floats =
      conformTo(L, Type::listOf(Type::of(Type::Float)));
  ASSERT_TRUE(Floats);
  EXPECT_EQ(Floats->element(511).kind(), ValueKind::Float);
  EXPECT_EQ(*Floats, L);
  EXPECT_FALSE(conformTo(L, Type::listOf(Type::of(Type::String))));
}

TEST(ValueTest, SizeCountsBytesAndElements) {
  EXPECT_EQ(Value::integer(5).size(), 1u);
  EXPECT_EQ(Value::string("hello").size(), 5u);
  Value S = Value::string(std::string(1000, 'x'));
  // Copies share the string; the list's size counts each copy.
  Value L = Value::list({S, S, S});
  EXPECT_EQ(L.size(), 3000u);
  Value M = Value::map({{Value::string("k"), L}});
  EXPECT_EQ(M.size(), 3001u);
}

TEST(ValueTest, NumbersCompareAcrossIntAndFloat) {
  EXPECT_EQ(Value::integer(3), Value::number(Rational(3)));
  EXPECT_NE(Value::integer(3), Value::string("3"));
}

TEST(ValueTest, IndistinguishableIsStricterThanEqual) {
  // Equal numbers of two kinds, equal sizes in two units: told apart.
  EXPECT_EQ(Value::integer(1), Value::number(Rational(1)));
  EXPECT_FALSE(
      Value::integer(1).isIndistinguishableFrom(Value::number(Rational(1))));
  EXPECT_EQ(qty(1, Unit::GiB), qty(1024, Unit::MiB));
  EXPECT_FALSE(qty(1, Unit::GiB).isIndistinguishableFrom(qty(1024, Unit::MiB)));
  // Separately built, same content: indistinguishable.
  EXPECT_TRUE(qty(3, Unit::GB).isIndistinguishableFrom(qty(3, Unit::GB)));
  EXPECT_TRUE(Value::string("ab").isIndistinguishableFrom(Value::string("ab")));
  EXPECT_TRUE(Value::number(*Rational::parseDecimal("0.50"))
                  .isIndistinguishableFrom(
                      Value::number(*Rational::parseDecimal("0.5"))));
  EXPECT_FALSE(Value::integer(2).isIndistinguishableFrom(Value::integer(3)));
  EXPECT_FALSE(Value::boolean(true).isIndistinguishableFrom(Value::integer(1)));
  EXPECT_TRUE(Value::none().isIndistinguishableFrom(Value::none()));
  // A list only as the very same value (a copy shares it).
  Value L = Value::list({Value::integer(1)});
  Value Copy = L;
  EXPECT_TRUE(L.isIndistinguishableFrom(Copy));
  EXPECT_FALSE(L.isIndistinguishableFrom(Value::list({Value::integer(1)})));
}

TEST(ValueTest, ExactNumbersOfAnySizeRoundTrip) {
  // A denominator that fits 32 bits is held inline, a larger one in a
  // payload: both read back as the same reduced Rational.
  Rational Half = *Rational::fraction(-1, 2);
  Rational Huge = *Rational::fraction(1, int64_t(1) << 40);
  Rational Odd = *Rational::fraction(int64_t(1) << 50, (int64_t(1) << 33) + 1);
  for (Rational R : {Half, Huge, Odd, Rational(7)}) {
    Value V = Value::number(R);
    EXPECT_EQ(V.kind(), ValueKind::Float);
    EXPECT_EQ(V.getNumber(), R);
    EXPECT_EQ(V, Value::number(R));
    EXPECT_TRUE(V.isIndistinguishableFrom(Value::number(R)));
  }
  EXPECT_EQ(Value::number(Half).str(), "-0.5");
  EXPECT_NE(Value::number(Half), Value::number(Huge));
  EXPECT_FALSE(
      Value::number(Half).isIndistinguishableFrom(Value::number(Rational(-1))));
  EXPECT_FALSE(Value::number(Half).isSameAs(Value::number(Rational(-1))));
}

TEST(ValueTest, EnumMembersReadBackByName) {
  EnumInfo Mode;
  Mode.Name = "mode";
  Mode.Members = {"bench", "eval"};
  Value Bench = Value::enumMember(&Mode, "bench");
  Value Eval = Value::enumMember(&Mode, "eval");
  EXPECT_EQ(Bench.getString(), "bench");
  EXPECT_EQ(Eval.getString(), "eval");
  EXPECT_EQ(Bench.getEnum(), &Mode);
  EXPECT_EQ(Bench, Value::enumMember(&Mode, "bench"));
  EXPECT_NE(Bench, Eval);
  // Two members of one enum are two values, not copies of one.
  EXPECT_FALSE(Bench.isSameAs(Eval));
  EXPECT_FALSE(Bench.isIndistinguishableFrom(Eval));
  EXPECT_TRUE(Bench.isIndistinguishableFrom(Value::enumMember(&Mode, "bench")));
  // A member the enum does not list (a value built before a check) keeps
  // its name too.
  Value Other = Value::enumMember(&Mode, "smoke");
  EXPECT_EQ(Other.getString(), "smoke");
  EXPECT_NE(Other, Bench);
  EXPECT_EQ(Other.str(), Value::enumMember(&Mode, "smoke").str());
}

TEST(LevelTest, SpellingsMatchThePlanSchema) {
  EXPECT_EQ(getSpelling(Level::Default), "default");
  EXPECT_EQ(getSpelling(Level::AtConc), "at-conc");
  EXPECT_EQ(getSpelling(Level::ServerFrom), "server-from");
  EXPECT_EQ(getSpelling(Level::CommandLine), "command-line");
}

} // namespace
