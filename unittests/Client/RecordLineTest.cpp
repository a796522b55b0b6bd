//===- RecordLineTest.cpp - The streamed record line matches nlohmann -----===//
//
// records.jsonl lines are written with support::JsonWriter, without a DOM,
// for speed; their bytes must be exactly what the first implementation, an
// nlohmann::ordered_json dump with the replace handler, produced:
// nlohmann's canonical form, keys in the fixed order, every value the
// record's, for every kind of field value (escapes, control bytes, invalid
// UTF-8, extreme integers).
//
//===----------------------------------------------------------------------===//

#include "arecipe/Client/RequestRecord.h"
#include "arecipe/Client/TokenPrompts.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>
#include <random>

using namespace arecipe::client;
using nlohmann::ordered_json;

namespace {
// The keys of a record line, in their fixed order.
std::vector<std::string> keysOf(const RequestRecord &R) {
  std::vector<std::string> K = {"id", "phase", "lane"};
  if (!R.SessionId.empty())
    K.insert(K.end(), {"session_id", "turn"});
  K.insert(K.end(),
           {"expected_input_tokens", "max_output_tokens", "scheduled_ns", "dispatched_ns",
            "sent_ns", "first_byte_ns", "first_token_ns", "end_ns", "chunk_ns", "input_tokens",
            "output_tokens", "cached_tokens", "usage_from_server"});
  if (R.ClientInputTokens >= 0)
    K.insert(K.end(), {"client_input_tokens", "input_token_slack"});
  if (R.ExpectExactOutput)
    K.push_back("exact_output");
  TokenMismatch M = tokenCountMismatch(R);
  if (M.Input || M.Output)
    K.push_back("token_mismatch");
  K.insert(K.end(), {"http_status", "error"});
  if (!R.ErrorMessage.empty())
    K.push_back("error_message");
  return K;
}

TEST(RecordLine, IsNlohmannsCanonicalFormOfTheRecord) {
  std::mt19937_64 Rng(3);
  const std::vector<std::string> Strings = {"",
                                            "plain",
                                            "quote \" and backslash \\",
                                            "tab\tnewline\ncr\r",
                                            std::string("nul\0x", 5),
                                            "\x01\x1f\x7f",
                                            "unicode \xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80",
                                            "bad utf-8 \xff\xfe end",
                                            "cut \xe2\x82",
                                            "/slash/",
                                            "session#7/sub3.1"};
  for (int Round = 0; Round < 500; ++Round) {
    RequestRecord R;
    R.Id = Rng();
    R.RequestPhase = Rng() % 2 ? Phase::Warmup : Phase::Measured;
    R.Lane = int(Rng() % 100) - 1;
    R.SessionId = Strings[Rng() % Strings.size()];
    R.Turn = int(Rng() % 50) - 1;
    R.ExpectedInputTokens = int64_t(Rng() >> 1);
    R.MaxOutputTokens = -int64_t(Rng() % 1000);
    R.ScheduledNs = int64_t(Rng());
    R.DispatchedNs = int64_t(Rng() >> 3);
    R.SentNs = 0;
    R.FirstByteNs = INT64_MIN;
    R.FirstTokenNs = INT64_MAX;
    R.EndNs = int64_t(Rng() % 7);
    for (size_t I = 0, N = Rng() % 40; I < N; ++I)
      R.ChunkNs.push_back(int64_t(Rng()));
    R.InputTokens = int64_t(Rng() % 100000);
    R.OutputTokens = int64_t(Rng());
    R.CachedTokens = -1;
    R.UsageFromServer = Rng() % 2;
    R.ClientInputTokens = Rng() % 3 ? -1 : int64_t(Rng() % 100000);
    R.InputTokenSlack = int64_t(Rng() % 64);
    R.ExpectExactOutput = Rng() % 2;
    R.HttpStatus = int(Rng() % 600);
    R.Error = ErrorKind(Rng() % 10);
    R.ErrorMessage = Strings[Rng() % Strings.size()];
    std::string Line = recordToJsonLine(R);
    // nlohmann reads it, and writing what it read gives the same bytes: the
    // line is in nlohmann's own canonical form (escapes, numbers, no spaces).
    ordered_json J = ordered_json::parse(Line, nullptr, false);
    ASSERT_FALSE(J.is_discarded()) << Line;
    ASSERT_EQ(J.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace), Line);
    // Keys in order, and the values are the record's.
    std::vector<std::string> Keys;
    for (auto It = J.begin(); It != J.end(); ++It)
      Keys.push_back(It.key());
    ASSERT_EQ(Keys, keysOf(R));
    // Strings are escaped, and invalid UTF-8 replaced, as nlohmann's dump
    // with the replace handler writes the record's own string.
    auto Dumped = [](const std::string &S) {
      return ordered_json(S).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    };
    if (!R.SessionId.empty()) {
      EXPECT_NE(Line.find("\"session_id\":" + Dumped(R.SessionId) + ","), std::string::npos)
          << Line;
    }
    if (!R.ErrorMessage.empty()) {
      EXPECT_NE(Line.find("\"error_message\":" + Dumped(R.ErrorMessage) + "}"), std::string::npos)
          << Line;
    }
    std::string Err;
    std::optional<RequestRecord> Back = recordFromJsonLine(Line, Err);
    ASSERT_TRUE(Back) << Err;
    EXPECT_EQ(Back->Id, R.Id);
    EXPECT_EQ(Back->Lane, R.Lane);
    EXPECT_EQ(Back->ScheduledNs, R.ScheduledNs);
    EXPECT_EQ(Back->FirstByteNs, R.FirstByteNs);
    EXPECT_EQ(Back->FirstTokenNs, R.FirstTokenNs);
    EXPECT_EQ(Back->ChunkNs, R.ChunkNs);
    EXPECT_EQ(Back->OutputTokens, R.OutputTokens);
    EXPECT_EQ(Back->UsageFromServer, R.UsageFromServer);
    EXPECT_EQ(Back->Error, R.Error);
    // Strings survive exactly when they were valid UTF-8; invalid bytes
    // become U+FFFD, as nlohmann's replace handler does.
    bool ValidUtf8 = R.ErrorMessage.find("bad utf-8") == std::string::npos &&
                     R.ErrorMessage.find("cut ") == std::string::npos;
    if (ValidUtf8) {
      EXPECT_EQ(Back->ErrorMessage, R.ErrorMessage);
    }
  }
}

