//===- Rational.h - Exact rational numbers ---------------------*- C++ -*-===//
//
// The exact number type behind recipe floats and quantities: a reduced
// fraction of two 64-bit integers. "0.343" is exactly 343/1000, never a
// binary float, so formulas such as the InferenceX DRAM budget give the same
// integers as the shell arithmetic they replace. Every operation that could
// leave the representation returns NumericError::Overflow instead of
// wrapping. Rounding happens only where asked for, with a named mode (see
// docs/units.md). This type knows nothing about units (see Quantity.h).
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_BASIC_RATIONAL_H
#define ARECIPE_BASIC_RATIONAL_H

#include "arecipe/Basic/NumericResult.h"

#include "llvm/ADT/StringRef.h"

#include <cassert>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>

namespace arecipe {

/// How a value with a fraction becomes an integer.
enum class Rounding : uint8_t {
  Exact,            ///< Fail with NotIntegral unless already an integer.
  Floor,            ///< Toward negative infinity.
  Ceil,             ///< Toward positive infinity.
  TowardZero,       ///< Truncation, as shell $(( a / b )).
  HalfEven,         ///< Nearest; ties to the even neighbour.
  HalfAwayFromZero, ///< Nearest; ties away from zero (2.5 -> 3, -2.5 -> -3).
};

class Rational {
public:
  /// Zero.
  constexpr Rational() = default;
  /// An integer. INT64_MIN is not representable (its negation would
  /// overflow) and is clamped by an assertion.
  Rational(int64_t Integer);

  /// Num/Den reduced, with a positive denominator.
  static NumericResult<Rational> fraction(int64_t Num, int64_t Den);
  /// The numerator and denominator of a Rational, taken back as they are
  /// (no reduction): for a holder that keeps the two integers apart.
  static Rational fromParts(int64_t Num, int64_t Den) {
    assert(Den > 0 && "the parts of a reduced Rational");
    Rational R;
    R.Num = Num;
    R.Den = Den;
    return R;
  }

  /// Exact parse of decimal text: digits, an optional fraction, an optional
  /// exponent, '_' allowed between digits, optional leading '-':
  /// "0.343", "2_861_022", "1e9", "2.5e-3". Nothing else (no spaces, no
  /// '+', no hex, no trailing '.').
  static NumericResult<Rational> parseDecimal(llvm::StringRef Text);

  int64_t numerator() const { return Num; }
  int64_t denominator() const { return Den; }
  bool isInteger() const { return Den == 1; }
  bool isZero() const { return Num == 0; }
  int sign() const { return (Num > 0) - (Num < 0); }

  NumericResult<Rational> add(const Rational &RHS) const;
  NumericResult<Rational> sub(const Rational &RHS) const;
  NumericResult<Rational> mul(const Rational &RHS) const;
  NumericResult<Rational> div(const Rational &RHS) const;
  Rational negate() const;

  /// The integer nearest this value under the mode.
  NumericResult<int64_t> round(Rounding Mode) const;

  /// Exact decimal text ("0.343", "-12", "1028.992"), or NotTerminating
  /// when the denominator has a prime factor other than 2 and 5.
  NumericResult<std::string> toDecimalString() const;
  /// Decimal text with exactly FractionDigits digits after the point,
  /// rounded with Mode (Exact fails unless no digit is lost).
  NumericResult<std::string> toDecimalString(unsigned FractionDigits,
                                             Rounding Mode) const;
  /// For diagnostics and tests: exact decimal when it terminates, else
  /// "num/den".
  std::string str() const;

  /// Exact comparison; never overflows.
  friend std::strong_ordering operator<=>(const Rational &L, const Rational &R);
  friend bool operator==(const Rational &L, const Rational &R) {
    return L.Num == R.Num && L.Den == R.Den;
  }

private:
  int64_t Num = 0;
  int64_t Den = 1;
};

std::strong_ordering operator<=>(const Rational &L, const Rational &R);

/// Integer division of shell arithmetic: the quotient truncated toward
/// zero, the remainder with the sign of the dividend. Fail on a zero
/// divisor and on INT64_MIN / -1.
NumericResult<int64_t> divideTowardZero(int64_t Dividend, int64_t Divisor);
NumericResult<int64_t> remainderTowardZero(int64_t Dividend, int64_t Divisor);
/// The quotient rounded toward negative infinity (the language's '//').
NumericResult<int64_t> divideFloor(int64_t Dividend, int64_t Divisor);

/// Error-propagating operators, so formulas read as formulas:
///   auto V = (A * B) / C;  // NumericResult<Rational>
NumericResult<Rational> operator+(const NumericResult<Rational> &L,
                                  const NumericResult<Rational> &R);
NumericResult<Rational> operator-(const NumericResult<Rational> &L,
                                  const NumericResult<Rational> &R);
NumericResult<Rational> operator*(const NumericResult<Rational> &L,
                                  const NumericResult<Rational> &R);
NumericResult<Rational> operator/(const NumericResult<Rational> &L,
                                  const NumericResult<Rational> &R);

} // namespace arecipe

#endif // ARECIPE_BASIC_RATIONAL_H
