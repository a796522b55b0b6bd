//===- HttpFrontEnd.h - The engine's HTTP API -------------------*- C++ -*-===//
//
// The routes an engine serves (docs/simulator.md, "HTTP"): /health while
// starting and once ready, /v1/models, the two completion endpoints, the
// Prometheus /metrics in the engine's prefix, the profiler endpoints and
// /sim/info. A completion request is checked here (body, model name,
// context length) before it is handed to the engine; everything it then
// produces flows through Completions.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_LIB_SIM_HTTPFRONTEND_H
#define ARECIPE_LIB_SIM_HTTPFRONTEND_H

#include "Completions.h"
#include "EngineLoop.h"
#include "EventLoop.h"
#include "FaultInjector.h"
#include "SimLog.h"
#include "StartupRunner.h"
#include "StepProfiler.h"
#include "Timeline.h"
#include "arecipe/Sim/Roofline.h"
#include "arecipe/Sim/SimOptions.h"
#include "arecipe/Sim/Startup.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <unordered_set>
#include <vector>

struct evhttp_request;

namespace arecipe::sim {

class HttpFrontEnd {
public:
  /// Everything the routes read; owned by the server, which outlives this.
  struct Parts {
    const SimOptions &Options;
    const Roofline &Model;
    const StartupPlan &Plan;
    const std::vector<std::string> &Warnings;
    const StartupRunner &Startup;
    EventLoop &Loop;
    EngineLoop &Engine;
    Completions &Active;
    FaultInjector &Faults;
    StepProfiler &Profiler;
    const SimClock &Clock;
    const SimLog &Log;
    Timeline &Times;
  };

  explicit HttpFrontEnd(Parts P) : P(P), Config(P.Model.config()) {}

  void route(evhttp_request *Req);

private:
  void reply(evhttp_request *Req, int Code, const std::string &Body,
             const char *ContentType = "application/json");
  void handleCompletion(evhttp_request *Req, bool Chat);
  /// Lock-step: a request of the client answered with an error before it
  /// reached the engine (it arrived and ended at this virtual instant).
  void rejectedInLockstep(uint64_t Seq);
  void handleProfile(evhttp_request *Req, bool StartProfile);
  std::string modelsJson() const;
  std::string metricsText() const;
  std::string infoJson() const;
  nlohmann::json clockJson() const;
  long contextLimit() const;

  Parts P;
  const EngineConfig &Config;
  std::unordered_set<std::string> Sessions;
  uint64_t NextId = 0;
  uint64_t Rejected = 0;
};

} // namespace arecipe::sim

#endif
