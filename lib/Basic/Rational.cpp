//===- Rational.cpp - Exact rational numbers ------------------------------===//
//
// Every operation works in 128-bit intermediates (products of two 64-bit
// values cannot overflow them), reduces, and only then checks that the
// result fits back into 64 bits.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Basic/Rational.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ErrorHandling.h"

#include <algorithm>
#include <cassert>
#include <limits>

using namespace arecipe;

using Wide = __int128;

static Wide absWide(Wide V) { return V < 0 ? -V : V; }

static Wide gcdWide(Wide A, Wide B) {
  A = absWide(A);
  B = absWide(B);
  while (B != 0) {
    Wide T = A % B;
    A = B;
    B = T;
  }
  return A;
}

static bool fitsInt64(Wide V) {
  // INT64_MIN is excluded so that negation never overflows.
  return V >= -std::numeric_limits<int64_t>::max() &&
         V <= std::numeric_limits<int64_t>::max();
}

/// Num/Den reduced to lowest terms with a positive denominator.
static NumericResult<Rational> makeReduced(Wide Num, Wide Den) {
  if (Den == 0)
    return NumericError::DivisionByZero;
  if (Den < 0) {
    Num = -Num;
    Den = -Den;
  }
  Wide G = gcdWide(Num, Den);
  if (G > 1) {
    Num /= G;
    Den /= G;
  }
  if (!fitsInt64(Num) || !fitsInt64(Den))
    return NumericError::Overflow;
  // Den is already reduced and positive, so fraction() only re-checks.
  return Rational::fraction(int64_t(Num), int64_t(Den));
}

Rational::Rational(int64_t Integer) : Num(Integer) {
  assert(Integer != std::numeric_limits<int64_t>::min() &&
         "INT64_MIN is outside the exact range");
}

NumericResult<Rational> Rational::fraction(int64_t N, int64_t D) {
  if (D == 0)
    return NumericError::DivisionByZero;
  if (N == std::numeric_limits<int64_t>::min() ||
      D == std::numeric_limits<int64_t>::min())
    return NumericError::Overflow;
  if (D < 0) {
    N = -N;
    D = -D;
  }
  int64_t G = int64_t(gcdWide(N, D));
  Rational R;
  R.Num = N / G;
  R.Den = D / G;
  return R;
}

/// Reads digits with '_' allowed between two digits into Value; Count gets
/// the number of digits. False if the text does not start with a digit, has
/// a misplaced '_', or more digits than 128 bits hold exactly.
static bool consumeDigits(llvm::StringRef &Text, Wide &Value, unsigned &Count) {
  constexpr Wide Limit = Wide(1) << 120;
  Count = 0;
  if (Text.empty() || !llvm::isDigit(Text[0]))
    return false;
  while (!Text.empty()) {
    char C = Text[0];
    if (C == '_') {
      if (Text.size() < 2 || !llvm::isDigit(Text[1]))
        return false;
      Text = Text.drop_front();
      continue;
    }
    if (!llvm::isDigit(C))
      break;
    if (Value >= Limit)
      return false;
    Value = Value * 10 + (C - '0');
    ++Count;
    Text = Text.drop_front();
  }
  return true;
}

static bool multiplyByPowerOf10(Wide &Value, unsigned Exponent) {
  constexpr Wide Limit = Wide(1) << 120;
  for (unsigned I = 0; I < Exponent; ++I) {
    if (absWide(Value) >= Limit / 10)
      return false;
    Value *= 10;
  }
  return true;
}

