//===- CellRunner.cpp - One cell, from pre-flight to teardown -------------===//

#include "arecipe/Runtime/CellRunner.h"

#include "arecipe/Client/CellSummary.h"
#include "arecipe/Client/Metrics.h"
#include "arecipe/Client/TraceFormats.h"
#include "arecipe/Client/TraceGenerator.h"
#include "arecipe/Client/Workload.h"
#include "arecipe/Runtime/ChildProcess.h"
#include "arecipe/Runtime/HttpCall.h"
#include "arecipe/Runtime/InferenceXResults.h"
#include "arecipe/Runtime/LaunchCommand.h"
#include "arecipe/Runtime/Placeholders.h"
#include "arecipe/Runtime/PortOwner.h"
#include "arecipe/Runtime/Preflight.h"
#include "arecipe/Runtime/ReadinessProbe.h"
#include "arecipe/Runtime/StopRequest.h"
#include "arecipe/Runtime/VirtualTime.h"
#include "arecipe/Support/AtomicFile.h"
#include "arecipe/Support/Json.h"
#include "arecipe/Support/Redaction.h"

#include <fmt/format.h>

#include <algorithm>
#include <arpa/inet.h>
#include <array>
#include <atomic>
#include <cctype>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <netinet/in.h>
#include <sstream>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::ordered_json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

namespace arecipe::runtime {

const char *cellStatusName(CellStatus S) {
  switch (S) {
  case CellStatus::Ok:
    return "ok";
  case CellStatus::Invalid:
    return "invalid";
  case CellStatus::Failed:
    return "failed";
  case CellStatus::Interrupted:
    return "interrupted";
  }
  return "?";
}

namespace {

constexpr size_t LogTailLines = 30;
constexpr milliseconds PollInterval{200};

double seconds(Clock::duration D) { return std::chrono::duration<double>(D).count(); }

std::string isoNow() {
  std::time_t T = std::time(nullptr);
  char Buf[32];
  std::strftime(Buf, sizeof Buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&T));
  return Buf;
}

/// Something listens on 127.0.0.1:Port.
bool portInUse(int Port) {
  int Fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (Fd < 0)
    return false;
  sockaddr_in Addr{};
  Addr.sin_family = AF_INET;
  Addr.sin_port = htons(uint16_t(Port));
  Addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool InUse = connect(Fd, reinterpret_cast<sockaddr *>(&Addr), sizeof Addr) == 0;
  close(Fd);
  return InUse;
}

struct RunningProcess {
  const ProcessSpec *Spec = nullptr;
  LaunchCommand Launch;
  ChildProcess Child;
  std::optional<ReadinessProbe> Probe;
  bool Ready = false;
  double StartupS = 0;
};

/// Forwards finished records to the partial records file and keeps the
/// counters the live progress line shows. Runs on the client's loop thread.
class CountingSink : public client::RecordSink {
public:
  explicit CountingSink(const std::string &Path) : File(Path) {}
  void write(const client::RequestRecord &R) override {
    // A record quotes the engine's error answer: redacted like every output.
    if (!R.ErrorMessage.empty()) {
      client::RequestRecord Copy = R;
      Copy.ErrorMessage = support::redact(R.ErrorMessage);
      File.write(Copy);
    } else {
      File.write(R);
    }
    if (R.RequestPhase != client::Phase::Measured)
      return;
    if (!Measuring.exchange(true))
      FirstMeasuredNs = client::monotonicNowNs();
    // A request the client cancelled (Ctrl-C, the end of an agentic run) did
    // not fail: counted apart, so the console does not call it a failure.
    if (R.ok())
      OutputTokens += R.OutputTokens;
    ByKind[std::min(size_t(R.Error), NumKinds - 1)]++;
  }
  void flush() override { File.flush(); }

  /// The counts so far; Tps is the output token rate of the measured window.
  RequestCounts counts(double Tps) const {
    RequestCounts C;
    for (size_t K = 0; K < NumKinds; ++K) {
      size_t N = ByKind[K];
      auto Kind = client::ErrorKind(K);
      if (Kind == client::ErrorKind::None)
        C.Ok = N;
      else if (Kind == client::ErrorKind::Cancelled)
        C.Cancelled = N;
      else if (N) {
        C.Failed += N;
        C.FailedByKind.emplace_back(std::string(client::errorKindName(Kind)), N);
      }
    }
    std::stable_sort(C.FailedByKind.begin(), C.FailedByKind.end(),
                     [](const auto &A, const auto &B) { return A.second > B.second; });
    C.TokensPerSecond = Tps;
    return C;
  }

  std::atomic<bool> Measuring{false};
  std::atomic<int64_t> FirstMeasuredNs{0};
  std::atomic<int64_t> OutputTokens{0};

private:
  static constexpr size_t NumKinds = size_t(client::ErrorKind::Stalled) + 1;
  std::array<std::atomic<size_t>, NumKinds> ByKind{};
  client::JsonlRecordSink File;
};

class CellExecution {
public:
  CellExecution(const LaunchPlan &Plan, const Cell &C, const RunSettings &S,
                const ResultStore &Store, ProgressReport &Progress)
      : Plan(Plan), C(C), S(S), Store(Store), Progress(Progress), Dir(Store.cellDir(C)) {}

  CellOutcome run();

private:
  bool preflight();
  /// Writes the cell's generated files: those whose content uses a capture
  /// (WithCaptures) or the others.
  bool writeFiles(bool WithCaptures);
  /// A node rank > 0 of a cell with capture steps: waits for rank 0 to
  /// record their values.
  bool awaitCaptures();
  std::string capturesPath() const { return Dir + "/captures.json"; }
  /// Under --simulate: free ports for the cell's fixed ones, chosen by node
  /// rank 0 and recorded in ports.json, which the other ranks wait for.
  bool remapFixedPorts();
  std::string portsPath() const { return Dir + "/ports.json"; }
  /// A node rank > 0: rank 0's file at Path, once it is there (null when
  /// the cell stops first).
  ordered_json awaitRankZeroFile(const std::string &Path, const char *What);
  bool startUp();
  bool measure(ordered_json &ClientSummary);
  /// Writes the InferenceX result files next to the summary; a file that
  /// cannot be written is a warning, not a failed measurement.
  void writeInferenceX(const client::RunResult &Run, const client::CellMetrics &Metrics,
                       const client::WorkloadSpec &Spec, const client::Endpoint &Endpoint);
  void teardown();

