//===- NativeHttp.cpp - HTTP/1.1 on edge-triggered sockets ----------------===//
//
// One connection carries one exchange at a time (no pipelining). Sockets are
// registered once, edge-triggered, for input, output and peer hang-up, so
// no epoll_ctl call is made per request. A read takes everything queued on
// the socket into the loop's shared buffer; a short read means the queue is
// empty and the next arrival raises a new edge, so no read ends in EAGAIN
// unless the peer hung up. A request that finds its reused keep-alive
// connection closed by the server before any response byte is retried once
// on a fresh connection, as libcurl does.
//
//===----------------------------------------------------------------------===//

#include "TransportBackends.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

using namespace arecipe::client;

struct EventLoop::NativeHttp::Pool {
  std::string Key;
  std::vector<sockaddr_storage> Addrs;
  std::vector<socklen_t> AddrLens;
  std::string ResolveError;
  std::vector<Conn *> Idle; // Conn::IdleIndex is the place
};

struct EventLoop::NativeHttp::Conn : EventLoop::Watcher {
  enum class Phase { Connecting, Writing, Reading, Idle };

  NativeHttp *Owner = nullptr;
  Pool *P = nullptr;
  size_t Index = 0, IdleIndex = 0, AddrIndex = 0;
  int Fd = -1;
  bool Dead = false;
  bool Reused = false; ///< carried an earlier exchange
  Phase Ph = Phase::Connecting;
  Exchange *X = nullptr;
  std::string Head; ///< request line and headers of X
  size_t Written = 0;
  HttpResponseParser Http;
  int64_t ConnectDeadlineNs = 0;

  void onEvents(uint32_t Events) override;
  void writeRequest();
  void readAvailable(uint32_t Events);
  void received(std::string_view Bytes, int64_t Now);
  void peerClosed();
  void failed(int Errno);
  /// Finishes X and lets go of it; the connection stays as it is.
  void finishExchange(ErrorKind Kind, std::string Message);
};

namespace {
std::string errnoText(int Errno) { return std::strerror(Errno); }

bool validHeader(std::string_view H) {
  size_t Colon = H.find(':');
  return Colon != std::string_view::npos && Colon > 0 &&
         H.find_first_of("\r\n") == std::string_view::npos;
}

bool headerIs(std::string_view H, std::string_view Name) {
  if (H.size() <= Name.size() || H[Name.size()] != ':')
    return false;
  for (size_t I = 0; I < Name.size(); ++I)
    if (std::tolower(static_cast<unsigned char>(H[I])) != Name[I])
      return false;
  return true;
}

bool emptyValue(std::string_view H) {
  size_t Colon = H.find(':');
  return H.find_first_not_of(" \t", Colon + 1) == std::string_view::npos;
}
} // namespace

EventLoop::NativeHttp::NativeHttp(EventLoop &Loop) : Loop(Loop) {}

EventLoop::NativeHttp::~NativeHttp() {
  for (auto &C : Conns)
    if (C->Fd >= 0)
      ::close(C->Fd);
}

