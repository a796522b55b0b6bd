//===- Transport.h - Streaming HTTP event loop ------------------*- C++ -*-===//
//
// One thread, one epoll loop: every streaming request and every workload
// timer runs here, so there are no locks on the hot path and send times can
// be held to the scheduled nanosecond. Plain `http://` URLs take the native
// HTTP/1.1 path: edge-triggered non-blocking sockets on keep-alive
// connections with no pool cap (a benchmark client must never be the thing
// that limits concurrency), one large read per socket wake-up into a buffer
// shared by all connections, chunked framing and server-sent events scanned
// in place, and one clock reading per read applied to every chunk of that
// read. `https://` URLs and URLs with credentials go through libcurl's multi
// socket interface on the same loop, which brings TLS and authentication;
// docs/metrics.md explains the split. Each exchange fills a RequestRecord:
// timestamps, output chunks (via SseParser and CompletionStreamDecoder),
// usage, and a classified error.
//
// The loop also watches itself and the server: how late it runs due work
// (loop lag) and its own CPU time over a window, so a run whose client was
// the bottleneck can be marked, and how long no request has made progress,
// so a stalled server ends the run instead of hanging it.
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
  long RequestTimeoutMs = 0; ///< whole-request limit; 0 = none
  long ConnectTimeoutMs = 10000;
  long MaxCachedConnections = 4096; ///< idle keep-alive connections kept
  /// Size of one read(2): every SSE event already queued on a socket is
  /// taken in one call. One buffer of this size serves every connection.
  long ReceiveBufferBytes = 512 * 1024;
  /// Longest SSE line or event data accepted; a longer one fails the
  /// request as malformed_stream and its bytes are not kept.
  size_t MaxSseLineBytes = size_t(16) << 20;
  /// No request in flight made progress (a response head, an SSE event or a
  /// completed response) for this long: the stall handler runs. 0 = never.
  long StallTimeoutMs = 0;
  /// Run the loop thread under SCHED_FIFO at this priority (1-99; 0 = normal
  /// scheduling). On a machine busy with other work this is what keeps
  /// send lag and chunk timestamps within a millisecond (bench/README.md);
  /// it needs CAP_SYS_NICE or an RLIMIT_RTPRIO allowance, else the loop runs
  /// normally and RunResult says so.
  int RealtimePriority = 0;
  /// Precise timers (request dispatch) wake the loop this early and the
  /// loop polls until they are due. -1: 100 us under real-time scheduling,
  /// else 0 (a normally scheduled thread that spins only spends the CPU
  /// share it would need to be woken on time).
  long TimerSpinUs = -1;
  /// Send plain http:// through libcurl as well (for comparisons and tests
  /// of that path).
  bool ForceLibcurl = false;
};

struct StreamRequest {
  std::string Url;
  std::string Body;
  std::vector<std::string> Headers; ///< "Name: value"
};

/// Classifies a non-2xx response: context overflow when the status is a
/// client error and the body says the prompt is too long.
ErrorKind classifyHttpError(long Status, std::string_view Body);

/// What the loop measured about itself over a window (startStats() to
/// stopStats()).
struct LoopStats {
  double WallSeconds = 0;
  double CpuSeconds = 0;    ///< the loop thread's CPU time, spinning excluded
  double SpinSeconds = 0;   ///< time spent polling for a precise timer
  int RealtimePriority = 0; ///< SCHED_FIFO priority the loop ran at; 0 = normal
  /// Loop lag: how late a probe timer, due every ProbePeriodNs, ran.
  std::vector<double> LagSeconds;
  static constexpr int64_t ProbePeriodNs = 10000000;
};

class EventLoop {
public:
  using Callback = std::function<void()>;
  using DoneCallback = std::function<void(RequestRecord &&)>;
  using StallCallback = std::function<void(double IdleSeconds, size_t InFlight)>;

  explicit EventLoop(const TransportOptions &Options = {});
  ~EventLoop();
  EventLoop(const EventLoop &) = delete;
  EventLoop &operator=(const EventLoop &) = delete;

  /// Runs Fn on the loop at monotonic time Ns (immediately if in the past).
  /// Timers due at the same time run in the order they were added. Precise
  /// timers (the default) are worth spinning for; loose ones are not.
  void at(int64_t Ns, Callback Fn, bool Precise = true);