  // A multi-node cell on a Slurm allocation: this run is one node rank; the
  // ranks publish their state in rank<R>.json in the shared cell directory
  // and rank 0 ends the cell for all of them by writing `stop`.
  bool multiNode() const { return S.NodeRank >= 0 && C.Nodes > 1; }
  int rank() const { return std::max(S.NodeRank, 0); }
  bool isLocal(const ProcessSpec &P) const { return !multiNode() || P.NodeRank == S.NodeRank; }
  std::string rankReportPath(int Rank) const { return fmt::format("{}/rank{}.json", Dir, Rank); }
  std::string stopPath() const { return Dir + "/stop"; }
  void writeRankReport(const char *State);
  /// Another rank's report; null while it has not written one.
  ordered_json readRankReport(int Rank) const;
  bool remoteProcessReady(const std::string &Name) const;
  /// Rank 0: a rank that failed fails the cell. Other ranks: rank 0's stop
  /// file ends this one. False when the cell must stop.
  bool checkOtherRanks();
  void waitForOtherRanksTeardown();
  CellOutcome runWorkerRank();
  ordered_json processInfo(const RunningProcess &R) const;

  bool startProcess(RunningProcess &R);
  /// Once R is ready: what listens on its port is R or a descendant.
  bool checkListener(RunningProcess &R);
  bool dependenciesReady(const ProcessSpec &P) const;
  /// A process that is not running any more fails the cell.
  bool checkAlive(const char *During);
  void failWith(CellStatus St, std::string Why, RunningProcess *Culprit = nullptr);
  bool interrupted();
  milliseconds wallFloor(double PlanSeconds, milliseconds Floor) const;
  RunningProcess *find(const std::string &Name);
  void callProfileEndpoint(bool Start, ordered_json &Window);
  client::WorkloadSpec workloadSpec(std::string &Err);
  /// Under --simulate: the client's wall-clock times become simulated
  /// times, scaled by K, or replaced by the engine's virtual times under
  /// --sim-clock virtual. False (the cell failed) when a record has none.
  bool toSimulatedTime(client::RunResult &Run);
  ordered_json metadata() const;
  std::string validityProblem(const client::RunResult &Run, const ordered_json &Summary) const;

  const LaunchPlan &Plan;
  const Cell &C;
  const RunSettings &S;
  const ResultStore &Store;
  ProgressReport &Progress;
  std::string Dir;
  std::vector<RunningProcess> Procs;
  std::vector<std::string> Warnings;
  /// The cell's InferenceX result files (InferenceXResults.h), by name.
  std::vector<std::string> InferenceXFiles;
  ordered_json RemoteProcesses = ordered_json::object();
  bool StoppedByRank0 = false;
  ordered_json Profile = ordered_json::array();
  PlaceholderValues Values;
  /// The ports --simulate chose, as recorded in ports.json.
  ordered_json PortRecord;
  /// What each capture step reported: {NAME: {value, simulated}}.
  ordered_json Captures = ordered_json::object();
  /// --sim-clock virtual: what the timeline said about the gate.
  std::optional<VirtualTimeReport> VirtualTimes;

