//===- EventLoop.h - The one libevent loop arecipe-sim runs on --*- C++ -*-===//
//
// arecipe-sim is one thread and one event loop: HTTP, start-up phases, the
// engine's steps and signals are all callbacks on it. This owns the loop and
// the pieces every mode needs (the engine simulator and the router alike):
// microsecond timers, signal handlers, an evhttp server listening on
// loopback only, and replies through one reusable buffer. libevent stays
// behind this header and HttpUtil.h; nothing outside lib/Sim includes it.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_LIB_SIM_EVENTLOOP_H
#define ARECIPE_LIB_SIM_EVENTLOOP_H

#include <functional>
#include <memory>
#include <string>
#include <vector>

struct event;
struct event_base;
struct evhttp;
struct evhttp_request;
struct evbuffer;

namespace arecipe::sim {

class EventLoop;

/// A one-shot timer on the loop; arm() (re)starts it.
class Timer {
public:
  ~Timer();
  Timer(const Timer &) = delete;
  Timer &operator=(const Timer &) = delete;

  /// Fires after \p WallSeconds (negative: at once), replacing any pending
  /// expiry.
  void arm(double WallSeconds);
  void cancel();

private:
  friend class EventLoop;
  Timer(event_base *Base, std::function<void()> Fn);
  static void fire(int, short, void *Self);

  event *Ev = nullptr;
  std::function<void()> Fn;
};

class EventLoop {
public:
  EventLoop();
  ~EventLoop();
  EventLoop(const EventLoop &) = delete;
  EventLoop &operator=(const EventLoop &) = delete;

  /// False when libevent could not set the loop up.
  bool ok() const { return Base && Http && Scratch; }
  event_base *base() const { return Base; }
  evhttp *http() const { return Http; }
  /// A buffer replies are assembled in; evhttp empties it on send.
  evbuffer *scratch() const { return Scratch; }

  std::unique_ptr<Timer> timer(std::function<void()> Fn);
  /// Runs \p Fn (with the signal number) on the loop when \p Sig arrives.
  void onSignal(int Sig, std::function<void(int)> Fn);
  /// Every HTTP request, whatever its path, goes to \p Fn.
  void onRequest(std::function<void(evhttp_request *)> Fn);

  /// Binds 127.0.0.1:\p Port (0: ephemeral) with a deep backlog and serves
  /// HTTP on it. Returns false with \p Error set.
  bool listenLoopback(int Port, std::string &Error);
  int boundPort() const { return BoundPort; }
  /// The listening socket, for a crash that must close it without the loop.
  int listenFd() const { return ListenFd; }

  /// Runs until exit() or until nothing is left to wait for.
  void run();
  /// Runs what is due now (deferred frees) without waiting, e.g. after
  /// run() returned.
  void runPending();
  void exit();
  bool exiting() const;

private:
  static void dispatchRequest(evhttp_request *Req, void *Self);
  struct SignalHandler;

  event_base *Base = nullptr;
  evhttp *Http = nullptr;
  evbuffer *Scratch = nullptr;
  int BoundPort = 0;
  int ListenFd = -1;
  std::function<void(evhttp_request *)> RequestFn;
  std::vector<std::unique_ptr<SignalHandler>> Signals;
};

} // namespace arecipe::sim

#endif
