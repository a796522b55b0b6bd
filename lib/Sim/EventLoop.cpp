//===- EventLoop.cpp - The one libevent loop arecipe-sim runs on ----------===//
#include "EventLoop.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>

#include <fmt/format.h>

namespace arecipe::sim {

Timer::Timer(event_base *Base, std::function<void()> Fn) : Fn(std::move(Fn)) {
  Ev = evtimer_new(Base, &Timer::fire, this);
}

Timer::~Timer() {
  if (Ev)
    event_free(Ev);
}

void Timer::fire(int, short, void *Self) { static_cast<Timer *>(Self)->Fn(); }

void Timer::arm(double WallSeconds) {
  // Options are bounded, but a timer must never be handed a value a timeval
  // cannot hold: NaN and negatives fire at once, anything beyond 31 years
  // waits 31 years.
  if (!(WallSeconds >= 0))
    WallSeconds = 0;
  WallSeconds = std::min(WallSeconds, 1e9);
  timeval Tv;
  Tv.tv_sec = static_cast<time_t>(WallSeconds);
  Tv.tv_usec = static_cast<suseconds_t>((WallSeconds - Tv.tv_sec) * 1e6);
  event_add(Ev, &Tv);
}

void Timer::cancel() { event_del(Ev); }

struct EventLoop::SignalHandler {
  event *Ev = nullptr;
  std::function<void(int)> Fn;
  ~SignalHandler() {
    if (Ev)
      event_free(Ev);
  }
};

EventLoop::EventLoop() {
  // Timers to the microsecond (timerfd) instead of epoll's millisecond
  // timeouts, so a step due in 0.2 ms of wall time is not held for 1 ms.
  event_config *Cfg = event_config_new();
  event_config_set_flag(Cfg, EVENT_BASE_FLAG_PRECISE_TIMER);
  Base = event_base_new_with_config(Cfg);
  event_config_free(Cfg);
  if (!Base)
    return;
  Http = evhttp_new(Base);
  Scratch = evbuffer_new();
  if (!Http)
    return;
  // Streams can sit in the queue or in a long prefill with nothing to
  // write; the engine's front end does not time them out, nor do we.
  evhttp_set_timeout(Http, 24 * 3600);
  // Bounded memory for any body a client sends; a million-token prompt is
  // a few megabytes. evhttp answers 413 beyond it.
  evhttp_set_max_body_size(Http, 256 << 20);
  evhttp_set_gencb(Http, &EventLoop::dispatchRequest, this);
  evhttp_set_allowed_methods(Http, EVHTTP_REQ_GET | EVHTTP_REQ_POST |
                                       EVHTTP_REQ_HEAD);
}

EventLoop::~EventLoop() {
  if (Http)
    evhttp_free(Http);
  Signals.clear();
  if (Scratch)
    evbuffer_free(Scratch);
  if (Base)
    event_base_free(Base);
}

std::unique_ptr<Timer> EventLoop::timer(std::function<void()> Fn) {
  return std::unique_ptr<Timer>(new Timer(Base, std::move(Fn)));
}

void EventLoop::onSignal(int Sig, std::function<void(int)> Fn) {
  auto H = std::make_unique<SignalHandler>();
  H->Fn = std::move(Fn);
  H->Ev = evsignal_new(
      Base, Sig,
      [](evutil_socket_t Sig, short, void *Self) {
        static_cast<SignalHandler *>(Self)->Fn(static_cast<int>(Sig));
      },
      H.get());
  event_add(H->Ev, nullptr);
  Signals.push_back(std::move(H));
}

void EventLoop::onRequest(std::function<void(evhttp_request *)> Fn) {
  RequestFn = std::move(Fn);
}

void EventLoop::dispatchRequest(evhttp_request *Req, void *Self) {
  static_cast<EventLoop *>(Self)->RequestFn(Req);
}

bool EventLoop::listenLoopback(int Port, std::string &Error) {
  int Fd = socket(AF_INET, SOCK_STREAM, 0);
  if (Fd < 0) {
    Error = fmt::format("cannot create a socket: {}", strerror(errno));
    return false;
  }
  int One = 1;
  setsockopt(Fd, SOL_SOCKET, SO_REUSEADDR, &One, sizeof One);
  sockaddr_in Addr{};
  Addr.sin_family = AF_INET;
  Addr.sin_port = htons(static_cast<uint16_t>(Port));
  Addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  // A deep backlog: a sweep's client opens every lane at once.
  if (bind(Fd, reinterpret_cast<sockaddr *>(&Addr), sizeof Addr) != 0 ||
      ::listen(Fd, 4096) != 0 || evutil_make_socket_nonblocking(Fd) != 0) {
    Error =
        fmt::format("cannot listen on 127.0.0.1:{}: {}", Port, strerror(errno));
    close(Fd);
    return false;
  }
  socklen_t Len = sizeof Addr;
  getsockname(Fd, reinterpret_cast<sockaddr *>(&Addr), &Len);
  if (!evhttp_accept_socket_with_handle(Http, Fd)) {
    Error = fmt::format("cannot serve HTTP on 127.0.0.1:{}", Port);
    close(Fd);
    return false;
  }
  BoundPort = ntohs(Addr.sin_port);
  ListenFd = Fd;
  return true;
}

void EventLoop::run() { event_base_dispatch(Base); }

void EventLoop::runPending() { event_base_loop(Base, EVLOOP_NONBLOCK); }

void EventLoop::exit() { event_base_loopexit(Base, nullptr); }

bool EventLoop::exiting() const { return event_base_got_exit(Base); }

} // namespace arecipe::sim
