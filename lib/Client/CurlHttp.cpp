//===- CurlHttp.cpp - libcurl multi socket transport on the loop ----------===//
//
// For what the native transport does not speak: https:// (TLS) and URLs with
// credentials. libcurl's sockets join the loop's epoll set (level-triggered,
// as libcurl expects) and its timer becomes one of the loop's deadlines.
// Decoding and classification are the Exchange's, as on the native path.
//
//===----------------------------------------------------------------------===//

#include "CurlLibrary.h"
#include "TransportBackends.h"

#include <curl/curl.h>

#include <sys/epoll.h>

#include <algorithm>
#include <cstring>

using namespace arecipe::client;
using detail::curlLibrary;

struct EventLoop::CurlHttp::Socket : EventLoop::Watcher {
  CurlHttp *Owner = nullptr;
  int Fd = -1;
  bool Removed = false;
  void onEvents(uint32_t Events) override {
    if (Removed)
      return;
    int Mask = (Events & EPOLLIN ? CURL_CSELECT_IN : 0) |
               (Events & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
               (Events & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0);
    Owner->action(Fd, Mask);
  }
};

struct EventLoop::CurlHttp::Transfer {
  const detail::CurlLibrary *Lib = nullptr;
  Exchange *X = nullptr;
  CURL *Easy = nullptr;
  curl_slist *Headers = nullptr;
  size_t BodyOffset = 0;

  static size_t onWrite(char *Ptr, size_t Size, size_t N, void *User) {
    auto *T = static_cast<Transfer *>(User);
    Exchange &X = *T->X;
    size_t Len = Size * N;
    X.NowNs = monotonicNowNs();
    if (!X.Status) {
      T->Lib->easy_getinfo(T->Easy, CURLINFO_RESPONSE_CODE, &X.Status);
      X.Loop->noteProgress(X.NowNs);
    }
    // Returning short aborts the transfer: the stream failed.
    return X.onBody(std::string_view(Ptr, Len)) ? Len : 0;
  }

  static size_t onRead(char *Buf, size_t Size, size_t N, void *User) {
    auto *T = static_cast<Transfer *>(User);
    Exchange &X = *T->X;
    if (!X.Record.SentNs)
      X.Record.SentNs = monotonicNowNs();
    size_t Len = std::min(Size * N, X.Request.Body.size() - T->BodyOffset);
    std::memcpy(Buf, X.Request.Body.data() + T->BodyOffset, Len);
    T->BodyOffset += Len;
    return Len;
  }

