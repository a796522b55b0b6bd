//===- Transport.cpp - Streaming HTTP event loop over libcurl multi -------===//

#include "arecipe/Client/Transport.h"

#include "arecipe/Client/CompletionStream.h"
#include "arecipe/Client/SseParser.h"

#include <curl/curl.h>

#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/prctl.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <mutex>
#include <stdexcept>

using namespace arecipe::client;

int64_t arecipe::client::monotonicNowNs() {
  timespec Ts;
  clock_gettime(CLOCK_MONOTONIC, &Ts);
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

struct EventLoop::Exchange {
  EventLoop *Loop = nullptr;
  CURL *Easy = nullptr;
  curl_slist *Headers = nullptr;
  size_t Slot = 0;
  StreamRequest Request;
  size_t BodyOffset = 0;
  RequestRecord Record;
  DoneCallback Done;
  CompletionStreamDecoder Decoder;
  SseParser Parser;
  int64_t NowNs = 0; // arrival time of the bytes being parsed
  long Status = 0;
  std::string ErrorBody;
  bool StreamFailed = false;

  Exchange() : Parser([this](const SseEvent &E) { onEvent(E); }) {}

  void onEvent(const SseEvent &E) {
    if (StreamFailed)
      return;
    switch (Decoder.onEvent(E.Data)) {
    case ChunkKind::Output:
      if (!Record.FirstTokenNs)
        Record.FirstTokenNs = NowNs;
      Record.ChunkNs.push_back(NowNs);
      break;
    case ChunkKind::Error:
      StreamFailed = true;
      break;
    case ChunkKind::Other:
    case ChunkKind::Done:
      break;
    }
  }

  static size_t onWrite(char *Ptr, size_t Size, size_t N, void *User) {
    auto *X = static_cast<Exchange *>(User);
    size_t Len = Size * N;
    X->NowNs = monotonicNowNs();
    if (!X->Record.FirstByteNs) {
      X->Record.FirstByteNs = X->NowNs;
      curl_easy_getinfo(X->Easy, CURLINFO_RESPONSE_CODE, &X->Status);
    }
    if (X->Status < 200 || X->Status >= 300) {
      // Keep enough of an error body to classify and report it.
      if (X->ErrorBody.size() < 65536)
        X->ErrorBody.append(Ptr, std::min(Len, 65536 - X->ErrorBody.size()));
      return Len;
    }
    X->Parser.feed(std::string_view(Ptr, Len));
    // Returning short aborts the transfer: an in-stream error ends it.
    return X->StreamFailed ? 0 : Len;
  }

  static size_t onRead(char *Buf, size_t Size, size_t N, void *User) {
    auto *X = static_cast<Exchange *>(User);
    if (!X->Record.SentNs)
      X->Record.SentNs = monotonicNowNs();
    size_t Len = std::min(Size * N, X->Request.Body.size() - X->BodyOffset);
    std::memcpy(Buf, X->Request.Body.data() + X->BodyOffset, Len);
    X->BodyOffset += Len;
    return Len;
  }

  // libcurl rewinds when it retries a request on a fresh connection after a
  // kept-alive one turned out to be closed by the server.
  static int onSeek(void *User, curl_off_t Offset, int Origin) {
    auto *X = static_cast<Exchange *>(User);
    if (Origin != SEEK_SET || Offset < 0 || size_t(Offset) > X->Request.Body.size())
      return CURL_SEEKFUNC_FAIL;
    X->BodyOffset = size_t(Offset);
    return CURL_SEEKFUNC_OK;
  }
};

static void globalInit() {
  static std::once_flag Once;
  std::call_once(Once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

EventLoop::EventLoop(const TransportOptions &Options) : Options(Options) {
  globalInit();
  EpollFd = epoll_create1(EPOLL_CLOEXEC);
  TimerFd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  WakeFd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (EpollFd < 0 || TimerFd < 0 || WakeFd < 0)
    throw std::runtime_error(std::string("event loop set-up failed: ") + std::strerror(errno));
  for (int Fd : {TimerFd, WakeFd}) {
    epoll_event Ev{};
    Ev.events = EPOLLIN;
    Ev.data.fd = Fd;
    epoll_ctl(EpollFd, EPOLL_CTL_ADD, Fd, &Ev);
  }
  Multi = curl_multi_init();
  CURLM *M = static_cast<CURLM *>(Multi);
  curl_multi_setopt(M, CURLMOPT_SOCKETFUNCTION, socketCallback);
  curl_multi_setopt(M, CURLMOPT_SOCKETDATA, this);
  curl_multi_setopt(M, CURLMOPT_TIMERFUNCTION, timerCallback);
  curl_multi_setopt(M, CURLMOPT_TIMERDATA, this);
  // No pool caps: a capped pool silently turns concurrency C into min(C, cap).
  curl_multi_setopt(M, CURLMOPT_MAX_TOTAL_CONNECTIONS, 0L);
  curl_multi_setopt(M, CURLMOPT_MAX_HOST_CONNECTIONS, 0L);
  curl_multi_setopt(M, CURLMOPT_MAXCONNECTS, Options.MaxCachedConnections);
  curl_multi_setopt(M, CURLMOPT_PIPELINING, long(CURLPIPE_NOTHING));
}

EventLoop::~EventLoop() {
  cancelAll();
  for (void *H : FreeHandles)
    curl_easy_cleanup(static_cast<CURL *>(H));
  curl_multi_cleanup(static_cast<CURLM *>(Multi));
  close(EpollFd);
  close(TimerFd);
  close(WakeFd);
}

int EventLoop::socketCallback(void *, int Fd, int What, void *User, void *SocketPtr) {
  auto *L = static_cast<EventLoop *>(User);
  if (What == CURL_POLL_REMOVE) {
    epoll_ctl(L->EpollFd, EPOLL_CTL_DEL, Fd, nullptr);
    curl_multi_assign(static_cast<CURLM *>(L->Multi), Fd, nullptr);
    return 0;
  }
  epoll_event Ev{};
  Ev.data.fd = Fd;
  Ev.events = (What & CURL_POLL_IN ? uint32_t(EPOLLIN) : 0u) | (What & CURL_POLL_OUT ? uint32_t(EPOLLOUT) : 0u);
  if (SocketPtr) {
    epoll_ctl(L->EpollFd, EPOLL_CTL_MOD, Fd, &Ev);
  } else {
    epoll_ctl(L->EpollFd, EPOLL_CTL_ADD, Fd, &Ev);
    // Any non-null pointer marks the socket as registered.
    curl_multi_assign(static_cast<CURLM *>(L->Multi), Fd, L);
  }
  return 0;
}

int EventLoop::timerCallback(void *, long TimeoutMs, void *User) {
  auto *L = static_cast<EventLoop *>(User);
  L->CurlDeadlineNs = TimeoutMs < 0 ? -1 : monotonicNowNs() + int64_t(TimeoutMs) * 1000000;
  return 0;
}

void EventLoop::at(int64_t Ns, Callback Fn) { Timers.push(Timer{Ns, TimerSeq++, std::move(Fn)}); }

void *EventLoop::takeEasyHandle() {
  if (!FreeHandles.empty()) {
    void *H = FreeHandles.back();
    FreeHandles.pop_back();
    return H;
  }
  return curl_easy_init();
}

void EventLoop::stream(StreamRequest Request, RequestRecord Record, DoneCallback Done) {
  auto Owned = std::make_unique<Exchange>();
  Exchange *X = Owned.get();
  X->Loop = this;
  X->Request = std::move(Request);
  X->Record = std::move(Record);
  X->Done = std::move(Done);
  X->Easy = static_cast<CURL *>(takeEasyHandle());
  if (FreeSlots.empty()) {
    X->Slot = Exchanges.size();
    Exchanges.push_back(std::move(Owned));
  } else {
    X->Slot = FreeSlots.back();
    FreeSlots.pop_back();
    Exchanges[X->Slot] = std::move(Owned);
  }
  for (const std::string &H : X->Request.Headers)
    X->Headers = curl_slist_append(X->Headers, H.c_str());
  // No 100-continue round trip before large bodies (long-context prompts).
  X->Headers = curl_slist_append(X->Headers, "Expect:");

  CURL *E = X->Easy;
  curl_easy_setopt(E, CURLOPT_URL, X->Request.Url.c_str());
  curl_easy_setopt(E, CURLOPT_HTTP_VERSION, long(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(E, CURLOPT_POST, 1L);
  curl_easy_setopt(E, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(X->Request.Body.size()));
  curl_easy_setopt(E, CURLOPT_READFUNCTION, &Exchange::onRead);
  curl_easy_setopt(E, CURLOPT_READDATA, X);
  curl_easy_setopt(E, CURLOPT_SEEKFUNCTION, &Exchange::onSeek);
  curl_easy_setopt(E, CURLOPT_SEEKDATA, X);
  curl_easy_setopt(E, CURLOPT_WRITEFUNCTION, &Exchange::onWrite);
  curl_easy_setopt(E, CURLOPT_WRITEDATA, X);
  curl_easy_setopt(E, CURLOPT_HTTPHEADER, X->Headers);
  curl_easy_setopt(E, CURLOPT_PRIVATE, X);
  curl_easy_setopt(E, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(E, CURLOPT_TCP_NODELAY, 1L);
  curl_easy_setopt(E, CURLOPT_TIMEOUT_MS, Options.RequestTimeoutMs);
  curl_easy_setopt(E, CURLOPT_CONNECTTIMEOUT_MS, Options.ConnectTimeoutMs);
  curl_easy_setopt(E, CURLOPT_BUFFERSIZE, Options.ReceiveBufferBytes);
  // Benchmarks talk to a local server; a leaked proxy variable must not
  // reroute them (one of the documented launch hangs).
  curl_easy_setopt(E, CURLOPT_NOPROXY, "*");

  // One timestamp per output chunk: growing the vector while streaming would
  // copy it log2(OSL) times; the cap bounds memory for huge max_tokens.
  X->Record.ChunkNs.reserve(size_t(std::clamp<int64_t>(X->Record.MaxOutputTokens, 0, 16384)));

  ++Active;
  X->Record.DispatchedNs = monotonicNowNs();
  curl_multi_add_handle(static_cast<CURLM *>(Multi), E);
}

void EventLoop::finish(Exchange *X, int CurlCode) {
  RequestRecord &R = X->Record;
  R.EndNs = monotonicNowNs();
  R.HttpStatus = int(X->Status);
  if (!X->Status)
    curl_easy_getinfo(X->Easy, CURLINFO_RESPONSE_CODE, &X->Status), R.HttpStatus = int(X->Status);
  auto Fail = [&](ErrorKind K, std::string Msg) {
    R.Error = K;
    R.ErrorMessage = std::move(Msg);
  };
  if (CurlCode == CURLE_WRITE_ERROR && X->StreamFailed) {
    const std::string &Msg = X->Decoder.errorMessage();
    Fail(mentionsContextOverflow(Msg) ? ErrorKind::ContextOverflow : ErrorKind::MalformedStream,
         Msg);
  } else if (CurlCode == CURLE_COULDNT_CONNECT || CurlCode == CURLE_COULDNT_RESOLVE_HOST) {
    Fail(ErrorKind::Connect, curl_easy_strerror(CURLcode(CurlCode)));
  } else if (CurlCode == CURLE_OPERATION_TIMEDOUT) {
    Fail(ErrorKind::Timeout, curl_easy_strerror(CURLcode(CurlCode)));
  } else if (CurlCode != CURLE_OK) {
    Fail(ErrorKind::Transport, curl_easy_strerror(CURLcode(CurlCode)));
  } else if (X->Status < 200 || X->Status >= 300) {
    Fail(classifyHttpError(X->Status, X->ErrorBody),
         "HTTP " + std::to_string(X->Status) + ": " + X->ErrorBody.substr(0, 512));
  } else if (!X->Decoder.sawDone()) {
    Fail(ErrorKind::MalformedStream, "stream ended without [DONE]");
  } else if (!R.FirstTokenNs) {
    Fail(ErrorKind::MalformedStream, "stream carried no output");
  }
  if (X->Decoder.hasUsage()) {
    const Usage &U = X->Decoder.usage();
    R.InputTokens = U.PromptTokens >= 0 ? U.PromptTokens : R.ExpectedInputTokens;
    R.OutputTokens = U.CompletionTokens;
    R.CachedTokens = U.CachedTokens;
    R.UsageFromServer = U.PromptTokens >= 0;
  } else {
    // Without usage the chunk count stands in for the output length; the
    // record says so and the summary counts such requests.
    R.InputTokens = R.ExpectedInputTokens;
    R.OutputTokens = X->Decoder.outputChunks();
    R.UsageFromServer = false;
  }

  curl_multi_remove_handle(static_cast<CURLM *>(Multi), X->Easy);
  curl_slist_free_all(X->Headers);
  FreeHandles.push_back(X->Easy);
  std::unique_ptr<Exchange> Owned = std::move(Exchanges[X->Slot]);
  FreeSlots.push_back(X->Slot);
  --Active;
  Owned->Done(std::move(Owned->Record));
}

void EventLoop::drainCompleted() {
  int Left = 0;
  while (CURLMsg *Msg = curl_multi_info_read(static_cast<CURLM *>(Multi), &Left)) {
    if (Msg->msg != CURLMSG_DONE)
      continue;
    Exchange *X = nullptr;
    curl_easy_getinfo(Msg->easy_handle, CURLINFO_PRIVATE, &X);
    finish(X, Msg->data.result);
  }
}

void EventLoop::cancelAll() {
  for (auto &Slot : Exchanges) {
    if (!Slot)
      continue;
    Exchange *X = Slot.get();
    curl_multi_remove_handle(static_cast<CURLM *>(Multi), X->Easy);
    X->Record.EndNs = monotonicNowNs();
    X->Record.Error = ErrorKind::Cancelled;
    X->Record.ErrorMessage = "cancelled by the client";
    curl_slist_free_all(X->Headers);
    FreeHandles.push_back(X->Easy);
    std::unique_ptr<Exchange> Owned = std::move(Slot);
    FreeSlots.push_back(X->Slot);
    --Active;
    Owned->Done(std::move(Owned->Record));
  }
}

void EventLoop::runDueTimers() {
  int64_t Now = monotonicNowNs();
  while (!Timers.empty() && Timers.top().Ns <= Now && !Stopped) {
    Callback Fn = std::move(const_cast<Timer &>(Timers.top()).Fn);
    Timers.pop();
    Fn();
  }
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

void EventLoop::run() {
  Stopped = false;
  // Timer expiries are otherwise rounded up by the thread's default 50 us
  // slack, which lands directly in the send lag.
  int OldSlack = prctl(PR_GET_TIMERSLACK, 0, 0, 0, 0);
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
  CURLM *M = static_cast<CURLM *>(Multi);
  epoll_event Events[256];
  int Running = 0;
  while (!Stopped && (Active || !Timers.empty())) {
    int64_t Next = Timers.empty() ? -1 : Timers.top().Ns;
    if (CurlDeadlineNs >= 0 && (Next < 0 || CurlDeadlineNs < Next))
      Next = CurlDeadlineNs;
    int WaitMs = -1;
    if (Next >= 0 && Next <= monotonicNowNs())
      WaitMs = 0;
    else
      armTimer(Next);
    int N = epoll_wait(EpollFd, Events, 256, WaitMs);
    if (N < 0 && errno != EINTR)
      throw std::runtime_error(std::string("epoll_wait: ") + std::strerror(errno));
    for (int I = 0; I < N; ++I) {
      int Fd = Events[I].data.fd;
      if (Fd == TimerFd) {
        uint64_t Expirations;
        [[maybe_unused]] ssize_t R = read(TimerFd, &Expirations, sizeof(Expirations));
        ArmedNs = -1;
        continue;
      }
      if (Fd == WakeFd) {
        uint64_t Count;
        [[maybe_unused]] ssize_t R = read(WakeFd, &Count, sizeof(Count));
        if (InterruptHandler)
          InterruptHandler();
        continue;
      }
      int Mask = (Events[I].events & EPOLLIN ? CURL_CSELECT_IN : 0) |
                 (Events[I].events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                 (Events[I].events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
      curl_multi_socket_action(M, Fd, Mask, &Running);
      // A large batch of stream events must not hold back a scheduled send:
      // look at the timer heap every few events.
      if ((I & 15) == 15 && !Timers.empty() && Timers.top().Ns <= monotonicNowNs()) {
        drainCompleted();
        runDueTimers();
      }
    }
    if (CurlDeadlineNs >= 0 && CurlDeadlineNs <= monotonicNowNs()) {
      CurlDeadlineNs = -1;
      curl_multi_socket_action(M, CURL_SOCKET_TIMEOUT, 0, &Running);
    }
    drainCompleted();
    runDueTimers();
  }
  if (OldSlack > 0)
    prctl(PR_SET_TIMERSLACK, static_cast<unsigned long>(OldSlack), 0, 0, 0);
}
