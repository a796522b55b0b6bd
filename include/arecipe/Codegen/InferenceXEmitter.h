//===- InferenceXEmitter.h - `arecipec --emit inferencex` ------*- C++ -*-===//
//
// The recipe as an InferenceX master-config entry (docs/language.md §10):
// image, model, model-prefix, runner, precision, framework, multinode, and
// the scenario with one search-space item per arm of the recipe (a recipe
// without arms is one; split where an arm's cells differ in parallelism or
// CPU tier), each with its conc-list, or conc-start/conc-end for
// a list written `geometric(a, b)`. Every field of an item comes from the
// engine's `report { ... }` block evaluated in the item's cells (per role
// for prefill and decode pools); agentic items are grouped under the
// dram-utilization their cells' budget used. What InferenceX cannot express
// (per-concurrency knobs, env) stays in the plan. The key and the runner
// come from `labels.config_key` and `labels.runner` when the recipe sets
// them; arms that set different keys are written as one entry per key. The
// image is the registry name, or enroot's `host#path` where the runner
// pulls with enroot (`labels.image_pull = "enroot"`).
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CODEGEN_INFERENCEXEMITTER_H
#define ARECIPE_CODEGEN_INFERENCEXEMITTER_H

#include <string>

namespace llvm {
class raw_ostream;
}

namespace arecipe {
class DiagnosticEngine;
namespace sema {
class Compilation;
struct RecipeCells;
} // namespace sema

namespace codegen {

/// `labels.config_key` of the recipe's first cell, else the recipe name
/// with `-` for `_`.
std::string configKey(const sema::RecipeCells &R);

/// Checks the labels only this emitter reads (`labels.image_pull`); false
/// after an error. Run before anything is written.
bool checkInferenceX(const sema::Compilation &C, DiagnosticEngine &Diags);

void emitInferenceX(const sema::Compilation &C, llvm::raw_ostream &OS);

} // namespace codegen
} // namespace arecipe

#endif // ARECIPE_CODEGEN_INFERENCEXEMITTER_H
