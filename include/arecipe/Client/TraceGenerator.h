//===- TraceGenerator.h - Synthetic coding-agent traces ---------*- C++ -*-===//
//
// The public agentic corpora (Claude-Code session traces) cannot be
// downloaded here, so the client bundles a generator of traces with the same
// shape: a system prompt shared by every session, a large first turn (the
// repository context), then many small tool-result turns with short replies
// and think times, and occasional sub-agents. Each quantity is drawn from a
// log-normal with a documented median and spread (docs/traces.md); the same
// options and seed always give the same trace.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CLIENT_TRACEGENERATOR_H
#define ARECIPE_CLIENT_TRACEGENERATOR_H

#include "arecipe/Client/Trace.h"

#include <cstdint>
#include <vector>

namespace arecipe::client {

struct TraceGeneratorOptions {
  size_t Sessions = 64;
  uint64_t Seed = 42;
  double TurnsMedian = 20;             ///< turns per session
  int64_t SystemPromptTokens = 2048;   ///< identical in every session
  double FirstTurnMedianTokens = 6000; ///< repository context
  double ToolResultMedianTokens = 700; ///< new input of later turns
  double OutputMedianTokens = 250;
  double ThinkMedianS = 2.0;
  double ThinkMaxS = 30;
  double SubagentProbability = 0.04; ///< per turn
  double SubagentTurnsMedian = 5;
  int64_t MaxContextTokens = 200000; ///< a session ends before exceeding it
};

std::vector<TraceSession> generateTrace(const TraceGeneratorOptions &Options);

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_TRACEGENERATOR_H
