//===- RequestRecord.cpp - One measured request and the records file ------===//

#include "arecipe/Client/RequestRecord.h"

#include "arecipe/Client/TokenPrompts.h"

#include <nlohmann/json.hpp>

#include <cerrno>
#include <charconv>
#include <fcntl.h>
#include <unistd.h>

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

namespace {
// Builds one record line by hand: a record is written for every request,
// and its chunk_ns array is as long as the output, so a DOM per line would
// cost more than the rest of the request's client-side work. The bytes are
// exactly what nlohmann's dump() of the same ordered object gives (checked
// by a unit test); strings go through nlohmann's own serialiser, so escaping
// and the replacement of invalid UTF-8 are its.
class LineWriter {
public:
  explicit LineWriter(std::string &Out) : Out(Out) { Out.push_back('{'); }
  void key(std::string_view K) {
    if (!First)
      Out.push_back(',');
    First = false;
    Out.push_back('"');
    Out.append(K);
    Out.append("\":");
  }
  void number(std::string_view K, int64_t V) {
    key(K);
    integer(V);
  }
  void unsignedNumber(std::string_view K, uint64_t V) {
    key(K);
    char Buf[24];
    auto [End, Ec] = std::to_chars(Buf, Buf + sizeof(Buf), V);
    Out.append(Buf, End);
  }
  void boolean(std::string_view K, bool V) {
    key(K);
    Out.append(V ? "true" : "false");
  }
  void string(std::string_view K, std::string_view V) {
    key(K);
    bool Plain = true;
    for (char C : V)
      Plain &= static_cast<unsigned char>(C) >= 0x20 && static_cast<unsigned char>(C) < 0x80 &&
               C != '"' && C != '\\';
    if (Plain) {
      Out.push_back('"');
      Out.append(V);
      Out.push_back('"');
      return;
    }
    Out.append(ordered_json(std::string(V))
                   .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  }
  void numbers(std::string_view K, const std::vector<int64_t> &Vs) {
    key(K);
    Out.push_back('[');
    for (size_t I = 0; I < Vs.size(); ++I) {
      if (I)
        Out.push_back(',');
      integer(Vs[I]);
    }
    Out.push_back(']');
  }
  void close() { Out.push_back('}'); }

private:
  void integer(int64_t V) {
    char Buf[24];
    auto [End, Ec] = std::to_chars(Buf, Buf + sizeof(Buf), V);
    Out.append(Buf, End);
  }
  std::string &Out;
  bool First = true;
};
} // namespace

void arecipe::client::appendRecordJsonLine(const RequestRecord &R, std::string &Out) {
  Out.reserve(Out.size() + 480 + 21 * R.ChunkNs.size() + R.ErrorMessage.size() +
              R.SessionId.size());
  LineWriter W(Out);
  W.unsignedNumber("id", R.Id);
  W.string("phase", R.RequestPhase == Phase::Warmup ? "warmup" : "measured");
  W.number("lane", R.Lane);
  if (!R.SessionId.empty()) {
    W.string("session_id", R.SessionId);
    W.number("turn", R.Turn);
  }
  W.number("expected_input_tokens", R.ExpectedInputTokens);
  W.number("max_output_tokens", R.MaxOutputTokens);
  W.number("scheduled_ns", R.ScheduledNs);
  W.number("dispatched_ns", R.DispatchedNs);
  W.number("sent_ns", R.SentNs);
  W.number("first_byte_ns", R.FirstByteNs);
  W.number("first_token_ns", R.FirstTokenNs);
  W.number("end_ns", R.EndNs);
  W.numbers("chunk_ns", R.ChunkNs);
  W.number("input_tokens", R.InputTokens);
  W.number("output_tokens", R.OutputTokens);
  W.number("cached_tokens", R.CachedTokens);
  W.boolean("usage_from_server", R.UsageFromServer);
  if (R.ClientInputTokens >= 0) {
    W.number("client_input_tokens", R.ClientInputTokens);
    W.number("input_token_slack", R.InputTokenSlack);
  }
  if (R.ExpectExactOutput)
    W.boolean("exact_output", true);
  TokenMismatch M = tokenCountMismatch(R);
  if (M.Input || M.Output) {
    W.key("token_mismatch");
    Out.append(M.Input && M.Output ? "[\"input\",\"output\"]"
                                   : M.Input ? "[\"input\"]" : "[\"output\"]");
  }
  W.number("http_status", R.HttpStatus);
  W.string("error", errorKindName(R.Error));
  if (!R.ErrorMessage.empty())
    W.string("error_message", R.ErrorMessage);
  W.close();
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

JsonlRecordSink::JsonlRecordSink(const std::string &Path) {
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
  appendRecordJsonLine(R, Pending);
  Pending.push_back('\n');
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
