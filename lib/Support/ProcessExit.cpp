//===- ProcessExit.cpp - Leaving a short-lived tool without teardown ------===//

#include "arecipe/Support/ProcessExit.h"

#include <cassert>
#include <cstdio>
#include <unistd.h>

void arecipe::support::exitWithoutTeardown(int Status) {
  assert(!leakCheckedBuild() && "a leak-checked build runs its teardown");
  // What printf or std::cout buffered; the tools' own streams are flushed
  // by the caller, which checks them for write errors (this cannot: it has
  // no way to report one but the status, which is already decided).
  std::fflush(nullptr);
  _exit(Status);
}
