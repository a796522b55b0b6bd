//===- Literals.cpp - Checking and converting number tokens --------------===//

#include "Literals.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>
#include <string>

using namespace arecipe;
using namespace arecipe::parse;
using llvm::StringRef;

/// Digits with single underscores between them: `1_000_000`, not `1__0`
/// or `1_`.
static bool isDigitGroup(StringRef S, bool Hex) {
  if (S.empty() || S.front() == '_' || S.back() == '_' ||
      S.find("__") != StringRef::npos)
    return false;
  return llvm::all_of(S, [&](char C) {
    return C == '_' || (Hex ? llvm::isHexDigit(C) : llvm::isDigit(C));
  });
}

/// Splits `2.5e-3` into its integer, fraction and exponent parts and checks
/// each; the exponent may be absent.
static bool isDecimalNumber(StringRef Text) {
  size_t E = Text.find_first_of("eE");
  StringRef Mantissa = Text.substr(0, E);
  if (E != StringRef::npos) {
    StringRef Exp = Text.substr(E + 1);
    if (Exp.startswith("+") || Exp.startswith("-"))
      Exp = Exp.drop_front();
    if (Exp.empty() || !llvm::all_of(Exp, llvm::isDigit))
      return false;
  }
  auto [Int, Frac] = Mantissa.split('.');
  return isDigitGroup(Int, false) &&
         (Mantissa.find('.') == StringRef::npos || isDigitGroup(Frac, false));
}

LiteralProblem arecipe::parse::checkIntegerLiteral(StringRef Text,
                                                   int64_t &Value) {
  bool Hex = Text.startswith_insensitive("0x");
  StringRef Digits = Hex ? Text.drop_front(2) : Text;
  if (!isDigitGroup(Digits, Hex))
    return LiteralProblem::InvalidNumber;
  uint64_t V;
  bool Bad;
  if (Digits.contains('_')) {
    std::string Plain;
    for (char C : Digits)
      if (C != '_')
        Plain += C;
    Bad = StringRef(Plain).getAsInteger(Hex ? 16 : 10, V);
  } else {
    Bad = Digits.getAsInteger(Hex ? 16 : 10, V);
  }
  if (Bad || V > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
    return LiteralProblem::IntegerTooLarge;
  Value = static_cast<int64_t>(V);
  return LiteralProblem::None;
}

LiteralProblem arecipe::parse::checkFloatLiteral(StringRef Text) {
  return isDecimalNumber(Text) ? LiteralProblem::None
                               : LiteralProblem::InvalidNumber;
}

LiteralProblem arecipe::parse::checkQuantityLiteral(StringRef Text,
                                                    StringRef &Number,
                                                    StringRef &Unit,
                                                    arecipe::Unit &U) {
  // The number runs over digits, '_' and one '.'; the lexer allows an
  // exponent before the unit only so that `1e3GB` gets a precise message.
  size_t End = 0;
  while (End < Text.size() &&
         (llvm::isDigit(Text[End]) || Text[End] == '_' || Text[End] == '.'))
    ++End;
  Number = Text.substr(0, End);
  Unit = Text.substr(End);
  if ((Unit.startswith("e") || Unit.startswith("E")) && Unit.size() > 1 &&
      (llvm::isDigit(Unit[1]) || ((Unit[1] == '+' || Unit[1] == '-') &&
                                  Unit.size() > 2 && llvm::isDigit(Unit[2]))))
    return LiteralProblem::QuantityExponent;
  if (!isDecimalNumber(Number))
    return LiteralProblem::InvalidNumber;
  std::optional<arecipe::Unit> Parsed = parseUnit(Unit);
  if (!Parsed)
    return LiteralProblem::UnknownUnit;
  U = *Parsed;
  return LiteralProblem::None;
}
