//===- Transport.cpp - Streaming HTTP event loop --------------------------===//
//
// The loop itself (epoll, timers, deferred completions, self-measurement,
// stall detection) and the decoding every exchange shares. The native
// HTTP/1.1 transport is in NativeHttp.cpp, the libcurl one in CurlHttp.cpp.
//
//===----------------------------------------------------------------------===//

#include "TransportBackends.h"
#include "TransportImpl.h"

#include <pthread.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <stdexcept>

using namespace arecipe::client;

int64_t arecipe::client::monotonicNowNs() {
  timespec Ts;
  clock_gettime(CLOCK_MONOTONIC, &Ts);
  return int64_t(Ts.tv_sec) * 1000000000 + Ts.tv_nsec;
}

static int64_t threadCpuNs() {
  timespec Ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &Ts);
  return int64_t(Ts.tv_sec) * 1000000000 + Ts.tv_nsec;
}

static bool containsNoCase(std::string_view Hay, std::string_view Needle) {
  auto It = std::search(Hay.begin(), Hay.end(), Needle.begin(), Needle.end(),
                        [](char A, char B) { return std::tolower(A) == std::tolower(B); });
  return It != Hay.end();
}

static bool mentionsContextOverflow(std::string_view Text) {
  for (std::string_view Phrase : {"context length", "context window", "maximum context",
                                  "too many tokens", "prompt is too long", "exceeds the max"})
    if (containsNoCase(Text, Phrase))
      return true;
  return false;
}

ErrorKind arecipe::client::classifyHttpError(long Status, std::string_view Body) {
  if ((Status == 400 || Status == 413 || Status == 422) && mentionsContextOverflow(Body))
    return ErrorKind::ContextOverflow;
  return ErrorKind::HttpStatus;
}

bool arecipe::client::parseHttpUrl(std::string_view Url, ParsedUrl &Out) {
  constexpr std::string_view Scheme = "http://";
  if (Url.size() < Scheme.size())
    return false;
  for (size_t I = 0; I < Scheme.size(); ++I)
    if (std::tolower(static_cast<unsigned char>(Url[I])) != Scheme[I])
      return false;
  Url.remove_prefix(Scheme.size());
  size_t Slash = Url.find_first_of("/?#");
  std::string_view Authority = Url.substr(0, Slash);
  std::string_view Rest = Slash == std::string_view::npos ? "" : Url.substr(Slash);
  if (Authority.empty() || Authority.find('@') != std::string_view::npos)
    return false; // credentials: libcurl's business
  std::string_view Host = Authority, Port;
  if (Authority.front() == '[') {
    size_t Close = Authority.find(']');
    if (Close == std::string_view::npos)
      return false;
    Host = Authority.substr(1, Close - 1);
    std::string_view After = Authority.substr(Close + 1);
    if (!After.empty()) {
      if (After.front() != ':')
        return false;
      Port = After.substr(1);
    }
  } else if (size_t Colon = Authority.rfind(':'); Colon != std::string_view::npos) {
    Host = Authority.substr(0, Colon);
    Port = Authority.substr(Colon + 1);
  }
  if (Host.empty() || Port.size() > 5 ||
      !std::all_of(Port.begin(), Port.end(), [](char C) { return C >= '0' && C <= '9'; }))
    return false;
  if (size_t Hash = Rest.find('#'); Hash != std::string_view::npos)
    Rest = Rest.substr(0, Hash);
  Out.Host = std::string(Host);
  Out.Port = Port.empty() ? "80" : std::string(Port);
  Out.HostPort = std::string(Authority);
  Out.Target = Rest.empty() || Rest.front() != '/' ? "/" + std::string(Rest) : std::string(Rest);
  return true;
}

//===----------------------------------------------------------------------===//
// Decoding shared by both transports
//===----------------------------------------------------------------------===//

void EventLoop::Exchange::onHead(const HttpResponseHead &Head) {
  Status = Head.Status;
  Loop->noteProgress(NowNs);
}

