//===- RationalTest.cpp - Exact rational arithmetic -----------------------===//

#include "arecipe/Basic/Rational.h"

#include <gtest/gtest.h>

#include <limits>

using namespace arecipe;

namespace {

Rational dec(llvm::StringRef Text) {
  NumericResult<Rational> R = Rational::parseDecimal(Text);
  EXPECT_TRUE(R) << Text.str();
  return R ? *R : Rational();
}

Rational frac(int64_t N, int64_t D) { return *Rational::fraction(N, D); }

TEST(RationalTest, ParsesDecimalsExactly) {
  EXPECT_EQ(dec("0.343"), frac(343, 1000));
  EXPECT_EQ(dec("0.50"), frac(1, 2));
  EXPECT_EQ(dec("2_861_022"), Rational(2861022));
  EXPECT_EQ(dec("1e9"), Rational(1000000000));
  EXPECT_EQ(dec("2.5e-3"), frac(1, 400));
  EXPECT_EQ(dec("1E+2"), Rational(100));
  EXPECT_EQ(dec("-1.25"), frac(-5, 4));
  EXPECT_EQ(dec("0"), Rational());
  EXPECT_EQ(dec("0.000"), Rational());
  EXPECT_EQ(dec("0e99999"), Rational());
  // 0.1 is exact, unlike the binary double nearest to it.
  EXPECT_EQ(dec("0.1").add(dec("0.2"))->str(), "0.3");
}

TEST(RationalTest, RejectsMalformedDecimals) {
  for (const char *Text :
       {"", "-", ".5", "1.", "1..2", "1_", "_1", "1__0", "1e", "1e+", "0x10",
        "+1", " 1", "1 ", "1.2.3", "1e3.5", "abc"}) {
    NumericResult<Rational> R = Rational::parseDecimal(Text);
    ASSERT_FALSE(R) << Text;
    EXPECT_EQ(R.error(), NumericError::InvalidNumber) << Text;
  }
}

TEST(RationalTest, ParseOverflowIsReported) {
  EXPECT_EQ(Rational::parseDecimal("1e19").error(), NumericError::Overflow);
  EXPECT_EQ(Rational::parseDecimal("9223372036854775808").error(),
            NumericError::Overflow);
  EXPECT_EQ(Rational::parseDecimal("1e-19").error(), NumericError::Overflow);
  EXPECT_EQ(Rational::parseDecimal("1e5000").error(), NumericError::Overflow);
  EXPECT_EQ(*Rational::parseDecimal("9223372036854775807"),
            Rational(std::numeric_limits<int64_t>::max()));
  // Many digits are fine when the value reduces into range.
  EXPECT_EQ(*Rational::parseDecimal("0.50000000000000000000000000"),
            frac(1, 2));
}

TEST(RationalTest, FractionReducesAndNormalisesSign) {
  Rational R = frac(6, -4);
  EXPECT_EQ(R.numerator(), -3);
  EXPECT_EQ(R.denominator(), 2);
  EXPECT_EQ(Rational::fraction(1, 0).error(), NumericError::DivisionByZero);
  EXPECT_EQ(Rational::fraction(std::numeric_limits<int64_t>::min(), 1).error(),
            NumericError::Overflow);
}

TEST(RationalTest, Arithmetic) {
  EXPECT_EQ(*(frac(1, 3) + frac(1, 6)), frac(1, 2));
  EXPECT_EQ(*(frac(1, 3) - frac(1, 2)), frac(-1, 6));
  EXPECT_EQ(*(frac(2, 3) * frac(9, 4)), frac(3, 2));
  EXPECT_EQ(*(frac(2, 3) / frac(4, 9)), frac(3, 2));
  EXPECT_EQ((Rational(1) / Rational()).error(), NumericError::DivisionByZero);
  EXPECT_EQ(frac(3, 4).negate(), frac(-3, 4));
}

TEST(RationalTest, OverflowIsAValueNotAWrap) {
  Rational Big(std::numeric_limits<int64_t>::max());
  EXPECT_EQ((Big + Rational(1)).error(), NumericError::Overflow);
  EXPECT_EQ((Big * Rational(2)).error(), NumericError::Overflow);
  EXPECT_EQ((Rational(1) / Big / Rational(2)).error(), NumericError::Overflow);
  // Intermediate products beyond 64 bits are fine if the result fits.
  EXPECT_EQ(*(Big * frac(1, 7) * Rational(7)), Big);
  // Errors propagate through a chain.
  EXPECT_EQ(((Rational(1) / Rational(0)) + Rational(1)).error(),
            NumericError::DivisionByZero);
}

TEST(RationalTest, Comparison) {
  EXPECT_LT(frac(1, 3), frac(1, 2));
  EXPECT_GT(frac(-1, 3), frac(-1, 2));
  EXPECT_EQ(frac(2, 4), frac(1, 2));
  Rational Big(std::numeric_limits<int64_t>::max());
  EXPECT_LT(*(Big / Rational(3)), *(Big / Rational(2)));
}

struct RoundCase {
  const char *Value;
  int64_t Floor, Ceil, TowardZero, HalfEven, HalfAway;
};

TEST(RationalTest, RoundingModes) {
  const RoundCase Cases[] = {
      {"2.5", 2, 3, 2, 2, 3},       {"3.5", 3, 4, 3, 4, 4},
      {"-2.5", -3, -2, -2, -2, -3}, {"-3.5", -4, -3, -3, -4, -4},
      {"2.4", 2, 3, 2, 2, 2},       {"2.6", 2, 3, 2, 3, 3},
      {"-2.6", -3, -2, -2, -3, -3}, {"7", 7, 7, 7, 7, 7},
      {"0.001", 0, 1, 0, 0, 0},     {"-0.001", -1, 0, 0, 0, 0},
  };
  for (const RoundCase &C : Cases) {
    Rational R = dec(C.Value);
    EXPECT_EQ(*R.round(Rounding::Floor), C.Floor) << C.Value;
    EXPECT_EQ(*R.round(Rounding::Ceil), C.Ceil) << C.Value;
    EXPECT_EQ(*R.round(Rounding::TowardZero), C.TowardZero) << C.Value;
    EXPECT_EQ(*R.round(Rounding::HalfEven), C.HalfEven) << C.Value;
    EXPECT_EQ(*R.round(Rounding::HalfAwayFromZero), C.HalfAway) << C.Value;
  }
  EXPECT_EQ(*Rational(7).round(Rounding::Exact), 7);
  EXPECT_EQ(dec("7.5").round(Rounding::Exact).error(),
            NumericError::NotIntegral);
}

TEST(RationalTest, ShellIntegerDivision) {
  // $(( 7 / 2 )) = 3, $(( -7 / 2 )) = -3, $(( -7 % 2 )) = -1.
  EXPECT_EQ(*divideTowardZero(7, 2), 3);
  EXPECT_EQ(*divideTowardZero(-7, 2), -3);
  EXPECT_EQ(*divideTowardZero(7, -2), -3);
  EXPECT_EQ(*remainderTowardZero(7, 2), 1);
  EXPECT_EQ(*remainderTowardZero(-7, 2), -1);
  EXPECT_EQ(*remainderTowardZero(7, -2), 1);
  EXPECT_EQ(divideTowardZero(1, 0).error(), NumericError::DivisionByZero);
  EXPECT_EQ(remainderTowardZero(1, 0).error(), NumericError::DivisionByZero);
  EXPECT_EQ(divideTowardZero(std::numeric_limits<int64_t>::min(), -1).error(),
            NumericError::Overflow);
  EXPECT_EQ(*remainderTowardZero(std::numeric_limits<int64_t>::min(), -1), 0);
}

TEST(RationalTest, FloorDivision) {
  EXPECT_EQ(*divideFloor(7, 2), 3);
  EXPECT_EQ(*divideFloor(-7, 2), -4);
  EXPECT_EQ(*divideFloor(7, -2), -4);
  EXPECT_EQ(*divideFloor(-7, -2), 3);
  EXPECT_EQ(*divideFloor(-8, 2), -4);
  EXPECT_EQ(divideFloor(1, 0).error(), NumericError::DivisionByZero);
  EXPECT_EQ(divideFloor(std::numeric_limits<int64_t>::min(), -1).error(),
            NumericError::Overflow);
}

TEST(RationalTest, DecimalRendering) {
  EXPECT_EQ(*dec("0.343").toDecimalString(), "0.343");
  EXPECT_EQ(*dec("-12").toDecimalString(), "-12");
  EXPECT_EQ(*dec("-0.5").toDecimalString(), "-0.5");
  EXPECT_EQ(*frac(1, 1024).toDecimalString(), "0.0009765625");
  EXPECT_EQ(frac(1, 3).toDecimalString().error(), NumericError::NotTerminating);
  EXPECT_EQ(frac(1, 3).str(), "1/3");
  EXPECT_EQ(*frac(2, 3).toDecimalString(3, Rounding::HalfEven), "0.667");
  EXPECT_EQ(*frac(2, 3).toDecimalString(3, Rounding::Floor), "0.666");
  EXPECT_EQ(*frac(-2, 3).toDecimalString(2, Rounding::Floor), "-0.67");
  EXPECT_EQ(*frac(1, 200).toDecimalString(3, Rounding::Exact), "0.005");
  EXPECT_EQ(*Rational(42).toDecimalString(0, Rounding::Exact), "42");
  EXPECT_EQ(*Rational(42).toDecimalString(2, Rounding::Exact), "42.00");
  EXPECT_EQ(frac(1, 3).toDecimalString(2, Rounding::Exact).error(),
            NumericError::NotIntegral);
  EXPECT_EQ(Rational(1).toDecimalString(40, Rounding::Exact).error(),
            NumericError::Overflow);
}

// The InferenceX CPU DRAM budget (docs/language.md §8):
//   floor(min(avail_MiB, 2861022) × 1048576 × util × gpus_used
//         / gpus_per_node / 1e9)
// on an MI355X node (3,095,781 MiB, 8 of 8 GPUs), then / TP 8 per rank.
TEST(RationalTest, InferenceXDramBudget) {
  struct Case {
    const char *Utilization;
    int64_t TotalGB, PerRankGB;
  };
  for (Case C : {Case{"0.343", 1028, 128}, Case{"0.513", 1538, 192},
                 Case{"0.50", 1499, 187}, Case{"0.80", 2399, 299}}) {
    Rational Available(3095781), Cap(2861022);
    Rational MiB = std::min(Available, Cap);
    NumericResult<Rational> Budget = MiB * Rational(1048576) *
                                     dec(C.Utilization) * Rational(8) /
                                     Rational(8) / dec("1e9");
    ASSERT_TRUE(Budget) << C.Utilization;
    NumericResult<int64_t> Total = Budget->round(Rounding::Floor);
    EXPECT_EQ(*Total, C.TotalGB) << C.Utilization;
    EXPECT_EQ(*divideTowardZero(*Total, 8), C.PerRankGB) << C.Utilization;
  }
}

} // namespace