NumericResult<Rational> Rational::parseDecimal(llvm::StringRef Text) {
  bool Negative = Text.consume_front("-");
  Wide Mantissa = 0;
  unsigned Digits;
  if (!consumeDigits(Text, Mantissa, Digits))
    return NumericError::InvalidNumber;
  unsigned FractionDigits = 0;
  if (Text.consume_front(".") && !consumeDigits(Text, Mantissa, FractionDigits))
    return NumericError::InvalidNumber;
  long Exponent = 0;
  if (Text.consume_front("e") || Text.consume_front("E")) {
    bool NegativeExponent = Text.consume_front("-");
    if (!NegativeExponent)
      Text.consume_front("+");
    Wide Value = 0;
    unsigned ExponentDigits;
    if (!consumeDigits(Text, Value, ExponentDigits))
      return NumericError::InvalidNumber;
    if (Value > 1000)
      return Mantissa == 0 ? NumericResult<Rational>(Rational())
                           : NumericResult<Rational>(NumericError::Overflow);
    Exponent = NegativeExponent ? -long(Value) : long(Value);
  }
  if (!Text.empty())
    return NumericError::InvalidNumber;
  if (Mantissa == 0)
    return Rational();

  long Scale = Exponent - long(FractionDigits);
  Wide Num = Negative ? -Mantissa : Mantissa;
  Wide Den = 1;
  if (!multiplyByPowerOf10(Scale >= 0 ? Num : Den,
                           unsigned(Scale >= 0 ? Scale : -Scale)))
    return NumericError::Overflow;
  return makeReduced(Num, Den);
}

NumericResult<Rational> Rational::add(const Rational &RHS) const {
  return makeReduced(Wide(Num) * RHS.Den + Wide(RHS.Num) * Den,
                     Wide(Den) * RHS.Den);
}

NumericResult<Rational> Rational::sub(const Rational &RHS) const {
  return add(RHS.negate());
}

NumericResult<Rational> Rational::mul(const Rational &RHS) const {
  return makeReduced(Wide(Num) * RHS.Num, Wide(Den) * RHS.Den);
}

NumericResult<Rational> Rational::div(const Rational &RHS) const {
  if (RHS.Num == 0)
    return NumericError::DivisionByZero;
  return makeReduced(Wide(Num) * RHS.Den, Wide(Den) * RHS.Num);
}

Rational Rational::negate() const {
  Rational R = *this;
  R.Num = -Num;
  return R;
}

/// Num/Den (Den > 0) rounded to an integer under Mode.
static NumericResult<Wide> roundQuotient(Wide Num, Wide Den, Rounding Mode) {
  Wide Q = Num / Den; // Truncated toward zero.
  Wide R = Num % Den; // Same sign as Num.
  if (R == 0)
    return Q;
  int Sign = Num < 0 ? -1 : 1;
  switch (Mode) {
  case Rounding::Exact:
    return NumericError::NotIntegral;
  case Rounding::Floor:
    return Sign < 0 ? Q - 1 : Q;
  case Rounding::Ceil:
    return Sign > 0 ? Q + 1 : Q;
  case Rounding::TowardZero:
    return Q;
  case Rounding::HalfEven:
  case Rounding::HalfAwayFromZero: {
    Wide Twice = 2 * absWide(R);
    bool Up =
        Twice > Den ||
        (Twice == Den && (Mode == Rounding::HalfAwayFromZero || Q % 2 != 0));
    return Up ? Q + Sign : Q;
  }
  }
  llvm_unreachable("unknown rounding mode");
}

NumericResult<int64_t> Rational::round(Rounding Mode) const {
  NumericResult<Wide> Q = roundQuotient(Num, Den, Mode);
  if (!Q)
    return Q.error();
  return int64_t(*Q);
}

/// Decimal digits of a non-negative 128-bit value.
static std::string wideToString(Wide V) {
  if (V == 0)
    return "0";
  std::string S;
  for (; V != 0; V /= 10)
    S += char('0' + int(V % 10));
  std::reverse(S.begin(), S.end());
  return S;
}

