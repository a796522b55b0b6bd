//===- StandardStreams.cpp - A tool's last check of its output ------------===//

#include "arecipe/Basic/StandardStreams.h"

#include "arecipe/Basic/Diagnostic.h"

#include "llvm/Support/raw_ostream.h"

using namespace arecipe;

int arecipe::flushStandardStreams(int Status, int WriteErrorStatus,
                                  DiagnosticEngine &Diags) {
  llvm::outs().flush();
  if (llvm::outs().has_error()) {
    Diags.report(llvm::SMLoc(), DiagID::err_cannot_write_file)
        << "<stdout>" << llvm::outs().error().message();
    llvm::outs().clear_error();
    Status = WriteErrorStatus;
  }
  Diags.finish();
  llvm::errs().flush();
  if (llvm::errs().has_error()) {
    llvm::errs().clear_error();
    if (Status == 0)
      Status = WriteErrorStatus;
  }
  return Status;
}
