//===- ShellEmitter.h - `arecipec --emit sh` -------------------*- C++ -*-===//
//
// Writes a launch plan as one standalone bash launcher for clusters where
// only a script can go: a `case` over the cells (a concurrency or a cell
// id), each cell a function that runs the plan's pre-flight actions, starts
// this node's processes (NODE_RANK) with their argv and environment, waits
// for readiness and runs the client on node 0. Every word comes from the
// plan and is single-quoted unless it is plainly safe, so the script is
// `bash -n` and shellcheck clean and means what the plan means. Its print
// mode (`--print [CELL]` or ARECIPE_PRINT=1) runs nothing and prints each
// process's argv and env in a line format tests compare with the plan.
// Cells of several processes (replicas, nodes of a replica, routers,
// services) run the same script on every node of the allocation: each node
// starts the processes whose node rank is its NODE_RANK, in plan order,
// after waiting for each `after` it can check (HTTP and TCP readiness on any
// node; `alive` and `running` ones only on their own node, where they were
// waited for when started); the client runs on node 0.
// It is a convenience, not a second runtime: no resume, no stall detection.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CODEGEN_SHELLEMITTER_H
#define ARECIPE_CODEGEN_SHELLEMITTER_H

#include "arecipe/Codegen/LaunchPlan.h"

#include "llvm/ADT/StringRef.h"

namespace llvm {
class raw_ostream;
}

namespace arecipe::codegen {

/// Writes the launcher, lowering one cell at a time (after Plan.check()
/// returned true).
void emitShell(PlanLowering &Plan, llvm::raw_ostream &OS);

} // namespace arecipe::codegen

#endif // ARECIPE_CODEGEN_SHELLEMITTER_H
