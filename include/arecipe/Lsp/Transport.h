//===- Transport.h - JSON-RPC messages over a byte stream ------*- C++ -*-===//
//
// The Language Server Protocol's base layer: messages framed by a
// `Content-Length: N` header block and an empty line, each a JSON-RPC 2.0
// object. An editor can send anything down the pipe, so reading a frame
// never crashes or throws: a header block without a usable length, a body
// longer than the limit or a body that is not JSON is returned as an error
// the server answers (JSON-RPC's ParseError), and reading goes on with the
// next frame.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LSP_TRANSPORT_H
#define ARECIPE_LSP_TRANSPORT_H

#include "arecipe/Support/Json.h"

#include <cstdio>
#include <optional>
#include <string>

namespace arecipe::lsp {

/// One frame read from the stream.
struct Frame {
  enum Kind { Message, Malformed, End } K = End;
  support::json Body; ///< Message: the parsed body.
  std::string Error;  ///< Malformed: why, for the ParseError's message.
};

class Transport {
public:
  /// Reads from In and writes to Out (not owned). MaxBody bounds one body.
  Transport(std::FILE *In, std::FILE *Out, size_t MaxBody = size_t(64) << 20)
      : In(In), Out(Out), MaxBody(MaxBody) {}

  /// The next frame; End at end of input.
  Frame read();
  /// Writes one message with its header and flushes.
  void write(const support::json &Message);

private:
  std::FILE *In;
  std::FILE *Out;
  size_t MaxBody;
};

} // namespace arecipe::lsp

#endif // ARECIPE_LSP_TRANSPORT_H
