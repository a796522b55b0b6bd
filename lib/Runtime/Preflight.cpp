//===- Preflight.cpp - The guards that run before any server --------------===//

#include "arecipe/Runtime/Preflight.h"

#include "arecipe/Runtime/ChildProcess.h"
#include "arecipe/Runtime/GpuMemory.h"
#include "arecipe/Runtime/LaunchCommand.h"
#include "arecipe/Runtime/PlanLoader.h"
#include "arecipe/Runtime/ResultStore.h"
#include "arecipe/Runtime/StopRequest.h"
#include "arecipe/Support/Redaction.h"
#include "arecipe/Support/ShellQuote.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fnmatch.h>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace arecipe::runtime {

namespace {

constexpr std::chrono::milliseconds ProbeTimeout{120000};

void appendLog(const std::string &Path, const std::string &Line) { appendOutputLine(Path, Line); }

PreflightOutcome fail(std::string Reason) {
  PreflightOutcome O;
  O.Ok = false;
  O.Reason = std::move(Reason);
  return O;
}

/// Under --simulate a check of the real machine cannot fail the cell: the
/// tools and weights it looks for are not on a machine without GPUs.
PreflightOutcome failOrWarn(const PreflightContext &Ctx, std::string Reason) {
  if (!Ctx.Settings.Simulate)
    return fail(std::move(Reason));
  PreflightOutcome O;
  O.Warnings.push_back(Reason + " (not a failure under --simulate)");
  Ctx.Note("warning: " + O.Warnings.back());
  return O;
}

CommandResult run(const PreflightContext &Ctx, const Argv &Command, const EnvMap &Env,
                  std::chrono::milliseconds Timeout, bool SeparateStderr = false) {
  // The command's own output reaches the log through the child's relay,
  // redacted line by line (ChildProcess.h).
  appendLog(Ctx.LogPath, "$ " + support::shellJoin(support::redactArgv(Command)));
  ChildEnvironment E;
  E.Set = Env;
  CommandResult R = runCommand(Command, E, Ctx.LogPath, Timeout, stopRequested, SeparateStderr);
  appendLog(Ctx.LogPath,
            "# " + R.describe() +
                (R.OutputTruncated
                     ? fmt::format(" (output beyond {} bytes was not kept)", MaxCommandOutputBytes)
                     : std::string()));
  return R;
}

PreflightOutcome unsetEnv(const UnsetEnvAction &A, const PreflightContext &Ctx) {
  std::vector<std::string> Removed;
  for (const std::string &N : A.Names)
    if (std::getenv(N.c_str())) {
      Removed.push_back(N);
      unsetenv(N.c_str());
    }
  appendLog(Ctx.LogPath, Removed.empty()
                             ? "# none of them was set"
                             : "# removed " + fmt::format("{}", fmt::join(Removed, " ")));
  return {};
}

/// The first whitespace-separated word of Output that matches Pattern, or
/// the first word that looks like a version, for the message.
bool versionMatches(const std::string &Output, const std::string &Pattern, std::string &Seen) {
  std::istringstream In(Output);
  std::string Word;
  while (In >> Word) {
    if (fnmatch(Pattern.c_str(), Word.c_str(), 0) == 0) {
      Seen = Word;
      return true;
    }
    if (Seen.empty() && std::isdigit(static_cast<unsigned char>(Word[0])) &&
        Word.find('.') != std::string::npos)
      Seen = Word;
  }
  return false;
}

PreflightOutcome requireVersion(const RequireVersionAction &A, const PreflightContext &Ctx) {
  CommandResult R = run(Ctx, A.Probe, {}, ProbeTimeout);
  std::string Seen;
  PreflightOutcome O;
  std::string Problem;
  if (!R.succeeded())
    Problem = fmt::format("cannot read the {} version: {}", A.Tool, R.describe());
  else if (!versionMatches(R.Output, A.Pattern, Seen))
    Problem = fmt::format("{} version is {}, expected {}", A.Tool, Seen.empty() ? "unknown" : Seen,
                          A.Pattern);
  else
    appendLog(Ctx.LogPath, fmt::format("# {} {} matches {}", A.Tool, Seen, A.Pattern));
  if (Problem.empty())
    return O;
  if (A.FailOnMismatch)
    return failOrWarn(Ctx, Problem);
  O.Warnings.push_back(Problem);
  Ctx.Note("warning: " + Problem);
  return O;
}

/// Under --simulate the Hugging Face cache is a sandbox in the output
/// directory, so a simulated run never writes into the real shared cache.
EnvMap stagingEnv(const StageModelAction &A, const PreflightContext &Ctx) {
  EnvMap Env = A.Env;
  if (Ctx.Settings.Simulate) {
    Env.erase("HF_HUB_CACHE");
    Env.erase("HUGGINGFACE_HUB_CACHE");
    Env["HF_HOME"] = simulatedHfHome(Ctx.Settings);
  }
  return Env;
}

PreflightOutcome stageModel(const StageModelAction &A, const PreflightContext &Ctx) {
  EnvMap Env = stagingEnv(A, Ctx);
  if (Ctx.Settings.Simulate && !findProgram(A.Command.front())) {
    // Stand in for the download: the simulated engine finds the repository
    // in its (sandboxed) cache, as it would after a real staging.
    size_t Slash = A.Repo.find('/');
    std::string Dir = fmt::format("{}/hub/models--{}--{}", Env["HF_HOME"], A.Repo.substr(0, Slash),
                                  Slash == std::string::npos ? "" : A.Repo.substr(Slash + 1));
    // The sandbox must stay inside --out whatever the repository id says
    // (the loader checks ids too; this guards plans built in memory) (F4).
    fs::path Out = fs::absolute(Ctx.Settings.OutDir).lexically_normal();
    fs::path Target = fs::absolute(Dir).lexically_normal();
    auto Rel = Target.lexically_relative(Out);
    if (!isValidRepoId(A.Repo) || Rel.empty() || *Rel.begin() == "..")
      return fail(fmt::format("refusing to stage '{}': the simulated cache directory {} is "
                              "outside the output directory",
                              A.Repo, Dir));
    std::error_code Ec;
    fs::create_directories(Dir, Ec);
    appendLog(Ctx.LogPath, fmt::format("# '{}' is not on PATH; simulated staging into {}",
                                       A.Command.front(), Dir));
    return {};
  }
  std::string Last;
  for (int Attempt = 1; Attempt <= A.Attempts; ++Attempt) {
    appendLog(Ctx.LogPath, fmt::format("# attempt {}/{}", Attempt, A.Attempts));
    CommandResult R = run(Ctx, A.Command, Env, std::chrono::milliseconds(0));
    if (R.succeeded())
      return {};
    if (stopRequested())
      return fail("interrupted");
    Last = R.describe();
    if (Attempt < A.Attempts) {
      Ctx.Note(fmt::format("staging {} failed ({}), retrying in {:.1f} s", A.Repo, Last,
                           Ctx.Settings.wall(A.DelayS).count() / 1000.0));
      if (!sleepUnlessStopped(Ctx.Settings.wall(A.DelayS)))
        return fail("interrupted");
    }
  }
  return fail(fmt::format("staging {} failed after {} attempt{}: {}", A.Repo, A.Attempts,
                          A.Attempts == 1 ? "" : "s", Last));
}

PreflightOutcome checkPaths(const CheckPathsAction &A, const PreflightContext &Ctx) {
  if (!A.AllNodes && Ctx.Settings.NodeRank > 0) {
    appendLog(Ctx.LogPath, "# check_paths: rank 0 only, skipped on this node");
    return {};
  }
  std::vector<std::string> Missing;
  for (const std::string &P : A.Paths) {
    std::error_code Ec;
    if (!fs::exists(P, Ec))
      Missing.push_back(P);
  }
  if (Missing.empty())
    return {};
  return failOrWarn(Ctx, fmt::format("missing path{}: {}", Missing.size() == 1 ? "" : "s",
                                     fmt::join(Missing, ", ")));
}

/// The GPUs the cell's processes use; empty means every GPU.
std::set<int> cellGpus(const Cell &C) {
  std::set<int> Out;
  for (const ProcessSpec &P : C.Processes)
    if (P.Gpus)
      Out.insert(P.Gpus->begin(), P.Gpus->end());
  return Out;
}

PreflightOutcome waitCleanGpus(const WaitCleanGpusAction &A, const PreflightContext &Ctx) {
  std::optional<std::string> Tool = findGpuMemoryTool(Ctx.Plan);
  if (!Tool && !Ctx.Settings.Simulate)
    return fail(fmt::format("cannot check GPU memory: none of {}, amd-smi, rocm-smi, "
                            "nvidia-smi is on PATH",
                            Ctx.Plan.Hardware.Smi));
  std::set<int> Wanted = cellGpus(Ctx.TheCell);
  auto Deadline = std::chrono::steady_clock::now() + Ctx.Settings.wall(A.TimeoutS);
  std::string Dirty;
  for (int Poll = 1;; ++Poll) {
    std::vector<GpuMemory> Gpus;
    if (Tool) {
      Argv Query = gpuMemoryQuery(fs::path(*Tool).filename());
      Query.front() = *Tool;
      CommandResult R = run(Ctx, Query, {}, ProbeTimeout);
      if (!R.succeeded())
        return fail(fmt::format("cannot check GPU memory: {} {}", *Tool, R.describe()));
      std::string Err;
      auto Parsed = parseGpuMemory(fs::path(*Tool).filename(), R.Output, Err);
      if (!Parsed)
        return fail("cannot check GPU memory: " + Err);
      Gpus = *Parsed;
    } else {
      Gpus = readSimulatedGpuMemory(simulatedGpuMemoryDir(Ctx.Settings));
    }
    Dirty.clear();
    for (const GpuMemory &G : Gpus)
      if ((Wanted.empty() || Wanted.count(G.Index)) && G.usedFraction() > A.MaxUsedFraction)
        Dirty += fmt::format("{}GPU {} uses {:.1f}%", Dirty.empty() ? "" : ", ", G.Index,
                             100 * G.usedFraction());
    if (Dirty.empty()) {
      appendLog(Ctx.LogPath, fmt::format("# GPUs clean (<= {:.1f}% used) after {} poll{}",
                                         100 * A.MaxUsedFraction, Poll, Poll == 1 ? "" : "s"));
      return {};
    }
    appendLog(Ctx.LogPath, "# not clean: " + Dirty);
    if (std::chrono::steady_clock::now() >= Deadline)
      break;
    if (Poll == 1)
      Ctx.Note(fmt::format("waiting for clean GPUs: {}", Dirty));
    if (!sleepUnlessStopped(std::min(Ctx.Settings.wall(A.PollS),
                                     std::chrono::duration_cast<std::chrono::milliseconds>(
                                         Deadline - std::chrono::steady_clock::now()))))
      return fail("interrupted");
  }
  return fail(fmt::format("GPUs not clean after {:.0f} s: {} (at most {:.1f}% allowed)", A.TimeoutS,
                          Dirty, 100 * A.MaxUsedFraction));
}

PreflightOutcome prepareCache(const PrepareCacheAction &A, const PreflightContext &Ctx) {
  if (Ctx.Settings.Simulate) {
    appendLog(Ctx.LogPath, "# skipped under --simulate: the simulated engine compiles nothing");
    return {};
  }
  std::error_code Ec;
  fs::create_directories(A.Dir, Ec);
  if (Ec)
    return fail(fmt::format("cannot create cache directory {}: {}", A.Dir, Ec.message()));
  bool Empty = fs::is_empty(A.Dir, Ec);
  if (!A.FromImagePath.empty() && Empty && fs::exists(A.FromImagePath, Ec)) {
    fs::copy(A.FromImagePath, A.Dir, fs::copy_options::recursive, Ec);
    if (Ec)
      return fail(
          fmt::format("cannot seed cache {} from {}: {}", A.Dir, A.FromImagePath, Ec.message()));
    appendLog(Ctx.LogPath, fmt::format("# seeded {} from {}", A.Dir, A.FromImagePath));
  }
  return {};
}

PreflightOutcome verifyImport(const VerifyImportAction &A, const PreflightContext &Ctx) {
  Argv Command = A.Python;
  Command.insert(Command.end(),
                 {"-c",
                  "import importlib, os, sys; m = importlib.import_module(sys.argv[1]); "
                  "print(os.path.dirname(os.path.abspath(m.__file__)))",
                  A.Package});
  CommandResult R = run(Ctx, Command, {}, ProbeTimeout);
  if (!R.succeeded())
    return failOrWarn(Ctx, fmt::format("cannot import {}: {}", A.Package, R.describe()));
  std::string Where = R.Output.substr(0, R.Output.find('\n'));
  if (Where.rfind(A.ExpectPrefix, 0) != 0)
    return failOrWarn(Ctx, fmt::format("{} is imported from {}, expected under {}", A.Package,
                                       Where, A.ExpectPrefix));
  return {};
}

/// A step's argv with the placeholders known so far substituted.
Argv substituted(const Argv &Command, const PreflightContext &Ctx) {
  if (!Ctx.Values)
    return Command;
  Argv Out;
  for (const std::string &Word : Command)
    Out.push_back(substitutePlaceholders(Word, *Ctx.Values));
  return Out;
}

PreflightOutcome runAction(const RunAction &A, const PreflightContext &Ctx) {
  Argv Command = substituted(A.Command, Ctx);
  CommandResult R = run(Ctx, Command, {}, Ctx.Settings.wall(A.TimeoutS));
  if (!R.succeeded())
    return fail(
        fmt::format("'{}' {}", support::shellJoin(support::redactArgv(Command)), R.describe()));
  return {};
}

std::string trimmed(std::string_view Text) {
  size_t B = Text.find_first_not_of(" \t\r\n");
  if (B == std::string_view::npos)
    return "";
  size_t E = Text.find_last_not_of(" \t\r\n");
  return std::string(Text.substr(B, E + 1 - B));
}

/// The last few non-blank lines of a command's stderr, redacted, on one
/// line: what a failure message quotes.
std::string stderrTail(const std::string &Text) {
  std::vector<std::string> Lines;
  std::istringstream In(Text);
  for (std::string Line; std::getline(In, Line);)
    if (std::string T = trimmed(Line); !T.empty())
      Lines.push_back(support::redact(T));
  if (Lines.empty())
    return "nothing on stderr";
  if (Lines.size() > 3)
    Lines.erase(Lines.begin(), Lines.end() - 3);
  return fmt::format("stderr ends with: {}", fmt::join(Lines, " | "));
}

PreflightOutcome captureAction(const CaptureAction &A, const PreflightContext &Ctx) {
  PreflightOutcome O;
  if (Ctx.Settings.NodeRank > 0) {
    // Captured once, on the cell's first node; the other ranks read the
    // value it records (captures.json in the shared cell directory).
    appendLog(Ctx.LogPath, "# capture runs on node rank 0");
    return O;
  }
  if (Ctx.Settings.Simulate && A.SimulatedOutput) {
    O.Captured = trimmed(*A.SimulatedOutput);
    O.Simulated = true;
    appendLog(Ctx.LogPath,
              fmt::format("# --simulate: not run; '{}' is the plan's simulated output '{}'", A.Name,
                          *O.Captured));
    return O;
  }
  Argv Command = substituted(A.Command, Ctx);
  // The command is real, and so is its time: not compressed by --time-scale.
  auto Timeout = std::chrono::milliseconds(static_cast<long long>(A.TimeoutS * 1000.0 + 0.5));
  CommandResult R = run(Ctx, Command, {}, Timeout, /*SeparateStderr=*/true);
  std::string What =
      fmt::format("capture '{}' ({})", A.Name, support::shellJoin(support::redactArgv(Command)));
  if (!R.succeeded())
    return fail(fmt::format("{} {}; {}", What, R.describe(), stderrTail(R.ErrorOutput)));
  if (R.OutputTruncated)
    return fail(fmt::format("{} printed more than {} bytes: too much for a value", What,
                            MaxCommandOutputBytes));
  O.Captured = trimmed(R.Output);
  appendLog(Ctx.LogPath, fmt::format("# captured '{}' = '{}'", A.Name, *O.Captured));
  return O;
}

} // namespace