bool EventLoop::Exchange::onBody(std::string_view Bytes) {
  if (!Record.FirstByteNs)
    Record.FirstByteNs = NowNs;
  if (Status < 200 || Status >= 300) {
    // Keep enough of an error body to classify and report it.
    if (ErrorBody.size() < 65536)
      ErrorBody.append(Bytes.data(), std::min(Bytes.size(), 65536 - ErrorBody.size()));
    return true;
  }
  Parser.feed(Bytes);
  if (Parser.overflowed() && !StreamFailed) {
    StreamFailed = true;
    StreamError = "an SSE line or event longer than " + std::to_string(Parser.maxLineBytes()) +
                  " bytes; the response was dropped from there";
  }
  return !StreamFailed;
}

void EventLoop::Exchange::onEvent(const SseEvent &E) {
  if (StreamFailed)
    return;
  Loop->noteProgress(NowNs);
  switch (Decoder.onEvent(E.Data)) {
  case ChunkKind::Output:
    if (!Record.FirstTokenNs)
      Record.FirstTokenNs = NowNs;
    Record.ChunkNs.push_back(NowNs);
    break;
  case ChunkKind::Error:
    StreamFailed = true;
    break;
  case ChunkKind::AfterDone:
    // Nothing may follow [DONE]: the stream is not what it claims to be.
    StreamFailed = true;
    StreamError = "an event after [DONE]";
    break;
  case ChunkKind::Other:
  case ChunkKind::Done:
    break;
  }
}

void EventLoop::Exchange::classify(ErrorKind Kind, std::string Message) {
  RequestRecord &R = Record;
  R.HttpStatus = int(Status);
  auto Fail = [&](ErrorKind K, std::string Msg) {
    R.Error = K;
    R.ErrorMessage = std::move(Msg);
  };
  if (StreamFailed && !StreamError.empty()) {
    Fail(ErrorKind::MalformedStream, StreamError);
  } else if (StreamFailed) {
    const std::string &Msg = Decoder.errorMessage();
    Fail(mentionsContextOverflow(Msg) ? ErrorKind::ContextOverflow : ErrorKind::MalformedStream,
         Msg);
  } else if (Kind != ErrorKind::None) {
    Fail(Kind, std::move(Message));
  } else if (Status < 200 || Status >= 300) {
    Fail(classifyHttpError(Status, ErrorBody),
         "HTTP " + std::to_string(Status) + ": " + ErrorBody.substr(0, 512));
  } else if (!Decoder.sawDone()) {
    Fail(ErrorKind::MalformedStream, "stream ended without [DONE]");
  } else if (!R.FirstTokenNs) {
    Fail(ErrorKind::MalformedStream, "stream carried no output");
  } else if (!Decoder.usageFormatProblem().empty()) {
    Fail(ErrorKind::InvalidUsage, Decoder.usageFormatProblem());
  } else if (Decoder.hasUsage()) {
    std::string Problem = usageProblem(Decoder.usage(), Decoder.outputChunks(), R.MaxOutputTokens,
                                       int64_t(Request.Body.size()));
    if (!Problem.empty())
      Fail(ErrorKind::InvalidUsage, std::move(Problem));
  }
  if (Decoder.hasUsage()) {
    const Usage &U = Decoder.usage();
    R.InputTokens = U.PromptTokens >= 0 ? U.PromptTokens : R.ExpectedInputTokens;
    R.OutputTokens = U.CompletionTokens;
    R.CachedTokens = U.CachedTokens;
    R.UsageFromServer = U.PromptTokens >= 0;
  } else {
    // Without usage the chunk count stands in for the output length; the
    // record says so and the summary counts such requests.
    R.InputTokens = R.ExpectedInputTokens;
    R.OutputTokens = Decoder.outputChunks();
    R.UsageFromServer = false;
  }
}

//===----------------------------------------------------------------------===//
// The loop
//===----------------------------------------------------------------------===//

EventLoop::Watcher::~Watcher() = default;

namespace {
// The loop's own descriptors are told apart by these addresses.
struct FdMarker : EventLoop::Watcher {
  void onEvents(uint32_t) override {}
};
FdMarker TimerMarker, WakeMarker;

constexpr int64_t SweepPeriodNs = 100000000; // timeouts and the stall check

} // namespace

