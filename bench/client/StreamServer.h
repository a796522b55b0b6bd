//===- StreamServer.h - A minimal, fast OpenAI streaming server -*- C++ -*-===//
//
// Test and benchmark support, not product code. One epoll thread serving
// HTTP/1.1 keep-alive and streaming OpenAI-style SSE completions (one word, or
// TokensPerChunk words, per chunk, a usage chunk, then [DONE]) at a fixed
// inter-token tick, cheap enough that the client under test stays the
// bottleneck. The model name selects a failure for error-classification
// tests: "fail-context" (400 context overflow), "fail-500", "fail-malformed"
// (non-JSON event), "fail-truncated" (connection closed before [DONE]),
// "no-usage" (no usage chunk); or a framing for the transport's tests:
// "close-after" (Connection: close), "until-close" (an HTTP/1.0 body ended by
// the close), "drop-reused" (a request on a connection that already served
// one is closed unanswered), "stall" (the head, then nothing).
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_BENCH_CLIENT_STREAMSERVER_H
#define ARECIPE_BENCH_CLIENT_STREAMSERVER_H

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>

namespace arecipe::bench {

struct StreamServerOptions {
  int Port = 0;              ///< 0 = ephemeral
  int64_t TickUs = 1000;     ///< every tick, each active stream emits one chunk
  /// Tokens per chunk: above 1, one SSE event carries several tokens, as a
  /// server doing speculative decoding sends them.
  int64_t TokensPerChunk = 1;
  int64_t MaxRequests = 0;   ///< stop after this many (0 = never)
};

class StreamServer {
public:
  explicit StreamServer(const StreamServerOptions &Options);
  ~StreamServer();
  /// Binds 127.0.0.1; returns the bound port, or -1.
  int listen();
  /// Serves until stop(); on the calling thread.
  void serve();
  /// Serves on a background thread until destruction.
  void serveInBackground();
  void stop();
  uint64_t requestsServed() const { return Served.load(); }
  /// TCP connections accepted so far.
  uint64_t connectionsAccepted() const;
  /// Session ids seen in X-Session-ID headers (distinct count).
  size_t distinctSessions() const;

  struct Impl;

private:
  std::unique_ptr<Impl> I;
  std::atomic<uint64_t> Served{0};
  std::thread Background;
};

} // namespace arecipe::bench

#endif // ARECIPE_BENCH_CLIENT_STREAMSERVER_H
