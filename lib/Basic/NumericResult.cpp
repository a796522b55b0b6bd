//===- NumericResult.cpp - Results of exact arithmetic --------------------===//

#include "arecipe/Basic/NumericResult.h"

#include "llvm/Support/ErrorHandling.h"

using namespace arecipe;

llvm::StringRef arecipe::describe(NumericError E) {
  switch (E) {
  case NumericError::DimensionMismatch:
    return "mismatched dimensions";
  case NumericError::DivisionByZero:
    return "division by zero";
  case NumericError::Overflow:
    return "value out of the exact range";
  case NumericError::NotIntegral:
    return "value is not a whole number";
  case NumericError::NotTerminating:
    return "value has no exact decimal form";
  case NumericError::InvalidNumber:
    return "invalid number";
  case NumericError::UnknownUnit:
    return "unknown unit";
  }
  llvm_unreachable("unknown numeric error");
}