void EventLoop::NativeHttp::start(Exchange &X, const ParsedUrl &Url) {
  // The request head: no Expect (no 100-continue round trip before large
  // bodies), a Host unless the caller set one, never the caller's
  // Content-Length, and no header whose value is empty (libcurl's way of
  // removing one, kept for compatibility of --header).
  std::string Head;
  Head.reserve(256);
  Head.append("POST ").append(Url.Target).append(" HTTP/1.1\r\n");
  bool HasHost = false;
  for (const std::string &H : X.Request.Headers) {
    if (!validHeader(H)) {
      Loop.finish(X, ErrorKind::Transport,
                  "request header is not 'Name: value' on one line: " + H.substr(0, 80));
      return;
    }
    if (headerIs(H, "content-length") || headerIs(H, "expect") || emptyValue(H))
      continue;
    HasHost |= headerIs(H, "host");
    Head.append(H).append("\r\n");
  }
  if (!HasHost)
    Head.append("Host: ").append(Url.HostPort).append("\r\n");
  char Len[24];
  auto [End, Ec] = std::to_chars(Len, Len + sizeof(Len), X.Request.Body.size());
  Head.append("Content-Length: ").append(Len, End).append("\r\n\r\n");

  std::string Key = Url.Host + "\n" + Url.Port;
  auto &Slot = Pools[Key];
  if (!Slot) {
    Slot = std::make_unique<Pool>();
    Slot->Key = Key;
    addrinfo Hints{};
    Hints.ai_family = AF_UNSPEC;
    Hints.ai_socktype = SOCK_STREAM;
    addrinfo *Res = nullptr;
    int Rc = getaddrinfo(Url.Host.c_str(), Url.Port.c_str(), &Hints, &Res);
    if (Rc != 0) {
      Slot->ResolveError = "could not resolve host '" + Url.Host + "': " + gai_strerror(Rc);
    } else {
      for (addrinfo *A = Res; A; A = A->ai_next) {
        sockaddr_storage S{};
        std::memcpy(&S, A->ai_addr, A->ai_addrlen);
        Slot->Addrs.push_back(S);
        Slot->AddrLens.push_back(A->ai_addrlen);
      }
      freeaddrinfo(Res);
    }
  }
  Pool &P = *Slot;
  if (P.Addrs.empty()) {
    Loop.finish(X, ErrorKind::Connect,
                P.ResolveError.empty() ? "no address for the host" : P.ResolveError);
    return;
  }
  // Keep-alive first: the most recently used idle connection is the least
  // likely to have been closed by the server.
  if (!P.Idle.empty()) {
    Conn &C = *P.Idle.back();
    P.Idle.pop_back();
    --IdleCount;
    C.Ph = Conn::Phase::Writing;
    C.Reused = true;
    C.X = &X;
    C.Head = std::move(Head);
    C.Written = 0;
    C.Http.reset();
    X.Transfer = &C;
    C.writeRequest();
    return;
  }
  openConn(X, P, std::move(Head));
}

void EventLoop::NativeHttp::openConn(Exchange &X, Pool &P, std::string Head) {
  auto Owned = std::make_unique<Conn>();
  Conn &C = *Owned;
  C.Owner = this;
  C.P = &P;
  C.X = &X;
  C.Head = std::move(Head);
  C.Index = Conns.size();
  Conns.push_back(std::move(Owned));
  X.Transfer = &C;
  connect(X, P, 0);
}

