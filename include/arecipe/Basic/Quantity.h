//===- Quantity.h - Exact, dimension-checked quantities --------*- C++ -*-===//
//
// A value of a recipe expression that may carry a unit: an exact Rational in
// base units (bytes, nanoseconds) and a Dimension. Adding a size to a
// duration, dividing by zero or overflowing returns a NumericError for Sema
// to diagnose; nothing is rounded until a conversion names its Rounding
// ("GB, floor"). A plain number is a Quantity of Dimension::none(), so
// sizes can be scaled by recipe floats without leaving the type.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_BASIC_QUANTITY_H
#define ARECIPE_BASIC_QUANTITY_H

#include "arecipe/Basic/NumericResult.h"
#include "arecipe/Basic/Rational.h"
#include "arecipe/Basic/Unit.h"

#include "llvm/ADT/StringRef.h"

#include <compare>
#include <optional>
#include <string>

namespace arecipe {

class Quantity {
public:
  /// The dimensionless number 0.
  Quantity() = default;
  /// A dimensionless number.
  static Quantity number(Rational Value);
  /// Value × U, e.g. (0.5, GiB) is 536870912 bytes.
  static NumericResult<Quantity> of(Rational Value, Unit U);
  /// A quantity literal: a decimal number (fraction allowed, no exponent,
  /// '_' between digits) immediately followed by a unit symbol: "128GB",
  /// "0.5GiB", "1.5h", "60s". InvalidNumber or UnknownUnit otherwise.
  static NumericResult<Quantity> parseLiteral(llvm::StringRef Text);

  /// The exact value in base units (bytes, nanoseconds, their products).
  const Rational &baseValue() const { return Value; }
  Dimension dimension() const { return Dim; }
  bool isDimensionless() const { return Dim.isDimensionless(); }
  /// The unit this value was written in (kept through +, -, and scaling by
  /// a number), used only to render it in messages.
  std::optional<Unit> preferredUnit() const { return Preferred; }

  NumericResult<Quantity> add(const Quantity &RHS) const;
  NumericResult<Quantity> sub(const Quantity &RHS) const;
  NumericResult<Quantity> mul(const Quantity &RHS) const;
  NumericResult<Quantity> div(const Quantity &RHS) const;

  /// DimensionMismatch unless both sides have the same dimension.
  NumericResult<std::strong_ordering> compare(const Quantity &RHS) const;

  /// The exact value expressed in U (DimensionMismatch if U does not fit).
  NumericResult<Rational> in(Unit U) const;
  /// The value in U as an integer, rounded with Mode: to(GB, Floor).
  NumericResult<int64_t> to(Unit U, Rounding Mode) const;
  /// Exact decimal text of the value in U, without the symbol ("0.5").
  NumericResult<std::string> toDecimalString(Unit U) const;

  /// For messages: "128GB", "1.5h", a number as a decimal, anything else in
  /// base units ("1000 B/ns"). Not meant to be parsed back.
  std::string str() const;

  friend bool operator==(const Quantity &L, const Quantity &R) {
    return L.Dim == R.Dim && L.Value == R.Value;
  }

private:
  Quantity(Rational Value, Dimension Dim, std::optional<Unit> Preferred)
      : Value(Value), Dim(Dim), Preferred(Preferred) {}

  Rational Value;
  Dimension Dim;
  std::optional<Unit> Preferred;
};

/// Error-propagating operators, as for Rational.
NumericResult<Quantity> operator+(const NumericResult<Quantity> &L,
                                  const NumericResult<Quantity> &R);
NumericResult<Quantity> operator-(const NumericResult<Quantity> &L,
                                  const NumericResult<Quantity> &R);
NumericResult<Quantity> operator*(const NumericResult<Quantity> &L,
                                  const NumericResult<Quantity> &R);
NumericResult<Quantity> operator/(const NumericResult<Quantity> &L,
                                  const NumericResult<Quantity> &R);

} // namespace arecipe

#endif // ARECIPE_BASIC_QUANTITY_H