EventLoop::EventLoop(const TransportOptions &Options) : Options(Options) {
  EpollFd = epoll_create1(EPOLL_CLOEXEC);
  TimerFd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  WakeFd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (EpollFd < 0 || TimerFd < 0 || WakeFd < 0)
    throw std::runtime_error(std::string("event loop set-up failed: ") + std::strerror(errno));
  for (auto [Fd, Marker] :
       {std::pair<int, Watcher *>{TimerFd, &TimerMarker}, {WakeFd, &WakeMarker}}) {
    epoll_event Ev{};
    Ev.events = EPOLLIN;
    Ev.data.ptr = Marker;
    epoll_ctl(EpollFd, EPOLL_CTL_ADD, Fd, &Ev);
  }
  ReadBuf.resize(size_t(std::max<long>(4096, Options.ReceiveBufferBytes)));
  Native = std::make_unique<NativeHttp>(*this);
}

EventLoop::~EventLoop() {
  cancelAll();
  drainCompleted();
  Native.reset();
  Curl.reset();
  Retired.clear();
  close(EpollFd);
  close(TimerFd);
  close(WakeFd);
}

void EventLoop::at(int64_t Ns, Callback Fn, bool Precise) {
  Timers.push(Timer{Ns, TimerSeq++, Precise, std::move(Fn)});
}

void EventLoop::stream(StreamRequest Request, RequestRecord Record, DoneCallback Done) {
  auto Owned = std::make_unique<Exchange>(Options.MaxSseLineBytes);
  Exchange *X = Owned.get();
  X->Loop = this;
  X->Request = std::move(Request);
  X->Record = std::move(Record);
  X->Done = std::move(Done);
  if (FreeSlots.empty()) {
    X->Slot = Exchanges.size();
    Exchanges.push_back(std::move(Owned));
  } else {
    X->Slot = FreeSlots.back();
    FreeSlots.pop_back();
    Exchanges[X->Slot] = std::move(Owned);
  }
  // One timestamp per output chunk: growing the vector while streaming would
  // copy it log2(OSL) times; the cap bounds memory for huge max_tokens.
  X->Record.ChunkNs.reserve(size_t(std::clamp<int64_t>(X->Record.MaxOutputTokens, 0, 16384)));
  int64_t Now = monotonicNowNs();
  if (Active++ == 0)
    BusySinceNs = Now;
  if (SweepDueNs < 0)
    SweepDueNs = Now + SweepPeriodNs;
  X->Record.DispatchedNs = Now;
  if (Options.RequestTimeoutMs > 0)
    X->DeadlineNs = Now + int64_t(Options.RequestTimeoutMs) * 1000000;
  ParsedUrl Url;
  if (!Options.ForceLibcurl && parseHttpUrl(X->Request.Url, Url)) {
    Native->start(*X, Url);
    return;
  }
  X->ViaCurl = true;
  if (!Curl)
    Curl = std::make_unique<CurlHttp>(*this);
  Curl->start(*X);
}

void EventLoop::finish(Exchange &X, ErrorKind Kind, std::string Message) {
  if (X.Finished)
    return;
  X.Finished = true;
  X.Transfer = nullptr;
  X.Record.EndNs = monotonicNowNs();
  X.classify(Kind, std::move(Message));
  noteProgress(X.Record.EndNs);
  --Active;
  Completed.push_back(&X);
}

void EventLoop::release(Exchange &X) {
  std::unique_ptr<Exchange> Owned = std::move(Exchanges[X.Slot]);
  FreeSlots.push_back(X.Slot);
  Owned->Done(std::move(Owned->Record));
}

void EventLoop::drainCompleted() {
  // Done callbacks may start requests, finish others or abort everything;
  // each one is taken off the list before it runs.
  for (size_t I = 0; I < Completed.size(); ++I) {
    Exchange *X = Completed[I];
    Completed[I] = nullptr;
    if (X)
      release(*X);
  }
  Completed.clear();
}

