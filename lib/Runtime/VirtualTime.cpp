//===- VirtualTime.cpp - A cell's figures on the simulator's own clock ----===//

#include "arecipe/Runtime/VirtualTime.h"

#include "arecipe/Client/Workload.h"
#include "arecipe/Support/Json.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <unordered_map>

namespace arecipe::runtime {

namespace {

std::string refusalReason(const Cell &C) {
  if (std::holds_alternative<AgenticWorkload>(C.Client.Workload))
    return "an agentic workload: its think times and session turns are not "
           "what the closed-loop gate waits for";
  const auto &F = std::get<FixedWorkload>(C.Client.Workload);
  if (F.RequestRate > 0)
    return fmt::format(
        "an open-loop workload (request rate {:g}/s): arrivals on "
        "a schedule are not in lock-step with the engine",
        F.RequestRate);
  if (C.Nodes > 1)
    return fmt::format(
        "a cell on {} nodes: only a single-node cell runs on one "
        "simulated engine",
        C.Nodes);
  const ProcessSpec *Target = C.findProcess(C.Client.Target);
  if (Target && Target->Role == "router")
    return fmt::format("a cell whose client calls router '{}': the virtual "
                       "clock gates one engine, not several behind a router",
                       Target->Name);
  std::vector<std::string> Servers;
  for (const ProcessSpec &P : C.Processes) {
    if (P.Role == "prefill" || P.Role == "decode")
      return fmt::format("a disaggregated cell ('{}' is a {} server)", P.Name,
                         P.Role);
    if (P.Role == "server" && P.HttpEndpoints)
      Servers.push_back(P.Name);
  }
  if (Servers.size() > 1)
    return fmt::format(
        "a cell with {} engine servers ({}): the virtual clock gates one",
        Servers.size(), fmt::join(Servers, ", "));
  if (!Target || Target->Role != "server")
    return fmt::format(
        "a cell whose client target '{}' is not an engine server",
        C.Client.Target);
  if (!C.Profile.empty())
    return "a cell with profile windows: they open and close on the wall "
           "clock, which the virtual clock does not follow";
  return {};
}

} // namespace

std::string virtualClockRefusal(const Cell &C) {
  std::string Reason = refusalReason(C);
  return Reason.empty()
             ? Reason
             : fmt::format("cell '{}': --sim-clock virtual cannot run {}", C.Id,
                           Reason);
}

std::string simTimelinePath(const std::string &CellDir) {
  return CellDir + "/sim-timeline.jsonl";
}

std::vector<std::string> virtualClockSimArgs(const Cell &C,
                                             const RunSettings &S,
                                             const std::string &CellDir) {
  const auto &F = std::get<FixedWorkload>(C.Client.Workload);
  // The same counts the client's closed loop sends (Workload.h).
  client::FixedWorkload W;
  W.NumPrompts = F.NumPrompts;
  W.WarmupRequests = F.Warmup;
  int64_t Warmup = client::fixedWarmupRequests(W, C.Client.Concurrency);
  int64_t Measured = client::fixedMeasuredRequests(W, C.Client.Concurrency);
  // The engine gives up waiting for a request well before the client gives
  // up on its streams, so a client that does not come shows as a forced
  // step, not as a stalled cell.
  std::chrono::milliseconds Stall =
      S.measurementStallWindow(C.Client.StallTimeoutS);
  double Grace = Stall.count() > 0 ? Stall.count() / 2000.0 : 10.0;
  return {"--sim-clock",
          "virtual",
          "--sim-lockstep-concurrency",
          std::to_string(C.Client.Concurrency),
          "--sim-lockstep-warmup",
          std::to_string(Warmup),
          "--sim-lockstep-requests",
          std::to_string(Warmup + Measured),
          "--sim-lockstep-grace",
          fmt::format("{:g}", Grace),
          "--sim-timeline",
          simTimelinePath(CellDir)};
}

namespace {

struct TimelineEntry {
  std::string Outcome;
  int64_t Arrival = 0, End = 0;
  std::vector<int64_t> Events;
};

int64_t toNs(double VirtualSeconds) {
  return VirtualTimeBaseNs + int64_t(std::llround(VirtualSeconds * 1e9));
}

/// A finite, non-negative number of virtual seconds at \p Key.
bool seconds(const support::json &J, const char *Key, double &Out) {
  auto It = J.find(Key);
  if (It == J.end() || !It->is_number())
    return false;
  Out = It->get<double>();
  return std::isfinite(Out) && Out >= 0 && Out <= 1e9;
}

} // namespace

bool applyVirtualTimeline(const std::string &Path, client::RunResult &Run,
                          VirtualTimeReport &Report, std::string &Err) {
  std::ifstream In(Path);
  if (!In) {
    Err = fmt::format(
        "--sim-clock virtual: the simulator wrote no timeline ({})", Path);
    return false;
  }
  std::unordered_map<uint64_t, TimelineEntry> BySeq;
  std::vector<int64_t> Forced;
  std::string Line;
  for (size_t LineNo = 1; std::getline(In, Line); ++LineNo) {
    auto Bad = [&](const char *What) {
      Err = fmt::format("--sim-clock virtual: {}:{}: {}", Path, LineNo, What);
      return false;
    };
    std::optional<support::json> J = support::parseJsonOrNull(Line);
    if (!J || !J->is_object())
      return Bad("not a JSON object");
    double T = 0;
    if (J->contains("forced_step")) {
      if (!seconds(*J, "forced_step", T))
        return Bad("forced_step is not a time");
      Forced.push_back(toNs(T));
      continue;
    }
    auto Seq = J->find("seq");
    auto Events = J->find("events");
    auto Outcome = J->find("outcome");
    if (Seq == J->end() || !Seq->is_number_unsigned() || Events == J->end() ||
        !Events->is_array() || Outcome == J->end() || !Outcome->is_string())
      return Bad("expected seq, outcome, arrival, events and end");
    TimelineEntry E;
    E.Outcome = Outcome->get<std::string>();
    double Arrival = 0, End = 0;
    if (!seconds(*J, "arrival", Arrival) || !seconds(*J, "end", End))
      return Bad("arrival and end must be times");
    E.Arrival = toNs(Arrival);
    E.End = toNs(End);
    for (const support::json &V : *Events) {
      if (!V.is_number() || !std::isfinite(V.get<double>()) ||
          V.get<double>() < 0)
        return Bad("an event time is not a time");
      E.Events.push_back(toNs(V.get<double>()));
    }
    if (!BySeq.emplace(Seq->get<uint64_t>(), std::move(E)).second)
      return Bad("a request's sequence number appears twice");
  }

  // Every record and every token event must have its virtual time: checked
  // for all of them before anything changes, so a cell is never half
  // virtual and half wall.
  for (const client::RequestRecord &R : Run.Records) {
    auto It = BySeq.find(R.Id);
    const char *Phase =
        R.RequestPhase == client::Phase::Warmup ? "warm-up" : "measured";
    if (It == BySeq.end()) {
      Err = fmt::format(
          "--sim-clock virtual: {} request {} has no virtual time in the "
          "simulator's timeline {}",
          Phase, R.Id, Path);
      return false;
    }
    if (R.FirstTokenNs > 0 && R.ChunkNs.empty()) {
      Err = fmt::format(
          "--sim-clock virtual: {} request {} has a first token but no token "
          "event to give it a virtual time",
          Phase, R.Id);
      return false;
    }
    size_t Events = It->second.Events.size();
    // A request the client cancelled may have lost the events still in flight.
    bool Cancelled = R.Error == client::ErrorKind::Cancelled;
    if (Cancelled ? R.ChunkNs.size() > Events : R.ChunkNs.size() != Events) {
      Err = fmt::format(
          "--sim-clock virtual: {} request {}: the client received {} token "
          "event{}, the simulator's timeline has {} ({})",
          Phase, R.Id, R.ChunkNs.size(), R.ChunkNs.size() == 1 ? "" : "s",
          Events, It->second.Outcome);
      return false;
    }
  }

  int64_t WindowStart = INT64_MAX, WindowEnd = 0;
  for (client::RequestRecord &R : Run.Records) {
    const TimelineEntry &E = BySeq.at(R.Id);
    // The client sends a closed-loop request the moment it sees the last
    // one end, and the engine stamps its arrival at that instant.
    for (int64_t *T :
         {&R.ScheduledNs, &R.DispatchedNs, &R.SentNs, &R.FirstByteNs})
      if (*T > 0)
        *T = E.Arrival;
    for (size_t I = 0; I < R.ChunkNs.size(); ++I)
      R.ChunkNs[I] = E.Events[I];
    if (R.FirstTokenNs > 0)
      R.FirstTokenNs = R.ChunkNs.front();
    if (R.EndNs > 0)
      R.EndNs = E.End;
    if (R.RequestPhase == client::Phase::Measured) {
      WindowStart = std::min(WindowStart, R.ScheduledNs);
      WindowEnd = std::max(WindowEnd, R.EndNs);
    }
  }
  // Records are in the order the client saw them end; requests that end
  // at one virtual instant are read in socket order, so they are put in
  // the order of their ids, and records.jsonl is the same for every run.
  std::stable_sort(
      Run.Records.begin(), Run.Records.end(),
      [](const client::RequestRecord &A, const client::RequestRecord &B) {
        return A.EndNs != B.EndNs ? A.EndNs < B.EndNs : A.Id < B.Id;
      });
  // The window opens when the measured requests are sent (the warm-up has
  // drained) and closes when the last of them ends.
  if (Run.WindowStartNs > 0 && WindowStart != INT64_MAX)
    Run.WindowStartNs = WindowStart;
  if (Run.WindowEndNs > 0 && WindowEnd > 0)
    Run.WindowEndNs = WindowEnd;
  Report.ForcedSteps = Forced.size();
  for (int64_t T : Forced)
    Report.ForcedStepsMeasured += T >= Run.WindowStartNs && T < Run.WindowEndNs;
  return true;
}

} // namespace arecipe::runtime