// The file sink writes one writer's output for every record: each line is
// the record's own, whatever the line before it held.
TEST(RecordLine, FileSinkWritesEveryRecordsLine) {
  std::string Path = ::testing::TempDir() + "/record-line-sink.jsonl";
  std::vector<RequestRecord> Records(40);
  for (size_t I = 0; I < Records.size(); ++I) {
    RequestRecord &R = Records[I];
    R.Id = I;
    R.SessionId = I % 3 ? "" : "s" + std::to_string(I);
    R.Turn = int(I % 5);
    for (size_t K = 0; K < (I * 37) % 300; ++K)
      R.ChunkNs.push_back(int64_t(K * 1000003 + I));
    R.Error = I % 4 ? ErrorKind::None : ErrorKind::Transport;
    R.ErrorMessage = I % 8 == 0 ? "bad \xff \"quoted\"" : I % 4 ? "" : "reset";
    R.ClientInputTokens = I % 2 ? int64_t(I) : -1;
  }
  {
    JsonlRecordSink Sink(Path);
    ASSERT_TRUE(Sink.isOpen());
    for (size_t I = 0; I < Records.size(); ++I) {
      Sink.write(Records[I]);
      if (I % 7 == 0)
        Sink.flush();
    }
  }
  std::ifstream In(Path);
  std::string Line;
  size_t N = 0;
  for (; std::getline(In, Line); ++N) {
    ASSERT_LT(N, Records.size());
    EXPECT_EQ(Line, recordToJsonLine(Records[N]));
  }
  EXPECT_EQ(N, Records.size());
  std::remove(Path.c_str());
}

TEST(RecordLine, NewErrorKindsRoundTrip) {
  for (ErrorKind K : {ErrorKind::InvalidUsage, ErrorKind::Stalled}) {
    RequestRecord R;
    R.Error = K;
    R.ErrorMessage = "why";
    std::string Err;
    std::optional<RequestRecord> Back = recordFromJsonLine(recordToJsonLine(R), Err);
    ASSERT_TRUE(Back) << Err;
    EXPECT_EQ(Back->Error, K);
  }
  EXPECT_EQ(errorKindName(ErrorKind::InvalidUsage), "invalid_usage");
  EXPECT_EQ(errorKindName(ErrorKind::Stalled), "stalled");
}
} // namespace
