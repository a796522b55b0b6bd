//===- RequestRecord.cpp - One measured request and the records file ------===//

#include "arecipe/Client/RequestRecord.h"

#include "arecipe/Client/TokenPrompts.h"
#include "arecipe/Support/JsonWriter.h"
#include "arecipe/Support/Utf8.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <fcntl.h>
#include <unistd.h>

using namespace arecipe::client;
using nlohmann::ordered_json;
namespace support = arecipe::support;

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
    {ErrorKind::InvalidUsage, "invalid_usage"},
    {ErrorKind::Stalled, "stalled"},
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

// One record line, written token by token with the streaming writer: a
// record is written for every request and its chunk_ns array is as long as
// the output, so a DOM per line would cost more than the rest of the
// request's client-side work. The bytes are nlohmann's dump() of the same
// ordered object (RecordLineTest checks them against it).
namespace {
// A record's strings may quote a server (error messages) and hold invalid
// UTF-8. The writer replaces each bad byte where nlohmann's replace handler,
// which wrote record lines before, replaces a truncated sequence once;
// such a string is passed through nlohmann's replacement first so the
// bytes stay what they were. Valid strings (all but a hostile server's)
// take no detour.
void writeText(support::JsonWriter &W, std::string_view K, std::string_view S) {
  W.key(K);
  if (support::isValidUtf8(S)) {
    W.string(S);
    return;
  }
  std::string Dumped =
      ordered_json(std::string(S)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  W.string(ordered_json::parse(Dumped).get<std::string>());
}
} // namespace

void arecipe::client::writeRecordJson(const RequestRecord &R, support::JsonWriter &W) {
  W.beginObject();
  W.member("id", R.Id);
  W.member("phase", R.RequestPhase == Phase::Warmup ? "warmup" : "measured");
  W.member("lane", R.Lane);
  if (!R.SessionId.empty()) {
    writeText(W, "session_id", R.SessionId);
    W.member("turn", R.Turn);
  }
  W.member("expected_input_tokens", R.ExpectedInputTokens);
  W.member("max_output_tokens", R.MaxOutputTokens);
  W.member("scheduled_ns", R.ScheduledNs);
  W.member("dispatched_ns", R.DispatchedNs);
  W.member("sent_ns", R.SentNs);
  W.member("first_byte_ns", R.FirstByteNs);
  W.member("first_token_ns", R.FirstTokenNs);
  W.member("end_ns", R.EndNs);
  W.key("chunk_ns");
  W.beginArray();
  for (int64_t Ns : R.ChunkNs)
    W.number(Ns);
  W.endArray();
  W.member("input_tokens", R.InputTokens);
  W.member("output_tokens", R.OutputTokens);
  W.member("cached_tokens", R.CachedTokens);
  W.member("usage_from_server", R.UsageFromServer);
  if (R.ClientInputTokens >= 0) {
    W.member("client_input_tokens", R.ClientInputTokens);
    W.member("input_token_slack", R.InputTokenSlack);
  }
  if (R.ExpectExactOutput)
    W.member("exact_output", true);
  TokenMismatch M = tokenCountMismatch(R);
  if (M.Input || M.Output) {
    W.key("token_mismatch");
    W.beginArray();
    if (M.Input)
      W.string("input");
    if (M.Output)
      W.string("output");
    W.endArray();
  }
  W.member("http_status", R.HttpStatus);
  W.member("error", errorKindName(R.Error));
  if (!R.ErrorMessage.empty())
    writeText(W, "error_message", R.ErrorMessage);
  W.endObject();
}

void arecipe::client::appendRecordJsonLine(const RequestRecord &R, std::string &Out) {
  support::JsonWriter W(/*Indent=*/-1);
  writeRecordJson(R, W);
  Out += W.text();
}

std::string arecipe::client::recordToJsonLine(const RequestRecord &R) {
  std::string Line;
  appendRecordJsonLine(R, Line);
  return Line;
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

JsonlRecordSink::JsonlRecordSink(const std::string &Path)
    : Line(std::make_unique<support::JsonWriter>(/*Indent=*/-1)) {
  Fd = ::open(Path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
}

JsonlRecordSink::~JsonlRecordSink() {
  flush();
  if (Fd >= 0)
    ::close(Fd);
}

void JsonlRecordSink::write(const RequestRecord &R) {
  if (Fd < 0)
    return;
  // One writer for every line, so its buffers are allocated once.
  writeRecordJson(R, *Line);
  Pending += Line->text();
  Pending.push_back('\n');
  Line->clear();
  if (Pending.size() >= (size_t(1) << 20))
    flush();
}

void JsonlRecordSink::flush() {
  size_t Off = 0;
  while (Fd >= 0 && Off < Pending.size()) {
    ssize_t N = ::write(Fd, Pending.data() + Off, Pending.size() - Off);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break; // a full disk: the lines are lost, as an unwritable file loses them
    Off += size_t(N);
  }
  Pending.clear();
}
