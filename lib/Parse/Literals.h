//===- Literals.h - Checking and converting number tokens ------*- C++ -*-===//
//
// The rules that turn the text of an INT, HEX_INT, FLOAT or QUANTITY token
// into a literal: digit groups (`1_000`, not `1__0`), the int64 range, the
// unit of a quantity. Both parsers of lib/Parse use them -- the AST builder
// over the ANTLR tree reports what they find wrong, the fast parser gives up
// on it -- so a number means the same thing whichever parser read it.
// Private to lib/Parse.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_PARSE_LITERALS_H
#define ARECIPE_LIB_PARSE_LITERALS_H

#include "arecipe/Basic/Unit.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>

namespace arecipe::parse {

/// What is wrong with a number token, if anything.
enum class LiteralProblem : uint8_t {
  None,
  InvalidNumber,    ///< err_invalid_number
  IntegerTooLarge,  ///< err_integer_too_large
  QuantityExponent, ///< err_quantity_exponent
  UnknownUnit,      ///< err_unknown_unit (at the unit)
};

/// An INT or HEX_INT token: its value in Value when there is no problem.
LiteralProblem checkIntegerLiteral(llvm::StringRef Text, int64_t &Value);

/// A FLOAT token (`2.5`, `1e9`, `1_000.5e-3`).
LiteralProblem checkFloatLiteral(llvm::StringRef Text);

/// A QUANTITY token (`128GB`, `1.5s`), split into Number and Unit (slices of
/// Text; Unit is set even when it is unknown, for the message); U is the
/// unit when there is no problem.
LiteralProblem checkQuantityLiteral(llvm::StringRef Text,
                                    llvm::StringRef &Number,
                                    llvm::StringRef &Unit, arecipe::Unit &U);

} // namespace arecipe::parse

#endif // ARECIPE_LIB_PARSE_LITERALS_H
