//===- Readiness.h - Waiting for an OpenAI-compatible server ----*- C++ -*-===//
//
// Before measuring a server it did not start (`arecipe-run --endpoint`), the
// runtime waits until the server answers: GET <base>/v1/models returns 200
// and lists the model the client will ask for, with the same headers the
// requests will carry (an authorization, say). A server still loading
// refuses connections or answers 503; one that answers 401 or 403 will not
// change its mind, and the wait says so at once instead of timing out.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_CLIENT_READINESS_H
#define ARECIPE_CLIENT_READINESS_H

#include "arecipe/Client/Workload.h"

#include <functional>
#include <string>

namespace arecipe::client {

/// Polls Target's model list every 250 ms for up to TimeoutS seconds (or
/// until Stop returns true). True when it lists Target.Model; false with
/// Err saying what the server last answered.
bool waitUntilServing(const Endpoint &Target, double TimeoutS, std::string &Err,
                      const std::function<bool()> &Stop = {});

} // namespace arecipe::client

#endif // ARECIPE_CLIENT_READINESS_H
