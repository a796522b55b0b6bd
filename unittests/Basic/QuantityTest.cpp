//===- QuantityTest.cpp - Units and dimension-checked quantities ----------===//

#include "arecipe/Basic/Quantity.h"

#include <gtest/gtest.h>

using namespace arecipe;

namespace {

Quantity lit(llvm::StringRef Text) {
  NumericResult<Quantity> Q = Quantity::parseLiteral(Text);
  EXPECT_TRUE(Q) << Text.str();
  return Q ? *Q : Quantity();
}

Quantity num(llvm::StringRef Text) {
  return Quantity::number(*Rational::parseDecimal(Text));
}

TEST(UnitTest, EverySymbolRoundTrips) {
  EXPECT_EQ(allUnits().size(), 13u);
  for (Unit U : allUnits()) {
    std::optional<Unit> Parsed = parseUnit(getSymbol(U));
    ASSERT_TRUE(Parsed) << getSymbol(U).str();
    EXPECT_EQ(*Parsed, U);
  }
  EXPECT_FALSE(parseUnit("gb"));
  EXPECT_FALSE(parseUnit("Gb"));
  EXPECT_FALSE(parseUnit("GIB"));
  EXPECT_FALSE(parseUnit("sec"));
  EXPECT_FALSE(parseUnit(""));
}

TEST(UnitTest, DimensionNames) {
  EXPECT_EQ(describe(Dimension::none()), "number");
  EXPECT_EQ(describe(Dimension::size()), "size");
  EXPECT_EQ(describe(Dimension::time()), "duration");
  EXPECT_EQ(describe(Dimension{1, -1}), "size/duration");
  EXPECT_EQ(describe(Dimension{0, -1}), "1/duration");
  EXPECT_EQ(describe(Dimension{2, 1}), "size^2*duration");
  EXPECT_EQ(getBaseUnits(Dimension{1, -1}), "B/ns");
}

TEST(QuantityTest, ParsesEveryUnit) {
  struct Case {
    const char *Text;
    int64_t Base;
    Dimension Dim;
  };
  const Case Cases[] = {
      {"1B", 1, Dimension::size()},
      {"1KB", 1000, Dimension::size()},
      {"1MB", 1000000, Dimension::size()},
      {"128GB", 128000000000, Dimension::size()},
      {"2TB", 2000000000000, Dimension::size()},
      {"1KiB", 1024, Dimension::size()},
      {"1MiB", 1048576, Dimension::size()},
      {"0.5GiB", 536870912, Dimension::size()},
      {"1TiB", 1099511627776, Dimension::size()},
      {"250ms", 250000000, Dimension::time()},
      {"60s", 60000000000, Dimension::time()},
      {"2min", 120000000000, Dimension::time()},
      {"1.5h", 5400000000000, Dimension::time()},
      {"1_000MB", 1000000000, Dimension::size()},
  };
  for (const Case &C : Cases) {
    Quantity Q = lit(C.Text);
    EXPECT_EQ(Q.baseValue(), Rational(C.Base)) << C.Text;
    EXPECT_EQ(Q.dimension(), C.Dim) << C.Text;
  }
}

TEST(QuantityTest, LiteralsAreExact) {
  // 0.343 GB is exactly 343,000,000 bytes, not a double's neighbour.
  EXPECT_EQ(lit("0.343GB").baseValue(), Rational(343000000));
  // A fraction of a byte stays exact until rounded explicitly.
  Quantity Half = lit("0.5B");
  EXPECT_EQ(Half.baseValue(), *Rational::fraction(1, 2));
  EXPECT_EQ(Half.to(Unit::B, Rounding::Exact).error(),
            NumericError::NotIntegral);
}

TEST(QuantityTest, RejectsBadLiterals) {
  struct Case {
    const char *Text;
    NumericError Error;
  };
  for (Case C : {Case{"128", NumericError::UnknownUnit},
                 Case{"128gb", NumericError::UnknownUnit},
                 Case{"128 GB", NumericError::UnknownUnit},
                 Case{"GB", NumericError::InvalidNumber},
                 Case{"1e3MB", NumericError::InvalidNumber},
                 Case{"1.MB", NumericError::InvalidNumber},
                 Case{"1..5GB", NumericError::InvalidNumber},
                 Case{"-1GB", NumericError::InvalidNumber},
                 Case{"100000000TB", NumericError::Overflow}}) {
    NumericResult<Quantity> Q = Quantity::parseLiteral(C.Text);
    ASSERT_FALSE(Q) << C.Text;
    EXPECT_EQ(Q.error(), C.Error) << C.Text;
  }
}

TEST(QuantityTest, AdditionChecksDimensions) {
  EXPECT_EQ(*(lit("1GB") + lit("512MB")), lit("1.512GB"));
  EXPECT_EQ(*(lit("1h") - lit("30min")), lit("1800s"));
  EXPECT_EQ((lit("1GB") + lit("1s")).error(), NumericError::DimensionMismatch);
  EXPECT_EQ((lit("1GB") - num("1")).error(), NumericError::DimensionMismatch);
  EXPECT_EQ(lit("1GB").compare(lit("1s")).error(),
            NumericError::DimensionMismatch);
}

TEST(QuantityTest, MultiplicationCombinesDimensions) {
  NumericResult<Quantity> Rate = lit("10GB") / lit("2s");
  ASSERT_TRUE(Rate);
  EXPECT_EQ(Rate->dimension(), (Dimension{1, -1}));
  EXPECT_EQ(Rate->str(), "5 B/ns");
  NumericResult<Quantity> Back = Rate * lit("4s");
  ASSERT_TRUE(Back);
  EXPECT_EQ(*Back->to(Unit::GB, Rounding::Exact), 20);
  NumericResult<Quantity> Ratio = lit("1GiB") / lit("1MiB");
  ASSERT_TRUE(Ratio);
  EXPECT_TRUE(Ratio->isDimensionless());
  EXPECT_EQ(Ratio->baseValue(), Rational(1024));
  EXPECT_EQ((lit("1GB") / num("0")).error(), NumericError::DivisionByZero);
  EXPECT_EQ((lit("1TB") * lit("1TB") * lit("1TB")).error(),
            NumericError::Overflow);
}

TEST(QuantityTest, Comparison) {
  EXPECT_EQ(*lit("1GiB").compare(lit("1GB")), std::strong_ordering::greater);
  EXPECT_EQ(*lit("1000MB").compare(lit("1GB")), std::strong_ordering::equal);
  EXPECT_EQ(*lit("59s").compare(lit("1min")), std::strong_ordering::less);
}

TEST(QuantityTest, ConversionWithExplicitRounding) {
  Quantity Q = lit("1GiB");
  EXPECT_EQ(*Q.in(Unit::GB), *Rational::fraction(1073741824, 1000000000));
  EXPECT_EQ(*Q.to(Unit::GB, Rounding::Floor), 1);
  EXPECT_EQ(*Q.to(Unit::GB, Rounding::Ceil), 2);
  EXPECT_EQ(*Q.to(Unit::MB, Rounding::HalfEven), 1074);
  EXPECT_EQ(Q.to(Unit::GB, Rounding::Exact).error(), NumericError::NotIntegral);
  EXPECT_EQ(Q.to(Unit::Second, Rounding::Floor).error(),
            NumericError::DimensionMismatch);
  EXPECT_EQ(*Q.toDecimalString(Unit::GB), "1.073741824");
  EXPECT_EQ(*lit("90min").toDecimalString(Unit::Hour), "1.5");
  EXPECT_EQ(lit("1s").toDecimalString(Unit::Minute).error(),
            NumericError::NotTerminating);
}

TEST(QuantityTest, RenderingKeepsTheWrittenUnit) {
  EXPECT_EQ(lit("128GB").str(), "128GB");
  EXPECT_EQ(lit("0.5GiB").str(), "0.5GiB");
  EXPECT_EQ(lit("1.5h").str(), "1.5h");
  EXPECT_EQ((lit("1GB") + lit("500MB"))->str(), "1.5GB");
  EXPECT_EQ((lit("1GB") * num("2"))->str(), "2GB");
  EXPECT_EQ((num("3") * lit("2s"))->str(), "6s");
  EXPECT_EQ(num("0.343").str(), "0.343");
  EXPECT_EQ((lit("1s") / num("3"))->str(), "1000000000/3 ns");
}

// The DRAM budget computed with units: a size scaled by plain numbers, then
// rendered "GB, floor".
TEST(QuantityTest, InferenceXDramBudget) {
  struct Case {
    const char *Utilization;
    int64_t TotalGB;
  };
  for (Case C : {Case{"0.343", 1028}, Case{"0.513", 1538}, Case{"0.50", 1499},
                 Case{"0.80", 2399}}) {
    Quantity Available = lit("3095781MiB"), Cap = lit("2861022MiB");
    Quantity Usable =
        *Available.compare(Cap) == std::strong_ordering::less ? Available : Cap;
    NumericResult<Quantity> Budget =
        Usable * num(C.Utilization) * num("8") / num("8");
    ASSERT_TRUE(Budget);
    EXPECT_EQ(*Budget->to(Unit::GB, Rounding::Floor), C.TotalGB);
  }
}

} // namespace
