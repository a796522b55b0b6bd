//===- RecordLineTest.cpp - The hand-built record line matches nlohmann ---===//
//
// records.jsonl lines are built by hand for speed; their bytes must be
// exactly what the previous implementation (an nlohmann::ordered_json dump,
// kept here as the reference) produced, for every kind of field value.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Client/RequestRecord.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <random>

using namespace arecipe::client;
using nlohmann::ordered_json;

namespace {
std::string reference(const RequestRecord &R) {
  ordered_json J;
  J["id"] = R.Id;
  J["phase"] = R.RequestPhase == Phase::Warmup ? "warmup" : "measured";
  J["lane"] = R.Lane;
  if (!R.SessionId.empty()) {
    J["session_id"] = R.SessionId;
    J["turn"] = R.Turn;
  }
  J["expected_input_tokens"] = R.ExpectedInputTokens;
  J["max_output_tokens"] = R.MaxOutputTokens;
  J["scheduled_ns"] = R.ScheduledNs;
  J["dispatched_ns"] = R.DispatchedNs;
  J["sent_ns"] = R.SentNs;
  J["first_byte_ns"] = R.FirstByteNs;
  J["first_token_ns"] = R.FirstTokenNs;
  J["end_ns"] = R.EndNs;
  J["chunk_ns"] = R.ChunkNs;
  J["input_tokens"] = R.InputTokens;
  J["output_tokens"] = R.OutputTokens;
  J["cached_tokens"] = R.CachedTokens;
  J["usage_from_server"] = R.UsageFromServer;
  J["http_status"] = R.HttpStatus;
  J["error"] = errorKindName(R.Error);
  if (!R.ErrorMessage.empty())
    J["error_message"] = R.ErrorMessage;
  return J.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

TEST(RecordLine, MatchesTheDomSerialisationByteForByte) {
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
    R.HttpStatus = int(Rng() % 600);
    R.Error = ErrorKind(Rng() % 10);
    R.ErrorMessage = Strings[Rng() % Strings.size()];
    ASSERT_EQ(recordToJsonLine(R), reference(R)) << "round " << Round;
  }
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
