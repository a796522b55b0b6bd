//===- FaultInjector.cpp - The faults --sim-fault injects -----------------===//
#include "FaultInjector.h"
#include "GpuMemoryFile.h"

#include <cstdio>
#include <cstdlib>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/http.h>

#include <fmt/format.h>

namespace arecipe::sim {

FaultInjector::Verdict FaultInjector::arrive() {
  Verdict V;
  V.Arrival = ++Arrivals;
  if (F.Http5xxCount && V.Arrival >= F.Http5xxStart &&
      V.Arrival < F.Http5xxStart + F.Http5xxCount)
    V.HttpError = F.Http5xxCode;
  V.Reset = F.ResetEvery && V.Arrival % F.ResetEvery == 0;
  return V;
}

bool FaultInjector::malformedStream() {
  return F.MalformedSseEvery && ++Streams % F.MalformedSseEvery == 0;
}

void FaultInjector::crash(evhttp_connection *LastConn,
                          const std::vector<evhttp_connection *> &OtherConns,
                          int ListenFd, const GpuMemoryFile &Memory) {
  // The Nth reply was completed, so it reaches the client: hand what is
  // queued on its connection to the kernel now, blocking (the loop must not
  // run again, so nothing else is served meanwhile).
  if (LastConn) {
    bufferevent *Bev = evhttp_connection_get_bufferevent(LastConn);
    int Fd = bufferevent_getfd(Bev);
    evbuffer *Out = bufferevent_get_output(Bev);
    if (Fd >= 0) {
      int Flags = fcntl(Fd, F_GETFL);
      if (Flags >= 0)
        fcntl(Fd, F_SETFL, Flags & ~O_NONBLOCK);
      timeval Limit{1, 0}; // a client that stopped reading loses the rest
      setsockopt(Fd, SOL_SOCKET, SO_SNDTIMEO, &Limit, sizeof Limit);
      while (evbuffer_get_length(Out) > 0)
        if (evbuffer_write(Out, Fd) <= 0)
          break;
    }
  }
  Log.error(fmt::format("Fatal Python error: Segmentation fault (simulated "
                        "crash after {} requests, fault crash-after)",
                        F.CrashAfterRequests));
  Memory.write(F.GpuMemoryLeak ? GpuMemoryFile::State::Leaked
                               : GpuMemoryFile::State::Released);
  fflush(stderr);
  // An engine crash leaves no time for cleanup and serves nothing more: the
  // listener and every connection close now (no flush, no teardown), and the
  // process exits without returning to the event loop.
  if (ListenFd >= 0)
    close(ListenFd);
  for (evhttp_connection *Conn : OtherConns) {
    int Fd = bufferevent_getfd(evhttp_connection_get_bufferevent(Conn));
    if (Fd >= 0)
      close(Fd);
  }
  std::_Exit(1);
}

} // namespace arecipe::sim
