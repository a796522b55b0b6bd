//===- StopRequest.h - Ctrl-C and SIGTERM for a running sweep ---*- C++ -*-===//
//
// SIGINT and SIGTERM to arecipe-run must stop the current cell cleanly (its
// processes torn down, finished cells untouched) rather than kill the
// runtime and orphan a GPU server. The handlers only record the signal and
// wake whatever is waiting; every wait loop of the runtime polls
// stopRequested() and unwinds through its normal teardown. Nothing here
// signals children: teardown is the cell runner's job.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_STOPREQUEST_H
#define ARECIPE_RUNTIME_STOPREQUEST_H

#include <chrono>

namespace arecipe::runtime {

/// Installs the SIGINT/SIGTERM handlers (and ignores SIGPIPE, since a dying
/// engine must not take the runtime with it).
void installStopHandlers();

bool stopRequested();
/// The signal that asked to stop, or 0.
int stopSignal();

/// Sleeps for D, returning early (false) if a stop is requested.
bool sleepUnlessStopped(std::chrono::milliseconds D);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_STOPREQUEST_H
