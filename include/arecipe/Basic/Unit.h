//===- Unit.h - Units of size and duration ---------------------*- C++ -*-===//
//
// The units a recipe can write after a number: sizes in bytes (decimal
// KB..TB = 1000^n, binary KiB..TiB = 1024^n) and durations (ms, s, min, h).
// Each unit is an exact multiple of a base unit (the byte, the nanosecond)
// and has a dimension. Nothing here does arithmetic on values.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_BASIC_UNIT_H
#define ARECIPE_BASIC_UNIT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>

namespace arecipe {

/// Exponents of the two base dimensions: size (bytes) and time
/// (nanoseconds). A rate such as GB/s is {1, -1}; a plain number is {0, 0}.
struct Dimension {
  int8_t Size = 0;
  int8_t Time = 0;

  static constexpr Dimension none() { return {0, 0}; }
  static constexpr Dimension size() { return {1, 0}; }
  static constexpr Dimension time() { return {0, 1}; }
  bool isDimensionless() const { return Size == 0 && Time == 0; }
  friend bool operator==(Dimension L, Dimension R) = default;
};

/// "size", "duration", "number", or e.g. "size/duration" for a rate.
std::string describe(Dimension D);
/// The base units of a dimension: "B", "ns", "B/ns", "1" for a number.
std::string getBaseUnits(Dimension D);

enum class Unit : uint8_t {
  B,
  KB,
  MB,
  GB,
  TB,
  KiB,
  MiB,
  GiB,
  TiB,
  Millisecond,
  Second,
  Minute,
  Hour,
};

/// Every unit, in the order above.
llvm::ArrayRef<Unit> allUnits();

/// The symbol written in recipes: "B", "GiB", "ms", "s", "min", "h".
llvm::StringRef getSymbol(Unit U);
/// The unit whose symbol is exactly Symbol (case-sensitive: "gb" is not GB).
std::optional<Unit> parseUnit(llvm::StringRef Symbol);

Dimension getDimension(Unit U);
/// How many base units (bytes or nanoseconds) one U is.
int64_t getScale(Unit U);

} // namespace arecipe

#endif // ARECIPE_BASIC_UNIT_H
