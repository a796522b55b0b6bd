//===- Server.cpp - arecipe-sim: the engine simulator's composition -------===//
//
// Resolves what to simulate (profiles), then wires the components together
// on one event loop: the start-up runner plays the start-up plan, the HTTP
// front end admits requests, the engine loop steps the scheduler on its
// virtual clock, and Completions streams what each step produced. An
// injected crash exits at once, from inside the engine timer's callback.
//
//===----------------------------------------------------------------------===//
#include "arecipe/Sim/Server.h"
#include "Completions.h"
#include "EngineLoop.h"
#include "EventLoop.h"
#include "FaultInjector.h"
#include "GpuMemoryFile.h"
#include "HttpFrontEnd.h"
#include "HttpUtil.h"
#include "SimLog.h"
#include "StartupRunner.h"
#include "StepProfiler.h"
#include "Timeline.h"
#include "arecipe/Sim/SimSpec.h"

#include <algorithm>
#include <csignal>
#include <cstdio>

#include <fmt/format.h>

namespace arecipe::sim {
namespace {

class SimServer {
public:
  SimServer(SimOptions Options, Roofline Model, StartupPlan Plan,
            std::string ModelNote, std::vector<std::string> Warnings);

  int run();

private:
  void exitWith(int Code);
  void writeGpuMemory(GpuMemoryFile::State S);
  void forcedStep(double At, uint64_t Arrived, uint64_t Expected);

