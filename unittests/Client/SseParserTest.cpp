//===- SseParserTest.cpp - SSE parser edge cases --------------------------===//

#include "arecipe/Client/SseParser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace arecipe::client;

namespace {
struct Collected {
  std::vector<std::string> Data, Names;
  SseParser P{[this](const SseEvent &E) {
    Data.emplace_back(E.Data);
    Names.emplace_back(E.Name);
  }};
};

TEST(SseParser, SingleEventInOneRead) {
  Collected C;
  C.P.feed("data: {\"a\":1}\n\n");
  ASSERT_EQ(C.Data.size(), 1u);
  EXPECT_EQ(C.Data[0], "{\"a\":1}");
  EXPECT_EQ(C.P.pendingBytes(), 0u);
}

TEST(SseParser, EventSplitAtEveryByte) {
  const std::string Stream = "data: first\n\ndata: second\r\n\r\n: keep-alive\n\ndata: [DONE]\n\n";
  Collected C;
  for (char Ch : Stream)
    C.P.feed(std::string_view(&Ch, 1));
  ASSERT_EQ(C.Data.size(), 3u);
  EXPECT_EQ(C.Data[0], "first");
  EXPECT_EQ(C.Data[1], "second");
  EXPECT_EQ(C.Data[2], "[DONE]");
}

TEST(SseParser, CrLfSplitBetweenReads) {
  Collected C;
  C.P.feed("data: x\r");
  C.P.feed("\n\r");
  C.P.feed("\n");
  ASSERT_EQ(C.Data.size(), 1u);
  EXPECT_EQ(C.Data[0], "x");
}

TEST(SseParser, LoneCrEndsLines) {
  Collected C;
  C.P.feed("data: a\r\rdata: b\r\r");
  ASSERT_EQ(C.Data.size(), 2u);
  EXPECT_EQ(C.Data[1], "b");
}

TEST(SseParser, CommentsAreIgnored) {
  Collected C;
  C.P.feed(": ping\n\n:another\ndata: real\n\n");
  ASSERT_EQ(C.Data.size(), 1u);
  EXPECT_EQ(C.Data[0], "real");
}

TEST(SseParser, MultiLineDataJoinedWithNewline) {
  Collected C;
  C.P.feed("data: one\ndata:two\ndata:  three\n\n");
  ASSERT_EQ(C.Data.size(), 1u);
  // Only one leading space is stripped.
  EXPECT_EQ(C.Data[0], "one\ntwo\n three");
}

TEST(SseParser, EventNameAndIdAreKept) {
  Collected C;
  C.P.feed("event: error\nid: 7\ndata: boom\n\ndata: next\n\n");
  ASSERT_EQ(C.Data.size(), 2u);
  EXPECT_EQ(C.Names[0], "error");
  EXPECT_EQ(C.Names[1], ""); // the name does not carry over
}

TEST(SseParser, EventWithoutDataIsNotDispatched) {
  Collected C;
  C.P.feed("event: ping\n\nid: 3\n\n");
  EXPECT_TRUE(C.Data.empty());
}

TEST(SseParser, EmptyDataLineDispatchesEmptyEvent) {
  Collected C;
  C.P.feed("data\n\n");
  ASSERT_EQ(C.Data.size(), 1u);
  EXPECT_EQ(C.Data[0], "");
}

TEST(SseParser, HugeEventAcrossManyReads) {
  // 8 MiB in one event, delivered in 4 KiB reads: no size limit applies.
  std::string Payload(8 << 20, 'x');
  std::string Stream = "data: " + Payload + "\n\n";
  Collected C;
  for (size_t I = 0; I < Stream.size(); I += 4096)
    C.P.feed(std::string_view(Stream).substr(I, 4096));
  ASSERT_EQ(C.Data.size(), 1u);
  EXPECT_EQ(C.Data[0].size(), Payload.size());
}

TEST(SseParser, IncompleteEventIsPending) {
  Collected C;
  C.P.feed("data: partial");
  EXPECT_TRUE(C.Data.empty());
  EXPECT_GT(C.P.pendingBytes(), 0u);
  C.P.feed("\n");
  EXPECT_TRUE(C.Data.empty());
  C.P.feed("\n");
  EXPECT_EQ(C.Data.size(), 1u);
  EXPECT_EQ(C.P.eventCount(), 1u);
}

TEST(SseParser, FieldWithoutColonIsAFieldName) {
  Collected C;
  C.P.feed("data\ndata: x\n\n");
  ASSERT_EQ(C.Data.size(), 1u);
  EXPECT_EQ(C.Data[0], "\nx");
}
} // namespace
