//===- TransportBackends.h - The native and libcurl transports --*- C++ -*-===//
//
// Private to lib/Client. Both move one Exchange's bytes and report how its
// transfer ended through EventLoop::finish; neither decodes anything.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_CLIENT_TRANSPORTBACKENDS_H
#define ARECIPE_LIB_CLIENT_TRANSPORTBACKENDS_H

#include "TransportImpl.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace arecipe::client::detail {
struct CurlLibrary;
} // namespace arecipe::client::detail

namespace arecipe::client {

/// HTTP/1.1 on non-blocking, edge-triggered sockets with keep-alive pools.
class EventLoop::NativeHttp {
public:
  explicit NativeHttp(EventLoop &Loop);
  ~NativeHttp();
  void start(Exchange &X, const ParsedUrl &Url);
  /// Drops X's connection; X is finished by the caller.
  void abort(Exchange &X);
  /// Connect timeouts.
  void sweep(int64_t Now);

  struct Conn;
  struct Pool;

private:
  friend struct Conn;
  /// A fresh connection for X, which sends Head and X's body once connected.
  void openConn(Exchange &X, Pool &P, std::string Head);
  void connect(Exchange &X, Pool &P, size_t AddrIndex);
  void closeConn(Conn &C);
  void toIdle(Conn &C);
  void retry(Conn &C);

  EventLoop &Loop;
  std::unordered_map<std::string, std::unique_ptr<Pool>> Pools;
  std::vector<std::unique_ptr<Conn>> Conns; // every open connection, at Conn::Index
  size_t IdleCount = 0;
};

/// libcurl's multi socket interface driven by the same epoll set.
class EventLoop::CurlHttp {
public:
  explicit CurlHttp(EventLoop &Loop);
  ~CurlHttp();
  void start(Exchange &X);
  void abort(Exchange &X);
  /// libcurl's own timer expired.
  void onTimeout();

  struct Socket;
  struct Transfer;

private:
  static int socketCallback(void *Easy, int Fd, int What, void *User, void *SocketPtr);
  static int timerCallback(void *Multi, long TimeoutMs, void *User);
  void action(int Fd, int Mask);
  void drain();
  void releaseTransfer(Exchange &X);

  EventLoop &Loop;
  const detail::CurlLibrary *Lib = nullptr; ///< nullptr: libcurl did not load
  std::string LoadError;
  void *Multi = nullptr;
  std::vector<void *> FreeHandles;
};

} // namespace arecipe::client

#endif // ARECIPE_LIB_CLIENT_TRANSPORTBACKENDS_H
