//===- Router.cpp - arecipe-sim as a request router in front of engines ---===//
#include "Router.h"
#include "HttpUtil.h"
#include "arecipe/Sim/OpenAiProtocol.h"
#include "arecipe/Sim/Server.h"

#include <csignal>

#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

using nlohmann::json;

namespace arecipe::sim {

namespace {

std::string dumpJson(const json &J, int Indent = -1) {
  // Session keys and backend replies may hold any bytes.
  return J.dump(Indent, ' ', false, json::error_handler_t::replace);
}

/// Request headers a backend should see: all but the hop-by-hop ones.
BackendCall::Headers forwardedHeaders(evhttp_request *Req) {
  BackendCall::Headers Out;
  evkeyvalq *In = evhttp_request_get_input_headers(Req);
  for (evkeyval *KV = In->tqh_first; KV; KV = KV->next.tqe_next) {
    std::string Name = KV->key;
    std::string Lower;
    for (char C : Name)
      Lower += char(std::tolower(static_cast<unsigned char>(C)));
    if (Lower == "host" || Lower == "connection" || Lower == "content-length" ||
        Lower == "transfer-encoding" || Lower == "keep-alive")
      continue;
    Out.emplace_back(Name, KV->value);
  }
  return Out;
}

} // namespace

/// One client request and the backend call(s) answering it.
struct RouterServer::Proxy {
  uint64_t Id = 0;
  evhttp_request *Client = nullptr;
  evhttp_connection *ClientConn = nullptr;
  RouterServer *Router = nullptr;
  std::string Method = "POST";
  std::string Path;
  std::string Body;
  BackendCall::Headers Headers;
  size_t Serving = 0; // the backend whose reply the client gets
  size_t Prefill = 0; // pd
  std::unique_ptr<BackendCall> Call;
  std::unique_ptr<Timer> TransferTimer;
  bool Streaming = false;
  bool Started = false;
  int Code = 0;
  std::string ContentType;
  evbuffer *Held = nullptr; // a reply sent whole when it ends
  long PromptTokens = 0;

