//===- Workload.h - Load generation: fixed ISL/OSL and agentic replay -*- C++ -*-===//
//
// The client's entry point for the runtime (arecipe-run calls it in process)
// and for arecipe-load: describe a workload and an endpoint, get back every
// request record plus the server-metrics deltas of the measured window.
// Workloads (docs/metrics.md#workloads): fixed ISL/OSL with random prompts
// (closed loop, or an open-loop request rate whose queue time counts in
// latency), and
// agentic multi-turn replay of a trace with session lanes. Metrics are
// computed separately (Metrics.h), so records can also be re-summarised
// offline.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CLIENT_WORKLOAD_H
#define ARECIPE_CLIENT_WORKLOAD_H

#include "arecipe/Client/Prometheus.h"
#include "arecipe/Client/RequestRecord.h"
#include "arecipe/Client/TokenPrompts.h"
#include "arecipe/Client/Trace.h"
#include "arecipe/Client/Transport.h"

#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace arecipe::client {

enum class ApiKind { Chat, Completions };

struct Endpoint {
  std::string BaseUrl; ///< e.g. http://127.0.0.1:8000
  std::string Model;   ///< the served model name sent on the wire
  ApiKind Api = ApiKind::Chat;
  /// Prometheus endpoint scraped at the window's ends; empty = no scrape.
  std::string MetricsUrl;
  std::vector<std::string> ExtraHeaders; ///< "Name: value", on every request
  /// Send each request's record id as `X-Arecipe-Seq: ID`: the order in
  /// which arecipe-sim's virtual clock admits requests of one instant.
  bool SequenceHeader = false;
};

enum class ArrivalMode { ClosedLoop, Poisson, Constant };

/// How a fixed workload's range ratio r spreads a length L
/// (docs/metrics.md, "Workloads"): Below is InferenceX's client, uniform
/// in [floor(L r), L]; Around is vLLM >= 0.8.4's --random-range-ratio,
/// uniform in [floor(L(1-r)), floor(L(1+r))].
enum class LengthRule { Below, Around };

struct FixedWorkload {
  int64_t InputTokens = 1024;
  int64_t OutputTokens = 1024;
  /// Spread of ISL and OSL under Rule (lengthRange).
  double RangeRatio = 0;
  LengthRule Rule = LengthRule::Around;
  int64_t NumPrompts = 0;      ///< 0 = 10 x concurrency
  int64_t WarmupRequests = -1; ///< -1 = 2 x concurrency
  ArrivalMode Arrival = ArrivalMode::ClosedLoop;
  double RequestRate = 0; ///< requests/s for Poisson or Constant
  bool IgnoreEos = true;
  /// How prompts reach ISL tokens (TokenPrompts.h). TokenIds needs the
  /// completions API and TokenizerPath or VocabSize; Text needs TokenizerPath
  /// (a tokenizer.json or the model directory holding one).
  PromptMode Prompt = PromptMode::Words;
  std::string TokenizerPath;
  int64_t VocabSize = 0;
};

struct AgenticWorkload {
  std::vector<TraceSession> Sessions;
  double DurationS = 3600;
  double StartMinRatio = 0.25, StartMaxRatio = 0.75;
  double MaxThinkS = -1;   ///< cap on think times; < 0 = none
  double DrainTimeoutS = 60; ///< wait for in-flight requests after the duration
  std::string SessionHeader = "X-Session-ID";
};

struct WorkloadSpec {
  /// Closed-loop requests in flight, agentic lanes, or the open-loop cap
  /// (0 = uncapped, open loop only).
  int Concurrency = 1;
  uint64_t Seed = 42;
  /// Measured failed / finished above this aborts the run (checked after 10
  /// measured requests finished); the summary marks the cell invalid.
  double FailedRequestThreshold = 0.10;
  /// Drafts per step, for the acceptance length when the engine exports
  /// draft tokens but not the number of drafts.
  int NumSpecTokens = 0;
  TransportOptions Transport;
  std::variant<FixedWorkload, AgenticWorkload> Kind;
};

struct Progress {
  const char *PhaseName = "";
  size_t Finished = 0, Failed = 0, InFlight = 0;
  double ElapsedS = 0;
};
using ProgressCallback = std::function<void(const Progress &)>;

struct RunResult {
  std::vector<RequestRecord> Records; ///< warm-up and measured
  int64_t WindowStartNs = 0, WindowEndNs = 0;
  std::optional<ServerMetricsDelta> Server;
  std::string ServerMetricsError; ///< why Server is empty, if it is
  bool Aborted = false;
  std::string AbortReason;
  /// Aborted because no request made progress for the stall window
  /// (TransportOptions::StallTimeoutMs); AbortReason starts with "stalled:".
  bool Stalled = false;
  double ClientCpuSeconds = 0; ///< CPU time of the event-loop thread
  size_t PeakInFlight = 0;
  /// The event loop's lag and CPU time over the measured window; absent
  /// when no window was measured (or the records were re-read offline).
  std::optional<LoopStats> ClientLoop;
  /// Real-time scheduling was asked for and refused: why.
  std::string RealtimeError;
};

/// Whether the run's requests can be sent at all: false, with Err naming
/// libcurl, why it did not load and what needed it, when they need libcurl
/// (an `https://` URL, one with credentials, or Spec.Transport.ForceLibcurl)
/// and it cannot be loaded. Every request would otherwise fail the same
/// way, one record at a time. runWorkload checks it first; a caller that
/// creates outputs checks it before them, so a run that cannot start leaves
/// none.
bool checkRunTransport(const WorkloadSpec &Spec, const Endpoint &Target,
                       std::string &Err);

/// Runs a workload to completion on the calling thread. Every finished
/// request goes to Sink as it finishes (Sink.flush() runs whenever the loop
/// is about to wait). Throws std::invalid_argument for an inconsistent spec
/// and std::runtime_error when checkRunTransport fails (before any record).
RunResult runWorkload(const WorkloadSpec &Spec, const Endpoint &Target, RecordSink &Sink,
                      ProgressCallback OnProgress = {});

/// Async-signal-safe: asks every running workload to stop (Ctrl-C). The
/// in-flight requests are cancelled and the result is marked aborted.
void interruptRunningWorkloads();

/// The requests a fixed workload sends: its warm-up (-1: 2 x concurrency)
/// and its measured ones (0: 10 x concurrency).
int64_t fixedWarmupRequests(const FixedWorkload &W, int Concurrency);
int64_t fixedMeasuredRequests(const FixedWorkload &W, int Concurrency);

/// The lengths a fixed workload draws, both ends inclusive and at least 1,
/// exposed for tests and docs: [floor(L r), L] under Below,
/// [floor(L(1-r)), floor(L(1+r))] under Around.
std::pair<int64_t, int64_t> lengthRange(int64_t Length, double RangeRatio, LengthRule Rule);

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_WORKLOAD_H
