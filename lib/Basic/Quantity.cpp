//===- Quantity.cpp - Exact, dimension-checked quantities -----------------===//

#include "arecipe/Basic/Quantity.h"

#include "llvm/ADT/StringExtras.h"

#include <limits>

using namespace arecipe;

Quantity Quantity::number(Rational Value) {
  return Quantity(Value, Dimension::none(), std::nullopt);
}

NumericResult<Quantity> Quantity::of(Rational Value, Unit U) {
  NumericResult<Rational> Base = Value.mul(Rational(getScale(U)));
  if (!Base)
    return Base.error();
  return Quantity(*Base, getDimension(U), U);
}

NumericResult<Quantity> Quantity::parseLiteral(llvm::StringRef Text) {
  size_t NumberEnd = 0;
  while (NumberEnd < Text.size() &&
         (llvm::isDigit(Text[NumberEnd]) || Text[NumberEnd] == '.' ||
          Text[NumberEnd] == '_'))
    ++NumberEnd;
  llvm::StringRef Symbol = Text.drop_front(NumberEnd);
  // An exponent would make "1e3MB" legal; units already scale, so the
  // literal grammar has none (see docs/units.md).
  if (NumberEnd == 0 ||
      (Symbol.size() >= 2 && (Symbol[0] == 'e' || Symbol[0] == 'E') &&
       (llvm::isDigit(Symbol[1]) || Symbol[1] == '+' || Symbol[1] == '-')))
    return NumericError::InvalidNumber;
  NumericResult<Rational> Value =
      Rational::parseDecimal(Text.take_front(NumberEnd));
  if (!Value)
    return Value.error();
  std::optional<Unit> U = parseUnit(Symbol);
  if (!U)
    return NumericError::UnknownUnit;
  return of(*Value, *U);
}

NumericResult<Quantity> Quantity::add(const Quantity &RHS) const {
  if (Dim != RHS.Dim)
    return NumericError::DimensionMismatch;
  NumericResult<Rational> Sum = Value.add(RHS.Value);
  if (!Sum)
    return Sum.error();
  return Quantity(*Sum, Dim, Preferred ? Preferred : RHS.Preferred);
}

NumericResult<Quantity> Quantity::sub(const Quantity &RHS) const {
  return add(Quantity(RHS.Value.negate(), RHS.Dim, RHS.Preferred));
}

/// Exponent arithmetic stays in int8_t; a rate of a rate of ... that leaves
/// it is an overflow like any other.
static NumericResult<Dimension> combine(Dimension L, Dimension R, int Sign) {
  int Size = L.Size + Sign * R.Size;
  int Time = L.Time + Sign * R.Time;
  constexpr int Max = std::numeric_limits<int8_t>::max();
  if (Size > Max || Size < -Max || Time > Max || Time < -Max)
    return NumericError::Overflow;
  return Dimension{int8_t(Size), int8_t(Time)};
}

NumericResult<Quantity> Quantity::mul(const Quantity &RHS) const {
  NumericResult<Dimension> D = combine(Dim, RHS.Dim, +1);
  if (!D)
    return D.error();
  NumericResult<Rational> Product = Value.mul(RHS.Value);
  if (!Product)
    return Product.error();
  std::optional<Unit> Unit = RHS.isDimensionless() ? Preferred
                             : isDimensionless()   ? RHS.Preferred
                                                   : std::nullopt;
  return Quantity(*Product, *D, Unit);
}

NumericResult<Quantity> Quantity::div(const Quantity &RHS) const {
  NumericResult<Dimension> D = combine(Dim, RHS.Dim, -1);
  if (!D)
    return D.error();
  NumericResult<Rational> Quotient = Value.div(RHS.Value);
  if (!Quotient)
    return Quotient.error();
  return Quantity(*Quotient, *D,
                  RHS.isDimensionless() ? Preferred : std::nullopt);
}

NumericResult<std::strong_ordering>
Quantity::compare(const Quantity &RHS) const {
  if (Dim != RHS.Dim)
    return NumericError::DimensionMismatch;
  return Value <=> RHS.Value;
}

NumericResult<Rational> Quantity::in(Unit U) const {
  if (Dim != getDimension(U))
    return NumericError::DimensionMismatch;
  return Value.div(Rational(getScale(U)));
}

NumericResult<int64_t> Quantity::to(Unit U, Rounding Mode) const {
  NumericResult<Rational> V = in(U);
  if (!V)
    return V.error();
  return V->round(Mode);
}

NumericResult<std::string> Quantity::toDecimalString(Unit U) const {
  NumericResult<Rational> V = in(U);
  if (!V)
    return V.error();
  return V->toDecimalString();
}

std::string Quantity::str() const {
  if (isDimensionless())
    return Value.str();
  if (Preferred)
    if (NumericResult<std::string> Decimal = toDecimalString(*Preferred))
      return *Decimal + getSymbol(*Preferred).str();
  std::string Result = Value.str();
  Result += ' ';
  Result += getBaseUnits(Dim);
  return Result;
}

template <typename Op>
static NumericResult<Quantity> lift(const NumericResult<Quantity> &L,
                                    const NumericResult<Quantity> &R, Op F) {
  if (!L)
    return L.error();
  if (!R)
    return R.error();
  return F(*L, *R);
}

NumericResult<Quantity> arecipe::operator+(const NumericResult<Quantity> &L,
                                           const NumericResult<Quantity> &R) {
  return lift(L, R,
              [](const Quantity &A, const Quantity &B) { return A.add(B); });
}

NumericResult<Quantity> arecipe::operator-(const NumericResult<Quantity> &L,
                                           const NumericResult<Quantity> &R) {
  return lift(L, R,
              [](const Quantity &A, const Quantity &B) { return A.sub(B); });
}

NumericResult<Quantity> arecipe::operator*(const NumericResult<Quantity> &L,
                                           const NumericResult<Quantity> &R) {
  return lift(L, R,
              [](const Quantity &A, const Quantity &B) { return A.mul(B); });
}

NumericResult<Quantity> arecipe::operator/(const NumericResult<Quantity> &L,
                                           const NumericResult<Quantity> &R) {
  return lift(L, R,
              [](const Quantity &A, const Quantity &B) { return A.div(B); });
}
