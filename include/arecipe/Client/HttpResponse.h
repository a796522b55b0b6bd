//===- HttpResponse.h - Incremental HTTP/1.1 response parser ----*- C++ -*-===//
//
// The client side of HTTP/1.1 framing for the native transport: a status
// line and headers, then a body delimited by Content-Length, chunked
// transfer coding or the end of the connection. Bytes arrive in whatever
// pieces the socket delivers; body bytes are handed on as views into the
// caller's buffer (no copy unless a chunk-size line or the head straddles two
// reads), so a streamed SSE body is scanned in place. Every piece of framing
// the parser has to hold is capped, so a hostile server cannot grow it
// without bound. No networking and no clock: a pure state machine, fuzzed
// for split-independence like SseParser.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CLIENT_HTTPRESPONSE_H
#define ARECIPE_CLIENT_HTTPRESPONSE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace arecipe::client {

struct HttpResponseHead {
  int Status = 0;
  int MinorVersion = 1;       ///< HTTP/1.<minor>
  bool Chunked = false;       ///< Transfer-Encoding: chunked
  int64_t ContentLength = -1; ///< -1: none given
  bool KeepAlive = true;      ///< the connection may carry another request
};

class HttpResponseParser {
public:
  /// Receives the response as it is parsed. Views are valid only during the
  /// call.
  class Handler {
  public:
    virtual ~Handler();
    /// The final (non-1xx) head.
    virtual void onHead(const HttpResponseHead &Head) = 0;
    /// A piece of the (de-chunked) body. Returning false stops parsing: the
    /// caller abandons the response.
    virtual bool onBody(std::string_view Bytes) = 0;
  };

  /// Longest head (status line and headers) or trailer section accepted.
  static constexpr size_t DefaultMaxHeadBytes = 64 * 1024;

  explicit HttpResponseParser(size_t MaxHeadBytes = DefaultMaxHeadBytes)
      : MaxHeadBytes(MaxHeadBytes) {}

  /// Parses the next bytes of the connection. Returns how many were consumed:
  /// fewer than given when the response ended (the rest belongs to no
  /// response), when the handler stopped, or on an error.
  size_t feed(std::string_view Bytes, Handler &H);
  /// The peer closed the connection: ends a body delimited by the close, or
  /// makes a response cut short an error.
  void eof(Handler &H);

  bool done() const { return St == State::Done; }
  bool failed() const { return St == State::Error; }
  /// True once any byte of the response arrived.
  bool started() const { return Started; }
  const std::string &error() const { return Error; }
  const HttpResponseHead &head() const { return Head; }

  /// Ready for the next response on the same connection.
  void reset();

private:
  enum class State { Head, SizeLine, Data, DataEnd, Trailer, UntilLength, UntilClose, Done, Error };

  size_t fail(std::string Why);
  bool parseHead(std::string_view Text);
  /// Collects a line ending in LF into Carry when it straddles reads; sets
  /// Line when complete. Returns bytes consumed.
  size_t takeLine(std::string_view Bytes, std::string_view &Line, bool &Complete, size_t Cap,
                  const char *What);
  void startBody();

  size_t MaxHeadBytes;
  State St = State::Head;
  HttpResponseHead Head;
  std::string Carry;
  std::string Error;
  int64_t Left = 0; // bytes of the current chunk or of the Content-Length body
  size_t TrailerBytes = 0;
  bool Started = false;
  bool DataCr = false; // the CR after a chunk's data was seen
};

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_HTTPRESPONSE_H