  /// Starts a streaming POST now. Record carries the caller's fields
  /// (ScheduledNs, ids, expected tokens); the loop stamps DispatchedNs and the
  /// rest, then hands the finished record to Done on the loop thread.
  void stream(StreamRequest Request, RequestRecord Record, DoneCallback Done);

  /// Runs until stop() or until no timer and no transfer is left.
  void run();
  /// Makes run() return after the current iteration (loop thread only).
  void stop() { Stopped = true; }
  /// Aborts every transfer in flight; each completes as Cancelled.
  void cancelAll() { failAll(ErrorKind::Cancelled, "cancelled by the client"); }
  /// Aborts every transfer in flight; each completes with Kind and Message.
  void failAll(ErrorKind Kind, const std::string &Message);

  /// Async-signal-safe and thread-safe: wakes the loop and runs the
  /// interrupt handler there (used for Ctrl-C).
  void interrupt();
  void onInterrupt(Callback Fn) { InterruptHandler = std::move(Fn); }
  /// Runs when requests are in flight and none made progress for
  /// TransportOptions::StallTimeoutMs.
  void onStall(StallCallback Fn) { StallHandler = std::move(Fn); }
  /// Runs before the loop blocks waiting for events (e.g. to write buffered
  /// records in one go).
  void onIdle(Callback Fn) { IdleHandler = std::move(Fn); }

  /// Starts measuring loop lag and CPU time; stopStats() returns them.
  void startStats();
  LoopStats stopStats();
  /// Why real-time scheduling was asked for and not granted; empty otherwise.
  const std::string &realtimeError() const { return RealtimeError; }

  size_t inFlight() const { return Active; }

  struct Exchange;
  class NativeHttp;
  class CurlHttp;
  /// Something registered with the loop's epoll set.
  struct Watcher {
    virtual ~Watcher();
    virtual void onEvents(uint32_t Events) = 0;
  };

  // Used by the transports.
  void finish(Exchange &X, ErrorKind Kind, std::string Message);
  void noteProgress(int64_t Ns) { LastProgressNs = Ns; }
  int epollFd() const { return EpollFd; }
  char *readBuffer() { return ReadBuf.data(); }
  size_t readBufferSize() const { return ReadBuf.size(); }
  const TransportOptions &options() const { return Options; }
  /// Watchers removed from epoll are freed only after the current batch of
  /// events, which may still name them.
  void retire(std::unique_ptr<Watcher> W) { Retired.push_back(std::move(W)); }
  void setCurlDeadline(int64_t Ns) { CurlDeadlineNs = Ns; }

private:
  struct Timer {
    int64_t Ns;
    uint64_t Seq;
    bool Precise;
    Callback Fn;
    bool operator>(const Timer &O) const { return Ns != O.Ns ? Ns > O.Ns : Seq > O.Seq; }
  };

  void drainCompleted();
  void runDueTimers(int64_t Now);
  void runInternalDeadlines(int64_t Now);
  void sweep(int64_t Now);
  void armTimer(int64_t Ns);
  void release(Exchange &X);

  TransportOptions Options;
  int EpollFd = -1, TimerFd = -1, WakeFd = -1;
  int64_t ArmedNs = -1;
  int64_t CurlDeadlineNs = -1;
  int64_t SweepDueNs = -1;
  std::priority_queue<Timer, std::vector<Timer>, std::greater<Timer>> Timers;
  uint64_t TimerSeq = 0;
  std::vector<std::unique_ptr<Exchange>> Exchanges; // index = slot
  std::vector<size_t> FreeSlots;
  std::vector<Exchange *> Completed; // finished, Done not yet run
  std::vector<std::unique_ptr<Watcher>> Retired;
  std::unique_ptr<NativeHttp> Native;
  std::unique_ptr<CurlHttp> Curl;
  std::vector<char> ReadBuf;
  size_t Active = 0;
  bool Stopped = false;
  int64_t LastProgressNs = 0; ///< last progress of any request
  int64_t BusySinceNs = 0;    ///< when the loop last went from 0 to 1 in flight
  // Self-measurement.
  bool Measuring = false;
  int64_t StatsStartNs = 0, StatsCpuStartNs = 0, SpinNs = 0, ProbeDueNs = -1;
  std::vector<double> Lag;
  std::string RealtimeError;
  int RealtimeGranted = 0;
  Callback InterruptHandler, IdleHandler;
  StallCallback StallHandler;
};

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_TRANSPORT_H