void EventLoop::NativeHttp::connect(Exchange &X, Pool &P, size_t AddrIndex) {
  Conn &C = *static_cast<Conn *>(X.Transfer);
  for (; AddrIndex < P.Addrs.size(); ++AddrIndex) {
    const sockaddr_storage &A = P.Addrs[AddrIndex];
    int Fd = ::socket(A.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (Fd < 0) {
      C.finishExchange(ErrorKind::Connect, "socket: " + errnoText(errno));
      closeConn(C);
      return;
    }
    int One = 1;
    setsockopt(Fd, IPPROTO_TCP, TCP_NODELAY, &One, sizeof(One));
    int Rc = ::connect(Fd, reinterpret_cast<const sockaddr *>(&A), P.AddrLens[AddrIndex]);
    if (Rc != 0 && errno != EINPROGRESS) {
      int Err = errno;
      ::close(Fd);
      if (AddrIndex + 1 < P.Addrs.size())
        continue; // e.g. localhost: ::1 refused, 127.0.0.1 next
      C.finishExchange(ErrorKind::Connect, errnoText(Err));
      closeConn(C);
      return;
    }
    C.Fd = Fd;
    C.AddrIndex = AddrIndex;
    epoll_event Ev{};
    Ev.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
    Ev.data.ptr = static_cast<Watcher *>(&C);
    epoll_ctl(Loop.epollFd(), EPOLL_CTL_ADD, Fd, &Ev);
    if (Rc == 0) {
      C.Ph = Conn::Phase::Writing;
      C.writeRequest();
    } else {
      C.Ph = Conn::Phase::Connecting;
      C.ConnectDeadlineNs =
          monotonicNowNs() + int64_t(std::max(1L, Loop.options().ConnectTimeoutMs)) * 1000000;
    }
    return;
  }
}

void EventLoop::NativeHttp::abort(Exchange &X) {
  auto *C = static_cast<Conn *>(X.Transfer);
  if (!C)
    return;
  C->X = nullptr;
  X.Transfer = nullptr;
  closeConn(*C);
}

void EventLoop::NativeHttp::closeConn(Conn &C) {
  if (C.Dead)
    return;
  C.Dead = true;
  if (C.Ph == Conn::Phase::Idle) {
    std::vector<Conn *> &Idle = C.P->Idle;
    Idle[C.IdleIndex] = Idle.back();
    Idle[C.IdleIndex]->IdleIndex = C.IdleIndex;
    Idle.pop_back();
    --IdleCount;
  }
  if (C.Fd >= 0)
    ::close(C.Fd); // also leaves the epoll set
  C.Fd = -1;
  size_t I = C.Index;
  std::unique_ptr<Conn> Owned = std::move(Conns[I]);
  if (I + 1 != Conns.size()) {
    Conns[I] = std::move(Conns.back());
    Conns[I]->Index = I;
  }
  Conns.pop_back();
  // Events of this batch may still name it.
  Loop.retire(std::move(Owned));
}

void EventLoop::NativeHttp::toIdle(Conn &C) {
  C.X = nullptr;
  C.Head.clear();
  C.Written = 0;
  C.Http.reset();
  if (long(IdleCount) >= Loop.options().MaxCachedConnections) {
    closeConn(C);
    return;
  }
  C.Ph = Conn::Phase::Idle;
  C.IdleIndex = C.P->Idle.size();
  C.P->Idle.push_back(&C);
  ++IdleCount;
}

void EventLoop::NativeHttp::retry(Conn &C) {
  Exchange &X = *C.X;
  Pool &P = *C.P;
  std::string Head = std::move(C.Head);
  C.X = nullptr;
  closeConn(C);
  ++X.Attempts;
  openConn(X, P, std::move(Head));
}

void EventLoop::NativeHttp::sweep(int64_t Now) {
  std::vector<Conn *> Late;
  for (auto &C : Conns)
    if (C->Ph == Conn::Phase::Connecting && C->X && Now >= C->ConnectDeadlineNs)
      Late.push_back(C.get());
  for (Conn *C : Late) {
    C->finishExchange(ErrorKind::Timeout, "connect timed out after " +
                                              std::to_string(Loop.options().ConnectTimeoutMs) +
                                              " ms");
    closeConn(*C);
  }
}

void EventLoop::NativeHttp::Conn::finishExchange(ErrorKind Kind, std::string Message) {
  Exchange *E = X;
  X = nullptr;
  if (E)
    Owner->Loop.finish(*E, Kind, std::move(Message));
}

void EventLoop::NativeHttp::Conn::onEvents(uint32_t Events) {
  if (Dead)
    return;
  if (Ph == Phase::Connecting) {
    if (!(Events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
      return;
    int Err = 0;
    socklen_t Len = sizeof(Err);
    getsockopt(Fd, SOL_SOCKET, SO_ERROR, &Err, &Len);
    if (Err) {
      Exchange &E = *X;
      if (AddrIndex + 1 < P->Addrs.size()) {
        // The next address of the host, on a fresh socket.
        ::close(Fd);
        Fd = -1;
        Owner->connect(E, *P, AddrIndex + 1);
        return;
      }
      finishExchange(ErrorKind::Connect, errnoText(Err));
      Owner->closeConn(*this);
      return;
    }
    Ph = Phase::Writing;
  }
  if (Ph == Phase::Writing && (Events & (EPOLLOUT | EPOLLERR | EPOLLHUP))) {
    writeRequest();
    if (Dead)
      return;
  }
  if (Events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
    readAvailable(Events);
}

void EventLoop::NativeHttp::Conn::writeRequest() {
  const std::string &Body = X->Request.Body;
  size_t Total = Head.size() + Body.size();
  while (Written < Total) {
    iovec Iov[2];
    int N = 0;
    if (Written < Head.size()) {
      Iov[N++] = {Head.data() + Written, Head.size() - Written};
      if (!Body.empty())
        Iov[N++] = {const_cast<char *>(Body.data()), Body.size()};
    } else {
      size_t Off = Written - Head.size();
      Iov[N++] = {const_cast<char *>(Body.data()) + Off, Body.size() - Off};
    }
    msghdr M{};
    M.msg_iov = Iov;
    M.msg_iovlen = size_t(N);
    int64_t Now = monotonicNowNs();
    ssize_t Sent = ::sendmsg(Fd, &M, MSG_NOSIGNAL);
    if (Sent > 0) {
      if (!X->Record.SentNs)
        X->Record.SentNs = Now;
      Written += size_t(Sent);
      continue;
    }
    if (Sent < 0 && errno == EINTR)
      continue;
    if (Sent < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
      return; // the next EPOLLOUT edge resumes
    int Err = Sent < 0 ? errno : EPIPE;
    if (Err == EPIPE || Err == ECONNRESET) {
      // The server may have answered (a 413 before reading the whole body)
      // and closed: read what it said before calling it a failure.
      readAvailable(EPOLLRDHUP);
      if (Dead || !X)
        return;
    }
    failed(Err);
    return;
  }
  Ph = Phase::Reading;
}

void EventLoop::NativeHttp::Conn::readAvailable(uint32_t Events) {
  char *Buf = Owner->Loop.readBuffer();
  size_t Cap = Owner->Loop.readBufferSize();
  bool HangUp = Events & (EPOLLRDHUP | EPOLLHUP | EPOLLERR);
  for (;;) {
    ssize_t N = ::recv(Fd, Buf, Cap, 0);
    if (N > 0) {
      if (!X) {
        // Bytes nobody asked for on an idle connection: it cannot be reused.
        Owner->closeConn(*this);
        return;
      }
      received(std::string_view(Buf, size_t(N)), monotonicNowNs());
      if (Dead)
        return;
      // A short read emptied the socket; new data raises a new edge.
      if (size_t(N) < Cap && !HangUp)
        return;
      continue;
    }
    if (N == 0) {
      peerClosed();
      return;
    }
    if (errno == EINTR)
      continue;
    if (errno != EAGAIN && errno != EWOULDBLOCK)
      failed(errno);
    return;
  }
}

void EventLoop::NativeHttp::Conn::received(std::string_view Bytes, int64_t Now) {
  X->NowNs = Now;
  size_t Used = Http.feed(Bytes, *X);
  if (X->StreamFailed) {
    finishExchange(ErrorKind::None, "");
    Owner->closeConn(*this);
  } else if (Http.failed()) {
    finishExchange(ErrorKind::Transport, "malformed HTTP response: " + Http.error());
    Owner->closeConn(*this);
  } else if (Http.done()) {
    bool Reusable = Http.head().KeepAlive && Used == Bytes.size() && Ph == Phase::Reading;
    finishExchange(ErrorKind::None, "");
    if (Reusable)
      Owner->toIdle(*this);
    else
      Owner->closeConn(*this);
  }
}

void EventLoop::NativeHttp::Conn::peerClosed() {
  if (!X) {
    Owner->closeConn(*this);
    return;
  }
  if (!Http.started() && Reused && X->Attempts == 0) {
    Owner->retry(*this);
    return;
  }
  X->NowNs = monotonicNowNs();
  Http.eof(*X);
  if (Http.done())
    finishExchange(ErrorKind::None, "");
  else
    finishExchange(ErrorKind::Transport,
                   Http.started() ? "connection closed before the response ended"
                                  : "the server closed the connection without a response");
  Owner->closeConn(*this);
}

void EventLoop::NativeHttp::Conn::failed(int Errno) {
  if (!X) {
    Owner->closeConn(*this);
    return;
  }
  if (!Http.started() && Reused && X->Attempts == 0 && (Errno == ECONNRESET || Errno == EPIPE)) {
    Owner->retry(*this);
    return;
  }
  finishExchange(ErrorKind::Transport, errnoText(Errno));
  Owner->closeConn(*this);
}