void EventLoop::failAll(ErrorKind Kind, const std::string &Message) {
  int64_t Now = monotonicNowNs();
  drainCompleted();
  // By index: a Done callback may start a request and grow the table. Those
  // started during the sweep are left alone.
  for (size_t I = 0, End = Exchanges.size(); I < End && I < Exchanges.size(); ++I) {
    Exchange *X = Exchanges[I].get();
    if (!X || X->Finished || X->Record.DispatchedNs > Now)
      continue;
    if (X->ViaCurl)
      Curl->abort(*X);
    else
      Native->abort(*X);
    X->Finished = true;
    X->Transfer = nullptr;
    X->Record.EndNs = monotonicNowNs();
    X->Record.Error = Kind;
    X->Record.ErrorMessage = Message;
    --Active;
    release(*X);
  }
}

void EventLoop::runDueTimers(int64_t Now) {
  while (!Timers.empty() && Timers.top().Ns <= Now && !Stopped) {
    Callback Fn = std::move(const_cast<Timer &>(Timers.top()).Fn);
    Timers.pop();
    Fn();
    drainCompleted();
  }
}

void EventLoop::runInternalDeadlines(int64_t Now) {
  if (CurlDeadlineNs >= 0 && CurlDeadlineNs <= Now && Curl) {
    CurlDeadlineNs = -1;
    Curl->onTimeout();
  }
  if (Measuring && ProbeDueNs >= 0 && ProbeDueNs <= Now) {
    Lag.push_back(double(Now - ProbeDueNs) / 1e9);
    ProbeDueNs += LoopStats::ProbePeriodNs;
    if (ProbeDueNs <= Now)
      ProbeDueNs = Now + LoopStats::ProbePeriodNs; // do not replay missed probes
  }
  if (SweepDueNs >= 0 && SweepDueNs <= Now)
    sweep(Now);
}

void EventLoop::sweep(int64_t Now) {
  SweepDueNs = -1;
  for (auto &Slot : Exchanges) {
    if (!Slot || Slot->Finished || !Slot->DeadlineNs || Now < Slot->DeadlineNs)
      continue;
    Exchange &X = *Slot;
    if (X.ViaCurl)
      Curl->abort(X);
    else
      Native->abort(X);
    char Msg[96];
    std::snprintf(Msg, sizeof(Msg), "no complete response within the request timeout of %g s",
                  double(Options.RequestTimeoutMs) / 1000.0);
    finish(X, ErrorKind::Timeout, Msg);
  }
  Native->sweep(Now);
  if (Active && Options.StallTimeoutMs > 0) {
    int64_t Idle = Now - std::max(LastProgressNs, BusySinceNs);
    if (Idle >= int64_t(Options.StallTimeoutMs) * 1000000) {
      LastProgressNs = Now; // once per window, whatever the handler does
      if (StallHandler)
        StallHandler(double(Idle) / 1e9, Active);
      else {
        char Msg[80];
        std::snprintf(Msg, sizeof(Msg), "no request made progress for %.1f s", double(Idle) / 1e9);
        failAll(ErrorKind::Stalled, Msg);
      }
    }
  }
  if (Active)
    SweepDueNs = Now + SweepPeriodNs;
}

void EventLoop::armTimer(int64_t Ns) {
  if (Ns == ArmedNs)
    return;
  itimerspec Spec{};
  if (Ns >= 0) {
    Spec.it_value.tv_sec = Ns / 1000000000;
    Spec.it_value.tv_nsec = Ns % 1000000000;
  }
  timerfd_settime(TimerFd, TFD_TIMER_ABSTIME, &Spec, nullptr);
  ArmedNs = Ns;
}

void EventLoop::interrupt() {
  uint64_t One = 1;
  // write(2) is async-signal-safe; the loop reads the eventfd.
  [[maybe_unused]] ssize_t N = write(WakeFd, &One, sizeof(One));
}

void EventLoop::startStats() {
  Measuring = true;
  StatsStartNs = monotonicNowNs();
  StatsCpuStartNs = threadCpuNs();
  SpinNs = 0;
  Lag.clear();
  ProbeDueNs = StatsStartNs + LoopStats::ProbePeriodNs;
}

