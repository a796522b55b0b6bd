//===- FaultInjector.h - The faults --sim-fault injects ---------*- C++ -*-===//
//
// Decides which completion requests a fault hits (an HTTP 5xx burst, a
// connection reset, a cut-off SSE event) by their arrival order, and carries
// out the one fault that ends the process: a crash after the Nth completed
// request, which exits at once without teardown, as a segfaulting engine
// does. The faults that happen at start-up (slow-start) are planned in
// Startup.h; gpu-mem-leak is honoured wherever the memory is released.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_LIB_SIM_FAULTINJECTOR_H
#define ARECIPE_LIB_SIM_FAULTINJECTOR_H

#include "SimLog.h"
#include "arecipe/Sim/SimOptions.h"

#include <cstdint>
#include <vector>

struct evhttp_connection;

namespace arecipe::sim {

class GpuMemoryFile;

class FaultInjector {
public:
  FaultInjector(const FaultPlan &Plan, const SimLog &Log) : F(Plan), Log(Log) {}

  /// What the faults do to one completion request, numbered by arrival.
  struct Verdict {
    uint64_t Arrival = 0;
    int HttpError = 0;  // non-zero: answer this status instead
    bool Reset = false; // reset the connection after the first tokens
  };
  /// Called once per completion request that reaches a ready engine.
  Verdict arrive();
  /// Called once per accepted streaming request: whether its stream gets a
  /// cut-off event.
  bool malformedStream();

  /// Whether the process must crash now that \p Served requests completed.
  bool crashDue(uint64_t Served) const {
    return F.CrashAfterRequests && Served == F.CrashAfterRequests;
  }
  /// Exits the process at once: \p LastConn (the Nth reply) is flushed,
  /// the listener and \p OtherConns are closed without a reply, the device
  /// memory is released unless gpu-mem-leak says otherwise.
  [[noreturn]] void crash(evhttp_connection *LastConn,
                          const std::vector<evhttp_connection *> &OtherConns,
                          int ListenFd, const GpuMemoryFile &Memory);

  bool leaksGpuMemory() const { return F.GpuMemoryLeak; }
  const FaultPlan &plan() const { return F; }

private:
  const FaultPlan &F;
  const SimLog &Log;
  uint64_t Arrivals = 0;
  uint64_t Streams = 0;
};

} // namespace arecipe::sim

#endif
