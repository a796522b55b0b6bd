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

class BothTransports : public ::testing::TestWithParam<bool> {
protected:
  RequestRecord exchange(const std::string &Model, const std::string &Path = "/v1/chat/completions",
                         int MaxTokens = 5) {
    TransportOptions TO;
    TO.RequestTimeoutMs = 20000;
    TO.ForceLibcurl = GetParam();
    EventLoop Loop(TO);
    RequestRecord Out;
    Loop.stream(request(Srv.url(Path), Model, MaxTokens), fields(MaxTokens),
                [&](RequestRecord &&R) { Out = std::move(R); });
    Loop.run();
    return Out;
  }
  Server Srv;
};

TEST_P(BothTransports, SuccessfulStream) {
  RequestRecord R = exchange("m");
  ASSERT_TRUE(R.ok()) << R.ErrorMessage;
  EXPECT_EQ(R.HttpStatus, 200);
  EXPECT_TRUE(R.UsageFromServer);
  EXPECT_EQ(R.OutputTokens, 5);
  ASSERT_EQ(R.ChunkNs.size(), 5u);
  EXPECT_EQ(R.ChunkNs.front(), R.FirstTokenNs);
  EXPECT_LE(R.ScheduledNs, R.DispatchedNs);
  EXPECT_LE(R.DispatchedNs, R.SentNs);
  EXPECT_LE(R.SentNs, R.FirstByteNs);
  EXPECT_LE(R.FirstByteNs, R.FirstTokenNs);
  EXPECT_LE(R.FirstTokenNs, R.EndNs);
  EXPECT_TRUE(std::is_sorted(R.ChunkNs.begin(), R.ChunkNs.end()));
}

TEST_P(BothTransports, ClassifyTheSameWay) {
  EXPECT_EQ(exchange("fail-context").Error, ErrorKind::ContextOverflow);
  RequestRecord E500 = exchange("fail-500");
  EXPECT_EQ(E500.Error, ErrorKind::HttpStatus);
  EXPECT_EQ(E500.ErrorMessage, "HTTP 500: {\"error\":{\"message\":\"engine died\"}}");
  EXPECT_EQ(exchange("fail-malformed").Error, ErrorKind::MalformedStream);
  RequestRecord Cut = exchange("fail-truncated");
  EXPECT_EQ(Cut.Error, ErrorKind::MalformedStream);
  EXPECT_EQ(Cut.ErrorMessage, "stream ended without [DONE]");
  RequestRecord NoUsage = exchange("no-usage", "/v1/chat/completions", 4);
  ASSERT_TRUE(NoUsage.ok()) << NoUsage.ErrorMessage;
  EXPECT_FALSE(NoUsage.UsageFromServer);
  EXPECT_EQ(NoUsage.OutputTokens, 4);
}

TEST_P(BothTransports, FramingsOtherThanChunked) {
  RequestRecord Close = exchange("close-after");
  ASSERT_TRUE(Close.ok()) << Close.ErrorMessage;
  EXPECT_EQ(Close.ChunkNs.size(), 5u);
  RequestRecord UntilClose = exchange("until-close");
  ASSERT_TRUE(UntilClose.ok()) << UntilClose.ErrorMessage;
  EXPECT_EQ(UntilClose.ChunkNs.size(), 5u);
}

INSTANTIATE_TEST_SUITE_P(Transports, BothTransports, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool> &I) {
                           return I.param ? "Libcurl" : "Native";
                         });

TEST(NativeTransport, KeepAliveReusesOneConnection) {
  Server Srv;
  EventLoop Loop;
  std::vector<RequestRecord> Rs = sequential(Loop, Srv.url(), "m", 20);
  ASSERT_EQ(Rs.size(), 20u);
  for (const RequestRecord &R : Rs)
    EXPECT_TRUE(R.ok()) << R.ErrorMessage;
  EXPECT_EQ(Srv.S->connectionsAccepted(), 1u);
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

TEST(NativeTransport, ConnectionCloseIsHonoured) {
  Server Srv;
  EventLoop Loop;
  std::vector<RequestRecord> Rs = sequential(Loop, Srv.url(), "close-after", 3);
  for (const RequestRecord &R : Rs)
    EXPECT_TRUE(R.ok()) << R.ErrorMessage;
  EXPECT_EQ(Srv.S->connectionsAccepted(), 3u);
}

TEST(NativeTransport, ReusedConnectionClosedUnansweredIsRetriedOnce) {
  // The server drops every request that arrives on a connection it already
  // used, as one whose keep-alive timeout just expired: each such request
  // goes out again on a fresh connection and succeeds.
  Server Srv;
  EventLoop Loop;
  std::vector<RequestRecord> Rs = sequential(Loop, Srv.url(), "drop-reused", 3);
  ASSERT_EQ(Rs.size(), 3u);
  for (const RequestRecord &R : Rs)
    EXPECT_TRUE(R.ok()) << R.ErrorMessage;
  EXPECT_EQ(Srv.S->connectionsAccepted(), 3u);
  EXPECT_EQ(Srv.S->requestsServed(), 3u);
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

TEST(NativeTransport, RequestTimeoutEndsAStalledResponse) {
  Server Srv;
  TransportOptions TO;
  TO.RequestTimeoutMs = 300;
  EventLoop Loop(TO);
  std::vector<RequestRecord> Rs = sequential(Loop, Srv.url(), "stall", 1);
  ASSERT_EQ(Rs.size(), 1u);
  EXPECT_EQ(Rs[0].Error, ErrorKind::Timeout);
  EXPECT_EQ(Rs[0].ErrorMessage, "no complete response within the request timeout of 0.3 s");
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
  Server Srv;
  TransportOptions TO;
  TO.MaxSseLineBytes = 16;
  EventLoop Loop(TO);
  std::vector<RequestRecord> Rs = sequential(Loop, Srv.url(), "m", 1);
  ASSERT_EQ(Rs.size(), 1u);
  EXPECT_EQ(Rs[0].Error, ErrorKind::MalformedStream);
  EXPECT_EQ(Rs[0].ErrorMessage,
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
