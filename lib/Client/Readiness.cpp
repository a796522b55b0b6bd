//===- Readiness.cpp - Waiting for an OpenAI-compatible server ------------===//

#include "arecipe/Client/Readiness.h"

#include "arecipe/Client/Prometheus.h"

#include "CurlLibrary.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <thread>

namespace arecipe::client {

namespace {

/// Whether a /v1/models body lists Model (its `data[].id`).
bool listsModel(const std::string &Body, const std::string &Model) {
  nlohmann::json J = nlohmann::json::parse(Body, nullptr, /*allow_exceptions=*/false);
  if (!J.is_object() || !J.contains("data") || !J["data"].is_array())
    return false;
  for (const nlohmann::json &M : J["data"])
    if (M.is_object() && M.contains("id") && M["id"].is_string() && M["id"] == Model)
      return true;
  return false;
}

} // namespace

bool waitUntilServing(const Endpoint &Target, double TimeoutS, std::string &Err,
                      const std::function<bool()> &Stop) {
  using Clock = std::chrono::steady_clock;
  auto Deadline = Clock::now() + std::chrono::duration<double>(TimeoutS);
  std::string Url = Target.BaseUrl + "/v1/models", Last = "no answer";
  // Every check is a GET through libcurl: without it no wait can succeed,
  // so say so at once rather than after the whole timeout.
  if (std::string Why; !detail::curlLibrary(Why)) {
    Err = fmt::format(
        "cannot load libcurl, which the readiness check of {} needs: {}", Url,
        Why);
    return false;
  }
  while (true) {
    long Status = 0;
    std::string GetErr;
    std::optional<std::string> Body = httpGetText(Url, Target.ExtraHeaders, 5000, Status, GetErr);
    if (Body && Status == 200) {
      if (listsModel(*Body, Target.Model))
        return true;
      Last = fmt::format("HTTP 200 without '{}' in the model list", Target.Model);
    } else if (Body && (Status == 401 || Status == 403)) {
      Err = fmt::format("{} answered HTTP {}: the endpoint refuses these credentials", Url, Status);
      return false;
    } else {
      Last = Body ? fmt::format("HTTP {}", Status) : GetErr;
    }
    if (Clock::now() >= Deadline || (Stop && Stop())) {
      Err = fmt::format("{} did not list '{}' within {} s (last answer: {})", Url, Target.Model,
                        TimeoutS, Last);
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(250));
  }
}

} // namespace arecipe::client
