//===- PlanEmitter.h - `arecipec --emit plan` ------------------*- C++ -*-===//
//
// Writes a LaunchPlan as the JSON of docs/plan-schema.md
// (`"schema": "arecipe.plan/v1"`): keys in the order the schema lists them,
// two-space indentation, one argv element per line, a newline at the end.
// Same plan, same bytes: nothing here reads the clock, the environment or
// the file system.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CODEGEN_PLANEMITTER_H
#define ARECIPE_CODEGEN_PLANEMITTER_H

#include "arecipe/Codegen/LaunchPlan.h"

#include "nlohmann/json.hpp"

namespace llvm {
class raw_ostream;
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

/// One cell as the plan's `cells` array holds it.
OrderedJSON toJSON(const PlanCell &C);

/// The plan as an ordered JSON document (the shell emitter's print mode is
/// checked against it).
OrderedJSON toPlanJSON(const LaunchPlan &Plan);

void emitPlan(const LaunchPlan &Plan, llvm::raw_ostream &OS);

} // namespace arecipe::codegen

#endif // ARECIPE_CODEGEN_PLANEMITTER_H
