//===- NativeTransportTest.cpp - Both transports, keep-alive, stalls ------===//
//
// Runs the event loop against bench/client's StreamServer on a background
// thread. The classification cases run through both transports (native
// HTTP/1.1 and libcurl, forced for plain http), which must agree; the rest
// exercise what only the native transport does itself: connection reuse,
// retries, framings, timeouts, stall detection and self-measurement.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Client/Transport.h"

#include "StreamServer.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace arecipe::client;
using arecipe::bench::StreamServer;
using arecipe::bench::StreamServerOptions;

namespace {
class Server {
public:
  Server() {
    StreamServerOptions O;
    O.TickUs = 200;
    S = std::make_unique<StreamServer>(O);
    Port = S->listen();
    S->serveInBackground();
  }
  std::string url(const std::string &Path = "/v1/chat/completions") const {
    return "http://127.0.0.1:" + std::to_string(Port) + Path;
  }
  std::unique_ptr<StreamServer> S;
  int Port = 0;
};

StreamRequest request(const std::string &Url, const std::string &Model, int MaxTokens = 5) {
  StreamRequest Req;
  Req.Url = Url;
  Req.Body = "{\"model\":\"" + Model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"a b " +
             "c\"}],\"max_tokens\":" + std::to_string(MaxTokens) + ",\"stream\":true}";
  Req.Headers = {"Content-Type: application/json"};
  return Req;
}

RequestRecord fields(int MaxTokens = 5) {
  RequestRecord In;
  In.ScheduledNs = monotonicNowNs();
  In.ExpectedInputTokens = 3;
  In.MaxOutputTokens = MaxTokens;
  return In;
}

/// Runs N requests one after the other on one loop.
std::vector<RequestRecord> sequential(EventLoop &Loop, const std::string &Url,
                                      const std::string &Model, int N) {
  std::vector<RequestRecord> Out;
  std::function<void()> Next = [&] {
    Loop.stream(request(Url, Model), fields(), [&](RequestRecord &&R) {
      Out.push_back(std::move(R));
      if (int(Out.size()) < N)
        Next();
    });
  };
  Next();
  Loop.run();
  return Out;
}

/// One request through the native transport or through libcurl.
RequestRecord exchange(const Server &Srv, bool ViaLibcurl, const std::string &Model,
                       const std::string &Path, int MaxTokens) {
  TransportOptions TO;
  TO.RequestTimeoutMs = 20000;
  TO.ForceLibcurl = ViaLibcurl;
  EventLoop Loop(TO);
  RequestRecord Out;
  Loop.stream(request(Srv.url(Path), Model, MaxTokens), fields(MaxTokens),
              [&](RequestRecord &&R) { Out = std::move(R); });
  Loop.run();
  return Out;
}

TEST(BothTransports, AgreeOnEveryOutcome) {
  // Every response the stream server can give, through both transports: the
  // same class, message, status, token counts and number of chunks, and
  // timestamps in causal order on both.
  Server Srv;
  struct Case {
    const char *Model, *Path;
    int MaxTokens;
    ErrorKind Expected;
  };
  const Case Cases[] = {
      {"m", "/v1/chat/completions", 5, ErrorKind::None},
      {"m", "/v1/completions", 3, ErrorKind::None},
      {"no-usage", "/v1/chat/completions", 4, ErrorKind::None},
      {"close-after", "/v1/chat/completions", 5, ErrorKind::None},
      {"until-close", "/v1/completions", 5, ErrorKind::None},
      {"fail-context", "/v1/chat/completions", 5, ErrorKind::ContextOverflow},
      {"fail-500", "/v1/chat/completions", 5, ErrorKind::HttpStatus},
      {"fail-malformed", "/v1/chat/completions", 5, ErrorKind::MalformedStream},
      {"fail-truncated", "/v1/chat/completions", 5, ErrorKind::MalformedStream},
  };
  for (const Case &C : Cases) {
    SCOPED_TRACE(C.Model);
    RequestRecord N = exchange(Srv, false, C.Model, C.Path, C.MaxTokens);
    RequestRecord L = exchange(Srv, true, C.Model, C.Path, C.MaxTokens);
    EXPECT_EQ(N.Error, C.Expected) << N.ErrorMessage;
    EXPECT_EQ(L.Error, N.Error) << L.ErrorMessage;
    EXPECT_EQ(L.ErrorMessage, N.ErrorMessage);
    EXPECT_EQ(L.HttpStatus, N.HttpStatus);
    EXPECT_EQ(L.InputTokens, N.InputTokens);
    EXPECT_EQ(L.OutputTokens, N.OutputTokens);
    EXPECT_EQ(L.UsageFromServer, N.UsageFromServer);
    EXPECT_EQ(L.ChunkNs.size(), N.ChunkNs.size());
    for (const RequestRecord *R : {&N, &L}) {
      if (!R->ok())
        continue;
      EXPECT_EQ(R->ChunkNs.size(), size_t(C.MaxTokens));
      EXPECT_TRUE(R->ScheduledNs <= R->DispatchedNs && R->DispatchedNs <= R->SentNs &&
                  R->SentNs <= R->FirstByteNs && R->FirstByteNs <= R->FirstTokenNs &&
                  R->FirstTokenNs <= R->EndNs);
      EXPECT_TRUE(std::is_sorted(R->ChunkNs.begin(), R->ChunkNs.end()));
    }
  }
}

/// Sends N requests for Model one after the other on one loop; every one
/// must succeed. Returns how many connections the server accepted.
uint64_t connectionsFor(const std::string &Model, int N, uint64_t *Served = nullptr) {
  Server Srv;
  EventLoop Loop;
  std::vector<RequestRecord> Rs = sequential(Loop, Srv.url(), Model, N);
  EXPECT_EQ(Rs.size(), size_t(N));
  for (const RequestRecord &R : Rs)
    EXPECT_TRUE(R.ok()) << R.ErrorMessage;
  if (Served)
    *Served = Srv.S->requestsServed();
  return Srv.S->connectionsAccepted();
}

TEST(NativeTransport, KeepAliveReusesOneConnection) { EXPECT_EQ(connectionsFor("m", 20), 1u); }

TEST(NativeTransport, ConnectionCloseIsHonoured) {
  EXPECT_EQ(connectionsFor("close-after", 3), 3u);
}

TEST(NativeTransport, ReusedConnectionClosedUnansweredIsRetriedOnce) {
  // The server drops every request that arrives on a connection it already
  // used, as one whose keep-alive timeout just expired: each such request
  // goes out again on a fresh connection and succeeds.
  uint64_t Served = 0;
  EXPECT_EQ(connectionsFor("drop-reused", 3, &Served), 3u);
  EXPECT_EQ(Served, 3u);
}

TEST(NativeTransport, ConcurrentStreamsGetConnectionsThatAreThenReused) {
  Server Srv;
  EventLoop Loop;
  int Done = 0;
  std::function<void(int)> Start = [&](int Round) {
    Loop.stream(request(Srv.url(), "m"), fields(), [&, Round](RequestRecord &&R) {
      EXPECT_TRUE(R.ok()) << R.ErrorMessage;
      ++Done;
      if (Round == 0)
        Start(1);
    });
  };
  for (int I = 0; I < 8; ++I)
    Start(0);
  Loop.run();
  EXPECT_EQ(Done, 16);
  EXPECT_EQ(Srv.S->connectionsAccepted(), 8u);
}

TEST(NativeTransport, LargeBodyGoesOutAcrossPartialWrites) {
  // 8 MiB does not fit a socket buffer: the write resumes on EPOLLOUT edges.
  Server Srv;
  EventLoop Loop;
  StreamRequest Req = request(Srv.url("/v1/completions"), "m", 2);
  std::string Prompt;
  for (int I = 0; I < 1 << 20; ++I)
    Prompt += "word ";
  Prompt += "end";
  Req.Body = "{\"model\":\"m\",\"prompt\":\"" + Prompt + "\",\"max_tokens\":2}";
  RequestRecord Out;
  Loop.stream(Req, fields(2), [&](RequestRecord &&R) { Out = std::move(R); });
  Loop.run();
  ASSERT_TRUE(Out.ok()) << Out.ErrorMessage;
  EXPECT_EQ(Out.InputTokens, (1 << 20) + 1); // the server counts the spaces, plus one
}

TEST(NativeTransport, HostNamesResolve) {
  Server Srv;
  EventLoop Loop;
  std::vector<RequestRecord> Rs = sequential(
      Loop, "http://localhost:" + std::to_string(Srv.Port) + "/v1/chat/completions", "m", 1);
  ASSERT_EQ(Rs.size(), 1u);
  EXPECT_TRUE(Rs[0].ok()) << Rs[0].ErrorMessage;
}

TEST(NativeTransport, HeaderWithALineBreakIsNotSent) {
  Server Srv;
  EventLoop Loop;
  StreamRequest Req = request(Srv.url(), "m");
  Req.Headers.push_back("X-A: 1\r\nX-Injected: 2");
  RequestRecord Out;
  Loop.stream(Req, fields(), [&](RequestRecord &&R) { Out = std::move(R); });
  Loop.run();
  EXPECT_EQ(Out.Error, ErrorKind::Transport);
  EXPECT_EQ(Out.ErrorMessage,
            "request header is not 'Name: value' on one line: X-A: 1\r\nX-Injected: 2");
  EXPECT_EQ(Srv.S->requestsServed(), 0u);
}

/// One request for Model under Options.
RequestRecord onlyRequest(const std::string &Model, const TransportOptions &Options) {
  Server Srv;
  EventLoop Loop(Options);
  std::vector<RequestRecord> Rs = sequential(Loop, Srv.url(), Model, 1);
  EXPECT_EQ(Rs.size(), 1u);
  return Rs.empty() ? RequestRecord() : Rs[0];
}

TEST(NativeTransport, RequestTimeoutEndsAStalledResponse) {
  TransportOptions TO;
  TO.RequestTimeoutMs = 300;
  RequestRecord R = onlyRequest("stall", TO);
  EXPECT_EQ(R.Error, ErrorKind::Timeout);
  EXPECT_EQ(R.ErrorMessage, "no complete response within the request timeout of 0.3 s");
}

TEST(NativeTransport, StallHandlerRunsWhenNoRequestProgresses) {
  Server Srv;
  TransportOptions TO;
  TO.StallTimeoutMs = 300;
  EventLoop Loop(TO);
  double Idle = 0;
  size_t InFlight = 0;
  Loop.onStall([&](double I, size_t N) {
    Idle = I;
    InFlight = N;
    Loop.failAll(ErrorKind::Stalled, "stalled");
  });
  std::vector<RequestRecord> Out;
  for (int I = 0; I < 2; ++I)
    Loop.stream(request(Srv.url(), "stall"), fields(),
                [&](RequestRecord &&R) { Out.push_back(std::move(R)); });
  Loop.run();
  EXPECT_GE(Idle, 0.3);
  EXPECT_EQ(InFlight, 2u);
  ASSERT_EQ(Out.size(), 2u);
  for (const RequestRecord &R : Out)
    EXPECT_EQ(R.Error, ErrorKind::Stalled);
}

TEST(NativeTransport, ProgressElsewhereIsNotAStall) {
  // One request never answers, the others keep streaming: no stall while
  // they progress; the silent one is left to the request timeout.
  Server Srv;
  TransportOptions TO;
  TO.StallTimeoutMs = 200;
  TO.RequestTimeoutMs = 1500;
  EventLoop Loop(TO);
  bool Stalled = false;
  Loop.onStall([&](double, size_t) { Stalled = true; });
  std::vector<RequestRecord> Out;
  Loop.stream(request(Srv.url(), "stall"), fields(),
              [&](RequestRecord &&R) { Out.push_back(std::move(R)); });
  std::function<void()> Next = [&] {
    Loop.stream(request(Srv.url(), "m", 50), fields(50), [&](RequestRecord &&R) {
      EXPECT_TRUE(R.ok()) << R.ErrorMessage;
      if (Out.empty())
        Next();
    });
  };
  Next();
  Loop.run();
  EXPECT_FALSE(Stalled);
  ASSERT_EQ(Out.size(), 1u);
  EXPECT_EQ(Out[0].Error, ErrorKind::Timeout);
}

TEST(NativeTransport, OverlongSseLineFailsTheRequest) {
  TransportOptions TO;
  TO.MaxSseLineBytes = 16;
  RequestRecord R = onlyRequest("m", TO);
  EXPECT_EQ(R.Error, ErrorKind::MalformedStream);
  EXPECT_EQ(R.ErrorMessage,
            "an SSE line or event longer than 16 bytes; the response was dropped from there");
}

TEST(NativeTransport, LoopMeasuresItsLagAndCpu) {
  EventLoop Loop;
  Loop.startStats();
  int64_t Until = monotonicNowNs() + 60000000;
  Loop.at(Until, [] {});
  Loop.run();
  LoopStats S = Loop.stopStats();
  EXPECT_GE(S.WallSeconds, 0.06);
  EXPECT_GE(S.LagSeconds.size(), 3u);
  for (double L : S.LagSeconds)
    EXPECT_GE(L, 0);
  EXPECT_GE(S.CpuSeconds, 0);
}
} // namespace