  CellStatus Status = CellStatus::Ok;
  std::string Reason, FailedProcess, LogTail, FailedPhase, CurrentPhase;
};

void CellExecution::failWith(CellStatus St, std::string Why, RunningProcess *Culprit) {
  if (Status != CellStatus::Ok)
    return; // the first failure is the cause; later ones are consequences
  Status = St;
  Reason = std::move(Why);
  FailedPhase = CurrentPhase;
  if (Culprit) {
    FailedProcess = Culprit->Spec->Name;
    Culprit->Child.settleOutput(milliseconds(500));
    LogTail = tailOfFile(Culprit->Launch.LogPath, LogTailLines);
    // The process's own words for what went wrong (a port in use, a missing
    // module) are often only in its log: its last lines go to the console.
    std::vector<std::string> Last;
    std::istringstream In(LogTail);
    for (std::string Line; std::getline(In, Line);)
      if (Line.find_first_not_of(" \t\r") != std::string::npos)
        Last.push_back(Line);
    if (Last.size() > 3)
      Last.erase(Last.begin(), Last.end() - 3);
    if (!Last.empty())
      Progress.note(fmt::format("{} ends with:\n    {}",
                                fs::path(Culprit->Launch.LogPath).filename().string(),
                                fmt::join(Last, "\n    ")));
  }
}

/// When the log of a process that ended during start-up says an address
/// was in use: that line, and who holds the process's fixed port if anyone
/// listens there now (the check before the start can lose a race, and an
/// engine may bind ports the plan does not name). Empty otherwise.
static std::string portClashDetail(const std::string &LogTail, int Port) {
  std::istringstream In(LogTail);
  std::string Found;
  for (std::string Line; std::getline(In, Line);) {
    std::string Lower = Line;
    for (char &Ch : Lower)
      Ch = char(std::tolower(static_cast<unsigned char>(Ch)));
    if (Lower.find("address already in use") != std::string::npos ||
        Lower.find("eaddrinuse") != std::string::npos)
      Found = Line;
  }
  if (Found.empty())
    return "";
  size_t Start = Found.find_first_not_of(" \t");
  std::string Detail = "; its log says: " + Found.substr(Start == std::string::npos ? 0 : Start);
  if (Port > 0) {
    std::vector<PortListener> Taken = listenersOnPort(Port);
    if (!Taken.empty())
      Detail += fmt::format(" (port {} is in use by {})", Port, describeListener(Taken.front()));
  }
  return Detail;
}

bool CellExecution::interrupted() {
  if (!stopRequested())
    return false;
  failWith(CellStatus::Interrupted, fmt::format("interrupted by signal {}", stopSignal()));
  return true;
}

milliseconds CellExecution::wallFloor(double PlanSeconds, milliseconds Floor) const {
  // Under --simulate a compressed timeout can fall below the scheduling noise
  // of a loaded machine; the floor keeps a busy CPU from looking like a stall.
  return S.wallAtLeast(PlanSeconds, Floor);
}

RunningProcess *CellExecution::find(const std::string &Name) {
  for (RunningProcess &R : Procs)
    if (R.Spec->Name == Name)
      return &R;
  return nullptr;
}

bool CellExecution::writeFiles(bool WithCaptures) {
  std::string Err;
  bool DirMade = false;
  for (const GeneratedFile &F : C.Files) {
    if (usesCapture(F.Content) != WithCaptures)
      continue;
    if (!DirMade && !makeRealDirectory(generatedFilesDir(Dir), Err)) {
      failWith(CellStatus::Failed, "cannot write the cell's files: " + Err);
      return false;
    }
    DirMade = true;
    std::string Content =
        substitutePlaceholders(remapPorts(F.Content, Values.Ports, 0, ""), Values);
    // The engine reads the file as written; one that holds a secret is kept
    // from other users like the private copy of such a plan.
    mode_t Mode = support::redact(Content) == Content ? 0644 : 0600;
    if (!support::writeFileAtomically(Values.Files.at(F.Name), Content, Err, Mode)) {
      failWith(CellStatus::Failed, "cannot write the cell's file '" + F.Name + "': " + Err);
      return false;
    }
  }
  return true;
}

ordered_json CellExecution::awaitRankZeroFile(const std::string &Path, const char *What) {
  Progress.phase(fmt::format("waiting for node rank 0's {}", What));
  while (true) {
    if (interrupted() || !checkOtherRanks())
      return nullptr;
    // Written by rank 0 on a shared file system: read within bounds, and
    // every field with its type checked by the caller.
    ordered_json Doc = support::readJsonFile(Path, support::JsonLimits{8, size_t(16) << 20})
                           .value_or(ordered_json(nullptr));
    if (Doc.is_object())
      return Doc;
    sleepUnlessStopped(PollInterval);
  }
}

bool CellExecution::remapFixedPorts() {
  if (!S.remapsPorts())
    return true;
  std::vector<std::pair<int, int>> Fixed; // (node rank, plan port), once each
  for (const ProcessSpec &P : C.Processes)
    if (P.Port && *P.Port > 0 &&
        std::find(Fixed.begin(), Fixed.end(), std::pair{P.NodeRank, *P.Port}) == Fixed.end())
      Fixed.push_back({P.NodeRank, *P.Port});
  if (Fixed.empty())
    return true;
  ordered_json Record = ordered_json::array();
  if (rank() > 0) {
    ordered_json Doc = awaitRankZeroFile(portsPath(), "ports");
    if (!Doc.is_object())
      return false;
    auto List = Doc.find("ports");
    if (List == Doc.end() || !List->is_array())
      return true; // nothing remapped: the plan's ports stand
    for (const ordered_json &E : *List) {
      if (!E.is_object())
        continue;
      auto Num = [&](const char *Key) {
        double V = support::numberAt(E, Key).value_or(-1);
        return V >= 0 && V <= 65535 ? int(V) : -1;
      };
      if (Num("/node_rank") >= 0 && Num("/plan_port") > 0 && Num("/port") > 0)
        Values.Ports[{Num("/node_rank"), Num("/plan_port")}] = Num("/port");
    }
    return true;
  }
  std::vector<int> Free;
  std::string Err;
  if (!chooseFreePorts(Fixed.size(), Free, Err)) {
    failWith(CellStatus::Failed, Err);
    return false;
  }
  std::vector<std::string> Shown;
  for (size_t I = 0; I < Fixed.size(); ++I) {
    auto [Rank, Port] = Fixed[I];
    Values.Ports[{Rank, Port}] = Free[I];
    std::string Owners;
    for (const ProcessSpec &P : C.Processes)
      if (P.NodeRank == Rank && P.Port == Port)
        Owners += (Owners.empty() ? "" : ",") + P.Name;
    Record.push_back(
        {{"processes", Owners}, {"node_rank", Rank}, {"plan_port", Port}, {"port", Free[I]}});
    Shown.push_back(fmt::format("{} {} -> {}", Owners, Port, Free[I]));
  }
  Progress.note(
      fmt::format("--simulate remaps the plan's fixed ports: {}", fmt::join(Shown, ", ")));
  PortRecord = Record;
  if (!writeOutputJson(portsPath(), ordered_json{{"ports", Record}}, Err)) {
    failWith(CellStatus::Failed, Err);
    return false;
  }
  return true;
}

bool CellExecution::awaitCaptures() {
  {
    ordered_json Doc = awaitRankZeroFile(capturesPath(), "captures");
    if (!Doc.is_object())
      return false;
    {
      for (const PreflightAction &A : C.Preflight)
        if (const auto *Cap = std::get_if<CaptureAction>(&A)) {
          // Written by rank 0 on a shared file system: read with its types
          // checked; a step it did not record stands for nothing.
          if (const ordered_json *Entry = support::objectAt(Doc, Cap->Name))
            Values.Captures[Cap->Name] = support::stringAt(*Entry, "value");
        }
      Captures = Doc;
      return true;
    }
  }
}

bool CellExecution::preflight() {
  CurrentPhase = "preflight";
  if (!remapFixedPorts())
    return false;
  // Files first: a pre-flight step may read them. A file that holds a
  // captured value is written once the captures are known.
  if (!writeFiles(false))
    return false;
  bool HasCaptures = false;
  if (!C.Preflight.empty()) {
    Progress.phase("preflight");
    std::string LogName =
        rank() > 0 ? fmt::format("preflight-rank{}.log", rank()) : std::string("preflight.log");
    PreflightContext Ctx{
        Plan,   C, S, Dir + "/" + LogName, [&](const std::string &Text) { Progress.note(Text); },
        &Values};
    for (const PreflightAction &A : C.Preflight) {
      if (interrupted())
        return false;
      PreflightOutcome O = runPreflightAction(A, Ctx);
      Warnings.insert(Warnings.end(), O.Warnings.begin(), O.Warnings.end());
      if (interrupted())
        return false;
      if (!O.Ok) {
        failWith(CellStatus::Failed,
                 fmt::format("pre-flight '{}' failed: {}", actionName(A), O.Reason));
        LogTail = tailOfFile(Ctx.LogPath, LogTailLines);
        return false;
      }
      if (const auto *Cap = std::get_if<CaptureAction>(&A)) {
        HasCaptures = true;
        if (O.Captured) {
          Values.Captures[Cap->Name] = *O.Captured;
          Captures[Cap->Name] = {{"value", *O.Captured}, {"simulated", O.Simulated}};
          if (O.Simulated)
            Progress.note(fmt::format("capture '{}': --simulate uses the plan's simulated "
                                      "output '{}'",
                                      Cap->Name, *O.Captured));
        }
      }
    }
  }
  if (HasCaptures && rank() == 0) {
    // The record of what the node reported, and how the other ranks of a
    // multi-node cell learn it.
    std::string Err;
    if (!writeOutputJson(capturesPath(), Captures, Err)) {
      failWith(CellStatus::Failed, Err);
      return false;
    }
  }
  if (HasCaptures && rank() > 0 && !awaitCaptures())
    return false;
  return writeFiles(true);
}

bool CellExecution::dependenciesReady(const ProcessSpec &P) const {
  for (const std::string &Dep : P.After) {
    const ProcessSpec *D = C.findProcess(Dep);
    if (D && !isLocal(*D)) {
      if (!remoteProcessReady(Dep))
        return false;
      continue;
    }
    for (const RunningProcess &R : Procs)
      if (R.Spec->Name == Dep && !R.Ready)
        return false;
  }
  return true;
}

ordered_json CellExecution::processInfo(const RunningProcess &R) const {
  ordered_json P;
  P["command"] = R.Launch.Command;
  P["log"] = R.Spec->Name + ".log";
  if (R.Ready)
    P["startup_wall_s"] = R.StartupS;
  if (std::optional<int> Port = R.Probe->port())
    P["port"] = *Port;
  P["exit"] = R.Child.describeExit();
  if (!S.NodeName.empty())
    P["node"] = S.NodeName;
  if (multiNode())
    P["node_rank"] = rank();
  return P;
}

void CellExecution::writeRankReport(const char *State) {
  ordered_json Report;
  Report["rank"] = rank();
  Report["node"] = S.NodeName;
  Report["state"] = State;
  if (!Reason.empty())
    Report["reason"] = Reason;
  if (!FailedProcess.empty())
    Report["failed_process"] = FailedProcess;
  if (!LogTail.empty())
    Report["log_tail"] = LogTail;
  ordered_json &Ps = Report["processes"] = ordered_json::object();
  for (RunningProcess &R : Procs) {
    if (!R.Child.started())
      continue;
    Ps[R.Spec->Name] = processInfo(R);
    Ps[R.Spec->Name]["ready"] = R.Ready;
  }
  std::string Err;
  if (!writeOutputJson(rankReportPath(rank()), Report, Err))
    Warnings.push_back(Err);
}

ordered_json CellExecution::readRankReport(int Rank) const {
  // Written by another node's arecipe-run on a shared file system: read
  // within bounds, and every field below with its type checked.
  std::optional<ordered_json> J =
      support::readJsonFile(rankReportPath(Rank), support::JsonLimits{64, size_t(16) << 20});
  return J && J->is_object() ? *J : ordered_json(nullptr);
}

bool CellExecution::remoteProcessReady(const std::string &Name) const {
  const ProcessSpec *P = C.findProcess(Name);
  ordered_json Report = readRankReport(P->NodeRank);
  const ordered_json *Processes = support::objectAt(Report, "processes");
  const ordered_json *Info = Processes ? support::objectAt(*Processes, Name) : nullptr;
  return Info && support::boolAt(*Info, "ready", false);
}

bool CellExecution::checkOtherRanks() {
  if (!multiNode())
    return true;
  if (rank() > 0) {
    std::error_code Ec;
    if (fs::exists(stopPath(), Ec))
      StoppedByRank0 = true;
    return !StoppedByRank0;
  }
  for (int Rank = 1; Rank < C.Nodes; ++Rank) {
    ordered_json Report = readRankReport(Rank);
    if (support::stringAt(Report, "state") != "failed")
      continue;
    failWith(CellStatus::Failed,
             fmt::format("node rank {} ({}): {}", Rank, support::stringAt(Report, "node", "?"),
                         support::stringAt(Report, "reason", "failed")));
    if (FailedProcess.empty() && LogTail.empty()) {
      FailedProcess = support::stringAt(Report, "failed_process");
      LogTail = support::stringAt(Report, "log_tail");
    }
    return false;
  }
  return true;
}

void CellExecution::waitForOtherRanksTeardown() {
  // The ranks stop in parallel; rank 0 waits for their final reports so the
  // summary records every process of the cell, but not forever: a node that
  // died cannot report.
  auto Deadline = Clock::now() + S.TeardownGrace + milliseconds(15000);
  for (int Rank = 1; Rank < C.Nodes; ++Rank) {
    ordered_json Report;
    while (true) {
      Report = readRankReport(Rank);
      std::string State = support::stringAt(Report, "state");
      if (State == "stopped" || State == "failed" || Clock::now() >= Deadline)
        break;
      std::this_thread::sleep_for(PollInterval);
    }
    if (!Report.is_object()) {
      Warnings.push_back(fmt::format("node rank {} never reported", Rank));
      continue;
    }
    std::string State = support::stringAt(Report, "state");
    if (State != "stopped" && State != "failed")
      Warnings.push_back(fmt::format("node rank {} ({}) did not report its teardown (last state: {})",
                                     Rank, support::stringAt(Report, "node", "?"), State));
    if (const ordered_json *Processes = support::objectAt(Report, "processes"))
      for (auto &[Name, Info] : Processes->items())
        if (Info.is_object())
          RemoteProcesses[Name] = Info;
  }
}

CellOutcome CellExecution::runWorkerRank() {
  writeRankReport("starting");
  if (preflight() && startUp()) {
    writeRankReport("ready");
    CurrentPhase = "serve";
    Progress.phase("serving until node rank 0 ends the cell");
    while (!interrupted() && checkAlive("the measurement") && checkOtherRanks())
      sleepUnlessStopped(PollInterval);
  }
  teardown();
  writeRankReport(Status == CellStatus::Ok || Status == CellStatus::Interrupted ? "stopped"
                                                                                 : "failed");
  if (Status == CellStatus::Ok)
    return {CellStatus::Ok, StoppedByRank0 ? "" : "stopped"};
  return {Status, Reason};
}

bool CellExecution::startProcess(RunningProcess &R) {
  const ProcessSpec &P = *R.Spec;
  R.Launch = buildLaunchCommand(Plan, C, P, S, Dir, Values);
  if (!R.Launch.Error.empty()) {
    failWith(CellStatus::Failed, R.Launch.Error);
    return false;
  }
  if (!R.Launch.Note.empty()) {
    Progress.note(R.Launch.Note);
    Warnings.push_back(R.Launch.Note);
  }
  if (R.Launch.Port.Port == 0 && R.Launch.Port.PortFile.empty() && P.HttpEndpoints) {
    failWith(CellStatus::Failed,
             fmt::format("process '{}' has port 0, which only a simulated engine can use "
                         "(it reports the port it bound through --sim-port-file)",
                         P.Name));
    return false;
  }
  std::string Err;
  if (!R.Launch.SimSpecPath.empty() &&
      !support::writeFileAtomically(R.Launch.SimSpecPath, Plan.SimSpec, Err)) {
    failWith(CellStatus::Failed, fmt::format("cannot start process '{}': {}", P.Name, Err));
    return false;
  }
  // A server already on a fixed port would answer the readiness probe and
  // be measured in this one's place (finding 13 of the second hardening
  // round).
  if (R.Launch.Port.Port > 0) {
    std::vector<PortListener> Taken = listenersOnPort(R.Launch.Port.Port);
    if (!Taken.empty()) {
      failWith(CellStatus::Failed,
               fmt::format("port {} of process '{}' is already in use by {}: another server "
                           "would be measured in its place",
                           R.Launch.Port.Port, P.Name, describeListener(Taken.front())));
      return false;
    }
  }
  // Known to the keeper before it exists: a runtime killed now must still
  // have the container removed.
  if (!R.Launch.ContainerName.empty())
    keepContainer(R.Launch.ContainerName, containerRemoveCommand(Plan, R.Launch.ContainerName));
  if (!R.Child.start(R.Launch.Command, R.Launch.Env, R.Launch.LogPath, Err)) {
    if (!R.Launch.ContainerName.empty())
      forgetContainer(R.Launch.ContainerName);
    failWith(CellStatus::Failed, fmt::format("cannot start process '{}': {}", P.Name, Err));
    return false;
  }
  R.Probe.emplace(R.Launch.Port, P.HttpEndpoints, P.Ready.RequiresModel, R.Launch.LogPath,
                  wallFloor(P.Ready.StartupTimeoutS, milliseconds(1000)),
                  wallFloor(P.Ready.StallTimeoutS, milliseconds(1000)));
  Progress.phase("starting " + P.Name);
  return true;
}

bool CellExecution::checkListener(RunningProcess &R) {
  // A container's engine runs under the container runtime, not under the
  // `docker run` client this runtime started: its ownership cannot be told.
  std::optional<int> Port = R.Probe->port();
  if (!R.Spec->HttpEndpoints || !Port || !R.Launch.ContainerName.empty())
    return true;
  for (const PortListener &L : listenersOnPort(*Port))
    if (L.Pid == 0 || !belongsToProcessTree(L.Pid, R.Child.pid())) {
      failWith(CellStatus::Failed,
               fmt::format("process '{}' is not what answers on port {}: it is {}, which is not "
                           "'{}' nor one of its descendants",
                           R.Spec->Name, *Port, describeListener(L), R.Spec->Name),
               &R);
      return false;
    }
  return true;
}

bool CellExecution::checkAlive(const char *During) {
  for (RunningProcess &R : Procs)
    if (R.Ready && !R.Child.running()) {
      failWith(
          CellStatus::Failed,
          fmt::format("process '{}' {} during {}", R.Spec->Name, R.Child.describeExit(), During),
          &R);
      return false;
    }
  return true;
}

bool CellExecution::startUp() {
  CurrentPhase = "startup";
  Procs.reserve(C.Processes.size());
  for (const ProcessSpec &P : C.Processes) {
    if (!isLocal(P))
      continue;
    Procs.emplace_back();
    Procs.back().Spec = &P;
  }
  while (true) {
    if (interrupted())
      return false;
    for (RunningProcess &R : Procs)
      if (!R.Child.started() && dependenciesReady(*R.Spec) && !startProcess(R))
        return false;
    bool AllReady = true;
    for (RunningProcess &R : Procs) {
      if (!R.Child.started() || R.Ready) {
        AllReady &= R.Ready;
        continue;
      }
      Readiness State = R.Probe->poll(R.Child);
      if (State == Readiness::Ready && !checkListener(R))
        return false;
      if (State == Readiness::Ready) {
        R.Ready = true;
        R.StartupS = seconds(R.Probe->elapsed());
        Progress.note(fmt::format("{} ready after {:.1f} s", R.Spec->Name, R.StartupS));
        if (multiNode())
          writeRankReport("starting");
        continue;
      }
      AllReady = false;
      if (State != Readiness::Starting) {
        std::string Detail;
        if (!R.Child.running()) {
          R.Child.settleOutput(milliseconds(500));
          Detail = portClashDetail(tailOfFile(R.Launch.LogPath, LogTailLines), R.Launch.Port.Port);
        }
        failWith(CellStatus::Failed,
                 fmt::format("process '{}' {}{}", R.Spec->Name, R.Probe->reason(), Detail), &R);
        return false;
      }
    }
    if (!checkAlive("start-up of the other processes") || !checkOtherRanks())
      return false;
    if (AllReady)
      return true;
    sleepUnlessStopped(PollInterval);
  }
}

client::WorkloadSpec CellExecution::workloadSpec(std::string &Err) {
  client::WorkloadSpec W;
  W.Concurrency = C.Client.Concurrency;
  W.FailedRequestThreshold = C.Validity.MaxErrorRate;
  // A wall-clock floor under --simulate, as for the start-up stall: a loaded
  // machine must not look like a stalled engine.
  if (C.Client.StallTimeoutS > 0)
    W.Transport.StallTimeoutMs =
        long(S.measurementStallWindow(C.Client.StallTimeoutS).count());
  if (const auto *F = std::get_if<FixedWorkload>(&C.Client.Workload)) {
    client::FixedWorkload X;
    X.InputTokens = F->Isl;
    X.OutputTokens = F->Osl;
    X.RangeRatio = F->RangeRatio;
    X.Rule = F->RangeBelow ? client::LengthRule::Below : client::LengthRule::Around;
    X.NumPrompts = F->NumPrompts;
    X.WarmupRequests = F->Warmup;
    X.IgnoreEos = F->IgnoreEos;
    if (F->RequestRate > 0) {
      X.Arrival = client::ArrivalMode::Poisson;
      X.RequestRate = S.Simulate ? F->RequestRate * S.TimeScale : F->RequestRate;
    }
    X.Prompt = client::parsePromptMode(F->PromptMode).value_or(client::PromptMode::Words);
    X.VocabSize = F->VocabSize;
    if (!F->Tokenizer.empty()) {
      fs::path Tok = F->Tokenizer;
      if (Tok.is_relative() && !S.PlanPath.empty())
        Tok = fs::path(S.PlanPath).parent_path() / Tok;
      std::error_code Ec;
      if (S.Simulate && !fs::exists(Tok, Ec) && X.VocabSize == 0) {
        // Like a missing trace: a simulated run on a machine without the
        // model directory falls back to word prompts and says so.
        Warnings.push_back(fmt::format("tokenizer {} is not on this machine; --simulate sends "
                                       "word prompts instead of '{}'",
                                       F->Tokenizer, F->PromptMode));
        X.Prompt = client::PromptMode::Words;
      } else {
        X.TokenizerPath = Tok.string();
      }
    }
    W.Kind = X;
    return W;
  }
  const auto &A = std::get<AgenticWorkload>(C.Client.Workload);
  fs::path Trace = A.Trace;
  if (Trace.is_relative() && !S.PlanPath.empty())
    Trace = fs::path(S.PlanPath).parent_path() / Trace;
  client::AgenticWorkload X;
  std::error_code Ec;
  std::optional<client::TraceFormat> Format = client::parseTraceFormat(A.TraceFormat);
  if (S.Simulate && !fs::exists(Trace, Ec)) {
    // Public agentic corpora cannot be fetched on machines without network
    // access; a simulated run replays the bundled synthetic coding-agent
    // trace instead (docs/traces.md) and says so in the cell's warnings.
    client::TraceGeneratorOptions G;
    G.Sessions = std::max<size_t>(64, 4 * size_t(C.Client.Concurrency));
    X.Sessions = client::generateTrace(G);
    Warnings.push_back(fmt::format("trace {} is not on this machine; --simulate replays the "
                                   "bundled synthetic coding-agent trace ({} sessions, seed {})",
                                   A.Trace, G.Sessions, G.Seed));
  } else {
    client::TraceLoadResult Loaded =
        client::loadTrace(Trace.string(), Format.value_or(client::TraceFormat::Arecipe));
    if (!Loaded.ok()) {
      Err = fmt::format("cannot load trace {}: {}", Trace.string(), Loaded.Errors.front());
      return W;
    }
    X.Sessions = std::move(Loaded.Sessions);
  }
  // The client waits in wall-clock time; think times are simulated seconds.
  if (S.Simulate)
    for (client::TraceSession &Session : X.Sessions)
      for (client::TraceTurn &Turn : Session.Turns)
        Turn.ThinkTimeS /= S.TimeScale;
  X.DurationS = S.wall(A.DurationS).count() / 1000.0;
  if (!C.Client.SessionHeader.empty())
    X.SessionHeader = C.Client.SessionHeader;
  W.FailedRequestThreshold = A.MaxFailedFraction;
  W.Kind = std::move(X);
  return W;
}

void CellExecution::callProfileEndpoint(bool Start, ordered_json &Window) {
  for (RunningProcess &R : Procs) {
    if (!R.Spec->HttpEndpoints || R.Spec->Role == "router")
      continue;
    std::optional<int> Port = R.Probe->port();
    const Endpoints &E = *R.Spec->HttpEndpoints;
    std::string Url = fmt::format("http://127.0.0.1:{}{}", Port.value_or(0),
                                  Start ? E.StartProfile : E.StopProfile);
    HttpReply Reply = httpCall(HttpMethod::Post, Url, 30000);
    Window[Start ? "start" : "stop"][R.Spec->Name] = Reply.describe();
    if (!Reply.ok())
      Warnings.push_back(fmt::format("profile {} on '{}' answered {}", Start ? "start" : "stop",
                                     R.Spec->Name, Reply.describe()));
  }
}

bool CellExecution::toSimulatedTime(client::RunResult &Run) {
  if (S.virtualClock()) {
    VirtualTimeReport Report;
    std::string Err;
    if (!applyVirtualTimeline(simTimelinePath(Dir), Run, Report, Err)) {
      failWith(CellStatus::Failed, Err);
      return false;
    }
    VirtualTimes = Report;
    if (Report.ForcedStepsMeasured > 0) {
      std::string Note =
          fmt::format("--sim-clock virtual: {} step{} of the measured phase "
                      "ran without waiting for every request the client "
                      "should have sent (the simulator's grace ran out); "
                      "these figures depend on real time and are not exact",
                      Report.ForcedStepsMeasured,
                      Report.ForcedStepsMeasured == 1 ? "" : "s");
      Progress.note(Note);
      Warnings.push_back(Note);
    }
    return true;
  }
  int64_t Base = INT64_MAX;
  for (const client::RequestRecord &R : Run.Records)
    if (R.ScheduledNs > 0)
      Base = std::min(Base, R.ScheduledNs);
  if (Base == INT64_MAX)
    return true;
  double K = S.TimeScale;
  auto Scale = [&](int64_t &T) {
    if (T > 0)
      T = Base + int64_t(double(T - Base) * K);
  };
  for (client::RequestRecord &R : Run.Records) {
    for (int64_t *T :
         {&R.ScheduledNs, &R.DispatchedNs, &R.SentNs, &R.FirstByteNs, &R.FirstTokenNs, &R.EndNs})
      Scale(*T);
    for (int64_t &T : R.ChunkNs)
      Scale(T);
  }
  Scale(Run.WindowStartNs);
  Scale(Run.WindowEndNs);
  return true;
}

ordered_json CellExecution::metadata() const {
  ordered_json M;
  M["hw"] = Plan.Hardware.Name;
  M["conc"] = C.Conc;
  M["image"] = Plan.Image.empty() ? ordered_json(nullptr) : ordered_json(Plan.Image);
  M["model"] = Plan.ModelId;
  M["framework"] = Plan.EngineName;
  bool Disagg = false;
  for (const ProcessSpec &P : C.Processes)
    Disagg |= P.Role == "prefill" || P.Role == "decode";
  M["disagg"] = Disagg;
  M["is_multinode"] = C.Nodes > 1;
  M["scenario_type"] = std::holds_alternative<AgenticWorkload>(C.Client.Workload) ? "agentic-coding"
                                                                                  : "fixed-seq-len";
  // InferenceX names for the knobs it reports, when the plan resolved them.
  for (auto [KnobName, Field] : {std::pair{"precision", "precision"},
                                 {"tp", "tp"},
                                 {"ep", "ep"},
                                 {"pp", "pp"},
                                 {"dcp", "dcp_size"}})
    for (const Knob &K : C.Knobs)
      if (K.Name == KnobName)
        M[Field] = support::parseOrderedJsonOrNull(K.ValueJson).value_or(nullptr);
  M["cell"] = C.Id;
  M["band"] = C.Band.empty() ? ordered_json(nullptr) : ordered_json(C.Band);
  M["gpus"] = C.Gpus;
  return M;
}

std::string CellExecution::validityProblem(const client::RunResult &Run,
                                           const ordered_json &Summary) const {
  if (Run.Aborted)
    return "the client stopped the run: " + Run.AbortReason;
  const ordered_json &Client = Summary["arecipe_client"];
  if (Summary.value("num_requests_successful", 0) == 0)
    return "no measured request succeeded";
  if (!Client.value("valid", true))
    return fmt::format("error rate {:.3f} above the limit {:.3f}", Client.value("error_rate", 0.0),
                       Client.value("failed_request_threshold", 0.0));
  const std::string &Prefix = C.Validity.RequiredMetricPrefix;
  if (Prefix.empty())
    return {};
  if (!Run.Server)
    return fmt::format("server metrics with prefix '{}' required, but none were scraped ({})",
                       Prefix, Run.ServerMetricsError);
  bool Found = Run.Server->Prefix == Prefix;
  for (const auto *Names : {&Run.Server->CounterDeltas, &Run.Server->GaugesEnd})
    for (const auto &[Name, V] : *Names)
      Found |= Name.rfind(Prefix, 0) == 0;
  return Found ? std::string()
               : fmt::format("no server metric has the required prefix '{}'", Prefix);
}

bool CellExecution::measure(ordered_json &ClientSummary) {
  CurrentPhase = "measure";
  RunningProcess *Target = find(C.Client.Target);
  bool External = !S.Endpoint.Url.empty(); // --endpoint: nothing was started
  if (!Target && multiNode() && !External) {
    failWith(CellStatus::Failed,
             fmt::format("the client target '{}' runs on node rank {}, but the client runs on "
                         "node rank 0",
                         C.Client.Target, C.findProcess(C.Client.Target)->NodeRank));
    return false;
  }
  std::optional<int> Port = Target ? Target->Probe->port() : std::nullopt;
  if (!Port && !External) {
    failWith(CellStatus::Failed, fmt::format("client target '{}' has no port", C.Client.Target));
    return false;
  }
  std::string Err;
  client::WorkloadSpec Spec = workloadSpec(Err);
  if (!Err.empty()) {
    failWith(CellStatus::Failed, Err);
    return false;
  }
  client::Endpoint Endpoint;
  Endpoint.BaseUrl = External ? S.Endpoint.Url : fmt::format("http://127.0.0.1:{}", *Port);
  Endpoint.Model =
      External && !S.Endpoint.Model.empty() ? S.Endpoint.Model : C.Client.ServedModelName;
  Endpoint.ExtraHeaders = S.Endpoint.Headers;
  // The virtual clock admits the requests of one instant in the client's order.
  Endpoint.SequenceHeader = S.virtualClock();
  // Token-id prompts exist only on the completions API.
  if (const auto *X = std::get_if<client::FixedWorkload>(&Spec.Kind);
      X && X->Prompt == client::PromptMode::TokenIds)
    Endpoint.Api = client::ApiKind::Completions;
  Endpoint.MetricsUrl = External ? Endpoint.BaseUrl + S.Endpoint.MetricsPath
                                 : Endpoint.BaseUrl + Target->Spec->HttpEndpoints->Metrics;

  Progress.phase("measuring");
  // What the ETA is measured against: the measured requests of a fixed
  // workload, the planned duration of an agentic replay.
  size_t ExpectedRequests = 0;
  double PlannedWallS = 0;
  if (const auto *X = std::get_if<client::FixedWorkload>(&Spec.Kind))
    ExpectedRequests =
        size_t(client::fixedMeasuredRequests(*X, Spec.Concurrency));
  else if (const auto *X = std::get_if<client::AgenticWorkload>(&Spec.Kind))
    PlannedWallS = X->DurationS;
  std::string PartialPath = Dir + "/records.partial.jsonl";
  CountingSink Sink(PartialPath);
  auto Counts = [&] {
    double Elapsed = (client::monotonicNowNs() - Sink.FirstMeasuredNs) / 1e9;
    double Tps = Elapsed > 0 ? Sink.OutputTokens / Elapsed : 0;
    return Sink.counts(S.Simulate ? Tps / S.TimeScale : Tps);
  };
  client::RunResult Run;
  std::string ClientError;
  std::atomic<bool> Done{false};
  std::thread Worker([&] {
    try {
      Run = client::runWorkload(Spec, Endpoint, Sink);
    } catch (const std::exception &E) {
      ClientError = E.what();
    }
    Done = true;
  });

  // Supervise while the client runs: signals, dying processes, profiling.
  std::vector<std::pair<Clock::time_point, Clock::time_point>> Windows;
  size_t NextWindow = 0;
  bool WindowOpen = false;
  bool Stopping = false;
  bool MeasureShown = false;
  for (unsigned Tick = 0; !Done; ++Tick) {
    // Other ranks' reports are files, possibly on NFS: read them twice a second.
    bool OthersOk = Tick % 10 != 0 || checkOtherRanks();
    if (!Stopping && (stopRequested() || !checkAlive("measurement") || !OthersOk)) {
      interrupted();
      Stopping = true;
    }
    if (Stopping)
      client::interruptRunningWorkloads(); // again: the loop may not have existed yet
    if (Sink.Measuring && Windows.empty() && !C.Profile.empty()) {
      auto T0 = Clock::now();
      for (const ProfileWindow &W : C.Profile)
        Windows.push_back({T0 + S.wall(W.StartS), T0 + S.wall(W.StartS + W.DurationS)});
    }
    if (!Stopping && NextWindow < Windows.size()) {
      auto Now = Clock::now();
      if (!WindowOpen && Now >= Windows[NextWindow].first) {
        Profile.push_back({{"start_s", C.Profile[NextWindow].StartS},
                           {"duration_s", C.Profile[NextWindow].DurationS}});
        callProfileEndpoint(true, Profile.back());
        WindowOpen = true;
      } else if (WindowOpen && Now >= Windows[NextWindow].second) {
        callProfileEndpoint(false, Profile.back());
        WindowOpen = false;
        ++NextWindow;
      }
    }
    if (Sink.Measuring) {
      if (!MeasureShown) {
        Progress.beginMeasure(ExpectedRequests, PlannedWallS);
        MeasureShown = true;
      }
      Progress.requests(Counts());
    }
    std::this_thread::sleep_for(milliseconds(50));
  }
  Worker.join();
  if (Sink.Measuring) {
    if (!MeasureShown)
      Progress.beginMeasure(ExpectedRequests, PlannedWallS);
    Progress.endMeasure(Counts());
  }
  // The client can return before the loop above saw the signal (the stop
  // handler interrupts running workloads itself): an interrupted cell must
  // not be judged, recorded as finished and skipped by --resume (F2).
  interrupted();
  // An engine that died while the client finished is a failure, whichever
  // side noticed first (F3).
  if (Status == CellStatus::Ok)
    checkAlive("measurement");
  if (WindowOpen && Status == CellStatus::Ok) {
    Profile.back()["closed_early"] = true;
    callProfileEndpoint(false, Profile.back());
  }
  if (Status != CellStatus::Ok)
    return false;
  if (!ClientError.empty()) {
    failWith(CellStatus::Failed, "the client could not run the workload: " + ClientError);
    return false;
  }
  if (Run.Stalled) {
    // The engine is alive but answers nothing: a failure of the engine, not
    // a measurement to judge (its log tail says what it was doing).
    failWith(CellStatus::Failed, Run.AbortReason, Target);
    return false;
  }
  if (S.Simulate && !toSimulatedTime(Run))
    return false;
  std::string Records;
  for (client::RequestRecord &R : Run.Records) {
    R.ErrorMessage = support::redact(R.ErrorMessage);
    Records += client::recordToJsonLine(R) + "\n";
  }
  if (!support::writeFileAtomically(Dir + "/records.jsonl", Records, Err)) {
    failWith(CellStatus::Failed, Err);
    return false;
  }
  fs::remove(PartialPath);

  client::CellMetrics Metrics =
      client::computeCellMetrics(Run.Records, client::GpuTopology::aggregated(C.Gpus));
  client::SummaryContext Ctx;
  Ctx.Metadata = metadata();
  Ctx.FailedRequestThreshold = Spec.FailedRequestThreshold;
  Ctx.ExpectedOutputTokens = client::expectedOutputTokens(Run.Records);
  ClientSummary = client::buildCellSummary(Metrics, Run, Ctx);
  writeInferenceX(Run, Metrics, Spec, Endpoint);
  if (client::ClientSaturation Sat = client::clientSaturation(Run); Sat.Bound) {
    std::string Note = "the client was the bottleneck of this measurement: " + Sat.Reason;
    Progress.note(Note);
    Warnings.push_back(Note);
  }
  if (std::string Problem = validityProblem(Run, ClientSummary); !Problem.empty()) {
    // Failed requests may be the first sign of a dying engine: give its exit
    // a moment to show before calling the measurement invalid (F3).
    auto Deadline = Clock::now() + milliseconds(1000);
    while (!stopRequested() && checkAlive("measurement") && Clock::now() < Deadline)
      std::this_thread::sleep_for(milliseconds(50));
    if (interrupted() || Status != CellStatus::Ok)
      return false;
    failWith(CellStatus::Invalid, Problem);
  }
  return true;
}

void CellExecution::writeInferenceX(const client::RunResult &Run,
                                    const client::CellMetrics &Metrics,
                                    const client::WorkloadSpec &Spec,
                                    const client::Endpoint &Endpoint) {
  InferenceXCell X = describeForInferenceX(Plan, C);
  for (std::string &Note : X.Notes)
    Warnings.push_back(std::move(Note));
  client::BenchRunInfo Info;
  Info.Backend = Endpoint.Api == client::ApiKind::Completions ? "openai" : "openai-chat";
  if (const auto *F = std::get_if<client::FixedWorkload>(&Spec.Kind)) {
    Info.RequestRate = F->RequestRate;
    Info.NumPrompts = F->NumPrompts;
  }
  std::string Err;
  InferenceXFiles = writeInferenceXResults(X, Dir, Run, Metrics, Info, Err);
  if (!Err.empty())
    Warnings.push_back("InferenceX results: " + Err);
}

void CellExecution::teardown() {
  CurrentPhase = "teardown";
  Progress.phase("teardown");
  if (multiNode() && rank() == 0) {
    std::string Err;
    if (!support::writeFileAtomically(stopPath(), "stop\n", Err))
      Warnings.push_back(Err);
  }
  for (auto It = Procs.rbegin(); It != Procs.rend(); ++It) {
    RunningProcess &R = *It;
    if (!R.Child.started())
      continue;
    bool Killed = R.Child.stop(S.TeardownGrace);
    if (Killed)
      Warnings.push_back(fmt::format("process '{}' ignored SIGTERM for {:.1f} s and was killed",
                                     R.Spec->Name, S.TeardownGrace.count() / 1000.0));
    if (!R.Launch.ContainerName.empty()) {
      CommandResult Rm = runCommand(containerRemoveCommand(Plan, R.Launch.ContainerName), {},
                                    Dir + "/teardown.log", milliseconds(60000), nullptr);
      if (!Rm.succeeded())
        Warnings.push_back(
            fmt::format("removing container {}: {}", R.Launch.ContainerName, Rm.describe()));
      forgetContainer(R.Launch.ContainerName);
    }
  }
  if (size_t Orphans = killAdoptedOrphans({S.RankPids.begin(), S.RankPids.end()}))
    Warnings.push_back(fmt::format("{} process{} outside the process groups had to be killed",
                                   Orphans, Orphans == 1 ? "" : "es"));
  auto Deadline = Clock::now() + S.PortFreeTimeout;
  for (RunningProcess &R : Procs) {
    std::optional<int> Port = R.Probe ? R.Probe->port() : std::nullopt;
    if (!Port)
      continue;
    while (portInUse(*Port) && Clock::now() < Deadline)
      std::this_thread::sleep_for(milliseconds(100));
    if (portInUse(*Port))
      Warnings.push_back(
          fmt::format("port {} of '{}' is still in use after teardown", *Port, R.Spec->Name));
  }
}

CellOutcome CellExecution::run() {
  std::string Err;
  // On an allocation the submitter has emptied the directory: a rank that
  // emptied it here could delete another rank's fresh files.
  if (S.NodeRank < 0 && !Store.resetCell(C, Err))
    return {CellStatus::Failed, Err};
  Values = cellPlaceholderValues(C, S, Dir);
  // Every rank makes it (idempotent on a shared file system) before its
  // processes start: a launcher's per-node dump lands there.
  if (cellUsesLogDir(C) && !makeRealDirectory(Values.LogDir, Err))
    return {CellStatus::Failed,
            "cannot make the cell's process directory: " + Err};
  if (rank() > 0)
    return runWorkerRank();
  // arecipe-run refuses such a cell before the run; this keeps any other
  // caller of runCell from measuring it on the wrong clock.
  if (S.virtualClock())
    if (std::string Refusal = virtualClockRefusal(C); !Refusal.empty())
      failWith(CellStatus::Failed, Refusal);
  if (multiNode())
    writeRankReport("starting");
  auto Started = Clock::now();
  std::string StartedAt = isoNow();
  ordered_json ClientSummary;
  if (Status == CellStatus::Ok && preflight() && startUp())
    measure(ClientSummary);
  teardown();
  if (multiNode())
    waitForOtherRanksTeardown();

  CellOutcome Out;
  Out.Status = Status;
  Out.Reason = Reason;
  if (Status == CellStatus::Interrupted)
    return Out;

  ordered_json Summary = ClientSummary.is_object() ? ClientSummary : metadata();
  ordered_json &Run = Summary["arecipe_run"];
  Run["status"] = cellStatusName(Status);
  if (!Reason.empty()) {
    Run["reason"] = Reason;
    Run["failed_phase"] = FailedPhase;
  }
  if (!FailedProcess.empty())
    Run["failed_process"] = FailedProcess;
  if (!LogTail.empty())
    Run["log_tail"] = LogTail;
  Run["warnings"] = Warnings;
  Run["inferencex_results"] = InferenceXFiles;
  Run["simulated"] = S.Simulate;
  Run["time_scale"] = S.Simulate ? S.TimeScale : 1.0;
  Run["time_basis"] = S.virtualClock() ? "virtual"
                      : S.Simulate     ? "simulated"
                                       : "wall";
  if (S.Simulate)
    Run["sim_clock"] = S.virtualClock() ? "virtual" : "wall";
  if (VirtualTimes)
    Run["virtual_clock"] = {
        {"forced_steps", VirtualTimes->ForcedSteps},
        {"forced_steps_measured", VirtualTimes->ForcedStepsMeasured},
        {"exact", VirtualTimes->ForcedStepsMeasured == 0}};
  if (!S.Endpoint.Url.empty())
    Run["endpoint"] = S.Endpoint.Url;
  Run["cell_digest"] = C.Digest;
  Run["started_at"] = StartedAt;
  Run["wall_seconds"] = seconds(Clock::now() - Started);
  ordered_json &ProcInfo = Run["processes"] = ordered_json::object();
  for (RunningProcess &R : Procs)
    if (R.Child.started())
      ProcInfo[R.Spec->Name] = processInfo(R);
  for (auto &[Name, Info] : RemoteProcesses.items()) {
    Info.erase("ready");
    ProcInfo[Name] = Info;
  }
  if (!Profile.empty())
    Run["profile"] = Profile;
  if (!Captures.empty())
    Run["captures"] = Captures;
  if (PortRecord.is_array())
    Run["ports"] = PortRecord;
  if (!C.Files.empty()) {
    ordered_json &Files = Run["files"] = ordered_json::array();
    for (const GeneratedFile &F : C.Files)
      Files.push_back(fs::path(Values.Files.at(F.Name)).lexically_relative(Dir).string());
  }
  if (!Store.writeCellSummary(C, Summary, Err)) {
    Out.Status = CellStatus::Failed;
    Out.Reason = Err;
  }
  return Out;
}

} // namespace

CellOutcome runCell(const LaunchPlan &Plan, const Cell &C, const RunSettings &Settings,
                    const ResultStore &Store, ProgressReport &Progress) {
  Progress.phase("preparing");
  return CellExecution(Plan, C, Settings, Store, Progress).run();
}

} // namespace arecipe::runtime
