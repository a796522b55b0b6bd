//===- Unit.cpp - Units of size and duration ------------------------------===//

#include "arecipe/Basic/Unit.h"

#include "llvm/Support/ErrorHandling.h"

using namespace arecipe;

namespace {
struct UnitInfo {
  Unit U;
  llvm::StringLiteral Symbol;
  Dimension Dim;
  int64_t Scale; ///< Bytes or nanoseconds per unit.
};
} // namespace

static constexpr int64_t NsPerSecond = 1'000'000'000;

static const UnitInfo UnitTable[] = {
    {Unit::B, "B", Dimension::size(), 1},
    {Unit::KB, "KB", Dimension::size(), 1'000},
    {Unit::MB, "MB", Dimension::size(), 1'000'000},
    {Unit::GB, "GB", Dimension::size(), 1'000'000'000},
    {Unit::TB, "TB", Dimension::size(), 1'000'000'000'000},
    {Unit::KiB, "KiB", Dimension::size(), int64_t(1) << 10},
    {Unit::MiB, "MiB", Dimension::size(), int64_t(1) << 20},
    {Unit::GiB, "GiB", Dimension::size(), int64_t(1) << 30},
    {Unit::TiB, "TiB", Dimension::size(), int64_t(1) << 40},
    {Unit::Millisecond, "ms", Dimension::time(), NsPerSecond / 1000},
    {Unit::Second, "s", Dimension::time(), NsPerSecond},
    {Unit::Minute, "min", Dimension::time(), 60 * NsPerSecond},
    {Unit::Hour, "h", Dimension::time(), 3600 * NsPerSecond},
};

static const Unit AllUnits[] = {
    Unit::B,      Unit::KB,     Unit::MB,   Unit::GB,  Unit::TB,
    Unit::KiB,    Unit::MiB,    Unit::GiB,  Unit::TiB, Unit::Millisecond,
    Unit::Second, Unit::Minute, Unit::Hour,
};

static const UnitInfo &info(Unit U) {
  return UnitTable[static_cast<size_t>(U)];
}

llvm::ArrayRef<Unit> arecipe::allUnits() { return AllUnits; }

llvm::StringRef arecipe::getSymbol(Unit U) { return info(U).Symbol; }

std::optional<Unit> arecipe::parseUnit(llvm::StringRef Symbol) {
  for (const UnitInfo &I : UnitTable)
    if (I.Symbol == Symbol)
      return I.U;
  return std::nullopt;
}

Dimension arecipe::getDimension(Unit U) { return info(U).Dim; }

int64_t arecipe::getScale(Unit U) { return info(U).Scale; }

/// Num/Den notation of a dimension: "B/ns", "size^2*duration", "1/ns".
static std::string spell(Dimension D, llvm::StringRef SizeName,
                         llvm::StringRef TimeName) {
  std::string Num, Den;
  auto Add = [&](llvm::StringRef Name, int Exponent) {
    if (Exponent == 0)
      return;
    std::string &Side = Exponent > 0 ? Num : Den;
    int Magnitude = Exponent > 0 ? Exponent : -Exponent;
    if (!Side.empty())
      Side += '*';
    Side += Name;
    if (Magnitude > 1) {
      Side += '^';
      Side += std::to_string(Magnitude);
    }
  };
  Add(SizeName, D.Size);
  Add(TimeName, D.Time);
  std::string Result = Num.empty() ? std::string("1") : Num;
  if (!Den.empty()) {
    Result += '/';
    Result += Den;
  }
  return Result;
}

std::string arecipe::describe(Dimension D) {
  if (D == Dimension::none())
    return "number";
  return spell(D, "size", "duration");
}

std::string arecipe::getBaseUnits(Dimension D) { return spell(D, "B", "ns"); }
