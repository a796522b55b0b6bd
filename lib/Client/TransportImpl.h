//===- TransportImpl.h - Pieces shared by the two transports ----*- C++ -*-===//
//
// Private to lib/Client. An Exchange is one request from dispatch to its
// record: it decodes the response body the same way whichever transport
// delivers it (native HTTP/1.1 or libcurl), so both classify every response
// identically. The transports only move bytes and report how a transfer
// ended.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_CLIENT_TRANSPORTIMPL_H
#define ARECIPE_LIB_CLIENT_TRANSPORTIMPL_H

#include "arecipe/Client/CompletionStream.h"
#include "arecipe/Client/HttpResponse.h"
#include "arecipe/Client/SseParser.h"
#include "arecipe/Client/Transport.h"

#include <string>

namespace arecipe::client {

/// The parts of an http:// URL the native transport needs.
struct ParsedUrl {
  std::string Host;     ///< without brackets for IPv6 literals
  std::string Port;     ///< "80" when absent
  std::string HostPort; ///< as written, for the Host header
  std::string Target;   ///< path and query, at least "/"
};

/// Parses http://HOST[:PORT][/PATH]; false for anything the native transport
/// leaves to libcurl (another scheme, credentials) or cannot parse.
bool parseHttpUrl(std::string_view Url, ParsedUrl &Out);

struct EventLoop::Exchange : HttpResponseParser::Handler {
  EventLoop *Loop = nullptr;
  size_t Slot = 0;
  StreamRequest Request;
  RequestRecord Record;
  DoneCallback Done;
  CompletionStreamDecoder Decoder;
  SseParser Parser;
  int64_t NowNs = 0;      ///< arrival time of the bytes being parsed
  int64_t DeadlineNs = 0; ///< whole-request timeout; 0 = none
  long Status = 0;
  std::string ErrorBody;
  bool StreamFailed = false; ///< stop reading: the body cannot be trusted
  std::string StreamError;   ///< why, when it is not the decoder's error
  bool Finished = false;
  // Transport state.
  bool ViaCurl = false;
  void *Transfer = nullptr; ///< the native connection or the curl handle
  int Attempts = 0;

  explicit Exchange(size_t MaxLineBytes)
      : Parser([this](const SseEvent &E) { onEvent(E); }, MaxLineBytes) {}

  /// The response head arrived (status known).
  void onHead(const HttpResponseHead &Head) override;
  /// Body bytes that arrived at NowNs. False: stop reading, the stream failed.
  bool onBody(std::string_view Bytes) override;
  void onEvent(const SseEvent &E);

  /// Fills the record's outcome: Kind/Message describe how the transfer
  /// ended (None: the response completed).
  void classify(ErrorKind Kind, std::string Message);
};

} // namespace arecipe::client

#endif // ARECIPE_LIB_CLIENT_TRANSPORTIMPL_H
