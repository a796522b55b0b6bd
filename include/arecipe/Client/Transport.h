//===- Transport.h - Streaming HTTP event loop over libcurl multi -*- C++ -*-===//
//
// One thread, one epoll loop, libcurl's multi socket interface: every
// streaming request and every workload timer runs here, so there are no locks
// on the hot path and send times can be held to the scheduled nanosecond
// (timers are a CLOCK_MONOTONIC timerfd, not millisecond poll timeouts).
// HTTP/1.1 keep-alive with no connection-pool cap: a benchmark client must
// never be the thing that limits concurrency. Each exchange fills a
// RequestRecord: timestamps, output chunks (via SseParser and
// CompletionStreamDecoder), usage, and a classified error.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CLIENT_TRANSPORT_H
#define ARECIPE_CLIENT_TRANSPORT_H

#include "arecipe/Client/RequestRecord.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <string>
#include <vector>

namespace arecipe::client {

/// CLOCK_MONOTONIC in nanoseconds; the clock of every record.
int64_t monotonicNowNs();

struct TransportOptions {
  long RequestTimeoutMs = 0;     ///< whole-request limit; 0 = none
  long ConnectTimeoutMs = 10000;
  long MaxCachedConnections = 4096; ///< idle keep-alive connections kept
  /// libcurl's read size: every SSE event already queued on a socket is
  /// taken in one recv(2) (512 KiB is libcurl 7.88's CURL_MAX_READ_SIZE).
  long ReceiveBufferBytes = 512 * 1024;
};

struct StreamRequest {
  std::string Url;
  std::string Body;
  std::vector<std::string> Headers; ///< "Name: value"
};

/// Classifies a non-2xx response: context overflow when the status is a
/// client error and the body says the prompt is too long.
ErrorKind classifyHttpError(long Status, std::string_view Body);

class EventLoop {
public:
  using Callback = std::function<void()>;
  using DoneCallback = std::function<void(RequestRecord &&)>;

  explicit EventLoop(const TransportOptions &Options = {});
  ~EventLoop();
  EventLoop(const EventLoop &) = delete;
  EventLoop &operator=(const EventLoop &) = delete;

  /// Runs Fn on the loop at monotonic time Ns (immediately if in the past).
  /// Timers due at the same time run in the order they were added.
  void at(int64_t Ns, Callback Fn);

  /// Starts a streaming POST now. Record carries the caller's fields
  /// (ScheduledNs, ids, expected tokens); the loop stamps DispatchedNs and the
  /// rest, then hands the finished record to Done on the loop thread.
  void stream(StreamRequest Request, RequestRecord Record, DoneCallback Done);

  /// Runs until stop() or until no timer and no transfer is left.
  void run();
  /// Makes run() return after the current iteration (loop thread only).
  void stop() { Stopped = true; }
  /// Aborts every transfer in flight; each completes as Cancelled.
  void cancelAll();

  /// Async-signal-safe and thread-safe: wakes the loop and runs the
  /// interrupt handler there (used for Ctrl-C).
  void interrupt();
  void onInterrupt(Callback Fn) { InterruptHandler = std::move(Fn); }

  size_t inFlight() const { return Active; }

  struct Exchange;

private:
  struct Timer {
    int64_t Ns;
    uint64_t Seq;
    Callback Fn;
    bool operator>(const Timer &O) const { return Ns != O.Ns ? Ns > O.Ns : Seq > O.Seq; }
  };

  static int socketCallback(void *Easy, int Fd, int What, void *User, void *SocketPtr);
  static int timerCallback(void *Multi, long TimeoutMs, void *User);
  void drainCompleted();
  void finish(Exchange *X, int CurlCode);
  void runDueTimers();
  void armTimer(int64_t Ns);
  void *takeEasyHandle();

  TransportOptions Options;
  void *Multi = nullptr;
  int EpollFd = -1, TimerFd = -1, WakeFd = -1;
  int64_t CurlDeadlineNs = -1;
  int64_t ArmedNs = -1;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> Timers;
  uint64_t TimerSeq = 0;
  std::vector<void *> FreeHandles;
  std::vector<std::unique_ptr<Exchange>> Exchanges; // index = slot
  std::vector<size_t> FreeSlots;
  size_t Active = 0;
  bool Stopped = false;
  Callback InterruptHandler;
};

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_TRANSPORT_H
