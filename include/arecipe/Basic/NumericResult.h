//===- NumericResult.h - Results of exact arithmetic -----------*- C++ -*-===//
//
// Exact arithmetic on recipe numbers and quantities can fail (a dimension
// mismatch, a division by zero, an overflow of the 64-bit representation).
// Those failures are mistakes in the user's recipe, so they come back as
// values that Sema turns into diagnostics with the right source location:
// not exceptions, and not reports to the diagnostics engine, which this
// layer does not know about.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_BASIC_NUMERICRESULT_H
#define ARECIPE_BASIC_NUMERICRESULT_H

#include "llvm/ADT/StringRef.h"

#include <cassert>
#include <cstdint>
#include <utility>
#include <variant>

namespace arecipe {

enum class NumericError : uint8_t {
  DimensionMismatch, ///< GB + s, or a GB value converted to seconds.
  DivisionByZero,
  Overflow,       ///< The exact value does not fit the representation.
  NotIntegral,    ///< Rounding::Exact on a value with a fraction.
  NotTerminating, ///< An exact decimal string of 1/3.
  InvalidNumber,  ///< Malformed number text.
  UnknownUnit,    ///< Quantity literal with no or an unknown unit.
};

/// A short lower-case reason, usable inside a diagnostic message.
llvm::StringRef describe(NumericError E);

/// Either a value or the reason there is none.
template <typename T> class [[nodiscard]] NumericResult {
public:
  NumericResult(T Value) : Storage(std::move(Value)) {}
  NumericResult(NumericError Error) : Storage(Error) {}

  explicit operator bool() const { return Storage.index() == 0; }
  bool hasValue() const { return Storage.index() == 0; }

  const T &operator*() const & {
    assert(hasValue() && "no value in a failed NumericResult");
    return std::get<0>(Storage);
  }
  T &&operator*() && {
    assert(hasValue() && "no value in a failed NumericResult");
    return std::get<0>(std::move(Storage));
  }
  const T *operator->() const { return &**this; }

  NumericError error() const {
    assert(!hasValue() && "no error in a successful NumericResult");
    return std::get<1>(Storage);
  }

private:
  std::variant<T, NumericError> Storage;
};

} // namespace arecipe

#endif // ARECIPE_BASIC_NUMERICRESULT_H
