//===- TransportTest.cpp - Streaming exchanges against a local server -----===//
//
// Runs the event loop against bench/client's StreamServer on a background
// thread (127.0.0.1, ephemeral port); the server is stopped and joined by its
// destructor, so nothing outlives a test.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Client/Transport.h"

#include "StreamServer.h"

#include <gtest/gtest.h>

using namespace arecipe::client;
using arecipe::bench::StreamServer;
using arecipe::bench::StreamServerOptions;

namespace {
class TransportTest : public ::testing::Test {
protected:
  void SetUp() override {
    StreamServerOptions O;
    O.TickUs = 200;
    Server = std::make_unique<StreamServer>(O);
    Port = Server->listen();
    ASSERT_GT(Port, 0);
    Server->serveInBackground();
  }

  RequestRecord exchange(const std::string &Model, const std::string &Path = "/v1/chat/completions",
                         int MaxTokens = 5, int Port = 0) {
    TransportOptions TO;
    TO.RequestTimeoutMs = 20000;
    EventLoop Loop(TO);
    StreamRequest Req;
    Req.Url = "http://127.0.0.1:" + std::to_string(Port ? Port : this->Port) + Path;
    Req.Body = "{\"model\":\"" + Model + "\",\"messages\":[{\"role\":\"user\",\"content\":\"a b " +
               "c\"}],\"max_tokens\":" + std::to_string(MaxTokens) + ",\"stream\":true}";
    Req.Headers = {"Content-Type: application/json"};
    RequestRecord In;
    In.ScheduledNs = monotonicNowNs();
    In.ExpectedInputTokens = 3;
    RequestRecord Out;
    Loop.stream(Req, In, [&](RequestRecord &&R) { Out = std::move(R); });
    Loop.run();
    return Out;
  }

  std::unique_ptr<StreamServer> Server;
  int Port = 0;
};

TEST_F(TransportTest, SuccessfulStreamHasOrderedTimestampsAndUsage) {
  RequestRecord R = exchange("m");
  ASSERT_TRUE(R.ok()) << R.ErrorMessage;
  EXPECT_EQ(R.HttpStatus, 200);
  EXPECT_TRUE(R.UsageFromServer);
  EXPECT_EQ(R.OutputTokens, 5);
  EXPECT_GT(R.InputTokens, 0);
  ASSERT_EQ(R.ChunkNs.size(), 5u); // the role-only chunk is not output
  EXPECT_EQ(R.ChunkNs.front(), R.FirstTokenNs);
  EXPECT_LE(R.ScheduledNs, R.DispatchedNs);
  EXPECT_LE(R.DispatchedNs, R.SentNs);
  EXPECT_LE(R.SentNs, R.FirstByteNs);
  EXPECT_LE(R.FirstByteNs, R.FirstTokenNs);
  EXPECT_LE(R.FirstTokenNs, R.EndNs);
  EXPECT_TRUE(std::is_sorted(R.ChunkNs.begin(), R.ChunkNs.end()));
}

TEST_F(TransportTest, CompletionsEndpoint) {
  RequestRecord R = exchange("m", "/v1/completions", 3);
  ASSERT_TRUE(R.ok()) << R.ErrorMessage;
  EXPECT_EQ(R.ChunkNs.size(), 3u);
}

TEST_F(TransportTest, ContextOverflowIsClassified) {
  RequestRecord R = exchange("fail-context");
  EXPECT_EQ(R.Error, ErrorKind::ContextOverflow);
  EXPECT_EQ(R.HttpStatus, 400);
}

TEST_F(TransportTest, ServerErrorIsHttpStatus) {
  RequestRecord R = exchange("fail-500");
  EXPECT_EQ(R.Error, ErrorKind::HttpStatus);
  EXPECT_EQ(R.HttpStatus, 500);
  EXPECT_NE(R.ErrorMessage.find("engine died"), std::string::npos);
}

TEST_F(TransportTest, NonJsonEventIsMalformed) {
  RequestRecord R = exchange("fail-malformed");
  EXPECT_EQ(R.Error, ErrorKind::MalformedStream);
}

TEST_F(TransportTest, MissingDoneIsMalformed) {
  RequestRecord R = exchange("fail-truncated");
  EXPECT_EQ(R.Error, ErrorKind::MalformedStream);
  EXPECT_EQ(R.ErrorMessage, "stream ended without [DONE]");
}

TEST_F(TransportTest, MissingUsageFallsBackToChunkCount) {
  RequestRecord R = exchange("no-usage", "/v1/chat/completions", 4);
  ASSERT_TRUE(R.ok()) << R.ErrorMessage;
  EXPECT_FALSE(R.UsageFromServer);
  EXPECT_EQ(R.OutputTokens, 4);
  EXPECT_EQ(R.InputTokens, 3); // the expected input stands in
}

TEST_F(TransportTest, RefusedConnectionIsConnectError) {
  // Bind and close a listener to get a port nobody is listening on.
  int Closed;
  {
    StreamServer Tmp(StreamServerOptions{});
    Closed = Tmp.listen();
  }
  RequestRecord R = exchange("m", "/v1/chat/completions", 1, Closed);
  EXPECT_EQ(R.Error, ErrorKind::Connect);
}

TEST(ClassifyHttpError, ContextOverflowNeedsClientStatusAndMessage) {
  EXPECT_EQ(classifyHttpError(400, "maximum context length is 8192"), ErrorKind::ContextOverflow);
  EXPECT_EQ(classifyHttpError(400, "bad temperature"), ErrorKind::HttpStatus);
  EXPECT_EQ(classifyHttpError(500, "maximum context length"), ErrorKind::HttpStatus);
}

TEST(EventLoop, TimersRunInTimeThenInsertionOrder) {
  EventLoop Loop;
  std::vector<int> Order;
  int64_t Now = monotonicNowNs();
  Loop.at(Now + 2000000, [&] { Order.push_back(3); });
  Loop.at(Now, [&] { Order.push_back(1); });
  Loop.at(Now, [&] { Order.push_back(2); });
  Loop.run();
  EXPECT_EQ(Order, (std::vector<int>{1, 2, 3}));
}
} // namespace
