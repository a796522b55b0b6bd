//===- SseParser.h - Incremental server-sent-events parser ------*- C++ -*-===//
//
// Turns an arbitrary split of an HTTP response body into server-sent events
// (the WHATWG `text/event-stream` format that OpenAI-compatible servers use for
// streaming). Bytes arrive in whatever pieces the socket delivers; a line or an
// event may straddle any number of reads. An event whose single `data:` line
// arrives within one read is handed on as a view into that read (no copy);
// only what straddles reads is carried in the parser's own buffers, which are
// reused from event to event.
//
// Lines are capped (16 MiB by default) so a server sending a line without end
// cannot exhaust memory: a longer line, or an event whose joined data would
// be longer, is dropped with the event it belongs to and overflowed() says
// so. The cap is far above any real chunk, unlike Python clients whose 64 KB
// / 128 KB limits distort long-context benchmarks. The parser does no
// networking and no JSON: it is a pure state machine so it can be fuzzed and
// unit-tested in isolation.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CLIENT_SSEPARSER_H
#define ARECIPE_CLIENT_SSEPARSER_H

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace arecipe::client {

/// One dispatched event. The views are valid only during the callback.
struct SseEvent {
  std::string_view Name; ///< The `event:` field; empty means "message".
  std::string_view Data; ///< `data:` lines joined with '\n'.
  std::string_view Id;   ///< The last `id:` field seen.
};

/// Incremental parser. Lines may end in LF, CRLF or a lone CR; lines starting
/// with ':' are comments; an empty line dispatches the pending event (an event
/// with no `data:` line is dropped, as the specification requires).
class SseParser {
public:
  using EventCallback = std::function<void(const SseEvent &)>;

  /// Longest line, and longest joined event data, kept by default.
  static constexpr size_t DefaultMaxLineBytes = size_t(16) << 20;

  explicit SseParser(EventCallback OnEvent, size_t MaxLineBytes = DefaultMaxLineBytes)
      : OnEvent(std::move(OnEvent)), MaxLineBytes(MaxLineBytes) {}

  /// Consumes the next piece of the body, dispatching every event it completes.
  void feed(std::string_view Bytes);

  /// Number of bytes held for an incomplete line or event; lets callers see
  /// that a stream ended in the middle of an event.
  size_t pendingBytes() const { return Line.size() + Data.size(); }

  /// Number of events dispatched so far.
  size_t eventCount() const { return Events; }

  /// A line longer than the cap, or an event whose data would be, was seen
  /// (sticky). Such a line is dropped up to its end, and so is its event.
  bool overflowed() const { return Overflowed; }
  size_t maxLineBytes() const { return MaxLineBytes; }

private:
  void processLine(std::string_view L, bool InPlace);
  void dispatch();
  void materialize();

  EventCallback OnEvent;
  size_t MaxLineBytes;
  std::string Line;          // An unterminated line carried over between feeds.
  std::string Data;          // Data of the event being assembled, when copied.
  std::string_view DataView; // Its single data line, in place in the current feed.
  std::string Name;          // Event name of the event being assembled.
  std::string LastId;        // Persists across events, per the specification.
  bool HasData = false;      // Whether a `data:` field was seen for this event.
  bool DataInPlace = false;  // The data is DataView, not Data.
  bool SkipLF = false;       // Previous feed ended in CR; a leading LF is its pair.
  bool LineTooLong = false;  // The carried line passed the cap; drop it at its end.
  bool EventTooLong = false; // Drop the event being assembled at dispatch.
  bool Overflowed = false;
  size_t Events = 0;
};

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_SSEPARSER_H
