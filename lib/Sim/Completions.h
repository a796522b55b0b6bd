//===- Completions.h - In-flight completions and their replies -*- C++ -*-===//
//
// The HTTP side of every request the engine is serving: each step's tokens
// become SSE events (one per step, all of a timer fire sent as one chunk) or,
// for a non-streaming request, one body at the end; finished replies are
// completed, clients that went away are dropped from the engine, and the
// per-request faults (a cut-off event, a connection reset, the crash after
// the Nth reply) happen here, where the bytes leave.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_LIB_SIM_COMPLETIONS_H
#define ARECIPE_LIB_SIM_COMPLETIONS_H

#include "EngineLoop.h"
#include "FaultInjector.h"
#include "GpuMemoryFile.h"
#include "SimLog.h"
#include "Timeline.h"
#include "arecipe/Sim/OpenAiProtocol.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

struct evhttp_connection;
struct evhttp_request;

namespace arecipe::sim {

class Completions;

/// One in-flight completion and the HTTP request it answers.
struct Completion {
  Completions *Owner = nullptr;
  uint64_t Id = 0;
  evhttp_request *Req = nullptr;
  evhttp_connection *Conn = nullptr;
  bool Stream = false;
  bool IncludeUsage = false;
  bool Malformed = false;
  bool Reset = false;
  long PromptTokens = 0;
  long MaxTokens = 0;
  long Sent = 0;
  long Cached = 0;
  // Simulated times of arrival and of the step that produced the first
  // token: the engine's own TTFT, free of any client or loopback delay.
  double ArrivedAt = 0;
  double FirstTokenAt = 0;
  // Under --sim-clock virtual: the client's sequence number, and the
  // virtual time of every token event, for the timeline.
  bool HasSeq = false;
  uint64_t Seq = 0;
  std::vector<double> EventTimes;
  // SSE events of the steps completed in this engine-timer fire, sent as
  // one HTTP chunk when the fire ends.
  std::string Out;
  CompletionWriter Writer;

  Completion(bool Chat, uint64_t Id, const std::string &Model, int64_t Created)
      : Id(Id),
        Writer(Chat,
               std::string(Chat ? "chatcmpl-" : "cmpl-") + std::to_string(Id),
               Model, Created) {}
};

class Completions {
public:
  Completions(EventLoop &Loop, EngineLoop &Engine, FaultInjector &Faults,
              const GpuMemoryFile &Memory, const SimLog &Log, Timeline &Times)
      : Loop(Loop), Engine(Engine), Faults(Faults), Memory(Memory), Log(Log),
        Times(Times) {}
  ~Completions();

  /// Takes over \p C's request: starts the SSE reply when streaming and
  /// watches the connection for a client that goes away.
  void accept(std::unique_ptr<Completion> C);

  /// EngineLoop's sink.
  void deliver(const StepResult &R, double StepEnd);
  void flushAll();

  size_t active() const { return Active.size(); }
  uint64_t served() const { return Served; }
  uint64_t disconnects() const { return Disconnects; }

private:
  void flush(Completion &C);
  void finish(Completion &C, double StepEnd);
  void resetConnection(Completion &C);
  void dropCompletion(uint64_t Id);
  /// The timeline line of a request that leaves the engine now.
  void recordTimeline(const Completion &C, const char *Outcome, double End);
  static void onClose(evhttp_connection *, void *C);

  EventLoop &Loop;
  EngineLoop &Engine;
  FaultInjector &Faults;
  const GpuMemoryFile &Memory;
  const SimLog &Log;
  Timeline &Times;
  std::unordered_map<uint64_t, std::unique_ptr<Completion>> Active;
  std::vector<uint64_t> Unflushed; // completions with pending Out
  uint64_t Served = 0;
  uint64_t Disconnects = 0;
};

} // namespace arecipe::sim

#endif
