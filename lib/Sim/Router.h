//===- Router.h - arecipe-sim as a request router in front of engines -*- C++
//-*-===//
//
// `arecipe-sim --sim-router POLICY` stands in for the router a multi-replica
// or disaggregated deployment puts in front of its engine servers: it
// forwards each completion request to the backend the policy picks
// (RouterPolicy.h) and streams the reply back as it arrives. With pd it
// pairs a prefill and a decode server as the SGLang and vLLM PD routers do:
// the prompt goes to the prefill server with max_tokens 1, the KV cache then
// "moves" to the decode server for prompt tokens x KV bytes per token per
// GPU / interconnect bandwidth (both read from the prefill server's own
// /sim/info: its model, sharding and declared hardware), and the request
// goes to the decode server marked as prefilled remotely.
//
// /health answers 200 once every backend does, /v1/models is the first
// backend's, /metrics and /sim/router show what the policy did (requests
// per backend, the session -> backend map, KV transfers), and the log names
// each new session's backend and, at exit, the count per backend.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_LIB_SIM_ROUTER_H
#define ARECIPE_LIB_SIM_ROUTER_H

#include "BackendCall.h"
#include "EventLoop.h"
#include "SimLog.h"
#include "arecipe/Sim/RouterPolicy.h"
#include "arecipe/Sim/SimOptions.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

struct evhttp_request;
struct evhttp_connection;
struct evbuffer;

namespace arecipe::sim {

class RouterServer {
public:
  /// \p Error is set (and run() must not be called) for a bad URL.
  RouterServer(SimOptions Options, std::string &Error);
  ~RouterServer();

  int run();

private:
  struct Backend {
    BackendUrl Url;
    const char *Role; // "backend", "prefill", "decode"
    uint64_t Requests = 0, Active = 0, Errors = 0;
    bool Healthy = false;
    std::unique_ptr<BackendCall> Probe;
    // pd prefill servers: what one prompt token's KV costs to move.
    bool InfoKnown = false;
    double KvBytesPerTokenPerGpu = 0;
    double InterconnectBandwidth = 0;
  };
  struct Proxy;

  void route(evhttp_request *Req);
  void reply(evhttp_request *Req, int Code, const std::string &Body,
             const char *ContentType = "application/json");
  void probeBackends();
  void probe(Backend &B);
  void fetchInfo(Backend &B);
  bool ready() const;

  void handleCompletion(evhttp_request *Req);
  /// Registers a client request being routed.
  Proxy &newProxy(evhttp_request *Req);
  void forward(Proxy &P, size_t BackendIndex, const std::string &Body,
               bool Final);
  void startDecode(Proxy &P);
  void finish(Proxy &P, bool Unsuccessful);
  static void onClientClose(evhttp_connection *, void *Arg);

  std::string statsJson() const;
  std::string metricsText() const;
  void logCounts() const;

  // Declared first, destroyed last: every call and request lives on it.
  EventLoop Loop;
  SimOptions O;
  SimClock Clock;
  SimLog Log;
  RoutingPolicy Policy;
  std::vector<Backend> Backends; // pd: prefills, then decodes
  size_t Prefills = 0;           // pd: how many of Backends are prefills
  std::unique_ptr<BackendSelector> Selector;       // pd: over the prefills
  std::unique_ptr<BackendSelector> DecodeSelector; // pd only
  std::unique_ptr<Timer> ProbeTimer;
  std::map<uint64_t, std::unique_ptr<Proxy>> Proxies;
  uint64_t NextId = 0;
  uint64_t Requests = 0, Failed = 0, Disconnects = 0;
  uint64_t Transfers = 0;
  double TransferBytes = 0, TransferSeconds = 0;
  bool WasReady = false;
  int ExitCode = 0;
};

} // namespace arecipe::sim

#endif
