//===- StandardStreams.h - A tool's last check of its output ----*- C++ -*-===//
//
// The command-line tools write through llvm::outs() and llvm::errs(). A
// write that failed (a full disk, a closed descriptor) is only remembered
// by the stream, and LLVM aborts in the stream's destructor if nobody
// looked; a tool that ends its process without teardown
// (support/ProcessExit.h) never runs that destructor at all. So a tool
// flushes both streams here, once its work is done, and a failed write
// becomes a diagnostic and an exit status.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_BASIC_STANDARDSTREAMS_H
#define ARECIPE_BASIC_STANDARDSTREAMS_H

namespace arecipe {

class DiagnosticEngine;

/// Flushes llvm::outs() and reports a failed write as `cannot write
/// '<stdout>': REASON`, finishes Diags, then flushes llvm::errs() (a
/// diagnostic that could not be written cannot be reported either).
/// Returns Status, or WriteErrorStatus after a failed write to standard
/// output (or to standard error, when Status was 0).
int flushStandardStreams(int Status, int WriteErrorStatus,
                         DiagnosticEngine &Diags);

} // namespace arecipe

#endif // ARECIPE_BASIC_STANDARDSTREAMS_H
