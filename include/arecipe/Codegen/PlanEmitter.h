//===- PlanEmitter.h - `arecipec --emit plan` ------------------*- C++ -*-===//
//
// Writes a launch plan as the JSON of docs/plan-schema.md
// (`"schema": "arecipe.plan/v1"`): keys in the order the schema lists them,
// two-space indentation, one argv element per line, a newline at the end.
// The cells are written one at a time, straight to the stream
// (support::JsonWriter, no document per cell), so a plan of 10,000 cells is
// never whole in memory. Same plan, same bytes: nothing here reads
// the clock, the environment or the file system.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CODEGEN_PLANEMITTER_H
#define ARECIPE_CODEGEN_PLANEMITTER_H

#include "arecipe/Codegen/LaunchPlan.h"

#include "nlohmann/json.hpp"

namespace llvm {
class raw_ostream;
}

namespace arecipe::support {
class JsonWriter;
}

namespace arecipe::codegen {

/// JSON with keys kept in insertion order: plans list keys in the order
/// docs/plan-schema.md gives.
using OrderedJSON = nlohmann::ordered_json;

/// A plan number as the plan writes it: a JSON integer when whole, else
/// the nearest double.
OrderedJSON toJSON(const PlanNumber &N);
/// The same number's text ("600", "0.01"), for the shell launcher.
std::string toText(const PlanNumber &N);

/// A recipe value as a plan holds it (a knob's `value`), written where W
/// is: the bytes of parsing sema::toJSON(V) and dumping the document, so a
/// float is the nearest double in its shortest form.
void writeValue(const sema::Value &V, support::JsonWriter &W);

/// One cell as the plan's `cells` array holds it, written where W is
/// (the plan's bytes: as nlohmann's dump(2) of the cell's document).
void writeCell(const PlanCell &C, support::JsonWriter &W);

/// The plan's members before `cells` (schema, recipe, model, image,
/// hardware, engine, container, slurm), written into the object W is in.
void writeHeader(const PlanHeader &H, support::JsonWriter &W);

/// Writes the plan, lowering and writing one cell at a time (after
/// Plan.check() returned true).
void emitPlan(PlanLowering &Plan, llvm::raw_ostream &OS);

} // namespace arecipe::codegen

#endif // ARECIPE_CODEGEN_PLANEMITTER_H
