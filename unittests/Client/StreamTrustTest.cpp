//===- StreamTrustTest.cpp - What the client refuses to believe -----------===//
//
// SSE lines beyond the cap, events after [DONE], and usage that cannot be
// right for the request: each is caught, independently of how the bytes
// were split, and reported with its reason.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Client/CompletionStream.h"
#include "arecipe/Client/Prometheus.h"
#include "arecipe/Client/SseParser.h"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

using namespace arecipe::client;

namespace {
struct Parsed {
  std::vector<std::string> Data;
  bool Overflowed = false;
  size_t Pending = 0;
  bool operator==(const Parsed &O) const {
    return Data == O.Data && Overflowed == O.Overflowed && Pending == O.Pending;
  }
};

Parsed parse(std::string_view Body, size_t Cap, size_t Step = 0) {
  Parsed Out;
  SseParser P([&](const SseEvent &E) { Out.Data.emplace_back(E.Data); }, Cap);
  for (size_t Pos = 0; Pos < Body.size();) {
    size_t N = Step ? std::min(Step, Body.size() - Pos) : Body.size();
    P.feed(Body.substr(Pos, N));
    Pos += N;
  }
  Out.Overflowed = P.overflowed();
  Out.Pending = P.pendingBytes();
  return Out;
}

TEST(SseCap, OverlongLineDropsItsEventOnly) {
  std::string Body = "data: short\n\ndata: " + std::string(40, 'x') + "\n\ndata: after\n\n";
  Parsed Whole = parse(Body, 16);
  EXPECT_TRUE(Whole.Overflowed);
  EXPECT_EQ(Whole.Data, (std::vector<std::string>{"short", "after"}));
  for (size_t Step = 1; Step < 20; ++Step)
    EXPECT_EQ(parse(Body, 16, Step), Whole) << "step " << Step;
}

TEST(SseCap, LineOfExactlyTheCapIsKept) {
  std::string Line = "data: " + std::string(10, 'y'); // 16 bytes
  Parsed P = parse(Line + "\n\n", 16);
  EXPECT_FALSE(P.Overflowed);
  EXPECT_EQ(P.Data, (std::vector<std::string>{std::string(10, 'y')}));
  EXPECT_EQ(parse(Line + "\n\n", 16, 3), P);
}

TEST(SseCap, JoinedDataIsCappedToo) {
  std::string Body = "data: 0123456789\ndata: 0123456789\n\ndata: ok\n\n";
  Parsed P = parse(Body, 16);
  EXPECT_TRUE(P.Overflowed);
  EXPECT_EQ(P.Data, (std::vector<std::string>{"ok"}));
  EXPECT_EQ(parse(Body, 16, 5), P);
}

TEST(SseCap, UnterminatedLineKeepsAtMostTheCap) {
  // 400 MiB would arrive in pieces; what is held never passes cap + 1.
  SseParser P([](const SseEvent &) {}, 1024);
  std::string Piece(64 * 1024, 'z');
  P.feed("data: ");
  for (int I = 0; I < 64; ++I)
    P.feed(Piece);
  EXPECT_TRUE(P.overflowed());
  EXPECT_LE(P.pendingBytes(), 1025u);
}

TEST(StreamTrust, EventsAfterDoneAreNotInterpreted) {
  CompletionStreamDecoder D;
  EXPECT_EQ(D.onEvent(R"({"choices":[{"text":"a"}]})"), ChunkKind::Output);
  EXPECT_EQ(D.onEvent("[DONE]"), ChunkKind::Done);
  EXPECT_EQ(D.onEvent(R"({"choices":[{"text":"late"}]})"), ChunkKind::AfterDone);
  EXPECT_EQ(D.onEvent(R"({"choices":[],"usage":{"completion_tokens":9}})"), ChunkKind::AfterDone);
  EXPECT_EQ(D.outputChunks(), 1);
  EXPECT_FALSE(D.hasUsage());
  EXPECT_EQ(D.eventsAfterDone(), 2);
}

TEST(StreamTrust, UsageMembersMustBeCounts) {
  CompletionStreamDecoder Neg;
  Neg.onEvent(R"({"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":-3}})");
  EXPECT_EQ(Neg.usageFormatProblem(), "usage.completion_tokens is -3, not a count");
  CompletionStreamDecoder Float;
  Float.onEvent(R"({"choices":[],"usage":{"prompt_tokens":1e15,"completion_tokens":3}})");
  EXPECT_EQ(Float.usageFormatProblem(), "usage.prompt_tokens is 1e+15, not a count");
  CompletionStreamDecoder Null;
  Null.onEvent(R"({"choices":[],"usage":{"prompt_tokens":4,"completion_tokens":3,)"
               R"("prompt_tokens_details":null}})");
  EXPECT_EQ(Null.usageFormatProblem(), "");
  EXPECT_TRUE(Null.hasUsage());
}

TEST(StreamTrust, UsageIsCrossCheckedAgainstTheRequestAndTheStream) {
  auto U = [](int64_t P, int64_t C, int64_t Cached = -1) {
    Usage X;
    X.PromptTokens = P;
    X.CompletionTokens = C;
    X.CachedTokens = Cached;
    return X;
  };
  EXPECT_EQ(usageProblem(U(10, 4), 4, 4, 100), "");
  // Speculative decoding: fewer chunks than tokens is normal.
  EXPECT_EQ(usageProblem(U(10, 4), 2, 4, 100), "");
  EXPECT_EQ(usageProblem(U(10, 1000000000000000), 4, 4, 100),
            "usage.completion_tokens 1000000000000000 exceeds the request's max_tokens 4");
  EXPECT_EQ(usageProblem(U(10, 3), 4, 8, 100),
            "usage.completion_tokens 3 is fewer than the 4 output chunks streamed");
  EXPECT_EQ(usageProblem(U(100 + PromptTemplateAllowance + 1, 4), 4, 4, 100),
            "usage.prompt_tokens 65637 exceeds what a request body of 100 bytes can hold");
  EXPECT_EQ(usageProblem(U(10, 4, 11), 4, 4, 100),
            "usage cached_tokens 11 exceeds prompt_tokens 10");
  // Unknown max_tokens: only the other checks apply.
  EXPECT_EQ(usageProblem(U(10, 50), 4, 0, 100), "");
}
TEST(StreamTrust, MetricsScrapeIsCapped) {
  // A /metrics endpoint that announces 70 MiB and sends until the client
  // hangs up: the scrape fails at 64 MiB instead of holding it all.
  int L = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in A{};
  A.sin_family = AF_INET;
  A.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(bind(L, reinterpret_cast<sockaddr *>(&A), sizeof(A)), 0);
  ASSERT_EQ(listen(L, 1), 0);
  socklen_t Len = sizeof(A);
  getsockname(L, reinterpret_cast<sockaddr *>(&A), &Len);
  std::thread Server([L] {
    int C = accept(L, nullptr, nullptr);
    char Req[4096];
    [[maybe_unused]] ssize_t R = recv(C, Req, sizeof(Req), 0);
    std::string Head = "HTTP/1.1 200 OK\r\nContent-Length: 73400320\r\n\r\n";
    send(C, Head.data(), Head.size(), MSG_NOSIGNAL);
    std::string Piece(1 << 20, '#');
    for (int I = 0; I < 70; ++I)
      if (send(C, Piece.data(), Piece.size(), MSG_NOSIGNAL) < 0)
        break;
    close(C);
  });
  std::string Err;
  std::optional<std::string> Text =
      scrapeMetrics("http://127.0.0.1:" + std::to_string(ntohs(A.sin_port)) + "/metrics", Err);
  Server.join();
  close(L);
  EXPECT_FALSE(Text);
  EXPECT_EQ(Err, "the metrics response is larger than 64 MiB");
}
} // namespace
