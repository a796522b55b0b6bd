//===- ResultStore.cpp - The output directory of a sweep ------------------===//

#include "arecipe/Runtime/ResultStore.h"

#include "arecipe/Report/HtmlReport.h"
#include "arecipe/Support/AtomicFile.h"
#include "arecipe/Support/Json.h"
#include "arecipe/Support/Redaction.h"
#include "arecipe/Support/Utf8.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace fs = std::filesystem;
using nlohmann::ordered_json;

namespace arecipe::runtime {

using support::writeFileAtomically;

namespace {

/// A cell summary is a few kilobytes; a hostile one may not cost more.
const support::JsonLimits SummaryJsonLimits{/*MaxDepth=*/64, /*MaxBytes=*/size_t(16) << 20};

/// Bytes kept free in the output directory for the last verdict.
constexpr size_t ReserveBytes = 16 << 10;

/// The fields of `arecipe_run` every reader of a summary relies on: a
/// status and a digest that are strings, and a reason that is one if
/// present.
bool isSummaryRun(const ordered_json &Run) {
  auto Reason = Run.find("reason");
  return Run.contains("status") && Run["status"].is_string() && Run.contains("cell_digest") &&
         Run["cell_digest"].is_string() && (Reason == Run.end() || Reason->is_string());
}

} // namespace

std::string redactPlanText(const std::string &PlanText) {
  std::optional<ordered_json> Plan =
      support::parseOrderedJsonOrNull(PlanText, support::JsonLimits{64, size_t(256) << 20});
  if (!Plan)
    return support::redact(PlanText);
  if (!support::redactJson(*Plan))
    return PlanText;
  return support::dumpJson(*Plan, 2) + "\n";
}

bool writeOutputFile(const std::string &Path, std::string_view Text, std::string &Err) {
  return writeFileAtomically(Path, support::sanitizeUtf8(support::redact(Text)), Err);
}

bool writeOutputJson(const std::string &Path, const ordered_json &Doc, std::string &Err) {
  // Field by field: a text pass over serialised JSON would miss a secret
  // that JSON escapes and could cut an escape in two.
  ordered_json Redacted = Doc;
  support::redactJson(Redacted);
  return writeFileAtomically(Path, support::dumpJson(Redacted, 2) + "\n", Err);
}

void appendOutputLine(const std::string &Path, std::string_view Line) {
  std::string Text = support::sanitizeUtf8(support::redact(Line)) + "\n";
  int Fd = open(Path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (Fd < 0)
    return;
  for (size_t Done = 0; Done < Text.size();) {
    ssize_t N = write(Fd, Text.data() + Done, Text.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break;
    Done += size_t(N);
  }
  close(Fd);
}

bool makeRealDirectory(const std::string &Path, std::string &Err) {
  for (int Attempt = 0; Attempt < 2; ++Attempt) {
    struct stat St;
    if (lstat(Path.c_str(), &St) == 0) {
      if (S_ISLNK(St.st_mode))
        Err = fmt::format("refusing to use {}: it is a symbolic link, not a directory", Path);
      else if (!S_ISDIR(St.st_mode))
        Err = fmt::format("refusing to use {}: it is not a directory", Path);
      return S_ISDIR(St.st_mode);
    }
    if (errno != ENOENT || (mkdir(Path.c_str(), 0755) != 0 && errno != EEXIST))
      break;
  }
  Err = fmt::format("cannot create {}: {}", Path, std::strerror(errno));
  return false;
}

ResultStore::ResultStore(std::string OutDir, bool Simulated, double TimeScale,
                         bool VirtualClock)
    : OutDir(std::move(OutDir)), Simulated(Simulated), TimeScale(TimeScale),
      VirtualClock(VirtualClock) {}

ResultStore::~ResultStore() = default;

OutputLock::~OutputLock() {
  if (Fd >= 0)
    close(Fd);
}

bool OutputLock::acquire(const std::string &OutDir, std::string &Err) {
  std::error_code Ec;
  fs::create_directories(OutDir, Ec);
  if (Ec) {
    Err = fmt::format("cannot create {}: {}", OutDir, Ec.message());
    return false;
  }
  std::string Path = OutDir + "/.lock";
  int Fd = open(Path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (Fd < 0) {
    Err = fmt::format("cannot lock {}: {}", OutDir, std::strerror(errno));
    return false;
  }
  if (flock(Fd, LOCK_EX | LOCK_NB) != 0) {
    int E = errno;
    char Buf[32] = {};
    ssize_t N = pread(Fd, Buf, sizeof Buf - 1, 0);
    close(Fd);
    std::string Holder = N > 0 ? std::string(Buf, size_t(N)) : std::string("?");
    Holder.erase(Holder.find_last_not_of(" \n") + 1);
    Err = E == EWOULDBLOCK
              ? fmt::format("{} is in use by another arecipe-run (pid {}); wait for it to end "
                            "or choose another --out",
                            OutDir, Holder)
              : fmt::format("cannot lock {}: {}", OutDir, std::strerror(E));
    return false;
  }
  // The holder's pid, for the message a second run prints.
  std::string Pid = std::to_string(getpid()) + "\n";
  if (ftruncate(Fd, 0) != 0 || pwrite(Fd, Pid.data(), Pid.size(), 0) < 0) {
    // The lock holds without the pid; only the message is poorer.
  }
  this->Fd = Fd;
  return true;
}

std::string ResultStore::cellDir(const Cell &C) const { return OutDir + "/cells/" + C.Id; }

std::string ResultStore::summaryPath(const Cell &C) const { return cellDir(C) + "/summary.json"; }

std::string ResultStore::reservePath() const { return OutDir + "/.space-reserve"; }

bool ResultStore::create(std::string &Err) const {
  // --out itself may be a link (the operator chose it); nothing below it.
  std::error_code Ec;
  fs::create_directories(OutDir, Ec);
  if (Ec) {
    Err = fmt::format("cannot create {}: {}", OutDir, Ec.message());
    return false;
  }
  if (!makeRealDirectory(OutDir + "/cells", Err))
    return false;
  // Room kept for a cell's verdict: records fill a disk while a cell
  // measures, and a cell that failed for that must still say so.
  if (!fs::exists(reservePath(), Ec))
    writeFileAtomically(reservePath(), std::string(ReserveBytes, '\0'), Err);
  return true;
}

bool ResultStore::resetCell(const Cell &C, std::string &Err) const {
  // `cells` is a real directory (create): remove_all on a link in it
  // removes the link, never what it points to.
  std::error_code Ec;
  if (!makeRealDirectory(OutDir + "/cells", Err))
    return false;
  fs::remove_all(cellDir(C), Ec);
  if (Ec) {
    Err = fmt::format("cannot prepare {}: {}", cellDir(C), Ec.message());
    return false;
  }
  return makeRealDirectory(cellDir(C), Err);
}

std::optional<ordered_json> ResultStore::finishedSummary(const Cell &C) const {
  // Another run, another version or a person may have written this file:
  // it is trusted only when it has the shape every reader relies on, and
  // anything else means "not finished" (the cell runs again), never an
  // abort (finding 4 of the second hardening round).
  // Parsed once per version of the file: the sweep tables and --resume ask
  // for every cell after every cell.
  std::string Version = support::fileVersion(summaryPath(C));
  auto &[CachedVersion, J] = Summaries[C.Id];
  if (Version.empty())
    J.reset();
  else if (Version != CachedVersion)
    J = support::readJsonFile(summaryPath(C), SummaryJsonLimits);
  CachedVersion = Version;
  const ordered_json *Run = J ? support::objectAt(*J, "arecipe_run") : nullptr;
  if (!Run || !isSummaryRun(*Run) || support::stringAt(*Run, "cell_digest") != C.Digest)
    return std::nullopt;
  // Measured the same way: simulated or not, at the same time scale, on
  // the same clock.
  if (support::boolAt(*Run, "simulated", false) != Simulated ||
      (Simulated && support::numberAt(*Run, "/time_scale") !=
                        std::optional<double>(TimeScale)) ||
      (Simulated && (support::stringAt(*Run, "sim_clock", "wall") ==
                     "virtual") != VirtualClock))
    return std::nullopt;
  return J;
}

bool ResultStore::writeCellSummary(const Cell &C, const ordered_json &Summary,
                                   std::string &Err) const {
  if (writeOutputJson(summaryPath(C), Summary, Err))
    return true;
  // The disk is full: give up the reserve for this verdict, once.
  std::error_code Ec;
  if (!fs::remove(reservePath(), Ec))
    return false;
  return writeOutputJson(summaryPath(C), Summary, Err);
}

namespace {

/// One row of the sweep tables, read from a cell summary.
struct SweepRow {
  std::string Id, Band, Status, Reason;
  int Conc = 0, Gpus = 0;
  std::optional<double> Successful, ErrorRate, TputPerGpu, OutputPerGpu, TtftP50, TtftP90, ItlP50,
      E2elP50, IntvtyP90;
};

SweepRow rowFor(const Cell &C, const std::optional<ordered_json> &S) {
  SweepRow R;
  R.Id = C.Id;
  R.Conc = C.Conc;
  R.Band = C.Band;
  R.Gpus = C.Gpus;
  R.Status = "pending";
  if (!S)
    return R;
  const ordered_json &Run = *support::objectAt(*S, "arecipe_run");
  R.Status = support::stringAt(Run, "status", "unknown");
  R.Reason = support::stringAt(Run, "reason");
  R.Successful = support::numberAt(*S, "/num_requests_successful");
  R.ErrorRate = support::numberAt(*S, "/arecipe_client/error_rate");
  R.TputPerGpu = support::numberAt(*S, "/request_metrics/throughput/per_gpu/total");
  R.OutputPerGpu = support::numberAt(*S, "/request_metrics/throughput/per_gpu/output");
  R.TtftP50 = support::numberAt(*S, "/request_metrics/latency/ttft/p50");
  R.TtftP90 = support::numberAt(*S, "/request_metrics/latency/ttft/p90");
  R.ItlP50 = support::numberAt(*S, "/request_metrics/latency/itl/p50");
  R.E2elP50 = support::numberAt(*S, "/request_metrics/latency/e2el/p50");
  R.IntvtyP90 = support::numberAt(*S, "/arecipe_client/p90_interactivity");
  return R;
}

std::string num(const std::optional<double> &V, int Digits) {
  return V ? fmt::format("{:.{}f}", *V, Digits) : std::string();
}

std::string csvField(const std::string &S) {
  if (S.find_first_of(",\"\n") == std::string::npos)
    return S;
  std::string Out = "\"";
  for (char C : S)
    Out += C == '"' ? std::string("\"\"") : std::string(1, C);
  return Out + "\"";
}

std::string firstLine(const std::string &S) { return S.substr(0, S.find('\n')); }

/// A row of summary.md's repeats table: "mean ± std [low – high]" per
/// headline figure (Repeats.h).
std::string repeatRow(const std::string &Id, const ordered_json &Rep) {
  auto Cellof = [&](const char *Key, int Digits) {
    const ordered_json *F = support::objectAt(Rep, "figures");
    const ordered_json *V = F ? support::objectAt(*F, Key) : nullptr;
    if (!V)
      return std::string();
    return fmt::format("{:.{}f} ± {:.{}f} [{:.{}f} – {:.{}f}]", V->value("mean", 0.0), Digits,
                       V->value("std", 0.0), Digits, V->value("ci95_low", 0.0), Digits,
                       V->value("ci95_high", 0.0), Digits);
  };
  return fmt::format("| {} | {} of {} | {} | {} | {} |\n", Id, Rep.value("ok", 0),
                     Rep.value("runs", 0), Cellof("total_tput_per_gpu", 1),
                     Cellof("p90_interactivity", 1), Cellof("median_e2el", 3));
}

} // namespace

bool ResultStore::writeSweep(const LaunchPlan &Plan, bool Simulated, double TimeScale,
                             std::string &Err) const {
  ordered_json Results;
  Results["schema"] = "arecipe.results/v1";
  Results["recipe"] = Plan.RecipeName;
  Results["model"] = Plan.ModelId;
  Results["hardware"] = Plan.Hardware.Name;
  Results["engine"] = Plan.EngineName;
  Results["simulated"] = Simulated;
  Results["time_scale"] = Simulated ? TimeScale : 1.0;
  if (Simulated)
    Results["sim_clock"] = VirtualClock ? "virtual" : "wall";
  Results["cells"] = ordered_json::array();
  std::string Csv = "cell,conc,band,status,gpus,num_requests_successful,error_rate,"
                    "throughput_per_gpu_tok_s,output_per_gpu_tok_s,ttft_p50_s,ttft_p90_s,"
                    "itl_p50_s,e2el_p50_s,p90_interactivity_tok_s_user,reason\n";
  std::string Md = fmt::format(
      "# {}{}\n\n", Plan.RecipeName,
      Simulated ? fmt::format(" (simulated, time scale {}{})", TimeScale,
                              VirtualClock ? ", virtual clock" : "")
                : std::string());
  Md += "| cell | conc | band | status | tok/s/GPU | output tok/s/GPU | TTFT p50 (s) | "
        "ITL p50 (s) | p90 interactivity (tok/s/user) | error rate | reason |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n";
  std::string RepeatsMd;
  for (const Cell &C : Plan.Cells) {
    std::optional<ordered_json> S = finishedSummary(C);
    SweepRow R = rowFor(C, S);
    ordered_json Entry;
    Entry["id"] = C.Id;
    Entry["conc"] = C.Conc;
    Entry["band"] = C.Band.empty() ? ordered_json(nullptr) : ordered_json(C.Band);
    Entry["status"] = R.Status;
    if (!R.Reason.empty())
      Entry["reason"] = R.Reason;
    if (S)
      Entry["summary"] = "cells/" + C.Id + "/summary.json";
    if (S)
      for (const char *Key : {"num_requests_total", "num_requests_successful", "request_metrics"})
        if (S->contains(Key))
          Entry[Key] = (*S)[Key];
    if (const ordered_json *Rep = S ? support::objectAt(*S, "arecipe_repeats") : nullptr) {
      Entry["repeats"] = *Rep;
      RepeatsMd += repeatRow(C.Id, *Rep);
    }
    Results["cells"].push_back(Entry);
    Csv += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", csvField(C.Id), C.Conc,
                       csvField(C.Band), R.Status, C.Gpus, num(R.Successful, 0),
                       num(R.ErrorRate, 4), num(R.TputPerGpu, 2), num(R.OutputPerGpu, 2),
                       num(R.TtftP50, 4), num(R.TtftP90, 4), num(R.ItlP50, 5), num(R.E2elP50, 4),
                       num(R.IntvtyP90, 2), csvField(firstLine(R.Reason)));
    std::string Reason = firstLine(R.Reason);
    for (char &Ch : Reason)
      if (Ch == '|')
        Ch = '/';
    Md += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", C.Id, C.Conc,
                      C.Band, R.Status, num(R.TputPerGpu, 1), num(R.OutputPerGpu, 1),
                      num(R.TtftP50, 3), num(R.ItlP50, 4), num(R.IntvtyP90, 1), num(R.ErrorRate, 3),
                      Reason);
  }
  if (!RepeatsMd.empty())
    Md += "\n## Repeats\n\nOver the ok repeats: mean ± sample standard deviation [95 % confidence "
          "interval of the mean, Student t].\n\n| cell | ok of runs | tok/s/GPU | p90 "
          "interactivity (tok/s/user) | median E2E latency (s) |\n|---|---|---|---|---|\n" +
          RepeatsMd;
  if (!writeOutputJson(OutDir + "/results.json", Results, Err) ||
      !writeOutputFile(OutDir + "/summary.csv", Csv, Err) ||
      !writeOutputFile(OutDir + "/summary.md", Md, Err))
    return false;
  // Rebuilt with the tables, so an interrupted sweep has a current report too.
  // The report is a view of the results: a directory it cannot read (no
  // plan.json, as when the store is used on its own) keeps its tables. Its
  // reader is kept between rebuilds and reads only the cells that changed.
  try {
    if (!Report) {
      auto Reader = std::make_unique<report::SweepResultsReader>();
      std::string Unreadable;
      if (!Reader->load(OutDir, Unreadable))
        return true;
      Report = std::move(Reader);
    } else {
      Report->refresh();
    }
  } catch (const std::exception &) {
    Report.reset();
    return true;
  }
  return writeOutputFile(OutDir + "/" + report::ReportFileName,
                         report::renderSweepReport(Report->results()), Err);
}

} // namespace arecipe::runtime
