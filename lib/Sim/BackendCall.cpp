//===- BackendCall.cpp - One HTTP request from the router to a backend ----===//
#include "BackendCall.h"

#include <event2/buffer.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include <fmt/format.h>

namespace arecipe::sim {

/// What libevent's callbacks point at: it lives until the connection is
/// freed, after the call itself may be gone (Call is then null).
struct BackendCall::Token {
  BackendCall *Call = nullptr;
  evhttp_connection *Conn = nullptr;
};

bool parseBackendUrl(const std::string &Text, BackendUrl &Out,
                     std::string &Error) {
  evhttp_uri *Uri = evhttp_uri_parse(Text.c_str());
  bool Ok = Uri && evhttp_uri_get_scheme(Uri) &&
            std::string(evhttp_uri_get_scheme(Uri)) == "http" &&
            evhttp_uri_get_host(Uri) && *evhttp_uri_get_host(Uri) &&
            evhttp_uri_get_port(Uri) > 0 &&
            (!evhttp_uri_get_path(Uri) || !*evhttp_uri_get_path(Uri) ||
             std::string(evhttp_uri_get_path(Uri)) == "/") &&
            !evhttp_uri_get_query(Uri);
  if (Ok) {
    Out.Text = Text;
    Out.Host = evhttp_uri_get_host(Uri);
    Out.Port = evhttp_uri_get_port(Uri);
  } else {
    Error = fmt::format("'{}' is not a backend URL (expected http://HOST:PORT)",
                        Text);
  }
  if (Uri)
    evhttp_uri_free(Uri);
  return Ok;
}

std::unique_ptr<BackendCall>
BackendCall::start(event_base *Base, const BackendUrl &Url, const char *Method,
                   const std::string &Path, const std::string &Body,
                   const Headers &Extra, Handlers H, std::string &Error) {
  evhttp_connection *Conn = evhttp_connection_base_new(
      Base, nullptr, Url.Host.c_str(), static_cast<uint16_t>(Url.Port));
  if (!Conn) {
    Error = fmt::format("cannot connect to {}", Url.Text);
    return nullptr;
  }
  std::unique_ptr<BackendCall> Call(new BackendCall());
  Call->Base = Base;
  Call->H = std::move(H);
  Call->Tok = new Token{Call.get(), Conn};
  evhttp_request *Req = evhttp_request_new(&BackendCall::onDone, Call->Tok);
  // Streams can be quiet for a long prefill; the client decides when to
  // give up, as it would with the engine itself.
  evhttp_connection_set_timeout(Conn, 24 * 3600);
  evhttp_request_set_header_cb(Req, [](evhttp_request *R, void *Arg) {
    onHead(R, Arg);
    return 0;
  });
  evhttp_request_set_chunked_cb(Req, &BackendCall::onChunk);
  evhttp_request_set_error_cb(Req, [](evhttp_request_error E, void *Arg) {
    onError(static_cast<int>(E), Arg);
  });
  evkeyvalq *Out = evhttp_request_get_output_headers(Req);
  evhttp_add_header(Out, "Host",
                    fmt::format("{}:{}", Url.Host, Url.Port).c_str());
  for (const auto &[Name, Value] : Extra)
    evhttp_add_header(Out, Name.c_str(), Value.c_str());
  if (!Body.empty())
    evbuffer_add(evhttp_request_get_output_buffer(Req), Body.data(),
                 Body.size());
  evhttp_cmd_type Cmd =
      std::string(Method) == "POST" ? EVHTTP_REQ_POST : EVHTTP_REQ_GET;
  // evhttp_make_request frees the request when it fails.
  if (evhttp_make_request(Conn, Req, Cmd, Path.c_str()) != 0) {
    Call->Completed = true;
    Error = fmt::format("cannot send to {}", Url.Text);
    return nullptr; // the destructor frees the connection and the token
  }
  Call->Req = Req;
  return Call;
}

BackendCall::~BackendCall() {
  Tok->Call = nullptr;
  // A running request is cancelled (libevent frees it); the connection is
  // freed on the next loop turn, never from inside one of its callbacks.
  if (!Completed && Req)
    evhttp_cancel_request(Req);
  timeval Now{0, 0};
  event_base_once(
      Base, -1, EV_TIMEOUT,
      [](evutil_socket_t, short, void *Arg) {
        auto *T = static_cast<Token *>(Arg);
        if (T->Conn)
          evhttp_connection_free(T->Conn);
        delete T;
      },
      Tok, &Now);
}

void BackendCall::onHead(evhttp_request *Req, void *Arg) {
  BackendCall *Self = static_cast<Token *>(Arg)->Call;
  if (!Self || !Self->H.Head)
    return;
  const char *Type =
      evhttp_find_header(evhttp_request_get_input_headers(Req), "Content-Type");
  Self->H.Head(evhttp_request_get_response_code(Req), Type ? Type : "");
}

void BackendCall::onChunk(evhttp_request *Req, void *Arg) {
  BackendCall *Self = static_cast<Token *>(Arg)->Call;
  if (Self && Self->H.Body)
    Self->H.Body(evhttp_request_get_input_buffer(Req));
}

void BackendCall::onError(int Error, void *Arg) {
  BackendCall *Self = static_cast<Token *>(Arg)->Call;
  if (!Self)
    return;
  switch (Error) {
  case EVREQ_HTTP_TIMEOUT:
    Self->Failure = "timed out";
    break;
  case EVREQ_HTTP_EOF:
    Self->Failure = "the connection closed before the reply ended";
    break;
  case EVREQ_HTTP_INVALID_HEADER:
    Self->Failure = "an invalid reply header";
    break;
  case EVREQ_HTTP_BUFFER_ERROR:
    Self->Failure = "a connection error";
    break;
  default:
    Self->Failure = "the request failed";
    break;
  }
}

void BackendCall::onDone(evhttp_request *Req, void *Arg) {
  BackendCall *Self = static_cast<Token *>(Arg)->Call;
  if (!Self || Self->Completed)
    return;
  Self->Completed = true;
  // libevent frees the request once this returns.
  Self->Req = nullptr;
  // The handler may destroy this call: it runs from the stack, not from the
  // call it would free.
  auto Done = std::move(Self->H.Done);
  if (!Req || evhttp_request_get_response_code(Req) == 0) {
    Done(false, Self->Failure.empty()
                    ? "no reply (connection refused or closed)"
                    : Self->Failure);
    return;
  }
  // What is left of a body that was not read piecewise (Content-Length).
  if (Self->H.Body && evbuffer_get_length(evhttp_request_get_input_buffer(Req)))
    Self->H.Body(evhttp_request_get_input_buffer(Req));
  Done(true, "");
}

} // namespace arecipe::sim
