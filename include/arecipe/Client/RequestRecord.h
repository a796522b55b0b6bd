//===- RequestRecord.h - One measured request and the records file -*- C++ -*-===//
//
// The unit every metric is computed from: one request with every timestamp the
// transport took (monotonic nanoseconds), its token counts and, if it failed,
// the class of failure. Records are appended to `records.jsonl` one line per
// request as they finish; the file sink gathers the lines of one turn of the
// event loop and writes them in one call before the loop waits again, so a
// crash loses only what was in flight. The same lines can be read back to
// recompute a summary offline.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CLIENT_REQUESTRECORD_H
#define ARECIPE_CLIENT_REQUESTRECORD_H

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace arecipe::support {
class JsonWriter;
} // namespace arecipe::support

namespace arecipe::client {

enum class Phase { Warmup, Measured };

/// Why a request failed. `None` means success.
enum class ErrorKind {
  None,
  Connect,         ///< could not resolve or connect
  HttpStatus,      ///< non-2xx status other than a context overflow
  Timeout,         ///< the per-request timeout expired
  MalformedStream, ///< bad SSE/JSON, in-stream error, no [DONE], event after it
  ContextOverflow, ///< the prompt exceeded the model's context
  Transport,       ///< any other network failure (reset, partial body)
  Cancelled,       ///< stopped by the client at the end of the run
  InvalidUsage,    ///< the server's usage contradicts the request or the stream
  Stalled,         ///< in flight when no request made progress for the stall window
};

std::string_view errorKindName(ErrorKind K);
std::optional<ErrorKind> parseErrorKind(std::string_view Name);

struct RequestRecord {
  uint64_t Id = 0;
  Phase RequestPhase = Phase::Measured;
  int Lane = -1;         ///< closed-loop lane or agentic lane; -1 for open loop
  std::string SessionId; ///< agentic only
  int Turn = -1;         ///< agentic only

  int64_t ExpectedInputTokens = 0; ///< what the workload generated
  int64_t MaxOutputTokens = 0;     ///< requested OSL (max_tokens)
  /// The client's own count of the prompt the server will tokenize
  /// (TokenPrompts.h); -1 = not counted. The server's count may exceed it
  /// by up to InputTokenSlack (a chat template) without a mismatch.
  int64_t ClientInputTokens = -1;
  int64_t InputTokenSlack = 0;
  /// ignore_eos was sent: the server must generate exactly MaxOutputTokens.
  bool ExpectExactOutput = false;

  // Monotonic timestamps in ns (0 = did not happen).
  int64_t ScheduledNs = 0;  ///< when the workload wanted it sent
  int64_t DispatchedNs = 0; ///< handed to the transport
  int64_t SentNs = 0;       ///< the transport started writing the body
  int64_t FirstByteNs = 0;  ///< first response byte
  int64_t FirstTokenNs = 0; ///< first chunk carrying output
  int64_t EndNs = 0;        ///< response complete or failed
  std::vector<int64_t> ChunkNs; ///< arrival of every output chunk

  int64_t InputTokens = 0;  ///< server usage (or expected input, see flag)
  int64_t OutputTokens = 0; ///< server usage (or output chunk count)
  int64_t CachedTokens = -1;
  bool UsageFromServer = false;

  int HttpStatus = 0;
  ErrorKind Error = ErrorKind::None;
  std::string ErrorMessage;

  bool ok() const { return Error == ErrorKind::None; }
};

/// One JSON object per record, on one line, keys in a fixed order.
std::string recordToJsonLine(const RequestRecord &R);
/// The same line appended to Out (no newline).
void appendRecordJsonLine(const RequestRecord &R, std::string &Out);
/// The same object written at W's position (W writes one line when its
/// indent is negative).
void writeRecordJson(const RequestRecord &R, support::JsonWriter &W);
/// The inverse of recordToJsonLine; returns an error message on failure.
std::optional<RequestRecord> recordFromJsonLine(std::string_view Line, std::string &Err);

/// Where finished records go. The runtime may supply its own sink.
class RecordSink {
public:
  virtual ~RecordSink();
  virtual void write(const RequestRecord &R) = 0;
  /// Called by the event loop before it waits for the network: anything
  /// buffered should reach its destination now.
  virtual void flush() {}
};

/// Appends records to a JSONL file. Lines are buffered and written in one
/// write(2) on flush(), when 1 MiB is pending, and on destruction.
class JsonlRecordSink : public RecordSink {
public:
  /// Opens (truncates) Path; check isOpen().
  explicit JsonlRecordSink(const std::string &Path);
  ~JsonlRecordSink() override;
  bool isOpen() const { return Fd >= 0; }
  void write(const RequestRecord &R) override;
  void flush() override;

private:
  int Fd = -1;
  std::string Pending;
  std::unique_ptr<support::JsonWriter> Line; ///< reused for every line
};

/// Discards records; for callers that only want the summary.
class NullRecordSink : public RecordSink {
public:
  void write(const RequestRecord &) override {}
};

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_REQUESTRECORD_H
