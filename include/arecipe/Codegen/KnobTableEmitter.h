//===- KnobTableEmitter.h - `arecipec --emit table` ------------*- C++ -*-===//
//
// The knob table a pull request description should carry, generated rather
// than written: markdown, one row per concurrency, one column per value
// that differs between cells (everything else is the same in every cell and
// would only hide what changes). Consecutive integer lists print as ranges
// (`2..128`). Reads Sema's cells; one table per recipe.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CODEGEN_KNOBTABLEEMITTER_H
#define ARECIPE_CODEGEN_KNOBTABLEEMITTER_H

#include <string>

namespace llvm {
class raw_ostream;
}

namespace arecipe {
namespace sema {
class Compilation;
class Value;
} // namespace sema

namespace codegen {

/// A value as a table or changelog shows it: lists of consecutive
/// integers as `lo..hi`, quantities in their unit, the rest as Value::str().
std::string displayValue(const sema::Value &V);

void emitKnobTable(const sema::Compilation &C, llvm::raw_ostream &OS);

} // namespace codegen
} // namespace arecipe

#endif // ARECIPE_CODEGEN_KNOBTABLEEMITTER_H
