//===- Trace.h - Agentic session traces (JSONL) -----------------*- C++ -*-===//
//
// The input of an agentic replay: multi-turn coding sessions, one JSON object
// per line, each turn's new input described as 64-token hash blocks (see
// docs/traces.md). The loader validates everything up front and reports every
// problem as "file:line: field: reason", collecting instead of stopping at the
// first one, because a trace with one bad session should not take several
// runs to fix. No networking; the loader is a pure function of the text.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CLIENT_TRACE_H
#define ARECIPE_CLIENT_TRACE_H

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace arecipe::client {

struct TraceSession;

struct TraceTurn {
  /// Blocks of the input this turn adds to the conversation.
  std::vector<uint64_t> HashIds;
  /// Tokens of new input: 64*(n-1) < InputTokens <= 64*n for n blocks.
  int64_t InputTokens = 0;
  /// Recorded output length; sent as max_tokens with ignore_eos.
  int64_t OutputTokens = 0;
  /// Delay between the previous turn's end and this turn's send.
  double ThinkTimeS = 0;
  /// Sub-agent sessions spawned after this turn's response; they run in
  /// parallel in the same lane and the next turn waits for all of them.
  std::vector<TraceSession> Subagents;
};

struct TraceSession {
  std::string Id;
  std::vector<TraceTurn> Turns;
};

struct TraceLoadResult {
  std::vector<TraceSession> Sessions;
  std::vector<std::string> Errors; ///< "file:line: field: reason"
  bool ok() const { return Errors.empty(); }
};

/// Parses a trace. FileName only labels the errors. At most MaxErrors are
/// reported; any beyond are counted in a last "file: and N more errors" line.
TraceLoadResult parseTrace(std::string_view Text, std::string_view FileName,
                           size_t MaxErrors = 20);
/// Reads and parses a file; an unreadable file is one error.
TraceLoadResult loadTraceFile(const std::string &Path);

/// One session per line, keys in a fixed order (the format parseTrace reads).
std::string sessionToJsonLine(const TraceSession &S);

/// Statistics describing a trace, for the generator's report and docs.
struct TraceStats {
  size_t Sessions = 0, SubagentSessions = 0, Requests = 0;
  double TurnsMean = 0, TurnsP50 = 0, TurnsP90 = 0;
  double NewInputMean = 0, NewInputP50 = 0, NewInputP90 = 0;
  double OutputMean = 0, OutputP50 = 0, OutputP90 = 0;
  double ThinkMeanS = 0, ThinkP50S = 0, ThinkP90S = 0;
  double FinalContextMean = 0, FinalContextP50 = 0, FinalContextP90 = 0;
  double TheoreticalPrefixHitRate = 0; ///< history tokens / prompt tokens
};
TraceStats computeTraceStats(const std::vector<TraceSession> &Sessions);

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_TRACE_H
