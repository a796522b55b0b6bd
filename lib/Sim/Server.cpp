//===- Server.cpp - arecipe-sim's HTTP front end and event loop -----------===//
//
// One thread, one libevent loop. Two kinds of timer drive everything: the
// start-up phase timer (and its progress ticks) and the engine timer. An
// injected crash exits at once, from inside the engine timer's callback.
//
// The engine runs on its own simulated clock, not on timer fires: a step
// planned at engine time t ends at t + duration, and its tokens are due at
// wall time Start + (t + duration) / K. When the engine timer fires, every
// step that is due by then is completed in turn (catch-up), each starting
// where the previous one ended, so simulated time tracks K x wall time
// however coarse the timer is. A request joins the first step that starts
// after its simulated arrival, as in a real engine.
//
//===----------------------------------------------------------------------===//
#include "arecipe/Sim/Server.h"
#include "arecipe/Sim/OpenAiProtocol.h"
#include "arecipe/Sim/Scheduler.h"
#include "arecipe/Support/AtomicFile.h"

#include <chrono>
#include <csignal>
#include <deque>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#ifndef ARECIPE_SIM_DEFAULT_PROFILES_DIR
#define ARECIPE_SIM_DEFAULT_PROFILES_DIR "std/sim"
#endif

namespace fs = std::filesystem;
using nlohmann::json;

namespace arecipe::sim {
namespace {

using WallClock = std::chrono::steady_clock;

const char *levelName(LogLevel L) {
  switch (L) {
  case LogLevel::Debug:
    return "DEBUG";
  case LogLevel::Info:
    return "INFO";
  case LogLevel::Warning:
    return "WARNING";
  case LogLevel::Error:
    return "ERROR";
  }
  return "INFO";
}

/// Port, device-memory and trace files are read while the engine runs: a
/// reader sees the old or the new file, never part of one.
bool writeAtomically(const std::string &Path, const std::string &Text) {
  std::string Err;
  return support::writeFileAtomically(Path, Text, Err);
}

struct TraceStep {
  double Start, Seconds;
  long Rows, DecodeSequences, PrefillTokens;
};

class SimServer;

/// One in-flight completion and the HTTP request it answers.
struct Completion {
  SimServer *Server = nullptr;
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
  // SSE events of the steps completed in this engine-timer fire, sent as
  // one HTTP chunk when the fire ends.
  std::string Out;
  CompletionWriter Writer;

  Completion(bool Chat, uint64_t Id, const std::string &Model, int64_t Created)
      : Id(Id), Writer(Chat, fmt::format("{}-{}", Chat ? "chatcmpl" : "cmpl", Id),
                       Model, Created) {}
};

class SimServer {
public:
  SimServer(SimOptions Options, Roofline Model, StartupPlan Plan,
            std::string ModelNote, std::vector<std::string> Warnings)
      : O(std::move(Options)), Model(std::move(Model)),
        Config(this->Model.config()), Plan(std::move(Plan)),
        ModelNote(std::move(ModelNote)), Warnings(std::move(Warnings)),
        Sched(this->Model, this->Plan.CpuTierTokens, O.Seed),
        Start(WallClock::now()) {}
  ~SimServer();

  int run();

  void log(LogLevel Level, std::string_view Text) const;
  double simNow() const {
    return std::chrono::duration<double>(WallClock::now() - Start).count() *
           O.TimeScale;
  }
  void dropCompletion(uint64_t Id);

private:
  // Start-up.
  bool listen();
  void beginPhase();
  void endPhase();
  void progressTick();
  void becomeReady();
  void exitWith(int Code);
  void writeGpuMemory(bool Allocated);

  // HTTP.
  static void onRequest(evhttp_request *Req, void *Self);
  void route(evhttp_request *Req);
  void reply(evhttp_request *Req, int Code, const std::string &Body,
             const char *ContentType = "application/json");
  void handleCompletion(evhttp_request *Req, bool Chat);
  void handleProfile(evhttp_request *Req, bool StartProfile);
  std::string metricsText() const;
  std::string infoJson() const;

  // Engine.
  void kickEngine();
  void runEngine();
  void runDueSteps();
  void flush(Completion &C);
  void flushAll();
  void admitArrivals();
  void cancelRequest(uint64_t Id);
  void deliver(const StepResult &R);
  void finish(Completion &C);
  void resetConnection(Completion &C);
  [[noreturn]] void crash(evhttp_connection *LastConn, uint64_t CrashAfter);

  void armTimer(event *Ev, double WallSeconds);

  SimOptions O;
  Roofline Model;
  const EngineConfig &Config;
  StartupPlan Plan;
  std::string ModelNote; // how the model profile was chosen, when not named
  std::vector<std::string> Warnings;
  Scheduler Sched;
  WallClock::time_point Start;

  event_base *Base = nullptr;
  evhttp *Http = nullptr;
  event *PhaseTimer = nullptr;
  event *ProgressTimer = nullptr;
  event *StepTimer = nullptr;
  std::vector<event *> SignalEvents;
  evbuffer *ChunkBuffer = nullptr;
  int BoundPort = 0;
  int ListenFd = -1;
  int ExitCode = 0;

  size_t PhaseIndex = 0;
  int ProgressStep = 0;
  bool Ready = false;
  std::string PhaseName = "starting";