std::optional<std::string> findGpuMemoryTool(const LaunchPlan &Plan) {
  for (const std::string &Tool : {Plan.Hardware.Smi, std::string("amd-smi"),
                                  std::string("rocm-smi"), std::string("nvidia-smi")})
    if (auto Path = findProgram(Tool))
      return Path;
  return std::nullopt;
}

PreflightOutcome runPreflightAction(const PreflightAction &Action, const PreflightContext &Ctx) {
  appendLog(Ctx.LogPath, "== " + describePreflightAction(Action));
  return std::visit(
      [&](const auto &A) -> PreflightOutcome {
        using T = std::decay_t<decltype(A)>;
        if constexpr (std::is_same_v<T, UnsetEnvAction>)
          return unsetEnv(A, Ctx);
        else if constexpr (std::is_same_v<T, RequireVersionAction>)
          return requireVersion(A, Ctx);
        else if constexpr (std::is_same_v<T, StageModelAction>)
          return stageModel(A, Ctx);
        else if constexpr (std::is_same_v<T, CheckPathsAction>)
          return checkPaths(A, Ctx);
        else if constexpr (std::is_same_v<T, WaitCleanGpusAction>)
          return waitCleanGpus(A, Ctx);
        else if constexpr (std::is_same_v<T, PrepareCacheAction>)
          return prepareCache(A, Ctx);
        else if constexpr (std::is_same_v<T, VerifyImportAction>)
          return verifyImport(A, Ctx);
        else if constexpr (std::is_same_v<T, CaptureAction>)
          return captureAction(A, Ctx);
        else
          return runAction(A, Ctx);
      },
      Action);
}

