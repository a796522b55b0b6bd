//===- RequestRecord.cpp - One measured request and the records file ------===//

#include "arecipe/Client/RequestRecord.h"

#include "arecipe/Client/TokenPrompts.h"

#include <nlohmann/json.hpp>

using namespace arecipe::client;
using nlohmann::ordered_json;

namespace {
struct KindName {
  ErrorKind Kind;
  std::string_view Name;
};
constexpr KindName KindNames[] = {
    {ErrorKind::None, "none"},
    {ErrorKind::Connect, "connect"},
    {ErrorKind::HttpStatus, "http_status"},
    {ErrorKind::Timeout, "timeout"},
    {ErrorKind::MalformedStream, "malformed_stream"},
    {ErrorKind::ContextOverflow, "context_overflow"},
    {ErrorKind::Transport, "transport"},
    {ErrorKind::Cancelled, "cancelled"},
};
} // namespace

std::string_view arecipe::client::errorKindName(ErrorKind K) {
  for (const KindName &N : KindNames)
    if (N.Kind == K)
      return N.Name;
  return "unknown";
}

std::optional<ErrorKind> arecipe::client::parseErrorKind(std::string_view Name) {
  for (const KindName &N : KindNames)
    if (N.Name == Name)
      return N.Kind;
  return std::nullopt;
}

std::string arecipe::client::recordToJsonLine(const RequestRecord &R) {
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
  if (R.ClientInputTokens >= 0) {
    J["client_input_tokens"] = R.ClientInputTokens;
    J["input_token_slack"] = R.InputTokenSlack;
  }
  if (R.ExpectExactOutput)
    J["exact_output"] = true;
  TokenMismatch M = tokenCountMismatch(R);
  if (M.Input || M.Output) {
    ordered_json &List = J["token_mismatch"] = ordered_json::array();
    if (M.Input)
      List.push_back("input");
    if (M.Output)
      List.push_back("output");
  }
  J["http_status"] = R.HttpStatus;
  J["error"] = errorKindName(R.Error);
  if (!R.ErrorMessage.empty())
    J["error_message"] = R.ErrorMessage;
  return J.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::optional<RequestRecord> arecipe::client::recordFromJsonLine(std::string_view Line,
                                                                 std::string &Err) {
  ordered_json J = ordered_json::parse(Line.begin(), Line.end(), nullptr, false);
  if (J.is_discarded() || !J.is_object()) {
    Err = "not a JSON object";
    return std::nullopt;
  }
  RequestRecord R;
  try {
    R.Id = J.at("id").get<uint64_t>();
    std::string PhaseName = J.at("phase").get<std::string>();
    if (PhaseName != "warmup" && PhaseName != "measured") {
      Err = "phase: expected 'warmup' or 'measured'";
      return std::nullopt;
    }
    R.RequestPhase = PhaseName == "warmup" ? Phase::Warmup : Phase::Measured;
    R.Lane = J.value("lane", -1);
    R.SessionId = J.value("session_id", std::string());
    R.Turn = J.value("turn", -1);
    R.ExpectedInputTokens = J.value("expected_input_tokens", int64_t(0));
    R.MaxOutputTokens = J.value("max_output_tokens", int64_t(0));
    R.ScheduledNs = J.at("scheduled_ns").get<int64_t>();
    R.DispatchedNs = J.value("dispatched_ns", int64_t(0));
    R.SentNs = J.value("sent_ns", int64_t(0));
    R.FirstByteNs = J.value("first_byte_ns", int64_t(0));
    R.FirstTokenNs = J.value("first_token_ns", int64_t(0));
    R.EndNs = J.at("end_ns").get<int64_t>();
    R.ChunkNs = J.value("chunk_ns", std::vector<int64_t>());
    R.InputTokens = J.value("input_tokens", int64_t(0));
    R.OutputTokens = J.value("output_tokens", int64_t(0));
    R.CachedTokens = J.value("cached_tokens", int64_t(-1));
    R.UsageFromServer = J.value("usage_from_server", false);
    R.ClientInputTokens = J.value("client_input_tokens", int64_t(-1));
    R.InputTokenSlack = J.value("input_token_slack", int64_t(0));
    R.ExpectExactOutput = J.value("exact_output", false);
    R.HttpStatus = J.value("http_status", 0);
    std::optional<ErrorKind> Kind = parseErrorKind(J.value("error", std::string("none")));
    if (!Kind) {
      Err = "error: unknown error kind";
      return std::nullopt;
    }
    R.Error = *Kind;
    R.ErrorMessage = J.value("error_message", std::string());
  } catch (const nlohmann::json::exception &E) {
    Err = E.what();
    return std::nullopt;
  }
  return R;
}

RecordSink::~RecordSink() = default;

JsonlRecordSink::JsonlRecordSink(const std::string &Path) {
  File = std::fopen(Path.c_str(), "w");
}

JsonlRecordSink::~JsonlRecordSink() {
  if (File)
    std::fclose(File);
}

void JsonlRecordSink::write(const RequestRecord &R) {
  if (!File)
    return;
  std::string Line = recordToJsonLine(R);
  Line.push_back('\n');
  std::fwrite(Line.data(), 1, Line.size(), File);
  // Flushed per line so a crash or kill keeps every finished request.
  std::fflush(File);
}
