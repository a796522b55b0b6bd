//===- ChangelogEmitter.h - `arecipec --emit changelog` --------*- C++ -*-===//
//
// A change record generated from two versions of a recipe instead of being
// written by hand (the seeds show descriptions that drift from the code):
// an InferenceX perf-changelog.yaml entry (config-keys, description,
// pr-link) whose description lists what changed, followed by the per-cell
// diff as YAML comments: for each cell, each value that differs, old -> new;
// cells added or removed. Only values are compared, never where they were
// written, so moving a line changes nothing. Reads Sema's cells of both
// versions; recipes are matched by name (a lone recipe matches a lone one).
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CODEGEN_CHANGELOGEMITTER_H
#define ARECIPE_CODEGEN_CHANGELOGEMITTER_H

namespace llvm {
class raw_ostream;
}

namespace arecipe {
namespace sema {
class Compilation;
} // namespace sema

namespace codegen {

void emitChangelog(const sema::Compilation &Old, const sema::Compilation &New,
                   llvm::raw_ostream &OS);

} // namespace codegen
} // namespace arecipe

#endif // ARECIPE_CODEGEN_CHANGELOGEMITTER_H