std::string describePreflightAction(const PreflightAction &Action) {
  return std::visit(
      [](const auto &A) -> std::string {
        using T = std::decay_t<decltype(A)>;
        if constexpr (std::is_same_v<T, UnsetEnvAction>)
          return fmt::format("unset_env {}", fmt::join(A.Names, " "));
        else if constexpr (std::is_same_v<T, RequireVersionAction>)
          return fmt::format("require_version {} {} ({} on mismatch): {}", A.Tool, A.Pattern,
                             A.FailOnMismatch ? "fail" : "warn",
                             support::shellJoin(support::redactArgv(A.Probe)));
        else if constexpr (std::is_same_v<T, StageModelAction>)
          return fmt::format("stage_model {} ({} attempts, {} s apart): {}", A.Repo, A.Attempts,
                             A.DelayS, support::shellJoin(support::redactArgv(A.Command)));
        else if constexpr (std::is_same_v<T, CheckPathsAction>)
          return fmt::format("check_paths {}", fmt::join(A.Paths, " "));
        else if constexpr (std::is_same_v<T, WaitCleanGpusAction>)
          return fmt::format("wait_clean_gpus <= {}% used, timeout {} s, poll {} s",
                             100 * A.MaxUsedFraction, A.TimeoutS, A.PollS);
        else if constexpr (std::is_same_v<T, PrepareCacheAction>)
          return fmt::format("prepare_cache {}{}", A.Dir,
                             A.FromImagePath.empty() ? "" : " from " + A.FromImagePath);
        else if constexpr (std::is_same_v<T, VerifyImportAction>)
          return fmt::format("verify_import {} under {}", A.Package, A.ExpectPrefix);
        else if constexpr (std::is_same_v<T, CaptureAction>)
          return fmt::format("capture {} (timeout {} s{}): {}", A.Name, A.TimeoutS,
                             A.SimulatedOutput ? fmt::format(", simulated output '{}'",
                                                             trimmed(*A.SimulatedOutput))
                                               : "",
                             support::shellJoin(support::redactArgv(A.Command)));
        else
          return fmt::format("run {}", support::shellJoin(support::redactArgv(A.Command)));
      },
      Action);
}

} // namespace arecipe::runtime