LoopStats EventLoop::stopStats() {
  LoopStats S;
  if (!Measuring)
    return S;
  Measuring = false;
  ProbeDueNs = -1;
  S.WallSeconds = double(monotonicNowNs() - StatsStartNs) / 1e9;
  S.SpinSeconds = double(SpinNs) / 1e9;
  S.CpuSeconds = std::max(0.0, double(threadCpuNs() - StatsCpuStartNs) / 1e9 - S.SpinSeconds);
  S.RealtimePriority = RealtimeGranted;
  S.LagSeconds = std::move(Lag);
  Lag.clear();
  return S;
}

void EventLoop::run() {
  Stopped = false;
  // Timer expiries are otherwise rounded up by the thread's default 50 us
  // slack, which lands directly in the send lag.
  int OldSlack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  // Real-time scheduling, when asked for and allowed, for this thread only.
  int OldPolicy = SCHED_OTHER;
  sched_param OldParam{};
  bool Realtime = false;
  if (Options.RealtimePriority > 0) {
    pthread_getschedparam(pthread_self(), &OldPolicy, &OldParam);
    sched_param P{};
    P.sched_priority = std::clamp(Options.RealtimePriority, 1, 99);
    int Rc = pthread_setschedparam(pthread_self(), SCHED_FIFO, &P);
    Realtime = Rc == 0;
    RealtimeError = Realtime ? "" : std::strerror(Rc);
    RealtimeGranted = Realtime ? P.sched_priority : 0;
  }
  long SpinUs = Options.TimerSpinUs >= 0 ? Options.TimerSpinUs : Realtime ? 100 : 0;
  const int64_t Spin = int64_t(SpinUs) * 1000;
  epoll_event Events[512];
  while (!Stopped) {
    drainCompleted();
    int64_t Now = monotonicNowNs();
    runDueTimers(Now);
    runInternalDeadlines(Now);
    drainCompleted();
    Retired.clear();
    if (Stopped || (!Active && Timers.empty() && Completed.empty()))
      break;

    int64_t Next = -1;
    bool Spinning = false;
    if (!Timers.empty()) {
      const Timer &T = Timers.top();
      Next = T.Precise ? T.Ns - Spin : T.Ns;
      // Within the spin margin of a precise timer: poll instead of sleeping,
      // so the send does not wait for a wake-up.
      Spinning = T.Precise && Spin && Next <= Now;
    }
    auto Earliest = [&](int64_t D) {
      if (D >= 0 && (Next < 0 || D < Next))
        Next = D;
    };
    Earliest(CurlDeadlineNs);
    Earliest(SweepDueNs);
    if (Measuring)
      Earliest(ProbeDueNs);
    int WaitMs = -1;
    if (Spinning || (Next >= 0 && Next <= Now)) {
      WaitMs = 0;
    } else {
      if (IdleHandler)
        IdleHandler();
      armTimer(Next);
    }
    int N = epoll_wait(EpollFd, Events, 512, WaitMs);
    if (N < 0 && errno != EINTR)
      throw std::runtime_error(std::string("epoll_wait: ") + std::strerror(errno));
    if (Spinning && N <= 0) {
      SpinNs += monotonicNowNs() - Now;
      continue;
    }
    for (int I = 0; I < N && !Stopped; ++I) {
      auto *W = static_cast<Watcher *>(Events[I].data.ptr);
      if (W == &TimerMarker) {
        uint64_t Expirations;
        [[maybe_unused]] ssize_t R = read(TimerFd, &Expirations, sizeof(Expirations));
        ArmedNs = -1;
      } else if (W == &WakeMarker) {
        uint64_t Count;
        [[maybe_unused]] ssize_t R = read(WakeFd, &Count, sizeof(Count));
        if (InterruptHandler)
          InterruptHandler();
      } else {
        W->onEvents(Events[I].events);
      }
      drainCompleted();
      // A large batch of stream events must not hold back a scheduled send
      // or the lag probe: look at the clock every few events.
      if ((I & 15) == 15) {
        int64_t T = monotonicNowNs();
        runDueTimers(T);
        runInternalDeadlines(T);
      }
    }
  }
  drainCompleted();
  if (IdleHandler)
    IdleHandler();
  if (Realtime)
    pthread_setschedparam(pthread_self(), OldPolicy, &OldParam);
  RealtimeGranted = 0;
  if (OldSlack > 0)
    prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(OldSlack), 0, 0, 0);
}
