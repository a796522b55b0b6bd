//===- ReadinessProbe.cpp - Is a launched engine ready to serve? ----------===//

#include "arecipe/Runtime/ReadinessProbe.h"

#include "arecipe/Runtime/ChildProcess.h"
#include "arecipe/Runtime/HttpCall.h"
#include "arecipe/Support/Json.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sys/stat.h>

namespace arecipe::runtime {

std::optional<int> PortSource::resolve() const {
  if (Port > 0 || PortFile.empty())
    return Port > 0 ? std::optional<int>(Port) : std::nullopt;
  std::ifstream In(PortFile);
  int P = 0;
  if (In >> P && P > 0 && P < 65536)
    return P;
  return std::nullopt;
}

bool modelsListContains(const std::string &Body, const std::string &Model) {
  // The engine's answer: parsed within bounds, like every JSON from outside.
  nlohmann::json J = support::parseJsonOrNull(Body).value_or(nlohmann::json());
  if (!J.is_object() || !J.contains("data") || !J["data"].is_array())
    return false;
  for (const auto &Entry : J["data"])
    if (Entry.is_object() && Entry.contains("id") && Entry["id"].is_string() &&
        Entry["id"].get<std::string>() == Model)
      return true;
  return false;
}

ReadinessProbe::ReadinessProbe(PortSource Port, std::optional<Endpoints> Http,
                               std::string RequiresModel, std::string LogPath,
                               std::chrono::milliseconds StartupTimeout,
                               std::chrono::milliseconds StallTimeout)
    : Port(std::move(Port)), Http(std::move(Http)), RequiresModel(std::move(RequiresModel)),
      LogPath(std::move(LogPath)), StartupTimeout(StartupTimeout), StallTimeout(StallTimeout),
      Started(Clock::now()), LastGrowth(Started) {}

bool ReadinessProbe::checkEndpoints(int PortNumber) {
  std::string Base = fmt::format("http://127.0.0.1:{}", PortNumber);
  HttpReply Health = httpCall(HttpMethod::Get, Base + Http->Health, 2000);
  if (Health.Status != 200) {
    Reason = fmt::format("{} answered {}", Http->Health, Health.describe());
    return false;
  }
  HttpReply Models = httpCall(HttpMethod::Get, Base + Http->Models, 2000);
  if (!Models.ok()) {
    Reason = fmt::format("{} answered {}", Http->Models, Models.describe());
    return false;
  }
  if (!RequiresModel.empty() && !modelsListContains(Models.Body, RequiresModel)) {
    Reason = fmt::format("{} does not list the served model '{}'", Http->Models, RequiresModel);
    return false;
  }
  return true;
}

Readiness ReadinessProbe::poll(ChildProcess &Process) {
  auto Now = Clock::now();
  if (!Process.running()) {
    Reason = fmt::format("exited during start-up: {}", Process.describeExit());
    return Readiness::Exited;
  }
  struct stat St;
  long long Size = stat(LogPath.c_str(), &St) == 0 ? (long long)St.st_size : 0;
  if (Size != LogSize) {
    LogSize = Size;
    LastGrowth = Now;
  }
  if (!Http)
    return Readiness::Ready;
  std::optional<int> P = Port.resolve();
  if (!P)
    Reason = "the simulator has not written its port file yet";
  else if (checkEndpoints(*P))
    return Process.running() ? Readiness::Ready : Readiness::Exited;
  auto Ms = [](auto D) { return std::chrono::duration_cast<std::chrono::milliseconds>(D); };
  if (StallTimeout.count() > 0 && Ms(Now - LastGrowth) >= StallTimeout) {
    Reason = fmt::format("stalled: the log did not grow for {:.1f} s while not ready ({})",
                         Ms(Now - LastGrowth).count() / 1000.0, Reason);
    return Readiness::Stalled;
  }
  if (Ms(Now - Started) >= StartupTimeout) {
    Reason = fmt::format("not ready after the start-up timeout of {:.1f} s ({})",
                         StartupTimeout.count() / 1000.0, Reason);
    return Readiness::TimedOut;
  }
  return Readiness::Starting;
}

} // namespace arecipe::runtime
