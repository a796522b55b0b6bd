//===- HttpCall.h - Short blocking HTTP calls to a local engine -*- C++ -*-===//
//
// The runtime's control-plane requests to the engines it launched: health and
// model-list probes during start-up, profiler start/stop, metric scrapes.
// Each call is one blocking request with a short timeout over libcurl, never
// through a proxy (a leaked HTTP_PROXY must not swallow calls to loopback).
// Load generation is the client library's job, not this one's.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_HTTPCALL_H
#define ARECIPE_RUNTIME_HTTPCALL_H

#include <string>

namespace arecipe::runtime {

struct HttpReply {
  long Status = 0;   ///< 0 when no HTTP answer came back
  std::string Body;  ///< at most 1 MiB is kept
  std::string Error; ///< transport failure ("Connection refused"), else empty

  bool ok() const { return Status >= 200 && Status < 300; }
  /// "200", "503", or the transport error.
  std::string describe() const;
};

enum class HttpMethod { Get, Post };

HttpReply httpCall(HttpMethod Method, const std::string &Url, long TimeoutMs);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_HTTPCALL_H