  Proxy() : Held(evbuffer_new()) {}
  ~Proxy() { evbuffer_free(Held); }
};

RouterServer::RouterServer(SimOptions Options, std::string &Error)
    : O(std::move(Options)), Clock(O.TimeScale), Log(Clock, O.Level, "router"),
      Policy(*routingPolicyFromName(O.RouterPolicy)) {
  auto Add = [&](const std::vector<std::string> &Urls, const char *Role) {
    for (const std::string &Text : Urls) {
      Backend B;
      B.Role = Role;
      if (!parseBackendUrl(Text, B.Url, Error))
        return false;
      Backends.push_back(std::move(B));
    }
    return true;
  };
  bool Ok = Policy == RoutingPolicy::Pd
                ? Add(O.Prefills, "prefill") && Add(O.Decodes, "decode")
                : Add(O.Backends, "backend");
  if (!Ok)
    return;
  Prefills = Policy == RoutingPolicy::Pd ? O.Prefills.size() : 0;
  std::vector<std::string> First, Second;
  for (size_t I = 0; I < Backends.size(); ++I)
    (Policy == RoutingPolicy::Pd && I >= Prefills ? Second : First)
        .push_back(Backends[I].Url.Text);
  Selector = std::make_unique<BackendSelector>(Policy, First, O.Seed);
  if (Policy == RoutingPolicy::Pd)
    DecodeSelector = std::make_unique<BackendSelector>(Policy, Second, O.Seed);
}

RouterServer::~RouterServer() {
  for (auto &[Id, P] : Proxies)
    if (P->ClientConn)
      evhttp_connection_set_closecb(P->ClientConn, nullptr, nullptr);
  Proxies.clear();
  for (Backend &B : Backends)
    B.Probe.reset();
  // The calls free their connections on the next loop turn: take it.
  Loop.runPending();
}

void RouterServer::reply(evhttp_request *Req, int Code, const std::string &Body,
                         const char *ContentType) {
  sendReply(Req, Loop.scratch(), Code, Body, ContentType);
}

bool RouterServer::ready() const {
  for (const Backend &B : Backends)
    if (!B.Healthy || (std::string(B.Role) == "prefill" && !B.InfoKnown))
      return false;
  return true;
}

int RouterServer::run() {
  if (!Loop.ok())
    return 1;
  Loop.onRequest([this](evhttp_request *Req) { route(Req); });
  for (int Sig : {SIGTERM, SIGINT})
    Loop.onSignal(Sig, [this](int Sig) {
      Log.info(fmt::format("received signal {}: shutting down", Sig));
      logCounts();
      Loop.exit();
    });
  std::string Urls;
  for (const Backend &B : Backends)
    Urls +=
        fmt::format("{}{} {}", Urls.empty() ? "" : ", ", B.Role, B.Url.Text);
  Log.info(fmt::format("arecipe-sim router: policy {}{} over {} backends: {}",
                       routingPolicyName(Policy),
                       Policy == RoutingPolicy::ConsistentHash ||
                               Policy == RoutingPolicy::DpSticky
                           ? fmt::format(" on header {}", O.RouterHeader)
                       : Policy == RoutingPolicy::Random
                           ? fmt::format(" (seed {})", O.Seed)
                           : std::string(),
                       Backends.size(), Urls));
  if (!O.EngineArgv.empty()) {
    std::string Argv;
    for (const std::string &A : O.EngineArgv)
      Argv += (Argv.empty() ? "" : " ") + A;
    Log.info("standing in for: " + Argv);
  }
  std::string Error;
  if (!Loop.listenLoopback(O.RouterPort, Error)) {
    Log.error(Error);
    return 1;
  }
  Log.info(fmt::format("listening on http://127.0.0.1:{}", Loop.boundPort()));
  if (!writePortFile(O.PortFile, Loop.boundPort(), Log))
    return 1;
  ProbeTimer = Loop.timer([this] { probeBackends(); });
  probeBackends();
  Loop.run();
  return ExitCode;
}

//===--- Backends' health and what pd needs to know of them ---------------===//

void RouterServer::probeBackends() {
  for (Backend &B : Backends)
    if (!B.Probe)
      probe(B);
  // Often while backends come up, rarely once they serve.
  ProbeTimer->arm(ready() ? 1.0 : 0.1);
}

void RouterServer::probe(Backend &B) {
  auto Code = std::make_shared<int>(0);
  BackendCall::Handlers H;
  H.Head = [Code](int C, const std::string &) { *Code = C; };
  H.Body = [](evbuffer *Data) {
    evbuffer_drain(Data, evbuffer_get_length(Data));
  };
  H.Done = [this, &B, Code](bool Ok, const std::string &) {
    bool Healthy = Ok && *Code == 200;
    B.Probe.reset();
    if (Healthy != B.Healthy)
      Log(Healthy ? LogLevel::Info : LogLevel::Warning,
          fmt::format("{} {} is {}", B.Role, B.Url.Text,
                      Healthy ? "healthy" : "not healthy"));
    B.Healthy = Healthy;
    if (Healthy && std::string(B.Role) == "prefill" && !B.InfoKnown) {
      fetchInfo(B);
      return;
    }
    if (!WasReady && ready()) {
      WasReady = true;
      Log.info(
          fmt::format("router ready on http://127.0.0.1:{}", Loop.boundPort()));
    }
  };
  std::string Error;
  B.Probe = BackendCall::start(Loop.base(), B.Url, "GET", "/health", "", {},
                               std::move(H), Error);
}

void RouterServer::fetchInfo(Backend &B) {
  auto Text = std::make_shared<std::string>();
  BackendCall::Handlers H;
  H.Body = [Text](evbuffer *Data) {
    size_t N = evbuffer_get_length(Data);
    Text->append(reinterpret_cast<const char *>(evbuffer_pullup(Data, -1)), N);
    evbuffer_drain(Data, N);
  };
  H.Done = [this, &B, Text](bool Ok, const std::string &) {
    B.Probe.reset();
    json Info = json::parse(*Text, nullptr, false);
    if (!Ok || !Info.is_object() ||
        !Info.value("kv_bytes_per_token_per_gpu", json()).is_number())
      return; // probed again on the next turn
    B.KvBytesPerTokenPerGpu = Info["kv_bytes_per_token_per_gpu"].get<double>();
    B.InterconnectBandwidth = Info.value("interconnect_bandwidth", 0.0);
    if (!(B.InterconnectBandwidth > 0)) {
      Log.error(
          fmt::format("prefill {} declares no interconnect bandwidth "
                      "(hardware.interconnect_bandwidth in its --sim-spec, "
                      "interconnectBandwidth in its hardware profile): the "
                      "prefill-to-decode KV transfer cannot be modelled",
                      B.Url.Text));
      ExitCode = 1;
      Loop.exit();
      return;
    }
    B.InfoKnown = true;
    Log.info(fmt::format("prefill {}: KV transfer of {:.0f} bytes per token "
                         "per GPU at {:g} bytes/s",
                         B.Url.Text, B.KvBytesPerTokenPerGpu,
                         B.InterconnectBandwidth));
  };
  std::string Error;
  B.Probe = BackendCall::start(Loop.base(), B.Url, "GET", "/sim/info", "", {},
                               std::move(H), Error);
}

//===--- Routing ----------------------------------------------------------===//

void RouterServer::route(evhttp_request *Req) {
  std::string_view Path = requestPath(Req);
  bool Post = isPost(Req);
  if (Path == "/health") {
    if (ready()) {
      reply(Req, 200, R"({"status":"ok"})");
      return;
    }
    json Waiting = json::array();
    for (const Backend &B : Backends)
      if (!B.Healthy || (std::string(B.Role) == "prefill" && !B.InfoKnown))
        Waiting.push_back(B.Url.Text);
    reply(Req, 503,
          dumpJson({{"status", "starting"}, {"waiting_for", Waiting}}));
  } else if ((Path == "/v1/completions" || Path == "/v1/chat/completions") &&
             Post) {
    handleCompletion(Req);
  } else if (Path == "/v1/models") {
    // The model list is the backends': the decode server's under pd.
    Proxy &P = newProxy(Req);
    P.Method = "GET";
    P.Path = "/v1/models";
    forward(P, Prefills, "", /*Final=*/true);
  } else if (Path == "/metrics") {
    reply(Req, 200, metricsText(), "text/plain; version=0.0.4; charset=utf-8");
  } else if (Path == "/sim/router" || Path == "/sim/info") {
    reply(Req, 200, statsJson());
  } else {
    reply(Req, 404,
          errorBody(fmt::format("no route {}", Path), "NotFoundError", 404));
  }
}

void RouterServer::handleCompletion(evhttp_request *Req) {
  if (!ready()) {
    reply(Req, 503,
          errorBody("the router's backends are not ready",
                    "ServiceUnavailableError", 503));
    return;
  }
  ++Requests;
  Proxy &Ref = newProxy(Req);
  Ref.Path = std::string(requestPath(Req));
  Ref.Body = std::string(requestBody(Req));
  Ref.Headers = forwardedHeaders(Req);
  if (Policy == RoutingPolicy::Pd) {
    Ref.Prefill = Selector->choose("").Backend;
    Ref.Serving = Prefills + DecodeSelector->choose("").Backend;
  } else {
    std::string Key = requestHeader(Req, O.RouterHeader.c_str());
    BackendSelector::Choice C = Selector->choose(Key);
    Ref.Serving = C.Backend;
    if (C.NewKey)
      Log.info(fmt::format("session {} -> backend {} ({})", Key, C.Backend,
                           Backends[C.Backend].Url.Text));
  }
  if (Policy != RoutingPolicy::Pd) {
    forward(Ref, Ref.Serving, Ref.Body, /*Final=*/true);
    return;
  }
  // The prefill server computes the prompt's KV and one token, which is
  // dropped, as the PD routers do.
  json J = json::parse(Ref.Body, nullptr, false);
  if (!J.is_object()) {
    reply(
        Req, 400,
        errorBody("request body is not a JSON object", "BadRequestError", 400));
    finish(Ref, true);
    return;
  }
  J["max_tokens"] = 1;
  if (J.contains("max_completion_tokens"))
    J["max_completion_tokens"] = 1;
  J["stream"] = false;
  J.erase("stream_options");
  forward(Ref, Ref.Prefill, dumpJson(J), /*Final=*/false);
}

RouterServer::Proxy &RouterServer::newProxy(evhttp_request *Req) {
  auto P = std::make_unique<Proxy>();
  P->Id = ++NextId;
  P->Router = this;
  P->Client = Req;
  // A client that goes away while its request is being routed must not get
  // a reply sent to a freed request.
  P->ClientConn = evhttp_request_get_connection(Req);
  evhttp_connection_set_closecb(P->ClientConn, &RouterServer::onClientClose,
                                P.get());
  Proxy &Ref = *P;
  Proxies.emplace(Ref.Id, std::move(P));
  return Ref;
}

void RouterServer::forward(Proxy &P, size_t Index, const std::string &Body,
                           bool Final) {
  Backend &B = Backends[Index];
  // Completion requests count; the model list the router fetches does not.
  if (P.Method == "POST")
    ++B.Requests;
  ++B.Active;
  uint64_t Id = P.Id;
  BackendCall::Handlers H;
  H.Head = [this, Id, Final](int Code, const std::string &Type) {
    Proxy &P = *Proxies.at(Id);
    P.Code = Code;
    P.ContentType = Type;
    if (!Final || Type.rfind("text/event-stream", 0) != 0)
      return;
    // An SSE reply streams through as the backend sends it.
    P.Streaming = P.Started = true;
    evkeyvalq *Out = evhttp_request_get_output_headers(P.Client);
    evhttp_add_header(Out, "Content-Type", Type.c_str());
    evhttp_add_header(Out, "Cache-Control", "no-cache");
    evhttp_send_reply_start(P.Client, Code, Code == 200 ? "OK" : "Error");
  };
  H.Body = [this, Id](evbuffer *Data) {
    Proxy &P = *Proxies.at(Id);
    if (P.Streaming)
      evhttp_send_reply_chunk(P.Client, Data);
    else
      evbuffer_add_buffer(P.Held, Data);
  };
  H.Done = [this, Id, Index, Final](bool Ok, const std::string &Error) {
    Proxy &P = *Proxies.at(Id);
    Backend &B = Backends[Index];
    --B.Active;
    if (!Ok) {
      ++B.Errors;
      Log.warning(fmt::format("request {}: {} {} failed: {}", Id, B.Role,
                              B.Url.Text, Error));
      if (P.Started)
        evhttp_send_reply_end(P.Client); // the client sees the stream cut
      else
        reply(P.Client, 502,
              errorBody(
                  fmt::format("{} {} failed: {}", B.Role, B.Url.Text, Error),
                  "BadGatewayError", 502));
      finish(P, true);
      return;
    }
    if (!Final && P.Code == 200) {
      json Reply = json::parse(std::string(reinterpret_cast<const char *>(
                                               evbuffer_pullup(P.Held, -1)),
                                           evbuffer_get_length(P.Held)),
                               nullptr, false);
      evbuffer_drain(P.Held, evbuffer_get_length(P.Held));
      json Tokens = Reply.is_object() && Reply.contains("usage") &&
                            Reply["usage"].is_object()
                        ? Reply["usage"].value("prompt_tokens", json())
                        : json();
      if (!Tokens.is_number_integer()) {
        reply(P.Client, 502,
              errorBody(fmt::format("prefill {} sent no usage.prompt_tokens",
                                    B.Url.Text),
                        "BadGatewayError", 502));
        finish(P, true);
        return;
      }
      P.PromptTokens = Tokens.get<long>();
      // Each prefill GPU sends its share of the prompt's KV over its own
      // link, all at once.
      double Bytes = double(P.PromptTokens) * B.KvBytesPerTokenPerGpu;
      double Seconds = Bytes / B.InterconnectBandwidth;
      ++Transfers;
      TransferBytes += Bytes;
      TransferSeconds += Seconds;
      Log.debug(fmt::format("request {}: prefill {} ({} prompt tokens), KV "
                            "transfer {:.0f} bytes per GPU in {:.6f} s, decode "
                            "{}",
                            Id, B.Url.Text, P.PromptTokens, Bytes, Seconds,
                            Backends[P.Serving].Url.Text));
      P.TransferTimer =
          Loop.timer([this, Id] { startDecode(*Proxies.at(Id)); });
      P.TransferTimer->arm(Clock.toWall(Seconds));
      return;
    }
    // The reply (or a prefill's error) goes to the client as it came.
    if (P.Streaming) {
      evhttp_send_reply_end(P.Client);
    } else {
      evkeyvalq *Out = evhttp_request_get_output_headers(P.Client);
      evhttp_add_header(Out, "Content-Type",
                        P.ContentType.empty() ? "application/json"
                                              : P.ContentType.c_str());
      evhttp_send_reply(P.Client, P.Code, P.Code == 200 ? "OK" : "Error",
                        P.Held);
    }
    finish(P, P.Code != 200);
  };
  std::string Error;
  P.Call = BackendCall::start(Loop.base(), B.Url, P.Method.c_str(), P.Path,
                              Body, P.Headers, std::move(H), Error);
  if (!P.Call) {
    --B.Active;
    ++B.Errors;
    reply(P.Client, 502, errorBody(Error, "BadGatewayError", 502));
    finish(P, true);
  }
}

void RouterServer::startDecode(Proxy &P) {
  // The decode server takes the request with its KV already in place.
  json J = json::parse(P.Body, nullptr, false);
  J["kv_transfer_params"] = {{"do_remote_prefill", true},
                             {"remote_prefill_tokens", P.PromptTokens}};
  P.Code = 0;
  P.ContentType.clear();
  forward(P, P.Serving, dumpJson(J), /*Final=*/true);
}

void RouterServer::finish(Proxy &P, bool Unsuccessful) {
  if (P.ClientConn)
    evhttp_connection_set_closecb(P.ClientConn, nullptr, nullptr);
  if (Unsuccessful)
    ++Failed;
  Proxies.erase(P.Id);
}

void RouterServer::onClientClose(evhttp_connection *, void *Arg) {
  auto *P = static_cast<Proxy *>(Arg);
  RouterServer &R = *P->Router;
  ++R.Disconnects;
  R.Log.debug(fmt::format("request {}: client went away", P->Id));
  // As in Completions: a request detached from its dying connection is
  // ours to free.
  if (P->Client && !evhttp_request_get_connection(P->Client))
    evhttp_request_free(P->Client);
  // Cancelling the backend call closes its connection: the engine drops
  // the request too.
  R.Proxies.erase(P->Id);
}

//===--- What the policy did ----------------------------------------------===//

std::string RouterServer::statsJson() const {
  json List = json::array();
  for (size_t I = 0; I < Backends.size(); ++I) {
    const Backend &B = Backends[I];
    json Entry = {{"url", B.Url.Text},      {"role", B.Role},
                  {"requests", B.Requests}, {"active", B.Active},
                  {"errors", B.Errors},     {"healthy", B.Healthy}};
    if (Policy == RoutingPolicy::DpSticky)
      Entry["sessions"] = Selector->sessionsPerBackend()[I];
    List.push_back(Entry);
  }
  json Sessions = json::object();
  for (const auto &[Key, Index] : Selector->keys())
    Sessions[Key] = Backends[Index].Url.Text;
  json J = {{"mode", "router"},
            {"policy", routingPolicyName(Policy)},
            {"header", O.RouterHeader},
            {"port", Loop.boundPort()},
            {"time_scale", Clock.scale()},
            {"ready", ready()},
            {"requests", Requests},
            {"failed", Failed},
            {"client_disconnects", Disconnects},
            {"unkeyed", Selector->unkeyed()},
            {"backends", List},
            {"sessions", Sessions}};
  if (Policy == RoutingPolicy::Pd)
    J["pd"] = {{"transfers", Transfers},
               {"transfer_bytes_per_gpu", TransferBytes},
               {"transfer_simulated_seconds", TransferSeconds}};
  return dumpJson(J, 2);
}

std::string RouterServer::metricsText() const {
  std::string Out;
  auto Family = [&](const char *Name, const char *Type, const char *Help) {
    Out +=
        fmt::format("# HELP arecipe_router_{0} {1}\n# TYPE arecipe_router_{0} "
                    "{2}\n",
                    Name, Help, Type);
  };
  auto PerBackend = [&](const char *Name, auto Value) {
    for (const Backend &B : Backends)
      Out += fmt::format("arecipe_router_{}{{backend={},role=\"{}\"}} {}\n",
                         Name, dumpJson(B.Url.Text), B.Role, Value(B));
  };
  Family("requests_total", "counter", "Requests sent to each backend.");
  PerBackend("requests_total", [](const Backend &B) { return B.Requests; });
  Family("active", "gauge", "Requests each backend is serving now.");
  PerBackend("active", [](const Backend &B) { return B.Active; });
  Family("errors_total", "counter", "Requests a backend failed.");
  PerBackend("errors_total", [](const Backend &B) { return B.Errors; });
  Family("sessions", "gauge", "Routing keys seen.");
  Out += fmt::format("arecipe_router_sessions {}\n", Selector->keys().size());
  if (Policy == RoutingPolicy::Pd) {
    Family("kv_transfers_total", "counter", "Prefill-to-decode KV transfers.");
    Out += fmt::format("arecipe_router_kv_transfers_total {}\n", Transfers);
    Family("kv_transfer_seconds_total", "counter",
           "Simulated seconds spent moving KV.");
    Out += fmt::format("arecipe_router_kv_transfer_seconds_total {:.6f}\n",
                       TransferSeconds);
  }
  return Out;
}

void RouterServer::logCounts() const {
  std::string Counts;
  for (size_t I = 0; I < Backends.size(); ++I)
    Counts += fmt::format("{}{} {} {}: {}", Counts.empty() ? "" : ", ",
                          Backends[I].Role, I, Backends[I].Url.Text,
                          Backends[I].Requests);
  Log.info(fmt::format("routed {} requests ({} failed, {} sessions): {}",
                       Requests, Failed, Selector->keys().size(), Counts));
}

int runRouter(SimOptions Options) {
  std::string Error;
  std::signal(SIGPIPE, SIG_IGN);
  RouterServer Router(std::move(Options), Error);
  if (!Error.empty()) {
    fmt::print(stderr, "arecipe-sim: error: {}\n", Error);
    return 2;
  }
  return Router.run();
}

} // namespace arecipe::sim