  // Declared first, destroyed last: every timer, request and connection of
  // the components below lives on it.
  EventLoop Loop;
  SimOptions O;
  Roofline Model;
  const EngineConfig &Config;
  StartupPlan Plan;
  std::string ModelNote; // where the model's description came from
  std::vector<std::string> Warnings;
  SimClock Clock;
  SimLog Log;
  GpuMemoryFile Memory;
  FaultInjector Faults;
  StepProfiler Profiler;
  Timeline Times;
  EngineLoop Engine;
  Completions Active;
  StartupRunner Startup;
  HttpFrontEnd FrontEnd;
  int ExitCode = 0;
  std::pair<uint64_t, uint64_t> LastForced{~uint64_t(0), ~uint64_t(0)};
};

SimServer::SimServer(SimOptions Options, Roofline TheModel, StartupPlan ThePlan,
                     std::string Note, std::vector<std::string> TheWarnings)
    : O(std::move(Options)), Model(std::move(TheModel)), Config(Model.config()),
      Plan(std::move(ThePlan)), ModelNote(std::move(Note)),
      Warnings(std::move(TheWarnings)), Clock(O.TimeScale),
      Log(Clock, O.Level, engineName(Config.Engine)),
      Memory(O.GpuMemFile,
             std::min(Config.gpus(), Model.hardware().GpusPerNode),
             Model.hardware().HbmBytes,
             Model.hardware().HbmBytes * Config.GpuMemoryUtilization),
      Faults(O.Faults, Log),
      Engine(
          Model, Plan.CpuTierTokens, O.Seed, Loop, Clock, Profiler,
          {[this](const StepResult &R, double End) { Active.deliver(R, End); },
           [this] { Active.flushAll(); },
           [this](double At, uint64_t Arrived, uint64_t Expected) {
             forcedStep(At, Arrived, Expected);
           }}),
      Active(Loop, Engine, Faults, Memory, Log, Times),
      Startup(Plan, Loop, Clock, Log,
              {[this] { writeGpuMemory(GpuMemoryFile::State::Held); },
               [this] {
                 Engine.setReady();
                 Log.info(
                     fmt::format("ready on http://127.0.0.1:{}: serving {}",
                                 Loop.boundPort(), Config.servedName()));
               },
               [this](int Code) { exitWith(Code); }}),
      FrontEnd({O, Model, Plan, Warnings, Startup, Loop, Engine, Active, Faults,
                Profiler, Clock, Log, Times}) {
  if (O.VirtualClock)
    Engine.enableLockstep(O.Lockstep, O.LockstepGraceSeconds);
}

void SimServer::forcedStep(double At, uint64_t Arrived, uint64_t Expected) {
  Times.forcedStep(At, Arrived, Expected);
  // One line per episode, not per step: the counter in /sim/info has them all.
  if (Arrived == LastForced.first && Expected == LastForced.second)
    return;
  LastForced = {Arrived, Expected};
  Log.warning(fmt::format(
      "virtual clock: stepping at {:.6f} s without waiting any longer: {} of "
      "the {} requests the client should have sent arrived within the grace "
      "of {:g} wall s; the figures from here on depend on real time",
      At, Arrived, Expected, O.LockstepGraceSeconds));
}

int SimServer::run() {
  if (!Loop.ok())
    return 1;
  Loop.onRequest([this](evhttp_request *Req) { FrontEnd.route(Req); });
  for (int Sig : {SIGTERM, SIGINT})
    Loop.onSignal(Sig, [this](int Sig) {
      Log.info(fmt::format("received signal {}: shutting down", Sig));
      exitWith(0);
    });

  Log.info(fmt::format("arecipe-sim simulating {} serving model {} on {} x {} "
                       "({}), time scale {:g} simulated s per wall s",
                       engineName(Config.Engine), Model.model().Name,
                       Config.gpus(), Model.hardware().Name,
                       Model.model().Source, O.TimeScale));
  if (!ModelNote.empty())
    Log.info(ModelNote);
  for (const std::string &W : Warnings)
    Log.warning(W);
  Log.info(fmt::format("served model name {}; tp {} pp {} dcp {} max-num-seqs "
                       "{} max-num-batched-tokens {} gpu-memory-utilization {} "
                       "speculative {} x {}",
                       Config.servedName(), Config.TensorParallel,
                       Config.PipelineParallel, Config.DecodeContextParallel,
                       Config.MaxNumSeqs, Config.MaxNumBatchedTokens,
                       Config.GpuMemoryUtilization,
                       Config.SpecMethod.empty() ? "off" : Config.SpecMethod,
                       Config.NumSpeculativeTokens));
  std::string Error;
  if (!Loop.listenLoopback(Config.Port, Error)) {
    Log.error(Error);
    return 1;
  }
  if (Config.Host != "127.0.0.1" && Config.Host != "localhost")
    Log.info(fmt::format("binding 127.0.0.1 instead of the requested --host "
                         "{}: arecipe-sim only listens on loopback",
                         Config.Host));
  Log.info(fmt::format("Uvicorn running on http://127.0.0.1:{} (Press CTRL+C "
                       "to quit)",
                       Loop.boundPort()));
  if (O.VirtualClock) {
    if (!O.TimelineFile.empty() && !Times.open(O.TimelineFile, Error)) {
      Log.error(Error);
      return 1;
    }
    Log.info(fmt::format(
        "virtual clock: steps in lock-step with a closed-loop client of {} "
        "lane{}, {} requests ({} warm-up), as fast as the CPU allows; a "
        "request arrives at the end of the last step; grace {:g} wall s",
        O.Lockstep.Concurrency, O.Lockstep.Concurrency == 1 ? "" : "s",
        O.Lockstep.Requests, O.Lockstep.Warmup, O.LockstepGraceSeconds));
  }
  if (!writePortFile(O.PortFile, Loop.boundPort(), Log))
    return 1;
  Startup.start();
  if (ExitCode == 0 && !Loop.exiting())
    Loop.run();
  return ExitCode;
}

void SimServer::writeGpuMemory(GpuMemoryFile::State S) {
  if (!Memory.write(S))
    Log.warning(fmt::format("cannot write {}{}", Memory.path(),
                            S == GpuMemoryFile::State::Released
                                ? ": removed it, nothing is held"
                                : ""));
}

void SimServer::exitWith(int Code) {
  ExitCode = Code;
  Engine.stop();
  if (Faults.leaksGpuMemory()) {
    Log.warning("exiting without releasing device memory (fault gpu-mem-leak)");
    writeGpuMemory(GpuMemoryFile::State::Leaked);
  } else {
    writeGpuMemory(GpuMemoryFile::State::Released);
  }
  Loop.exit();
}

/// What to simulate: the spec when given (model and hardware from the
/// recipe), else the hardware profile and a model profile named by
/// --sim-model or matching the names the engine serves. Never another
/// model: with none of these it is an error naming what is missing.
bool resolveSubject(const SimOptions &O, const EngineConfig &Config,
                    HardwareProfile &Hw, ModelProfile &Model,
                    std::string &Note, std::string &Error) {
  if (!O.SpecFile.empty()) {
    if (!O.Model.empty() || !O.Hardware.empty()) {
      Error = "--sim-spec describes both the model and the hardware; it "
              "cannot be combined with --sim-model or --sim-hardware";
      return false;
    }
    if (!loadSimSpec(O.SpecFile, Hw, Model, Error))
      return false;
    if (!Config.DraftModel.empty() && Model.DraftModelBytes <= 0) {
      Error = fmt::format("{}: model.draft_checkpoint_bytes: missing: the "
                          "engine loads a drafter ({})",
                          O.SpecFile, Config.DraftModel);
      return false;
    }
    Note = fmt::format("model {} and hardware {} from the simulation spec {}",
                       Model.Name, Hw.Name, O.SpecFile);
    return true;
  }
  // Named explicitly (a profile name, an alias or a file) or inferred from
  // the names the engine serves, as a real engine reads its model's config.
  std::string ModelName;
  if (!O.Model.empty()) {
    ModelName = resolveModelProfile(O.Model, O.ProfilesDir);
    if (ModelName != O.Model)
      Note = fmt::format("model profile {} (--sim-model {} is one of its "
                         "aliases)",
                         ModelName, O.Model);
  } else {
    for (const std::string *Name : {&Config.servedName(), &Config.Model}) {
      ModelName = findModelProfileFor(*Name, O.ProfilesDir);
      if (!ModelName.empty()) {
        Note = fmt::format("model profile {} inferred from '{}'", ModelName,
                           *Name);
        break;
      }
    }
  }
  if (ModelName.empty()) {
    Error = fmt::format(
        "nothing describes the model to simulate: no --sim-spec, and no "
        "model profile in {}/models is named or aliased '{}'{}; pass "
        "--sim-spec FILE (the recipe's model and hardware) or --sim-model "
        "NAME",
        O.ProfilesDir, Config.servedName(),
        Config.Model == Config.servedName()
            ? std::string()
            : fmt::format(" or '{}'", Config.Model));
    return false;
  }
  return loadHardwareProfile(O.Hardware.empty() ? "mi355x" : O.Hardware,
                             O.ProfilesDir, Hw, Error) &&
         loadModelProfile(ModelName, O.ProfilesDir, Model, Error) &&
         checkPrecisionPeak(Hw, Model, "hardware profile " + Hw.Name, Error);
}

} // namespace

int runSimulator(SimOptions O, const Environment &Env) {
  EngineParseResult Parsed = parseEngineArgv(O.EngineArgv, O.Engine);
  if (!Parsed.Error.empty()) {
    fmt::print(stderr, "arecipe-sim: error: {}\n", Parsed.Error);
    return 2;
  }
  const EngineConfig &Config = Parsed.Config;
  HardwareProfile Hw;
  ModelProfile Model;
  std::string Note, Error;
  if (!resolveSubject(O, Config, Hw, Model, Note, Error)) {
    fmt::print(stderr, "arecipe-sim: error: {}\n", Error);
    return 2;
  }
  std::signal(SIGPIPE, SIG_IGN);
  Roofline Line(Hw, Model, Config);
  StartupPlan Plan = planStartup(Line, O, Env);
  SimServer Server(std::move(O), std::move(Line), std::move(Plan),
                   std::move(Note), std::move(Parsed.Warnings));
  return Server.run();
}

} // namespace arecipe::sim
