//===- HttpResponseTest.cpp - HTTP/1.1 response framing -------------------===//

#include "arecipe/Client/HttpResponse.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

using namespace arecipe::client;

namespace {
struct Collect : HttpResponseParser::Handler {
  HttpResponseHead Head;
  int Heads = 0;
  std::string Body;
  bool StopAfterBody = false;
  void onHead(const HttpResponseHead &H) override {
    Head = H;
    ++Heads;
  }
  bool onBody(std::string_view B) override {
    Body.append(B);
    return !StopAfterBody;
  }
};

struct Outcome {
  bool Done = false, Failed = false;
  std::string Error, Body;
  int Status = 0, Heads = 0;
  bool KeepAlive = false;
  size_t Consumed = 0;
  bool operator==(const Outcome &O) const {
    return Done == O.Done && Failed == O.Failed && Error == O.Error && Body == O.Body &&
           Status == O.Status && Heads == O.Heads && KeepAlive == O.KeepAlive &&
           Consumed == O.Consumed;
  }
};

// Feeds Bytes in pieces of Step (0: whole), then EOF when asked.
Outcome parse(std::string_view Bytes, size_t Step = 0, bool Eof = false, size_t MaxHead = 1024) {
  HttpResponseParser P(MaxHead);
  Collect C;
  Outcome O;
  size_t Pos = 0;
  while (Pos < Bytes.size()) {
    size_t N = Step ? std::min(Step, Bytes.size() - Pos) : Bytes.size() - Pos;
    size_t Used = P.feed(Bytes.substr(Pos, N), C);
    O.Consumed += Used;
    if (Used < N)
      break;
    Pos += N;
  }
  if (Eof)
    P.eof(C);
  O.Done = P.done();
  O.Failed = P.failed();
  O.Error = P.error();
  O.Body = C.Body;
  O.Status = C.Head.Status;
  O.Heads = C.Heads;
  O.KeepAlive = C.Head.KeepAlive;
  return O;
}

const std::string Chunked = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                            "Transfer-Encoding: chunked\r\n\r\n"
                            "6\r\ndata: \r\n"
                            "5;ext=1\r\nhello\r\n"
                            "2\r\n\n\n\r\n"
                            "0\r\nTrailer: x\r\n\r\n";

TEST(HttpResponse, ChunkedBodyIsDechunked) {
  Outcome O = parse(Chunked);
  EXPECT_TRUE(O.Done) << O.Error;
  EXPECT_EQ(O.Status, 200);
  EXPECT_TRUE(O.KeepAlive);
  EXPECT_EQ(O.Body, "data: hello\n\n");
  EXPECT_EQ(O.Consumed, Chunked.size());
}

TEST(HttpResponse, EverySplitGivesTheSameResult) {
  Outcome Whole = parse(Chunked);
  for (size_t Step = 1; Step < 12; ++Step)
    EXPECT_EQ(parse(Chunked, Step), Whole) << "step " << Step;
}

TEST(HttpResponse, StopsAtTheEndOfTheResponse) {
  std::string Two = "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nabcHTTP/1.1 200 OK\r\n";
  Outcome O = parse(Two);
  EXPECT_TRUE(O.Done);
  EXPECT_EQ(O.Body, "abc");
  EXPECT_EQ(O.Consumed, Two.find("HTTP/1.1", 5));
}

TEST(HttpResponse, InterimResponsesAreSkipped) {
  Outcome O =
      parse("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 500 Oops\r\nContent-Length: 2\r\n\r\nno");
  EXPECT_TRUE(O.Done);
  EXPECT_EQ(O.Heads, 1);
  EXPECT_EQ(O.Status, 500);
  EXPECT_EQ(O.Body, "no");
}

TEST(HttpResponse, BodyUntilCloseNeedsTheClose) {
  std::string R = "HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\ndata: x\n\n";
  Outcome Open = parse(R);
  EXPECT_FALSE(Open.Done);
  EXPECT_FALSE(Open.KeepAlive);
  Outcome Closed = parse(R, 0, /*Eof=*/true);
  EXPECT_TRUE(Closed.Done);
  EXPECT_EQ(Closed.Body, "data: x\n\n");
}

TEST(HttpResponse, KeepAliveFollowsVersionAndConnection) {
  EXPECT_FALSE(
      parse("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n").KeepAlive);
  EXPECT_TRUE(
      parse("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 0\r\n\r\n").KeepAlive);
  EXPECT_FALSE(parse("HTTP/1.0 200 OK\r\nContent-Length: 0\r\n\r\n").KeepAlive);
}

TEST(HttpResponse, TruncatedResponsesAreErrors) {
  Outcome Cut = parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab", 0, true);
  EXPECT_TRUE(Cut.Failed);
  EXPECT_EQ(Cut.Error, "connection closed before the response ended");
  Outcome Nothing = parse("", 0, true);
  EXPECT_TRUE(Nothing.Failed);
  EXPECT_EQ(Nothing.Error, "connection closed before any response");
}

TEST(HttpResponse, MalformedFramingIsAnError) {
  EXPECT_EQ(parse("HTTP/2 200\r\n\r\n").Error, "malformed status line");
  EXPECT_EQ(parse("HTTP/1.1 200 OK\r\nno colon\r\n\r\n").Error, "malformed header line");
  EXPECT_EQ(parse("HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n").Error,
            "conflicting Content-Length headers");
  EXPECT_EQ(parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n").Error,
            "malformed chunk-size line");
  EXPECT_EQ(parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nabc").Error,
            "chunk data not followed by CRLF");
  EXPECT_EQ(
      parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000\r\n").Error,
      "chunk size too large");
}

TEST(HttpResponse, FramingIsCapped) {
  // A head, a chunk-size line or trailers without end cannot grow memory.
  std::string Endless = "HTTP/1.1 200 OK\r\nX: " + std::string(5000, 'a');
  EXPECT_EQ(parse(Endless, 100).Error, "response head longer than 1024 bytes");
  EXPECT_EQ(parse(Endless).Error, "response head longer than 1024 bytes");
  std::string LongSize =
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1;" + std::string(5000, 'x');
  EXPECT_EQ(parse(LongSize, 7).Error, "chunk-size line longer than 4096 bytes");
  std::string Trailers = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n";
  for (int I = 0; I < 200; ++I)
    Trailers += "T: " + std::string(20, 'v') + "\r\n";
  EXPECT_EQ(parse(Trailers).Error, "trailers longer than 1024 bytes");
}

TEST(HttpResponse, HandlerCanStopTheBody) {
  HttpResponseParser P;
  Collect C;
  C.StopAfterBody = true;
  std::string R = "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n12345";
  EXPECT_EQ(P.feed(R, C), R.size());
  EXPECT_FALSE(P.done());
}

TEST(HttpResponse, RandomSplitsOfRandomChunkingsAgree) {
  std::mt19937 Rng(7);
  for (int Round = 0; Round < 200; ++Round) {
    std::string Body;
    std::string Wire = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n";
    int Chunks = int(Rng() % 6);
    for (int I = 0; I < Chunks; ++I) {
      std::string Piece(Rng() % 40 + 1, char('a' + Rng() % 26));
      Body += Piece;
      char Size[16];
      std::snprintf(Size, sizeof(Size), "%zx", Piece.size());
      Wire += std::string(Size) + (Rng() % 2 ? "\r\n" : "\n") + Piece + "\r\n";
    }
    Wire += "0\r\n\r\n";
    Outcome Whole = parse(Wire);
    ASSERT_TRUE(Whole.Done) << Whole.Error;
    ASSERT_EQ(Whole.Body, Body);
    ASSERT_EQ(parse(Wire, Rng() % 9 + 1), Whole);
  }
}
} // namespace