  /// A request that reached the front end, waiting for the engine clock to
  /// pass its simulated arrival time.
  struct Arrival {
    double At;
    ScheduledRequest Request;
  };
  std::deque<Arrival> Incoming;
  bool StepArmed = false;
  double EngineClock = 0;       // simulated start of the next step
  std::optional<StepResult> Pending;
  double PendingEnd = 0;        // simulated end of the pending step
  double EngineBusySeconds = 0;

  std::unordered_map<uint64_t, std::unique_ptr<Completion>> Active;
  std::unordered_set<std::string> Sessions;
  uint64_t NextId = 0;
  uint64_t StreamCount = 0;
  uint64_t Arrivals = 0;
  uint64_t Served = 0;
  uint64_t Disconnects = 0;
  uint64_t Rejected = 0;
  std::vector<uint64_t> Unflushed; // completions with pending Out

  bool Profiling = false;
  double ProfileStart = 0;
  std::vector<TraceStep> Trace;
  int TraceFiles = 0;
};

void SimServer::log(LogLevel Level, std::string_view Text) const {
  if (Level < O.Level)
    return;
  // One write per line so interleaving with other writers stays line-sized.
  std::string Line =
      fmt::format("{} [arecipe-sim {} sim={:.3f}s x{:g}] {}\n",
                  levelName(Level), engineName(Config.Engine), simNow(),
                  O.TimeScale, Text);
  fwrite(Line.data(), 1, Line.size(), stderr);
}

void SimServer::armTimer(event *Ev, double WallSeconds) {
  if (WallSeconds < 0)
    WallSeconds = 0;
  timeval Tv;
  Tv.tv_sec = static_cast<time_t>(WallSeconds);
  Tv.tv_usec = static_cast<suseconds_t>((WallSeconds - Tv.tv_sec) * 1e6);
  event_add(Ev, &Tv);
}

SimServer::~SimServer() {
  // The connection close callbacks point at completions; detach them before
  // evhttp_free closes the connections.
  for (auto &[Id, C] : Active)
    evhttp_connection_set_closecb(C->Conn, nullptr, nullptr);
  Active.clear();
  if (Http)
    evhttp_free(Http);
  for (event *Ev : {PhaseTimer, ProgressTimer, StepTimer})
    if (Ev)
      event_free(Ev);
  for (event *Ev : SignalEvents)
    event_free(Ev);
  if (ChunkBuffer)
    evbuffer_free(ChunkBuffer);
  if (Base)
    event_base_free(Base);
}

bool SimServer::listen() {
  int Fd = socket(AF_INET, SOCK_STREAM, 0);
  if (Fd < 0)
    return false;
  int One = 1;
  setsockopt(Fd, SOL_SOCKET, SO_REUSEADDR, &One, sizeof One);
  sockaddr_in Addr{};
  Addr.sin_family = AF_INET;
  Addr.sin_port = htons(static_cast<uint16_t>(Config.Port));
  Addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // A deep backlog: a sweep's client opens every lane at once.
  if (bind(Fd, reinterpret_cast<sockaddr *>(&Addr), sizeof Addr) != 0 ||
      ::listen(Fd, 4096) != 0 || evutil_make_socket_nonblocking(Fd) != 0) {
    log(LogLevel::Error,
        fmt::format("cannot listen on 127.0.0.1:{}: {}", Config.Port,
                    strerror(errno)));
    close(Fd);
    return false;
  }
  socklen_t Len = sizeof Addr;
  getsockname(Fd, reinterpret_cast<sockaddr *>(&Addr), &Len);
  BoundPort = ntohs(Addr.sin_port);
  ListenFd = Fd;
  if (!evhttp_accept_socket_with_handle(Http, Fd)) {
    ListenFd = -1;
    close(Fd);
    return false;
  }
  if (Config.Host != "127.0.0.1" && Config.Host != "localhost")
    log(LogLevel::Info,
        fmt::format("binding 127.0.0.1 instead of the requested --host {}: "
                    "arecipe-sim only listens on loopback",
                    Config.Host));
  log(LogLevel::Info,
      fmt::format("Uvicorn running on http://127.0.0.1:{} (Press CTRL+C to "
                  "quit)",
                  BoundPort));
  if (!O.PortFile.empty() &&
      !writeAtomically(O.PortFile, std::to_string(BoundPort) + "\n")) {
    log(LogLevel::Error, fmt::format("cannot write {}", O.PortFile));
    return false;
  }
  return true;
}

int SimServer::run() {
  // Timers to the microsecond (timerfd) instead of epoll's millisecond
  // timeouts, so a step due in 0.2 ms of wall time is not held for 1 ms.
  event_config *Cfg = event_config_new();
  event_config_set_flag(Cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
  Base = event_base_new_with_config(Cfg);
  event_config_free(Cfg);
  Http = evhttp_new(Base);
  ChunkBuffer = evbuffer_new();
  if (!Base || !Http || !ChunkBuffer)
    return 1;
  // Streams can sit in the queue or in a long prefill with nothing to
  // write; the engine's front end does not time them out, nor do we.
  evhttp_set_timeout(Http, 24 * 3600);
  evhttp_set_gencb(Http, &SimServer::onRequest, this);
  evhttp_set_allowed_methods(Http, EVHTTP_REQ_GET | EVHTTP_REQ_POST |
                                       EVHTTP_REQ_HEAD);
  auto Timer = [this](void (*Cb)(evutil_socket_t, short, void *)) {
    return evtimer_new(Base, Cb, this);
  };
  PhaseTimer = Timer([](evutil_socket_t, short, void *S) {
    static_cast<SimServer *>(S)->endPhase();
  });
  ProgressTimer = Timer([](evutil_socket_t, short, void *S) {
    static_cast<SimServer *>(S)->progressTick();
  });
  StepTimer = Timer([](evutil_socket_t, short, void *S) {
    static_cast<SimServer *>(S)->runEngine();
  });
  for (int Sig : {SIGTERM, SIGINT}) {
    event *Ev = evsignal_new(
        Base, Sig,
        [](evutil_socket_t Sig, short, void *S) {
          auto *Self = static_cast<SimServer *>(S);
          Self->log(LogLevel::Info,
                    fmt::format("received signal {}: shutting down", Sig));
          Self->exitWith(0);
        },
        this);
    event_add(Ev, nullptr);
    SignalEvents.push_back(Ev);
  }

  log(LogLevel::Info,
      fmt::format("arecipe-sim simulating {} on {} x {} (model profile {}), "
                  "time scale {:g} simulated s per wall s",
                  engineName(Config.Engine), Config.gpus(),
                  Model.hardware().Name, Model.model().Name, O.TimeScale));
  if (!ModelNote.empty())
    log(LogLevel::Info, ModelNote);
  for (const std::string &W : Warnings)
    log(LogLevel::Warning, W);
  log(LogLevel::Info,
      fmt::format("served model name {}; tp {} pp {} dcp {} max-num-seqs {} "
                  "max-num-batched-tokens {} gpu-memory-utilization {} "
                  "speculative {} x {}",
                  Config.servedName(), Config.TensorParallel,
                  Config.PipelineParallel, Config.DecodeContextParallel,
                  Config.MaxNumSeqs, Config.MaxNumBatchedTokens,
                  Config.GpuMemoryUtilization,
                  Config.SpecMethod.empty() ? "off" : Config.SpecMethod,
                  Config.NumSpeculativeTokens));
  if (!listen())
    return 1;
  beginPhase();
  if (ExitCode == 0 && !event_base_got_exit(Base))
    event_base_dispatch(Base);
  return ExitCode;
}

//===--- Start-up ---------------------------------------------------------===//

void SimServer::beginPhase() {
  while (PhaseIndex < Plan.Phases.size()) {
    const StartupPhase &P = Plan.Phases[PhaseIndex];
    PhaseName = P.Name;
    for (const std::string &Line : P.StartLines)
      log(LogLevel::Info, Line);
    if (P.Name == "kv-cache")
      writeGpuMemory(true);
    if (P.NeverEnds) {
      // Nothing more is logged: the runtime's stall detector must notice.
      PhaseName = P.Name + " (stalled)";
      return;
    }
    if (P.Seconds > 0) {
      armTimer(PhaseTimer, P.Seconds / O.TimeScale);
      if (!P.ProgressLabel.empty()) {
        ProgressStep = 0;
        armTimer(ProgressTimer, P.Seconds / 10 / O.TimeScale);
      }
      return;
    }
    endPhase();
    return;
  }
  becomeReady();
}

void SimServer::progressTick() {
  const StartupPhase &P = Plan.Phases[PhaseIndex];
  ++ProgressStep;
  log(LogLevel::Info, fmt::format("{}: {}%", P.ProgressLabel, ProgressStep * 10));
  if (ProgressStep < 9)
    armTimer(ProgressTimer, P.Seconds / 10 / O.TimeScale);
}

void SimServer::endPhase() {
  event_del(ProgressTimer);
  const StartupPhase &P = Plan.Phases[PhaseIndex];
  for (const std::string &Line : P.EndLines)
    log(P.ExitCode ? LogLevel::Error : LogLevel::Info, Line);
  if (P.ExitCode) {
    exitWith(P.ExitCode);
    return;
  }
  ++PhaseIndex;
  beginPhase();
}

void SimServer::becomeReady() {
  Ready = true;
  PhaseName = "ready";
  log(LogLevel::Info, "Started server process");
  log(LogLevel::Info, "Waiting for application startup.");
  log(LogLevel::Info, "Application startup complete.");
  log(LogLevel::Info,
      fmt::format("ready on http://127.0.0.1:{}: serving {}", BoundPort,
                  Config.servedName()));
}

void SimServer::writeGpuMemory(bool Allocated) {
  if (O.GpuMemFile.empty())
    return;
  const HardwareProfile &Hw = Model.hardware();
  int Gpus = std::min(Config.gpus(), Hw.GpusPerNode);
  double Used = Allocated ? Hw.HbmBytes * Config.GpuMemoryUtilization : 0;
  std::string Text;
  for (int I = 0; I < Gpus; ++I)
    Text += fmt::format("{} {:.0f} {:.0f}\n", I, Used, Hw.HbmBytes);
  if (!writeAtomically(O.GpuMemFile, Text))
    log(LogLevel::Warning, fmt::format("cannot write {}", O.GpuMemFile));
}

void SimServer::exitWith(int Code) {
  ExitCode = Code;
  if (O.Faults.GpuMemoryLeak)
    log(LogLevel::Warning,
        "exiting without releasing device memory (fault gpu-mem-leak)");
  else
    writeGpuMemory(false);
  event_base_loopexit(Base, nullptr);
}

//===--- HTTP -------------------------------------------------------------===//

void SimServer::onRequest(evhttp_request *Req, void *Self) {
  static_cast<SimServer *>(Self)->route(Req);
}

void SimServer::reply(evhttp_request *Req, int Code, const std::string &Body,
                      const char *ContentType) {
  evkeyvalq *Headers = evhttp_request_get_output_headers(Req);
  evhttp_add_header(Headers, "Content-Type", ContentType);
  evbuffer_add(ChunkBuffer, Body.data(), Body.size());
  const char *Reason = Code == 200   ? "OK"
                       : Code == 400 ? "Bad Request"
                       : Code == 404 ? "Not Found"
                       : Code == 503 ? "Service Unavailable"
                                     : "Error";
  evhttp_send_reply(Req, Code, Reason, ChunkBuffer);
}

void SimServer::route(evhttp_request *Req) {
  const char *Path = evhttp_uri_get_path(evhttp_request_get_evhttp_uri(Req));
  std::string_view P = Path ? Path : "/";
  bool Post = evhttp_request_get_command(Req) == EVHTTP_REQ_POST;
  if (P == "/health") {
    if (Ready)
      reply(Req, 200, R"({"status":"ok"})");
    else
      reply(Req, 503, json({{"status", "starting"}, {"phase", PhaseName}}).dump());
  } else if (P == "/v1/models") {
    json Card = {{"id", Config.servedName()},
                 {"object", "model"},
                 {"created", 0},
                 {"owned_by", "arecipe-sim"},
                 {"root", Config.Model},
                 {"max_model_len", Config.MaxModelLen ? Config.MaxModelLen
                                                      : Model.model().MaxContextTokens}};
    reply(Req, 200, json({{"object", "list"}, {"data", {Card}}}).dump());
  } else if (P == "/v1/chat/completions" && Post) {
    handleCompletion(Req, true);
  } else if (P == "/v1/completions" && Post) {
    handleCompletion(Req, false);
  } else if (P == "/metrics") {
    reply(Req, 200, metricsText(), "text/plain; version=0.0.4; charset=utf-8");
  } else if ((P == "/start_profile" || P == "/stop_profile") && Post) {
    handleProfile(Req, P == "/start_profile");
  } else if (P == "/sim/info") {
    reply(Req, 200, infoJson());
  } else {
    reply(Req, 404, errorBody(fmt::format("no route {}", P), "NotFoundError", 404));
  }
}

std::string headerOf(evhttp_request *Req, const char *Name) {
  const char *V = evhttp_find_header(evhttp_request_get_input_headers(Req), Name);
  return V ? V : "";
}

void SimServer::handleCompletion(evhttp_request *Req, bool Chat) {
  if (!Ready) {
    reply(Req, 503, errorBody("the engine is still starting",
                              "ServiceUnavailableError", 503));
    return;
  }
  uint64_t Arrival = ++Arrivals;
  const FaultPlan &F = O.Faults;
  if (F.Http5xxCount && Arrival >= F.Http5xxStart &&
      Arrival < F.Http5xxStart + F.Http5xxCount) {
    ++Rejected;
    log(LogLevel::Warning,
        fmt::format("request {}: answering HTTP {} (fault http-5xx)", Arrival,
                    F.Http5xxCode));
    reply(Req, F.Http5xxCode,
          errorBody("simulated server error", "InternalServerError",
                    F.Http5xxCode));
    return;
  }
  evbuffer *In = evhttp_request_get_input_buffer(Req);
  size_t Len = evbuffer_get_length(In);
  const char *Data =
      reinterpret_cast<const char *>(evbuffer_pullup(In, static_cast<ssize_t>(Len)));
  CompletionRequest Parsed;
  std::string Error;
  if (!parseCompletionRequest(std::string_view(Data ? Data : "", Len), Chat,
                              Parsed, Error)) {
    reply(Req, 400, errorBody(Error, "BadRequestError", 400));
    return;
  }
  if (!Parsed.Model.empty() && Parsed.Model != Config.servedName() &&
      Parsed.Model != Config.Model) {
    reply(Req, 404,
          errorBody(fmt::format("The model `{}` does not exist.", Parsed.Model),
                    "NotFoundError", 404));
    return;
  }
  long Limit = Config.MaxModelLen ? Config.MaxModelLen
                                  : Model.model().MaxContextTokens;
  long MaxTokens = Parsed.MaxTokens.value_or(
      std::min(O.DefaultMaxTokens, std::max(1L, Limit - Parsed.PromptTokens)));
  if (Parsed.PromptTokens + MaxTokens > Limit || Parsed.PromptTokens == 0) {
    reply(Req, 400,
          errorBody(
              Parsed.PromptTokens == 0
                  ? std::string("the prompt is empty")
                  : fmt::format(
                        "This model's maximum context length is {} tokens. "
                        "However, you requested {} tokens ({} in the "
                        "messages, {} in the completion). Please reduce the "
                        "length of the messages or completion.",
                        Limit, Parsed.PromptTokens + MaxTokens,
                        Parsed.PromptTokens, MaxTokens),
              "BadRequestError", 400));
    return;
  }
  if (std::string Session = headerOf(Req, "X-Session-ID"); !Session.empty())
    Sessions.insert(Session);

  uint64_t Id = ++NextId;
  auto C = std::make_unique<Completion>(
      Chat, Id, Config.servedName(), static_cast<int64_t>(std::time(nullptr)));
  C->Server = this;
  C->Req = Req;
  C->Conn = evhttp_request_get_connection(Req);
  C->Stream = Parsed.Stream;
  C->IncludeUsage = Parsed.IncludeUsage;
  C->PromptTokens = Parsed.PromptTokens;
  C->MaxTokens = MaxTokens;
  if (C->Stream)
    C->Malformed = F.MalformedSseEvery && ++StreamCount % F.MalformedSseEvery == 0;
  C->Reset = F.ResetEvery && Arrival % F.ResetEvery == 0;
  evhttp_connection_set_closecb(
      C->Conn,
      [](evhttp_connection *, void *Arg) {
        auto *Self = static_cast<Completion *>(Arg);
        Self->Server->dropCompletion(Self->Id);
      },
      C.get());
  // Each step's SSE event must leave at once, as from uvicorn: with Nagle,
  // small chunks would wait on the client's delayed ACK and distort ITL.
  int Fd = bufferevent_getfd(evhttp_connection_get_bufferevent(C->Conn));
  int One = 1;
  setsockopt(Fd, IPPROTO_TCP, TCP_NODELAY, &One, sizeof One);
  if (C->Stream) {
    evkeyvalq *Headers = evhttp_request_get_output_headers(Req);
    evhttp_add_header(Headers, "Content-Type", "text/event-stream");
    evhttp_add_header(Headers, "Cache-Control", "no-cache");
    evhttp_send_reply_start(Req, 200, "OK");
  }
  C->ArrivedAt = simNow();
  Incoming.push_back(
      {C->ArrivedAt,
       {Id, Parsed.PromptTokens, std::move(Parsed.BlockHashes), MaxTokens}});
  Active.emplace(Id, std::move(C));
  kickEngine();
}

void SimServer::dropCompletion(uint64_t Id) {
  ++Disconnects;
  log(LogLevel::Debug, fmt::format("request {}: client went away", Id));
  // On EOF or a timeout, libevent detaches a request whose reply is not
  // finished from its dying connection and leaves it to its owner, who would
  // otherwise free it by ending the reply: free it here, or every stream a
  // client abandons leaks its request and buffers (found by LeakSanitizer).
  if (auto It = Active.find(Id); It != Active.end() && It->second->Req &&
                                 !evhttp_request_get_connection(It->second->Req))
    evhttp_request_free(It->second->Req);
  cancelRequest(Id);
  Active.erase(Id);
}

void SimServer::handleProfile(evhttp_request *Req, bool StartProfile) {
  std::string Dir = O.ProfileDir;
  for (const char *Var : {"VLLM_TORCH_PROFILER_DIR", "ATOM_TORCH_PROFILER_DIR",
                          "SGLANG_TORCH_PROFILER_DIR"})
    if (Dir.empty() && std::getenv(Var))
      Dir = std::getenv(Var);
  if (Dir.empty())
    Dir = Config.ProfilerDir;
  if (Dir.empty()) {
    reply(Req, 400,
          errorBody("profiling is not enabled: pass --sim-profile-dir or set "
                    "VLLM_TORCH_PROFILER_DIR",
                    "BadRequestError", 400));
    return;
  }
  if (StartProfile) {
    Profiling = true;
    ProfileStart = simNow();
    Trace.clear();
    log(LogLevel::Info, "Profiler started");
    reply(Req, 200, R"({"status":"profiling"})");
    return;
  }
  if (!Profiling) {
    reply(Req, 400, errorBody("the profiler is not running", "BadRequestError", 400));
    return;
  }
  Profiling = false;
  json Events = json::array();
  for (const TraceStep &S : Trace)
    Events.push_back({{"name", "engine_step"},
                      {"ph", "X"},
                      {"pid", 0},
                      {"tid", 0},
                      {"ts", S.Start * 1e6},
                      {"dur", S.Seconds * 1e6},
                      {"args",
                       {{"rows", S.Rows},
                        {"decode_sequences", S.DecodeSequences},
                        {"prefill_tokens", S.PrefillTokens}}}});
  json Doc = {{"traceEvents", Events},
              {"otherData",
               {{"generator", "arecipe-sim"},
                {"engine", engineName(Config.Engine)},
                {"time_scale", O.TimeScale},
                {"simulated_start_s", ProfileStart},
                {"simulated_stop_s", simNow()}}}};
  std::error_code Ec;
  fs::create_directories(Dir, Ec);
  std::string Path = (fs::path(Dir) / fmt::format("arecipe-sim-trace-{}-{}.json",
                                                   getpid(), ++TraceFiles))
                         .string();
  if (!writeAtomically(Path, Doc.dump())) {
    reply(Req, 500, errorBody("cannot write the trace", "InternalServerError", 500));
    return;
  }
  log(LogLevel::Info, fmt::format("Profiler stopped: trace written to {}", Path));
  reply(Req, 200, json({{"traces", {Path}}}).dump());
}

std::string SimServer::metricsText() const {
  const std::string P = metricPrefix(Config.Engine);
  const SchedulerStats &S = Sched.stats();
  std::string Label = json(Config.servedName()).dump();
  std::string Out;
  auto Metric = [&](const char *Name, const char *Type, const char *Help,
                    double Value) {
    Out += fmt::format("# HELP {0}{1} {2}\n# TYPE {0}{1} {3}\n"
                       "{0}{1}{{model_name={4}}} {5}\n",
                       P, Name, Help, Type, Label, Value);
  };
  Metric("num_requests_running", "gauge", "Requests in the running batch.",
         double(Sched.runningCount()));
  Metric("num_requests_waiting", "gauge", "Requests waiting to be scheduled.",
         double(Sched.waitingCount()));
  Metric("kv_cache_usage_perc", "gauge", "GPU KV-cache usage (1 = full).",
         Sched.kvUsage());
  Metric("prefix_cache_queries_total", "counter",
         "Prompt tokens looked up in the prefix cache.",
         double(S.PrefixQueriedTokens));
  Metric("prefix_cache_hits_total", "counter",
         "Prompt tokens served from the prefix cache.",
         double(S.PrefixHitTokens));
  Metric("external_prefix_cache_hits_total", "counter",
         "Prompt tokens served from the CPU KV tier.", double(S.CpuHitTokens));
  Metric("prompt_tokens_total", "counter", "Prefill tokens computed.",
         double(S.PromptTokens));
  Metric("generation_tokens_total", "counter", "Tokens generated.",
         double(S.GenerationTokens));
  Metric("spec_decode_num_drafts_total", "counter", "Speculative verify steps.",
         double(Config.NumSpeculativeTokens ? S.DraftTokens / Config.NumSpeculativeTokens : 0));
  Metric("spec_decode_num_draft_tokens_total", "counter", "Draft tokens proposed.",
         double(S.DraftTokens));
  Metric("spec_decode_num_accepted_tokens_total", "counter",
         "Draft tokens accepted.", double(S.AcceptedTokens));
  Metric("num_preemptions_total", "counter", "Sequences preempted.",
         double(S.Preemptions));
  Metric("request_success_total", "counter", "Requests finished.", double(Served));
  Metric("engine_steps_total", "counter", "Engine steps run.", double(S.Steps));
  Out += fmt::format("# HELP arecipe_sim_time_scale Simulated seconds per wall-clock second.\n"
                     "# TYPE arecipe_sim_time_scale gauge\narecipe_sim_time_scale {}\n"
                     "# HELP arecipe_sim_simulated_seconds Simulated time since start.\n"
                     "# TYPE arecipe_sim_simulated_seconds gauge\n"
                     "arecipe_sim_simulated_seconds {:.3f}\n",
                     O.TimeScale, simNow());
  return Out;
}

std::string SimServer::infoJson() const {
  const SchedulerStats &S = Sched.stats();
  json Knobs = json::object();
  for (const auto &[K, V] : Config.Knobs)
    Knobs[K] = V;
  json Faults = {{"slow_start_s", O.Faults.SlowStartSeconds},
                 {"crash_after", O.Faults.CrashAfterRequests},
                 {"malformed_sse_every", O.Faults.MalformedSseEvery},
                 {"reset_every", O.Faults.ResetEvery},
                 {"http_5xx_start", O.Faults.Http5xxStart},
                 {"http_5xx_count", O.Faults.Http5xxCount},
                 {"http_5xx_code", O.Faults.Http5xxCode},
                 {"gpu_mem_leak", O.Faults.GpuMemoryLeak}};
  json J = {
      {"engine", engineName(Config.Engine)},
      {"hardware", Model.hardware().Name},
      {"model_profile", Model.model().Name},
      {"model", Config.Model},
      {"served_model_name", Config.servedName()},
      {"time_scale", O.TimeScale},
      {"simulated_seconds", simNow()},
      {"engine_busy_simulated_seconds", EngineBusySeconds},
      {"ready", Ready},
      {"phase", PhaseName},
      {"port", BoundPort},
      {"sessions", Sessions.size()},
      {"requests_served", Served},
      {"requests_active", Active.size()},
      {"requests_rejected", Rejected},
      {"client_disconnects", Disconnects},
      {"gpus", Config.gpus()},
      {"kv_capacity_tokens", Sched.kvCapacityTokens()},
      {"kv_used_tokens", Sched.kvUsedTokens()},
      {"cpu_tier_tokens", Plan.CpuTierTokens},
      {"weight_bytes_per_gpu", Model.weightBytesPerGpu()},
      {"acceptance_probability", Sched.acceptanceProbability()},
      {"generation_tokens", S.GenerationTokens},
      {"resolved",
       {{"tp", Config.TensorParallel},
        {"pp", Config.PipelineParallel},
        {"dp", Config.DataParallel},
        {"dcp", Config.DecodeContextParallel},
        {"max_num_seqs", Config.MaxNumSeqs},
        {"max_num_batched_tokens", Config.MaxNumBatchedTokens},
        {"gpu_memory_utilization", Config.GpuMemoryUtilization},
        {"block_size", Config.BlockSize},
        {"kv_cache_dtype", Config.KvCacheDtype},
        {"prefix_caching", Config.PrefixCaching},
        {"cudagraph_mode", Config.CudagraphMode},
        {"enforce_eager", Config.EnforceEager},
        {"capture_sizes", Config.CaptureSizes.size()},
        {"spec_method", Config.SpecMethod},
        {"draft_model", Config.DraftModel},
        {"num_speculative_tokens", Config.NumSpeculativeTokens},
        {"acceptance_length",
         Config.AcceptanceLength
             ? *Config.AcceptanceLength
             : Model.model().goldenAcceptance(Config.NumSpeculativeTokens)},
        {"kv_connector", Config.KvConnector}}},
      {"knobs", Knobs},
      {"warnings", Warnings},
      {"faults", Faults}};
  return J.dump(2);
}

//===--- Engine -----------------------------------------------------------===//

void SimServer::kickEngine() {
  if (StepArmed || !Ready)
    return;
  StepArmed = true;
  armTimer(StepTimer, 0);
}

void SimServer::admitArrivals() {
  // An idle engine waits for the next arrival rather than stepping empty.
  if (!Sched.hasWork() && !Incoming.empty())
    EngineClock = std::max(EngineClock, Incoming.front().At);
  while (!Incoming.empty() && Incoming.front().At <= EngineClock) {
    Sched.add(std::move(Incoming.front().Request));
    Incoming.pop_front();
  }
}

void SimServer::cancelRequest(uint64_t Id) {
  auto It = std::find_if(Incoming.begin(), Incoming.end(),
                         [Id](const Arrival &A) { return A.Request.Id == Id; });
  if (It != Incoming.end())
    Incoming.erase(It);
  else
    Sched.cancel(Id);
}

void SimServer::runEngine() {
  StepArmed = false;
  runDueSteps();
  flushAll();
}

void SimServer::runDueSteps() {
  const double Now = simNow();
  // A fire that cannot catch up in a few milliseconds yields to the network
  // and resumes at once, so new requests and /health are not starved.
  const auto Deadline = WallClock::now() + std::chrono::milliseconds(5);
  while (!ExitCode) {
    if (Pending) {
      if (PendingEnd > Now) {
        StepArmed = true;
        armTimer(StepTimer, (PendingEnd - Now) / O.TimeScale);
        return;
      }
      EngineClock = PendingEnd;
      StepResult R = std::move(*Pending);
      Pending.reset();
      deliver(R);
      if (WallClock::now() > Deadline) {
        StepArmed = true;
        armTimer(StepTimer, 0);
        return;
      }
      continue;
    }
    admitArrivals();
    if (!Sched.hasWork())
      return;
    StepResult R = Sched.step();
    if (R.Seconds <= 0)
      return;
    EngineBusySeconds += R.Seconds;
    if (Profiling && Trace.size() < 200000)
      Trace.push_back({EngineClock, R.Seconds, R.Shape.Rows,
                       R.Shape.DecodeSequences, R.PrefillTokens});
    PendingEnd = EngineClock + R.Seconds;
    Pending = std::move(R);
  }
}

void SimServer::flush(Completion &C) {
  if (C.Out.empty())
    return;
  evbuffer_add(ChunkBuffer, C.Out.data(), C.Out.size());
  evhttp_send_reply_chunk(C.Req, ChunkBuffer);
  C.Out.clear(); // keeps its capacity for the next fire
}

void SimServer::flushAll() {
  for (uint64_t Id : Unflushed)
    if (auto It = Active.find(Id); It != Active.end())
      flush(*It->second);
  Unflushed.clear();
}

void SimServer::deliver(const StepResult &R) {
  for (const RequestProgress &P : R.Progress) {
    auto It = Active.find(P.Id);
    if (It == Active.end())
      continue;
    Completion &C = *It->second;
    C.Cached = P.CachedTokens;
    if (C.Sent == 0 && P.NewTokens > 0)
      C.FirstTokenAt = EngineClock;
    if (C.Reset && (C.Sent > 0 || P.Finished)) {
      resetConnection(C);
      continue;
    }
    if (C.Stream && P.NewTokens > 0) {
      if (C.Out.empty())
        Unflushed.push_back(C.Id);
      if (C.Malformed && C.Sent == 0)
        C.Writer.appendMalformedEvent(C.Out);
      C.Writer.appendTokensEvent(C.Out, C.Sent, P.NewTokens);
      if (P.Finished)
        C.Writer.appendFinalEvents(
            C.Out, {C.PromptTokens, C.Sent + P.NewTokens, C.Cached},
            C.IncludeUsage);
    }
    C.Sent += P.NewTokens;
    if (P.Finished)
      finish(C);
  }
}

void SimServer::finish(Completion &C) {
  uint64_t Id = C.Id;
  evhttp_connection_set_closecb(C.Conn, nullptr, nullptr);
  if (C.Stream) {
    flush(C);
    evhttp_send_reply_end(C.Req);
  } else {
    evkeyvalq *Headers = evhttp_request_get_output_headers(C.Req);
    evhttp_add_header(Headers, "Content-Type", "application/json");
    std::string Body =
        C.Writer.fullResponse({C.PromptTokens, C.Sent, C.Cached}, C.Sent);
    evbuffer_add(ChunkBuffer, Body.data(), Body.size());
    evhttp_send_reply(C.Req, 200, "OK", ChunkBuffer);
  }
  if (O.Level <= LogLevel::Debug)
    log(LogLevel::Debug,
        fmt::format("request {} finished: simulated ttft {:.6f} s e2e {:.6f} s "
                    "tokens {}",
                    Id, C.FirstTokenAt - C.ArrivedAt, EngineClock - C.ArrivedAt,
                    C.Sent));
  evhttp_connection *Conn = C.Conn;
  Active.erase(Id);
  ++Served;
  uint64_t CrashAfter = O.Faults.CrashAfterRequests;
  if (CrashAfter && Served == CrashAfter)
    crash(Conn, CrashAfter);
}

void SimServer::crash(evhttp_connection *LastConn, uint64_t CrashAfter) {
  // The Nth reply was completed, so it reaches the client: hand what is
  // queued on its connection to the kernel now, blocking (the loop must not
  // run again, so nothing else is served meanwhile).
  if (LastConn) {
    bufferevent *Bev = evhttp_connection_get_bufferevent(LastConn);
    int Fd = bufferevent_getfd(Bev);
    evbuffer *Out = bufferevent_get_output(Bev);
    if (Fd >= 0) {
      int Flags = fcntl(Fd, F_GETFL);
      if (Flags >= 0)
        fcntl(Fd, F_SETFL, Flags & ~O_NONBLOCK);
      timeval Limit{1, 0}; // a client that stopped reading loses the rest
      setsockopt(Fd, SOL_SOCKET, SO_SNDTIMEO, &Limit, sizeof Limit);
      while (evbuffer_get_length(Out) > 0)
        if (evbuffer_write(Out, Fd) <= 0)
          break;
    }
  }
  log(LogLevel::Error,
      fmt::format("Fatal Python error: Segmentation fault (simulated crash "
                  "after {} requests, fault crash-after)",
                  CrashAfter));
  if (!O.Faults.GpuMemoryLeak)
    writeGpuMemory(false);
  fflush(stderr);
  // An engine crash leaves no time for cleanup and serves nothing more: the
  // listener and every connection close now (no flush, no teardown), and the
  // process exits without returning to the event loop.
  if (ListenFd >= 0)
    close(ListenFd);
  for (auto &[ActiveId, Other] : Active) {
    int Fd = bufferevent_getfd(evhttp_connection_get_bufferevent(Other->Conn));
    if (Fd >= 0)
      close(Fd);
  }
  std::_Exit(1);
}

void SimServer::resetConnection(Completion &C) {
  uint64_t Id = C.Id;
  evhttp_connection *Conn = C.Conn;
  log(LogLevel::Warning,
      fmt::format("request {}: resetting the connection (fault reset)", Id));
  evhttp_connection_set_closecb(Conn, nullptr, nullptr);
  // The tokens already produced reach the client first: written now, they
  // sit in its receive queue ahead of the RST.
  flush(C);
  bufferevent *Bev = evhttp_connection_get_bufferevent(Conn);
  int Fd = bufferevent_getfd(Bev);
  evbuffer_write(bufferevent_get_output(Bev), Fd);
  // SO_LINGER 0 turns close() into a TCP RST.
  linger L{1, 0};
  setsockopt(Fd, SOL_SOCKET, SO_LINGER, &L, sizeof L);
  cancelRequest(Id);
  Active.erase(Id);
  evhttp_connection_free(Conn);
}

} // namespace

int runSimulator(SimOptions O, const Environment &Env) {
  if (O.ProfilesDir.empty())
    O.ProfilesDir = ARECIPE_SIM_DEFAULT_PROFILES_DIR;
  EngineParseResult Parsed = parseEngineArgv(O.EngineArgv, O.Engine);
  if (!Parsed.Error.empty()) {
    fmt::print(stderr, "arecipe-sim: error: {}\n", Parsed.Error);
    return 2;
  }
  const EngineConfig &Config = Parsed.Config;
  HardwareProfile Hw;
  ModelProfile Model;
  std::string Error;
  // Named explicitly (a profile name, an alias or a file) or inferred from
  // the names the engine serves, as a real engine reads its model's config.
  std::string ModelName;
  std::string ModelNote;
  if (!O.Model.empty()) {
    ModelName = resolveModelProfile(O.Model, O.ProfilesDir);
    if (ModelName != O.Model)
      ModelNote = fmt::format("model profile {} (--sim-model {} is one of its "
                              "aliases)",
                              ModelName, O.Model);
  } else {
    for (const std::string *Name : {&Config.servedName(), &Config.Model}) {
      ModelName = findModelProfileFor(*Name, O.ProfilesDir);
      if (!ModelName.empty()) {
        ModelNote = fmt::format("model profile {} inferred from '{}'",
                                ModelName, *Name);
        break;
      }
    }
  }
  if (ModelName.empty()) {
    Parsed.Warnings.push_back(fmt::format(
        "no model profile matches '{}'; modelling it as kimi-k3 (pass "
        "--sim-model)",
        Config.Model));
    ModelName = "kimi-k3";
  }
  if (!loadHardwareProfile(O.Hardware, O.ProfilesDir, Hw, Error) ||
      !loadModelProfile(ModelName, O.ProfilesDir, Model, Error)) {
    fmt::print(stderr, "arecipe-sim: error: {}\n", Error);
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);
  Roofline Line(Hw, Model, Config);
  StartupPlan Plan = planStartup(Line, O, Env);
  SimServer Server(std::move(O), std::move(Line), std::move(Plan),
                   std::move(ModelNote), std::move(Parsed.Warnings));
  return Server.run();
}

} // namespace arecipe::sim
