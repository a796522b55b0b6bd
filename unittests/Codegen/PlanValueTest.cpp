//===- PlanValueTest.cpp - Recipe values as the plan writes them ----------===//
//
// The plan writer writes a knob's value from Sema's value directly; its
// reference is what the plan held before: sema::toJSON's text parsed and
// dumped by nlohmann. Values the repository's recipes do not hold (long
// decimals, extreme integers, escapes, nesting, ranges) are compared here.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Codegen/PlanEmitter.h"

#include "arecipe/Support/JsonWriter.h"

#include <gtest/gtest.h>

#include <limits>
#include <random>

using namespace arecipe;
using sema::Value;

namespace {

/// The value at depth 2 of a dump(2) document, as the writer writes it.
std::string written(const Value &V) {
  support::JsonWriter W;
  W.beginObject();
  W.key("value");
  codegen::writeValue(V, W);
  W.endObject();
  return std::string(W.text());
}

std::string reference(const Value &V) {
  nlohmann::ordered_json J;
  J["value"] = nlohmann::ordered_json::parse(sema::toJSON(V));
  return J.dump(2);
}

Value decimal(const char *Text) {
  NumericResult<Rational> R = Rational::parseDecimal(Text);
  if (!R)
    ADD_FAILURE() << Text << " is not a decimal the test can use";
  return R ? Value::number(*R) : Value::none();
}

TEST(PlanValue, ScalarsAsTheRoundTripGaveThem) {
  std::vector<Value> Values = {
      Value::none(),
      Value::boolean(true),
      Value::boolean(false),
      Value::integer(0),
      Value::integer(-42),
      Value::integer(std::numeric_limits<int64_t>::max()),
      Value::integer(std::numeric_limits<int64_t>::min()),
      decimal("0.1"),
      decimal("0.95"),
      decimal("100"),
      decimal("-2.5"),
      decimal("0.000001"),
      decimal("12345678901234.5678"),
      decimal("0.300000000000000001"),
      decimal("3.141592653589793238"),
      Value::string("plain"),
      Value::string("quote \" back\\slash\nnew\ttab \x01 caf\xc3\xa9"),
      Value::string(""),
  };
  if (NumericResult<Rational> Third = Rational::fraction(1, 3))
    Values.push_back(Value::number(*Third)); // No terminating decimal.
  for (const Value &V : Values)
    EXPECT_EQ(written(V), reference(V)) << V.str();
}

TEST(PlanValue, RandomTerminatingDecimals) {
  std::mt19937_64 Rng(4);
  for (int I = 0; I < 5000; ++I) {
    int64_t Num = static_cast<int64_t>(Rng() % 2000000001) - 1000000000;
    int64_t Den = int64_t(1) << (Rng() % 20);
    for (uint64_t Fives = Rng() % 8; Fives; --Fives)
      Den *= 5;
    NumericResult<Rational> R = Rational::fraction(Num, Den);
    ASSERT_TRUE(bool(R));
    Value V = Value::number(*R);
    ASSERT_EQ(written(V), reference(V)) << Num << "/" << Den;
  }
}

TEST(PlanValue, ListsMapsAndRanges) {
  Value Inner = Value::list(
      {Value::integer(1), decimal("0.5"), Value::string("x"), Value::list({})});
  Value Map = Value::map({{Value::string("b"), Value::integer(2)},
                          {Value::string("a"), Inner},
                          {Value::string("k\"ey"), Value::map({})}});
  Value IntKeys = Value::map({{Value::integer(8), Value::string("eight")},
                              {Value::integer(-1), Value::boolean(true)}});
  std::vector<Value> Values = {
      Value::list({}),
      Inner,
      Map,
      IntKeys,
      Value::range(1, 10, 3),
      Value::range(64, 1, -7),
      Value::list({Value::range(1, 4, 1), Value::integer(99)}),
      Value::list({Map, Value::none(), Value::list({Inner, Inner})}),
  };
  for (const Value &V : Values)
    EXPECT_EQ(written(V), reference(V)) << V.str();
}

} // namespace