NumericResult<std::string> Rational::toDecimalString() const {
  int64_t D = Den;
  while (D % 2 == 0)
    D /= 2;
  while (D % 5 == 0)
    D /= 5;
  if (D != 1)
    return NumericError::NotTerminating;

  Wide Magnitude = absWide(Num);
  std::string S = Num < 0 ? "-" : "";
  S += wideToString(Magnitude / Den);
  Wide Remainder = Magnitude % Den;
  if (Remainder != 0)
    S += '.';
  // Terminates: Den only has the prime factors 2 and 5.
  while (Remainder != 0) {
    Remainder *= 10;
    S += char('0' + int(Remainder / Den));
    Remainder %= Den;
  }
  return S;
}

NumericResult<std::string> Rational::toDecimalString(unsigned FractionDigits,
                                                     Rounding Mode) const {
  Wide Scaled = Num;
  if (!multiplyByPowerOf10(Scaled, FractionDigits))
    return NumericError::Overflow;
  NumericResult<Wide> Rounded = roundQuotient(Scaled, Den, Mode);
  if (!Rounded)
    return Rounded.error();
  std::string Digits = wideToString(absWide(*Rounded));
  // At least one digit before the point: 5 with 3 digits is "0.005".
  size_t Width = std::max<size_t>(Digits.size(), FractionDigits + 1);
  std::string Padded(Width - Digits.size(), '0');
  Padded += Digits;
  llvm::StringRef P = Padded;
  std::string Result = *Rounded < 0 ? "-" : "";
  Result += P.drop_back(FractionDigits);
  if (FractionDigits) {
    Result += '.';
    Result += P.take_back(FractionDigits);
  }
  return Result;
}

std::string Rational::str() const {
  if (NumericResult<std::string> Decimal = toDecimalString())
    return *Decimal;
  std::string Result = std::to_string(Num);
  Result += '/';
  Result += std::to_string(Den);
  return Result;
}

std::strong_ordering arecipe::operator<=>(const Rational &L,
                                          const Rational &R) {
  return Wide(L.Num) * R.Den <=> Wide(R.Num) * L.Den;
}

NumericResult<int64_t> arecipe::divideTowardZero(int64_t Dividend,
                                                 int64_t Divisor) {
  if (Divisor == 0)
    return NumericError::DivisionByZero;
  if (Dividend == std::numeric_limits<int64_t>::min() && Divisor == -1)
    return NumericError::Overflow;
  return Dividend / Divisor;
}

NumericResult<int64_t> arecipe::divideFloor(int64_t Dividend, int64_t Divisor) {
  NumericResult<int64_t> Quotient = divideTowardZero(Dividend, Divisor);
  if (Quotient && Dividend % Divisor != 0 && (Dividend < 0) != (Divisor < 0))
    return *Quotient - 1;
  return Quotient;
}

NumericResult<int64_t> arecipe::remainderTowardZero(int64_t Dividend,
                                                    int64_t Divisor) {
  if (Divisor == 0)
    return NumericError::DivisionByZero;
  if (Divisor == -1)
    return int64_t(0);
  return Dividend % Divisor;
}

template <typename Op>
static NumericResult<Rational> lift(const NumericResult<Rational> &L,
                                    const NumericResult<Rational> &R, Op F) {
  if (!L)
    return L.error();
  if (!R)
    return R.error();
  return F(*L, *R);
}

NumericResult<Rational> arecipe::operator+(const NumericResult<Rational> &L,
                                           const NumericResult<Rational> &R) {
  return lift(L, R,
              [](const Rational &A, const Rational &B) { return A.add(B); });
}

NumericResult<Rational> arecipe::operator-(const NumericResult<Rational> &L,
                                           const NumericResult<Rational> &R) {
  return lift(L, R,
              [](const Rational &A, const Rational &B) { return A.sub(B); });
}

NumericResult<Rational> arecipe::operator*(const NumericResult<Rational> &L,
                                           const NumericResult<Rational> &R) {
  return lift(L, R,
              [](const Rational &A, const Rational &B) { return A.mul(B); });
}

NumericResult<Rational> arecipe::operator/(const NumericResult<Rational> &L,
                                           const NumericResult<Rational> &R) {
  return lift(L, R,
              [](const Rational &A, const Rational &B) { return A.div(B); });
}
