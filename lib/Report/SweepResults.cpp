//===- SweepResults.cpp - A results directory as the report reads it ------===//

#include "arecipe/Report/SweepResults.h"

#include "arecipe/Client/Metrics.h"
#include "arecipe/Client/RequestRecord.h"
#include "arecipe/Support/AtomicFile.h"
#include "arecipe/Support/Json.h"
#include "arecipe/Support/Redaction.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <sstream>

using nlohmann::json;

namespace arecipe::report {

namespace {

/// Any file of a results directory may come from another version, a
/// killed run or a person: read within bounds (the plan as large as the
/// loader allows), and every field below with its type checked, so a
/// missing or odd figure is shown blank instead of costing the report.
std::optional<json> readJson(const std::string &Path) {
  std::optional<support::ordered_json> J =
      support::readJsonFile(Path, support::JsonLimits{64, size_t(256) << 20});
  if (!J)
    return std::nullopt;
  return json(*J);
}

using support::numberAt;
using support::stringAt;

/// An int field, or 0 when absent, of another type or out of range.
int intAt(const json &J, const char *Key) {
  auto It = J.is_object() ? J.find(Key) : J.end();
  if (It == J.end() || !It->is_number_integer())
    return 0;
  int64_t V = It->is_number_unsigned() && It->get<uint64_t>() > uint64_t(INT32_MAX)
                  ? INT32_MAX
                  : It->get<int64_t>();
  return V < INT32_MIN || V > INT32_MAX ? 0 : int(V);
}

void readKnobs(const json &PlanCell, CellResult &C) {
  auto Knobs = PlanCell.find("knobs");
  if (Knobs == PlanCell.end() || !Knobs->is_array())
    return;
  for (const json &K : *Knobs) {
    if (!K.is_object())
      continue;
    KnobValue V;
    V.Name = stringAt(K, "name");
    V.Value = K.contains("value") ? support::dumpJson(K["value"]) : "null";
    V.Value = support::isSecretName(V.Name) ? std::string(support::RedactedMarker)
                                            : support::redact(V.Value);
    if (auto O = K.find("origin"); O != K.end() && O->is_object()) {
      V.File = stringAt(*O, "file");
      V.Line = intAt(*O, "line");
      V.Col = intAt(*O, "col");
      V.Level = stringAt(*O, "level");
    }
    C.Knobs.push_back(std::move(V));
  }
}

void readServerCommand(const json &PlanCell, CellResult &C) {
  auto Processes = PlanCell.find("processes");
  if (Processes == PlanCell.end() || !Processes->is_array())
    return;
  for (const json &P : *Processes) {
    if (!support::boolAt(P, "serves_api", false) || !P.contains("argv") || !P["argv"].is_array())
      continue;
    std::vector<std::string> Argv;
    for (const json &W : P["argv"])
      if (W.is_string())
        Argv.push_back(W.get<std::string>());
    C.ServerCommand = support::redactArgv(Argv);
    return;
  }
}

/// The cell's figures over its repeats (`arecipe_repeats`, written by
/// `arecipe-run --repeat N`); absent for a cell run once.
void readRepeats(const json &S, CellResult &C) {
  const json *R = support::objectAt(S, "arecipe_repeats");
  if (!R)
    return;
  C.Repeats.Runs = std::max(1, intAt(*R, "runs"));
  const json *Figures = support::objectAt(*R, "figures");
  if (!Figures)
    return;
  auto Read = [&](const char *Key) -> std::optional<Spread> {
    const json *F = support::objectAt(*Figures, Key);
    if (!F)
      return std::nullopt;
    Spread Out;
    Out.Count = size_t(std::max(0, intAt(*F, "count")));
    std::optional<double> Mean = numberAt(*F, "/mean"), Std = numberAt(*F, "/std"),
                          Lo = numberAt(*F, "/ci95_low"), Hi = numberAt(*F, "/ci95_high");
    if (!Mean)
      return std::nullopt;
    Out.Mean = *Mean;
    Out.Std = Std.value_or(0);
    Out.CiLow = Lo.value_or(*Mean);
    Out.CiHigh = Hi.value_or(*Mean);
    return Out;
  };
  C.Repeats.TotalPerGpu = Read("total_tput_per_gpu");
  C.Repeats.OutputPerGpu = Read("output_tput_per_gpu");
  C.Repeats.P90Interactivity = Read("p90_interactivity");
  C.Repeats.P90E2eNormInteractivity = Read("p90_e2e_norm_interactivity");
  C.Repeats.E2eP50 = Read("median_e2el");
}

void readSummary(const json &S, CellResult &C) {
  const json *RunObject = support::objectAt(S, "arecipe_run");
  const json Run = RunObject ? *RunObject : json::object();
  C.Status = stringAt(Run, "status", "unknown");
  C.Reason = support::redact(stringAt(Run, "reason"));
  C.FailedPhase = stringAt(Run, "failed_phase");
  C.FailedProcess = stringAt(Run, "failed_process");
  C.LogTail = support::redact(stringAt(Run, "log_tail"));
  C.StartedAt = stringAt(Run, "started_at");
  if (auto W = Run.find("warnings"); W != Run.end() && W->is_array())
    for (const json &Line : *W)
      if (Line.is_string())
        C.Warnings.push_back(support::redact(Line.get<std::string>()));
  C.TotalPerGpu = numberAt(S, "/request_metrics/throughput/per_gpu/total");
  C.OutputPerGpu = numberAt(S, "/request_metrics/throughput/per_gpu/output");
  C.P90Interactivity = numberAt(S, "/arecipe_client/p90_interactivity");
  C.P90E2eNormInteractivity = numberAt(S, "/arecipe_client/p90_e2e_norm_interactivity");
  C.TtftP50 = numberAt(S, "/request_metrics/latency/ttft/p50");
  C.TtftP90 = numberAt(S, "/request_metrics/latency/ttft/p90");
  C.ItlP50 = numberAt(S, "/request_metrics/latency/itl/p50");
  C.ItlP90 = numberAt(S, "/request_metrics/latency/itl/p90");
  C.E2eP50 = numberAt(S, "/request_metrics/latency/e2el/p50");
  C.E2eP90 = numberAt(S, "/request_metrics/latency/e2el/p90");
  C.ErrorRate = numberAt(S, "/arecipe_client/error_rate");
  C.SpecAcceptanceLength = numberAt(S, "/server_metrics/spec_acceptance_length");
  C.PrefixCacheHitRate = numberAt(S, "/server_metrics/prefix_cache_hit_rate");
  C.RequestsTotal = numberAt(S, "/num_requests_total");
  C.RequestsSuccessful = numberAt(S, "/num_requests_successful");
  readRepeats(S, C);
}

/// TTFT, ITL and E2E of every successful measured request, by the formulas
/// of docs/metrics.md, so the strips agree with the summary's percentiles.
void readRecords(const std::string &CellDir, CellResult &C) {
  std::ifstream In(CellDir + "/records.jsonl");
  if (!In)
    In.open(CellDir + "/records.partial.jsonl");
  if (!In)
    return;
  std::vector<double> Ttft, Itl, E2e;
  std::string Line, Err;
  while (std::getline(In, Line)) {
    std::optional<client::RequestRecord> R = client::recordFromJsonLine(Line, Err);
    if (!R || !R->ok() || R->RequestPhase != client::Phase::Measured || R->FirstTokenNs == 0)
      continue;
    double First = double(R->FirstTokenNs - R->ScheduledNs) / 1e9;
    double End = double(R->EndNs - R->ScheduledNs) / 1e9;
    Ttft.push_back(First);
    E2e.push_back(End);
    if (R->OutputTokens >= 2)
      Itl.push_back((End - First) / double(R->OutputTokens - 1));
  }
  C.Ttft = quantilesOf(std::move(Ttft));
  C.Itl = quantilesOf(std::move(Itl));
  C.E2e = quantilesOf(std::move(E2e));
}

std::string tailOfLog(const std::string &Path, size_t Lines) {
  std::ifstream In(Path);
  std::vector<std::string> Tail;
  std::string Line;
  while (std::getline(In, Line)) {
    Tail.push_back(Line);
    if (Tail.size() > Lines)
      Tail.erase(Tail.begin());
  }
  std::string Out;
  for (const std::string &L : Tail)
    Out += L + "\n";
  return Out;
}

} // namespace

std::string SweepResults::label() const { return Image.empty() ? Recipe : Recipe + " · " + Image; }

std::optional<LatencyQuantiles> quantilesOf(std::vector<double> Values) {
  if (Values.empty())
    return std::nullopt;
  std::sort(Values.begin(), Values.end());
  LatencyQuantiles Q;
  Q.Count = Values.size();
  Q.Mean = std::accumulate(Values.begin(), Values.end(), 0.0) / double(Values.size());
  Q.Min = Values.front();
  Q.Max = Values.back();
  Q.P5 = client::percentile(Values, 5);
  Q.P25 = client::percentile(Values, 25);
  Q.P50 = client::percentile(Values, 50);
  Q.P75 = client::percentile(Values, 75);
  Q.P90 = client::percentile(Values, 90);
  Q.P95 = client::percentile(Values, 95);
  Q.P99 = client::percentile(Values, 99);
  return Q;
}

namespace {} // namespace

bool SweepResultsReader::load(const std::string &Dir, std::string &Err) {
  std::optional<json> Plan = readJson(Dir + "/plan.json");
  if (!Plan || !Plan->is_object() || !Plan->contains("cells") || !(*Plan)["cells"].is_array()) {
    Err = Dir + ": not a results directory (no readable plan.json)";
    return false;
  }
  S = SweepResults();
  S.Dir = Dir;
  auto Field = [&](const char *Object, const char *Key) {
    const json *O = support::objectAt(*Plan, Object);
    return O ? stringAt(*O, Key) : std::string();
  };
  S.Recipe = Field("recipe", "name");
  S.RecipeFile = Field("recipe", "file");
  S.Model = Field("model", "id");
  S.Image = stringAt(*Plan, "image");
  S.Hardware = Field("hardware", "name");
  S.Engine = Field("engine", "name");
  if (std::optional<json> Results = readJson(Dir + "/results.json")) {
    S.Simulated = support::boolAt(*Results, "simulated", false);
    S.TimeScale = numberAt(*Results, "/time_scale").value_or(1.0);
  }
  FromPlan.clear();
  Versions.clear();
  for (const json &PlanCell : (*Plan)["cells"]) {
    if (!PlanCell.is_object())
      continue;
    CellResult C;
    C.Id = stringAt(PlanCell, "id");
    C.Conc = intAt(PlanCell, "conc");
    C.Arm = stringAt(PlanCell, "arm");
    C.Band = stringAt(PlanCell, "band");
    C.ServerFrom = stringAt(PlanCell, "server_from");
    C.Gpus = intAt(PlanCell, "gpus");
    C.Status = "pending";
    readKnobs(PlanCell, C);
    readServerCommand(PlanCell, C);
    FromPlan.push_back(C);
    S.Cells.push_back(std::move(C));
    Versions.emplace_back();
  }
  refresh();
  return true;
}

void SweepResultsReader::refresh() {
  for (size_t I = 0; I < S.Cells.size(); ++I) {
    std::string CellDir = S.Dir + "/cells/" + FromPlan[I].Id;
    // A cell is read again only when its summary or records changed, so a
    // report rebuilt after every cell reads only that cell.
    std::string Version = support::fileVersion(CellDir + "/summary.json") + "/" +
                          support::fileVersion(CellDir + "/records.jsonl") + "/" +
                          support::fileVersion(CellDir + "/records.partial.jsonl");
    if (Version == Versions[I])
      continue;
    Versions[I] = Version;
    CellResult C = FromPlan[I];
    if (std::optional<json> Summary = readJson(CellDir + "/summary.json");
        Summary && Summary->is_object()) {
      readSummary(*Summary, C);
      // results.json lags a cell behind when a run was killed; the summary
      // says as well whether its figures are simulated.
      const json *Run = support::objectAt(*Summary, "arecipe_run");
      if (Run && Run->contains("endpoint"))
        S.Endpoint = support::redact(stringAt(*Run, "endpoint"));
      if (Run && support::boolAt(*Run, "simulated", false)) {
        S.Simulated = true;
        S.TimeScale = numberAt(*Run, "/time_scale").value_or(S.TimeScale);
      }
    }
    if (C.Status != "pending")
      readRecords(CellDir, C);
    if ((C.Status == "failed" || C.Status == "invalid") && C.LogTail.empty() &&
        !C.FailedProcess.empty())
      C.LogTail = support::redact(tailOfLog(CellDir + "/" + C.FailedProcess + ".log", 30));
    S.Cells[I] = std::move(C);
  }
}

std::optional<SweepResults> loadSweepResults(const std::string &Dir, std::string &Err) {
  // A field of an unexpected type (a hand-edited plan, a summary from a
  // future version) must cost the report, never the sweep that writes it.
  try {
    SweepResultsReader Reader;
    if (!Reader.load(Dir, Err))
      return std::nullopt;
    return Reader.results();
  } catch (const json::exception &E) {
    Err = Dir + ": unexpected content: " + E.what();
    return std::nullopt;
  }
}

} // namespace arecipe::report
