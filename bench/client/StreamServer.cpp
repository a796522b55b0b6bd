//===- StreamServer.cpp - A minimal, fast OpenAI streaming server ---------===//

#include "StreamServer.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>
#include <unordered_map>
#include <vector>

using namespace arecipe::bench;

namespace {
enum class Mode { Normal, NoUsage, Malformed, Truncated };

struct Conn {
  int Fd = -1;
  std::string In, Out;
  size_t OutOff = 0;
  bool Streaming = false, Chat = false, WantWrite = false;
  bool Raw = false;              // body without chunked framing
  bool CloseWhenFlushed = false; // close once Out is sent
  bool Closing = false;          // take no more requests
  int Responses = 0;
  Mode M = Mode::Normal;
  int64_t Remaining = 0, Emitted = 0, Prompt = 0;
};

void appendChunk(std::string &Out, std::string_view Data) {
  char Hex[20];
  int N = std::snprintf(Hex, sizeof(Hex), "%zx\r\n", Data.size());
  Out.append(Hex, N);
  Out.append(Data);
  Out.append("\r\n");
}

void appendEvent(std::string &Out, std::string_view Json, bool Raw = false) {
  std::string Ev;
  Ev.reserve(Json.size() + 8);
  Ev.append("data: ").append(Json).append("\n\n");
  if (Raw)
    Out.append(Ev);
  else
    appendChunk(Out, Ev);
}

std::string lower(std::string S) {
  for (char &C : S)
    C = char(std::tolower(C));
  return S;
}
} // namespace

struct StreamServer::Impl {
  StreamServerOptions O;
  int ListenFd = -1, EpollFd = -1, TickFd = -1, WakeFd = -1;
  std::atomic<bool> Stop{false};
  std::unordered_map<int, Conn> Conns;
  std::vector<int> Streaming;
  mutable std::mutex SessionsMutex;
  std::set<std::string> Sessions;
  std::atomic<uint64_t> *Served = nullptr;
  std::atomic<uint64_t> Accepted{0};
  std::vector<int> ToClose; // closed after the current event, not during it

  void flush(Conn &C) {
    while (C.OutOff < C.Out.size()) {
      ssize_t N = ::send(C.Fd, C.Out.data() + C.OutOff, C.Out.size() - C.OutOff, MSG_NOSIGNAL);
      if (N < 0) {
        if (errno == EAGAIN) {
          if (!C.WantWrite) {
            epoll_event Ev{};
            Ev.events = EPOLLIN | EPOLLOUT;
            Ev.data.fd = C.Fd;
            epoll_ctl(EpollFd, EPOLL_CTL_MOD, C.Fd, &Ev);
            C.WantWrite = true;
          }
          return;
        }
        C.Out.clear();
        C.OutOff = 0;
        return;
      }
      C.OutOff += size_t(N);
    }
    C.Out.clear();
    C.OutOff = 0;
    if (C.CloseWhenFlushed) {
      ToClose.push_back(C.Fd);
      return;
    }
    if (C.WantWrite) {
      epoll_event Ev{};
      Ev.events = EPOLLIN;
      Ev.data.fd = C.Fd;
      epoll_ctl(EpollFd, EPOLL_CTL_MOD, C.Fd, &Ev);
      C.WantWrite = false;
    }
  }

  void respond(Conn &C, int Status, std::string_view Body) {
    char Head[160];
    int N = std::snprintf(Head, sizeof(Head),
                          "HTTP/1.1 %d X\r\nContent-Type: application/json\r\n"
                          "Content-Length: %zu\r\n\r\n",
                          Status, Body.size());
    C.Out.append(Head, N).append(Body);
  }

  // Parses every complete request in C.In.
  void handleInput(Conn &C) {
    while (!C.Streaming && !C.Closing) {
      size_t HeadEnd = C.In.find("\r\n\r\n");
      if (HeadEnd == std::string::npos)
        return;
      std::string Head = C.In.substr(0, HeadEnd);
      std::string LowerHead = lower(Head);
      size_t Length = 0;
      if (size_t P = LowerHead.find("content-length:"); P != std::string::npos)
        Length = std::strtoull(Head.c_str() + P + 15, nullptr, 10);
      if (C.In.size() < HeadEnd + 4 + Length)
        return;
      std::string Body = C.In.substr(HeadEnd + 4, Length);
      C.In.erase(0, HeadEnd + 4 + Length);
      if (size_t P = LowerHead.find("x-session-id:"); P != std::string::npos) {
        size_t E = Head.find("\r\n", P);
        std::string Id = Head.substr(P + 13, E == std::string::npos ? std::string::npos : E - P - 13);
        Id.erase(0, Id.find_first_not_of(' '));
        std::lock_guard<std::mutex> G(SessionsMutex);
        Sessions.insert(Id);
      }
      startRequest(C, Head, Body);
    }
  }

