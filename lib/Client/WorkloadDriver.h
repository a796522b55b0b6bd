//===- WorkloadDriver.h - Shared machinery of the workload drivers -*- C++ -*-===//
//
// Private to lib/Client. A driver owns the bookkeeping every workload needs:
// sending a request through the event loop, recording it, the measured window
// with its two /metrics scrapes, the failed-request threshold, progress
// reports and aborting. FixedDriver and AgenticDriver add only their
// scheduling.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_CLIENT_WORKLOADDRIVER_H
#define ARECIPE_LIB_CLIENT_WORKLOADDRIVER_H

#include "arecipe/Client/Workload.h"

#include <memory>

namespace arecipe::client::detail {

struct Message {
  bool FromUser;
  std::string Text;
};

/// Request body for the endpoint's API: chat messages, or the messages'
/// texts joined with spaces as a completions prompt.
std::string requestBody(const Endpoint &Target, const std::vector<Message> &Messages,
                        int64_t MaxTokens, bool IgnoreEos);
/// A completions request whose prompt is a list of token ids.
std::string tokenIdsRequestBody(const Endpoint &Target, const std::vector<uint32_t> &PromptIds,
                                int64_t MaxTokens, bool IgnoreEos);

class Driver {
public:
  Driver(const WorkloadSpec &Spec, const Endpoint &Target, RecordSink &Sink,
         ProgressCallback OnProgress, EventLoop &Loop);
  virtual ~Driver() = default;

  /// Schedules the workload's first actions on the loop.
  virtual void start() = 0;
  RunResult &result() { return Result; }
  void interrupt() { abort("interrupted"); }

protected:
  using Then = std::function<void(const RequestRecord &)>;
  /// Sends Body now; Record carries the workload's fields. Then runs after the
  /// record is stored, unless the run was aborted.
  void send(std::string Body, RequestRecord Record, std::vector<std::string> Headers, Then After);
  /// Starts the measured window: scrapes /metrics first.
  void beginWindow();
  /// Ends the window: scrapes /metrics and stops the loop.
  void endWindow();
  /// Stops the run: every request in flight ends with Kind (cancelled, or
  /// stalled when the server stopped making progress).
  void abort(std::string Reason, ErrorKind Kind = ErrorKind::Cancelled,
             const std::string &Message = "cancelled by the client");
  /// No request made progress for the stall window.
  void stalled(double IdleSeconds, size_t InFlight);

  const WorkloadSpec &Spec;
  const Endpoint &Target;
  EventLoop &Loop;
  bool Aborted = false;
  bool InWindow = false;
  uint64_t NextId = 0;

private:
  void reportProgress();

  RecordSink &Sink;
  ProgressCallback OnProgress;
  RunResult Result;
  std::optional<MetricTotals> StartMetrics;
  size_t MeasuredFinished = 0, MeasuredFailed = 0;
  int64_t StartNs = 0;
};

std::unique_ptr<Driver> makeFixedDriver(const WorkloadSpec &Spec, const Endpoint &Target,
                                        RecordSink &Sink, ProgressCallback OnProgress,
                                        EventLoop &Loop);
std::unique_ptr<Driver> makeAgenticDriver(const WorkloadSpec &Spec, const Endpoint &Target,
                                          RecordSink &Sink, ProgressCallback OnProgress,
                                          EventLoop &Loop);

} // namespace arecipe::client::detail

#endif // ARECIPE_LIB_CLIENT_WORKLOADDRIVER_H
