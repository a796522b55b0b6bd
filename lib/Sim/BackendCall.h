//===- BackendCall.h - One HTTP request from the router to a backend -*- C++
//-*-===//
//
// The router stand-in forwards each request to an engine server and streams
// the reply back as it arrives, so SSE events keep their timing. A call
// reports the status line, each piece of the body and the end (or the
// failure) through handlers. Destroying a call that is still running cancels
// it, which closes its connection: the backend sees the client go away, as
// it would behind a real router. Callbacks that libevent still delivers
// after that find the call gone and do nothing.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_LIB_SIM_BACKENDCALL_H
#define ARECIPE_LIB_SIM_BACKENDCALL_H

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

struct event_base;
struct evbuffer;
struct evhttp_connection;
struct evhttp_request;

namespace arecipe::sim {

/// http://HOST:PORT of a backend.
struct BackendUrl {
  std::string Text; // as given
  std::string Host;
  int Port = 0;
};

/// Parses "http://HOST:PORT" (a trailing "/" is allowed); false with
/// \p Error set otherwise.
bool parseBackendUrl(const std::string &Text, BackendUrl &Out,
                     std::string &Error);

class BackendCall {
public:
  struct Handlers {
    /// The status line and headers arrived.
    std::function<void(int Code, const std::string &ContentType)> Head;
    /// A piece of the body; the handler takes (drains) what it wants.
    std::function<void(evbuffer *Data)> Body;
    /// The reply is complete (Ok), or the call failed with \p Error.
    std::function<void(bool Ok, const std::string &Error)> Done;
  };
  using Headers = std::vector<std::pair<std::string, std::string>>;

  /// Sends \p Method \p Path with \p Body to \p Url; the handlers run
  /// later, from the event loop. Null with \p Error set when the request
  /// cannot even be sent.
  static std::unique_ptr<BackendCall>
  start(event_base *Base, const BackendUrl &Url, const char *Method,
        const std::string &Path, const std::string &Body, const Headers &Extra,
        Handlers H, std::string &Error);
  ~BackendCall();
  BackendCall(const BackendCall &) = delete;
  BackendCall &operator=(const BackendCall &) = delete;

  bool done() const { return Completed; }

private:
  BackendCall() = default;
  struct Token;
  static void onHead(evhttp_request *Req, void *Arg);
  static void onChunk(evhttp_request *Req, void *Arg);
  static void onDone(evhttp_request *Req, void *Arg);
  static void onError(int Error, void *Arg);

  event_base *Base = nullptr;
  evhttp_request *Req = nullptr;
  Token *Tok = nullptr; // outlives the call until the connection is freed
  Handlers H;
  bool Completed = false;
  std::string Failure;
};

} // namespace arecipe::sim

#endif