  void startRequest(Conn &C, const std::string &Head, const std::string &Body) {
    if (Body.find("\"model\":\"drop-reused\"") != std::string::npos && C.Responses > 0) {
      // Closed without an answer, as a server whose keep-alive timeout
      // expired just as the request arrived.
      C.Closing = true;
      ToClose.push_back(C.Fd);
      return;
    }
    ++C.Responses;
    ++*Served;
    if (Head.rfind("GET /health", 0) == 0) {
      respond(C, 200, "{}");
      return;
    }
    bool Chat = Head.rfind("POST /v1/chat/completions", 0) == 0;
    if (!Chat && Head.rfind("POST /v1/completions", 0) != 0) {
      respond(C, 404, "{\"error\":{\"message\":\"not found\"}}");
      return;
    }
    auto Has = [&](const char *Model) {
      return Body.find(std::string("\"model\":\"") + Model + "\"") != std::string::npos;
    };
    if (Has("fail-context")) {
      respond(C, 400, "{\"error\":{\"message\":\"This model's maximum context length is 16 "
                      "tokens, but the request has 4096\"}}");
      return;
    }
    if (Has("fail-500")) {
      respond(C, 500, "{\"error\":{\"message\":\"engine died\"}}");
      return;
    }
    C.M = Has("fail-malformed") ? Mode::Malformed
          : Has("fail-truncated") ? Mode::Truncated
          : Has("no-usage")     ? Mode::NoUsage
                                : Mode::Normal;
    int64_t MaxTokens = 16;
    if (size_t P = Body.find("\"max_tokens\":"); P != std::string::npos)
      MaxTokens = std::max<int64_t>(1, std::strtoll(Body.c_str() + P + 13, nullptr, 10));
    C.Prompt = int64_t(std::count(Body.begin(), Body.end(), ' ')) + 1;
    C.Chat = Chat;
    C.Remaining = MaxTokens;
    C.Emitted = 0;
    C.Streaming = true;
    // Framings other than chunked keep-alive, for the transport's tests.
    C.Raw = Has("until-close");
    if (C.Raw) {
      C.Out.append("HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n");
    } else {
      C.Out.append("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                   "Transfer-Encoding: chunked\r\n");
      C.Out.append(Has("close-after") ? "Connection: close\r\n\r\n" : "\r\n");
    }
    C.CloseWhenFlushed = false;
    C.Closing = C.Raw || Has("close-after");
    if (Chat)
      appendEvent(C.Out, "{\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\"}}]}", C.Raw);
    if (Has("stall"))
      return; // the head, then nothing, ever
    Streaming.push_back(C.Fd);
  }

  // One chunk for one stream; returns false when the stream finished.
  bool emit(Conn &C) {
    if (C.M == Mode::Malformed) {
      appendEvent(C.Out, "{not json", C.Raw);
      C.Remaining = 0;
    } else {
      int64_t N = std::min(C.Remaining, std::max<int64_t>(1, O.TokensPerChunk));
      std::string Json = C.Chat ? "{\"choices\":[{\"index\":0,\"delta\":{\"content\":\""
                                : "{\"choices\":[{\"index\":0,\"text\":\"";
      for (int64_t K = 0; K < N; ++K)
        Json += "tok ";
      Json += C.Chat ? "\"}}]}" : "\"}]}";
      appendEvent(C.Out, Json, C.Raw);
      C.Emitted += N;
      C.Remaining -= N;
    }
    if (C.Remaining > 0)
      return true;
    if (C.M == Mode::Normal || C.M == Mode::Truncated) {
      char Usage[256];
      std::snprintf(Usage, sizeof(Usage),
                    "{\"choices\":[],\"usage\":{\"prompt_tokens\":%lld,\"completion_tokens\":%lld,"
                    "\"total_tokens\":%lld,\"prompt_tokens_details\":{\"cached_tokens\":0}}}",
                    (long long)C.Prompt, (long long)C.Emitted, (long long)(C.Prompt + C.Emitted));
      appendEvent(C.Out, Usage, C.Raw);
    }
    if (C.M != Mode::Truncated && C.M != Mode::Malformed)
      appendEvent(C.Out, "[DONE]", C.Raw);
    if (!C.Raw)
      C.Out.append("0\r\n\r\n");
    C.CloseWhenFlushed = C.Closing;
    C.Streaming = false;
    return false;
  }

  void tick() {
    std::vector<int> Still;
    Still.reserve(Streaming.size());
    std::vector<int> Finished;
    for (int Fd : Streaming) {
      auto It = Conns.find(Fd);
      if (It == Conns.end())
        continue;
      if (emit(It->second))
        Still.push_back(Fd);
      else
        Finished.push_back(Fd);
      flush(It->second);
    }
    Streaming.swap(Still);
    for (int Fd : Finished)
      if (auto It = Conns.find(Fd); It != Conns.end()) {
        handleInput(It->second);
        flush(It->second);
      }
    closeDeferred();
  }

  void closeDeferred() {
    std::vector<int> Fds;
    Fds.swap(ToClose);
    for (int Fd : Fds)
      if (Conns.count(Fd))
        closeConn(Fd);
  }

  void closeConn(int Fd) {
    epoll_ctl(EpollFd, EPOLL_CTL_DEL, Fd, nullptr);
    ::close(Fd);
    Conns.erase(Fd);
  }

  void accept() {
    for (;;) {
      int Fd = ::accept4(ListenFd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
      if (Fd < 0)
        return;
      int One = 1;
      setsockopt(Fd, IPPROTO_TCP, TCP_NODELAY, &One, sizeof(One));
      epoll_event Ev{};
      Ev.events = EPOLLIN;
      Ev.data.fd = Fd;
      epoll_ctl(EpollFd, EPOLL_CTL_ADD, Fd, &Ev);
      Conns[Fd].Fd = Fd;
      ++Accepted;
    }
  }

  void readable(int Fd) {
    auto It = Conns.find(Fd);
    if (It == Conns.end())
      return;
    Conn &C = It->second;
    char Buf[65536];
    for (;;) {
      ssize_t N = ::recv(Fd, Buf, sizeof(Buf), 0);
      if (N > 0) {
        C.In.append(Buf, size_t(N));
        continue;
      }
      if (N == 0 || errno != EAGAIN) {
        closeConn(Fd);
        return;
      }
      break;
    }
    handleInput(C);
    flush(C);
    closeDeferred();
  }
};

StreamServer::StreamServer(const StreamServerOptions &Options) : I(new Impl) {
  I->O = Options;
  I->Served = &Served;
}

StreamServer::~StreamServer() {
  stop();
  if (Background.joinable())
    Background.join();
  for (auto &[Fd, C] : I->Conns)
    ::close(Fd);
  for (int Fd : {I->ListenFd, I->EpollFd, I->TickFd, I->WakeFd})
    if (Fd >= 0)
      ::close(Fd);
}

int StreamServer::listen() {
  I->ListenFd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int One = 1;
  setsockopt(I->ListenFd, SOL_SOCKET, SO_REUSEADDR, &One, sizeof(One));
  sockaddr_in A{};
  A.sin_family = AF_INET;
  A.sin_port = htons(uint16_t(I->O.Port));
  A.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(I->ListenFd, reinterpret_cast<sockaddr *>(&A), sizeof(A)) != 0 ||
      ::listen(I->ListenFd, 4096) != 0)
    return -1;
  socklen_t Len = sizeof(A);
  getsockname(I->ListenFd, reinterpret_cast<sockaddr *>(&A), &Len);
  I->EpollFd = epoll_create1(EPOLL_CLOEXEC);
  I->TickFd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  I->WakeFd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  itimerspec Spec{};
  Spec.it_interval.tv_sec = I->O.TickUs / 1000000;
  Spec.it_interval.tv_nsec = (I->O.TickUs % 1000000) * 1000;
  Spec.it_value = Spec.it_interval;
  timerfd_settime(I->TickFd, 0, &Spec, nullptr);
  for (int Fd : {I->ListenFd, I->TickFd, I->WakeFd}) {
    epoll_event Ev{};
    Ev.events = EPOLLIN;
    Ev.data.fd = Fd;
    epoll_ctl(I->EpollFd, EPOLL_CTL_ADD, Fd, &Ev);
  }
  return ntohs(A.sin_port);
}

void StreamServer::serve() {
  epoll_event Events[512];
  while (!I->Stop.load()) {
    int N = epoll_wait(I->EpollFd, Events, 512, -1);
    for (int K = 0; K < N; ++K) {
      int Fd = Events[K].data.fd;
      if (Fd == I->ListenFd) {
        I->accept();
      } else if (Fd == I->TickFd) {
        uint64_t X;
        [[maybe_unused]] ssize_t R = ::read(Fd, &X, sizeof(X));
        I->tick();
      } else if (Fd == I->WakeFd) {
        return;
      } else {
        if (Events[K].events & EPOLLOUT)
          if (auto It = I->Conns.find(Fd); It != I->Conns.end())
            I->flush(It->second);
        I->closeDeferred();
        if (Events[K].events & (EPOLLIN | EPOLLHUP | EPOLLERR))
          I->readable(Fd);
      }
    }
    if (I->O.MaxRequests && int64_t(Served.load()) >= I->O.MaxRequests && I->Streaming.empty())
      return;
  }
}

void StreamServer::serveInBackground() {
  Background = std::thread([this] { serve(); });
}

void StreamServer::stop() {
  I->Stop.store(true);
  if (I->WakeFd >= 0) {
    uint64_t One = 1;
    [[maybe_unused]] ssize_t N = ::write(I->WakeFd, &One, sizeof(One));
  }
}

uint64_t StreamServer::connectionsAccepted() const { return I->Accepted.load(); }

size_t StreamServer::distinctSessions() const {
  std::lock_guard<std::mutex> G(I->SessionsMutex);
  return I->Sessions.size();
}
