//===- Completions.cpp - In-flight completions and their replies ----------===//
#include "Completions.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>

#include <fmt/format.h>

namespace arecipe::sim {

Completions::~Completions() {
  // The connection close callbacks point at completions; detach them before
  // evhttp_free closes the connections.
  for (auto &[Id, C] : Active)
    evhttp_connection_set_closecb(C->Conn, nullptr, nullptr);
  Active.clear();
}

void Completions::onClose(evhttp_connection *, void *Arg) {
  auto *C = static_cast<Completion *>(Arg);
  C->Owner->dropCompletion(C->Id);
}

void Completions::accept(std::unique_ptr<Completion> C) {
  C->Owner = this;
  C->Conn = evhttp_request_get_connection(C->Req);
  evhttp_connection_set_closecb(C->Conn, &Completions::onClose, C.get());
  // Each step's SSE event must leave at once, as from uvicorn: with Nagle,
  // small chunks would wait on the client's delayed ACK and distort ITL.
  int Fd = bufferevent_getfd(evhttp_connection_get_bufferevent(C->Conn));
  int One = 1;
  setsockopt(Fd, IPPROTO_TCP, TCP_NODELAY, &One, sizeof One);
  if (C->Stream) {
    evkeyvalq *Headers = evhttp_request_get_output_headers(C->Req);
    evhttp_add_header(Headers, "Content-Type", "text/event-stream");
    evhttp_add_header(Headers, "Cache-Control", "no-cache");
    evhttp_send_reply_start(C->Req, 200, "OK");
  }
  uint64_t Id = C->Id;
  Active.emplace(Id, std::move(C));
}

void Completions::recordTimeline(const Completion &C, const char *Outcome,
                                 double End) {
  if (!C.HasSeq || !Times.enabled())
    return;
  Times.request(C.Seq, Outcome, C.ArrivedAt, C.EventTimes, End);
  // Written before the reply's last bytes leave: once the client has seen
  // the request end, the runtime may read its line.
  Times.flush();
}

void Completions::dropCompletion(uint64_t Id) {
  ++Disconnects;
  Log.debug(fmt::format("request {}: client went away", Id));
  if (auto It = Active.find(Id); It != Active.end())
    recordTimeline(*It->second, "cancelled", Engine.virtualNow());
  // On EOF or a timeout, libevent detaches a request whose reply is not
  // finished from its dying connection and leaves it to its owner, who would
  // otherwise free it by ending the reply: free it here, or every stream a
  // client abandons leaks its request and buffers (found by LeakSanitizer).
  if (auto It = Active.find(Id);
      It != Active.end() && It->second->Req &&
      !evhttp_request_get_connection(It->second->Req))
    evhttp_request_free(It->second->Req);
  Engine.cancel(Id);
  Active.erase(Id);
}

void Completions::flush(Completion &C) {
  if (C.Out.empty())
    return;
  evbuffer_add(Loop.scratch(), C.Out.data(), C.Out.size());
  evhttp_send_reply_chunk(C.Req, Loop.scratch());
  C.Out.clear(); // keeps its capacity for the next fire
}

void Completions::flushAll() {
  for (uint64_t Id : Unflushed)
    if (auto It = Active.find(Id); It != Active.end())
      flush(*It->second);
  Unflushed.clear();
}

void Completions::deliver(const StepResult &R, double StepEnd) {
  for (const RequestProgress &P : R.Progress) {
    auto It = Active.find(P.Id);
    if (It == Active.end())
      continue;
    Completion &C = *It->second;
    C.Cached = P.CachedTokens;
    if (C.Sent == 0 && P.NewTokens > 0)
      C.FirstTokenAt = StepEnd;
    if (C.HasSeq && C.Stream && P.NewTokens > 0)
      C.EventTimes.push_back(StepEnd);
    if (C.Reset && (C.Sent > 0 || P.Finished)) {
      resetConnection(C);
      continue;
    }
    if (C.Stream && P.NewTokens > 0) {
      if (C.Out.empty())
        Unflushed.push_back(C.Id);
      if (C.Malformed && C.Sent == 0)
        C.Writer.appendMalformedEvent(C.Out);
      C.Writer.appendTokensEvent(C.Out, C.Sent, P.NewTokens);
      if (P.Finished)
        C.Writer.appendFinalEvents(
            C.Out, {C.PromptTokens, C.Sent + P.NewTokens, C.Cached},
            C.IncludeUsage);
    }
    C.Sent += P.NewTokens;
    if (P.Finished)
      finish(C, StepEnd);
  }
}

void Completions::finish(Completion &C, double StepEnd) {
  uint64_t Id = C.Id;
  recordTimeline(C, "finished", StepEnd);
  evhttp_connection_set_closecb(C.Conn, nullptr, nullptr);
  if (C.Stream) {
    flush(C);
    evhttp_send_reply_end(C.Req);
  } else {
    evkeyvalq *Headers = evhttp_request_get_output_headers(C.Req);
    evhttp_add_header(Headers, "Content-Type", "application/json");
    std::string Body =
        C.Writer.fullResponse({C.PromptTokens, C.Sent, C.Cached}, C.Sent);
    evbuffer_add(Loop.scratch(), Body.data(), Body.size());
    evhttp_send_reply(C.Req, 200, "OK", Loop.scratch());
  }
  if (Log.enabled(LogLevel::Debug))
    Log.debug(fmt::format(
        "request {}{} finished: simulated ttft {:.6f} s e2e "
        "{:.6f} s tokens {}",
        Id, C.HasSeq ? fmt::format(" (seq {})", C.Seq) : std::string(),
        C.FirstTokenAt - C.ArrivedAt, StepEnd - C.ArrivedAt, C.Sent));
  evhttp_connection *Conn = C.Conn;
  Active.erase(Id);
  ++Served;
  if (Faults.crashDue(Served)) {
    std::vector<evhttp_connection *> Others;
    for (auto &[OtherId, Other] : Active)
      Others.push_back(Other->Conn);
    Faults.crash(Conn, Others, Loop.listenFd(), Memory);
  }
}

void Completions::resetConnection(Completion &C) {
  uint64_t Id = C.Id;
  evhttp_connection *Conn = C.Conn;
  Log.warning(
      fmt::format("request {}: resetting the connection (fault reset)", Id));
  evhttp_connection_set_closecb(Conn, nullptr, nullptr);
  recordTimeline(C, "reset", Engine.virtualNow());
  // The tokens already produced reach the client first: written now, they
  // sit in its receive queue ahead of the RST.
  flush(C);
  bufferevent *Bev = evhttp_connection_get_bufferevent(Conn);
  int Fd = bufferevent_getfd(Bev);
  evbuffer_write(bufferevent_get_output(Bev), Fd);
  // SO_LINGER 0 turns close() into a TCP RST.
  linger L{1, 0};
  setsockopt(Fd, SOL_SOCKET, SO_LINGER, &L, sizeof L);
  Engine.cancel(Id);
  Active.erase(Id);
  evhttp_connection_free(Conn);
}

} // namespace arecipe::sim
