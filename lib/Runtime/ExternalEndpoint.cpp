//===- ExternalEndpoint.cpp - Measuring a server already running ----------===//

#include "arecipe/Runtime/ExternalEndpoint.h"

#include "arecipe/Client/Readiness.h"
#include "arecipe/Runtime/StopRequest.h"
#include "arecipe/Support/Redaction.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdlib>
#include <set>

namespace arecipe::runtime {

bool configureEndpoint(const EndpointOptions &Options, RunSettings &S, std::string &Err) {
  std::string Url = Options.Url;
  if (Url.rfind("http://", 0) != 0 && Url.rfind("https://", 0) != 0) {
    Err = "--endpoint: expected an http:// or https:// URL";
    return false;
  }
  if (Url.find_first_of(" \t\r\n") != std::string::npos) {
    Err = "--endpoint: the URL contains a blank or a line break";
    return false;
  }
  while (!Url.empty() && Url.back() == '/')
    Url.pop_back();
  // The OpenAI base URL is often given with its /v1; the client adds it.
  if (Url.size() > 3 && Url.compare(Url.size() - 3, 3, "/v1") == 0)
    Url.resize(Url.size() - 3);
  if (Url.size() <= Url.find("://") + 3) {
    Err = "--endpoint: the URL names no host";
    return false;
  }
  S.Endpoint.Url = Url;
  S.Endpoint.Model = Options.Model;
  if (Options.MetricsPath == "none")
    S.Endpoint.MetricsPath.clear();
  else if (Options.MetricsPath.empty() || Options.MetricsPath[0] != '/') {
    Err = "--endpoint-metrics: expected a path starting with / (or none)";
    return false;
  } else
    S.Endpoint.MetricsPath = Options.MetricsPath;
  // A password in the URL (https://user:password@host) is redacted like any
  // password in a URL; the key proper comes from the environment.
  S.Endpoint.Headers.clear();
  if (!Options.ApiKeyEnv.empty()) {
    const char *Key = std::getenv(Options.ApiKeyEnv.c_str());
    if (!Key || !*Key) {
      Err = fmt::format("--endpoint-api-key-env: the environment variable {} is not set or empty",
                        Options.ApiKeyEnv);
      return false;
    }
    std::string Value = Key;
    if (Value.find_first_of("\r\n") != std::string::npos) {
      Err = fmt::format("--endpoint-api-key-env: {} holds a line break", Options.ApiKeyEnv);
      return false;
    }
    // Never shown: every output of the runtime replaces it.
    support::addSecretValue(Value);
    S.Endpoint.Headers.push_back("Authorization: Bearer " + Value);
  }
  return true;
}

void detachFromProcesses(LaunchPlan &Plan) {
  for (Cell &C : Plan.Cells) {
    C.Processes.clear();
    C.Preflight.clear();
    C.Profile.clear();
  }
}

bool waitForEndpoint(const std::vector<const Cell *> &Cells, const RunSettings &S, double TimeoutS,
                     ProgressReport &Progress, std::string &Err) {
  std::set<std::string> Models;
  for (const Cell *C : Cells)
    Models.insert(S.Endpoint.Model.empty() ? C->Client.ServedModelName : S.Endpoint.Model);
  auto Start = std::chrono::steady_clock::now();
  for (const std::string &Model : Models) {
    client::Endpoint Target;
    Target.BaseUrl = S.Endpoint.Url;
    Target.Model = Model;
    Target.ExtraHeaders = S.Endpoint.Headers;
    Progress.message(
        fmt::format("waiting for {} to serve '{}' (up to {} s)", S.Endpoint.Url, Model, TimeoutS));
    if (!client::waitUntilServing(Target, TimeoutS, Err, [] { return stopRequested(); }))
      return false;
  }
  Progress.message(
      fmt::format("{} is ready ({:.1f} s); its processes are not started or stopped by this run",
                  S.Endpoint.Url,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - Start).count()));
  return true;
}

} // namespace arecipe::runtime
