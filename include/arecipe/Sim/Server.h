//===- Server.h - arecipe-sim's HTTP front end and event loop -*- C++ -*-===//
//
// Runs the simulator: resolves profiles, plays the start-up plan on the log,
// then serves the engine's HTTP API from one libevent loop, driving the
// scheduler with a timer so that simulated time advances by each step's
// roofline time divided by the time scale. Always binds 127.0.0.1.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_SIM_SERVER_H
#define ARECIPE_SIM_SERVER_H

#include "arecipe/Sim/SimOptions.h"
#include "arecipe/Sim/Startup.h"

namespace arecipe::sim {

/// Runs until SIGTERM/SIGINT (exit 0), a start-up failure or an injected
/// crash (non-zero). Returns the process exit code. Options.ProfilesDir must
/// be set by the caller (arecipe-sim uses the installed profiles beside it).
int runSimulator(SimOptions Options, const Environment &Env);

/// Router mode (Options.routerMode()): forwards requests to the backends by
/// the policy until SIGTERM/SIGINT (exit 0); 2 for a bad backend URL.
int runRouter(SimOptions Options);

} // namespace arecipe::sim

#endif