  // libcurl rewinds when it retries a request on a fresh connection after a
  // kept-alive one turned out to be closed by the server.
  static int onSeek(void *User, curl_off_t Offset, int Origin) {
    auto *T = static_cast<Transfer *>(User);
    if (Origin != SEEK_SET || Offset < 0 || size_t(Offset) > T->X->Request.Body.size())
      return CURL_SEEKFUNC_FAIL;
    T->BodyOffset = size_t(Offset);
    return CURL_SEEKFUNC_OK;
  }
};

EventLoop::CurlHttp::CurlHttp(EventLoop &Loop) : Loop(Loop) {
  Lib = curlLibrary(LoadError);
  if (!Lib) {
    LoadError = "cannot load libcurl: " + LoadError;
    return; // every transfer fails with LoadError
  }
  Multi = Lib->multi_init();
  CURLM *M = static_cast<CURLM *>(Multi);
  Lib->multi_setopt(M, CURLMOPT_SOCKETFUNCTION, socketCallback);
  Lib->multi_setopt(M, CURLMOPT_SOCKETDATA, this);
  Lib->multi_setopt(M, CURLMOPT_TIMERFUNCTION, timerCallback);
  Lib->multi_setopt(M, CURLMOPT_TIMERDATA, this);
  // No pool caps: a capped pool silently turns concurrency C into min(C, cap).
  Lib->multi_setopt(M, CURLMOPT_MAX_TOTAL_CONNECTIONS, 0L);
  Lib->multi_setopt(M, CURLMOPT_MAX_HOST_CONNECTIONS, 0L);
  Lib->multi_setopt(M, CURLMOPT_MAXCONNECTS, Loop.options().MaxCachedConnections);
  Lib->multi_setopt(M, CURLMOPT_PIPELINING, long(CURLPIPE_NOTHING));
}

EventLoop::CurlHttp::~CurlHttp() {
  if (!Lib)
    return;
  for (void *H : FreeHandles)
    Lib->easy_cleanup(static_cast<CURL *>(H));
  Lib->multi_cleanup(static_cast<CURLM *>(Multi));
}

int EventLoop::CurlHttp::socketCallback(void *, int Fd, int What, void *User, void *SocketPtr) {
  auto *Self = static_cast<CurlHttp *>(User);
  auto *S = static_cast<Socket *>(SocketPtr);
  CURLM *M = static_cast<CURLM *>(Self->Multi);
  if (What == CURL_POLL_REMOVE) {
    epoll_ctl(Self->Loop.epollFd(), EPOLL_CTL_DEL, Fd, nullptr);
    Self->Lib->multi_assign(M, Fd, nullptr);
    if (S) {
      S->Removed = true;
      Self->Loop.retire(std::unique_ptr<Watcher>(S));
    }
    return 0;
  }
  epoll_event Ev{};
  Ev.events = (What & CURL_POLL_IN ? uint32_t(EPOLLIN) : 0u) |
              (What & CURL_POLL_OUT ? uint32_t(EPOLLOUT) : 0u);
  if (S) {
    Ev.data.ptr = static_cast<Watcher *>(S);
    epoll_ctl(Self->Loop.epollFd(), EPOLL_CTL_MOD, Fd, &Ev);
    return 0;
  }
  S = new Socket();
  S->Owner = Self;
  S->Fd = Fd;
  Ev.data.ptr = static_cast<Watcher *>(S);
  epoll_ctl(Self->Loop.epollFd(), EPOLL_CTL_ADD, Fd, &Ev);
  Self->Lib->multi_assign(M, Fd, S);
  return 0;
}

int EventLoop::CurlHttp::timerCallback(void *, long TimeoutMs, void *User) {
  auto *Self = static_cast<CurlHttp *>(User);
  Self->Loop.setCurlDeadline(TimeoutMs < 0 ? -1 : monotonicNowNs() + int64_t(TimeoutMs) * 1000000);
  return 0;
}

void EventLoop::CurlHttp::start(Exchange &X) {
  if (!Lib) {
    Loop.finish(X, ErrorKind::Transport, LoadError);
    return;
  }
  auto *T = new Transfer();
  T->Lib = Lib;
  T->X = &X;
  X.Transfer = T;
  if (!FreeHandles.empty()) {
    T->Easy = static_cast<CURL *>(FreeHandles.back());
    FreeHandles.pop_back();
  } else {
    T->Easy = Lib->easy_init();
  }
  for (const std::string &H : X.Request.Headers)
    T->Headers = Lib->slist_append(T->Headers, H.c_str());
  // No 100-continue round trip before large bodies (long-context prompts).
  T->Headers = Lib->slist_append(T->Headers, "Expect:");

  CURL *E = T->Easy;
  Lib->easy_setopt(E, CURLOPT_URL, X.Request.Url.c_str());
  Lib->easy_setopt(E, CURLOPT_HTTP_VERSION, long(CURL_HTTP_VERSION_1_1));
  Lib->easy_setopt(E, CURLOPT_POST, 1L);
  Lib->easy_setopt(E, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(X.Request.Body.size()));
  Lib->easy_setopt(E, CURLOPT_READFUNCTION, &Transfer::onRead);
  Lib->easy_setopt(E, CURLOPT_READDATA, T);
  Lib->easy_setopt(E, CURLOPT_SEEKFUNCTION, &Transfer::onSeek);
  Lib->easy_setopt(E, CURLOPT_SEEKDATA, T);
  Lib->easy_setopt(E, CURLOPT_WRITEFUNCTION, &Transfer::onWrite);
  Lib->easy_setopt(E, CURLOPT_WRITEDATA, T);
  Lib->easy_setopt(E, CURLOPT_HTTPHEADER, T->Headers);
  Lib->easy_setopt(E, CURLOPT_PRIVATE, T);
  Lib->easy_setopt(E, CURLOPT_NOSIGNAL, 1L);
  Lib->easy_setopt(E, CURLOPT_TCP_NODELAY, 1L);
  // The loop's sweep enforces the request timeout on both transports.
  Lib->easy_setopt(E, CURLOPT_CONNECTTIMEOUT_MS, Loop.options().ConnectTimeoutMs);
  Lib->easy_setopt(E, CURLOPT_BUFFERSIZE,
                   std::clamp<long>(Loop.options().ReceiveBufferBytes, 1024, 512 * 1024));
  // Benchmarks talk to a chosen server; a leaked proxy variable must not
  // reroute them (one of the documented launch hangs).
  Lib->easy_setopt(E, CURLOPT_NOPROXY, "*");
  Lib->multi_add_handle(static_cast<CURLM *>(Multi), E);
}

void EventLoop::CurlHttp::releaseTransfer(Exchange &X) {
  auto *T = static_cast<Transfer *>(X.Transfer);
  if (!T)
    return;
  Lib->multi_remove_handle(static_cast<CURLM *>(Multi), T->Easy);
  Lib->slist_free_all(T->Headers);
  FreeHandles.push_back(T->Easy);
  X.Transfer = nullptr;
  delete T;
}

void EventLoop::CurlHttp::abort(Exchange &X) { releaseTransfer(X); }

void EventLoop::CurlHttp::action(int Fd, int Mask) {
  int Running = 0;
  Lib->multi_socket_action(static_cast<CURLM *>(Multi), Fd, Mask, &Running);
  drain();
}

void EventLoop::CurlHttp::onTimeout() { action(CURL_SOCKET_TIMEOUT, 0); }

void EventLoop::CurlHttp::drain() {
  int Left = 0;
  while (CURLMsg *Msg = Lib->multi_info_read(static_cast<CURLM *>(Multi), &Left)) {
    if (Msg->msg != CURLMSG_DONE)
      continue;
    Transfer *T = nullptr;
    Lib->easy_getinfo(Msg->easy_handle, CURLINFO_PRIVATE, &T);
    Exchange &X = *T->X;
    CURLcode Code = Msg->data.result;
    if (!X.Status)
      Lib->easy_getinfo(T->Easy, CURLINFO_RESPONSE_CODE, &X.Status);
    releaseTransfer(X);
    ErrorKind Kind = ErrorKind::None;
    std::string Message;
    if (Code == CURLE_COULDNT_CONNECT || Code == CURLE_COULDNT_RESOLVE_HOST)
      Kind = ErrorKind::Connect;
    else if (Code == CURLE_OPERATION_TIMEDOUT)
      Kind = ErrorKind::Timeout;
    else if (Code != CURLE_OK && !(Code == CURLE_WRITE_ERROR && X.StreamFailed))
      Kind = ErrorKind::Transport;
    if (Kind != ErrorKind::None)
      Message = Lib->easy_strerror(Code);
    Loop.finish(X, Kind, std::move(Message));
  }
}
