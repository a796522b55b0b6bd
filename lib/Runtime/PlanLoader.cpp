//===- PlanLoader.cpp - Reading and validating a launch plan --------------===//

#include "arecipe/Runtime/PlanLoader.h"

#include "arecipe/Runtime/Placeholders.h"
#include "arecipe/Support/Json.h"

#include <fmt/format.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace arecipe::runtime {

using support::json;
using support::JsonErrors;
using support::JsonObject;
using support::jsonTypeName;

bool isValidEnvName(std::string_view Name) {
  if (Name.empty())
    return false;
  for (size_t I = 0; I < Name.size(); ++I) {
    char C = Name[I];
    bool Alpha = (C >= 'A' && C <= 'Z') || (C >= 'a' && C <= 'z') || C == '_';
    bool Digit = C >= '0' && C <= '9';
    if (!Alpha && !(Digit && I > 0))
      return false;
  }
  return true;
}

bool isValidRepoId(std::string_view Repo) {
  size_t Slash = Repo.find('/');
  if (Slash == std::string_view::npos || Repo.find('/', Slash + 1) != std::string_view::npos)
    return false;
  for (std::string_view Part : {Repo.substr(0, Slash), Repo.substr(Slash + 1)}) {
    if (Part.empty() || Part == "." || Part == ".." || Part.find("..") != std::string_view::npos ||
        Part.size() > 96)
      return false;
    for (char C : Part)
      if (!(std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '-' || C == '.'))
        return false;
  }
  return true;
}

namespace {

/// A plan is a few megabytes for thousands of cells and a handful of
/// levels deep; these bounds only keep a hostile file from exhausting the
/// memory or the stack.
const support::JsonLimits PlanJsonLimits{/*MaxDepth=*/64, /*MaxBytes=*/size_t(256) << 20};

bool isFileComponentChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '-' || C == '.';
}

/// Cell ids, process names and the recipe name become directory, file and
/// container names: one path component, short enough to combine
/// (`<cell>-<process>.mem` must stay within a file name's 255 bytes).
void checkFileComponent(const JsonObject &F, std::string_view Key, const std::string &Name,
                        std::string_view What) {
  if (Name.empty())
    return;
  bool Ok = Name != "." && Name != "..";
  for (char C : Name)
    Ok &= isFileComponentChar(C);
  if (!Ok)
    F.error(Key, fmt::format("'{}' must use only letters, digits, '_', '-' and '.' ({})", Name,
                             What));
  else if (Name.size() > MaxPlanNameLength)
    F.error(Key, fmt::format("'{}...' is {} characters long, more than {} ({})",
                             Name.substr(0, 16), Name.size(), MaxPlanNameLength, What));
}

/// Words the runtime places among another program's options (an image for
/// `docker run`, a profile for arecipe-sim, a Slurm partition in a job
/// script): a value that starts with '-' or holds a blank, a quote or a
/// newline could become an option or a new line of its own.
void checkOptionValue(const JsonObject &F, std::string_view Key, const std::string &Value,
                      std::string_view Allowed, std::string_view What) {
  if (Value.empty())
    return;
  bool Ok = Value.front() != '-';
  for (char C : Value)
    Ok &= std::isalnum(static_cast<unsigned char>(C)) ||
          Allowed.find(C) != std::string_view::npos;
  if (!Ok)
    F.error(Key, fmt::format("'{}' is not {}: only letters, digits and '{}', not starting with "
                             "'-'",
                             Value, What, Allowed));
}

/// A file or capture name a placeholder can refer to (Placeholders.h), and
/// a file name in the cell's directory: letters, digits, '.', '_' and '-',
/// not starting with '.'.
void checkPlaceholderName(const JsonObject &F, std::string_view Key, const std::string &Name) {
  if (Name.empty())
    return;
  bool Ok = Name.front() != '.';
  for (char C : Name)
    Ok &= isFileComponentChar(C);
  if (!Ok)
    F.error(Key, fmt::format("'{}' must use only letters, digits, '_', '-' and '.', and not "
                             "start with '.'",
                             Name));
  else if (Name.size() > MaxPlanNameLength)
    F.error(Key, fmt::format("'{}...' is {} characters long, more than {}", Name.substr(0, 16),
                             Name.size(), MaxPlanNameLength));
}

/// A duration of the plan, in seconds: non-negative and at most
/// MaxPlanDurationS, so that no wait overflows when it becomes milliseconds.
double duration(const JsonObject &F, std::string_view Key, bool Required, double Default,
                double Min = 0) {
  return F.number(Key, Required, Default, Min, MaxPlanDurationS);
}

std::string fnv1a(std::string_view Text) {
  uint64_t H = 1469598103934665603ull;
  for (unsigned char C : Text) {
    H ^= C;
    H *= 1099511628211ull;
  }
  return fmt::format("{:016x}", H);
}

/// argv: a non-empty list of strings whose first element is non-empty.
Argv readArgv(const JsonObject &F, std::string_view Key, bool Required = true) {
  const json *V = F.get(Key, Required);
  if (!V)
    return {};
  Argv A = F.strings(Key, Required, /*NonEmpty=*/true);
  if (!A.empty() && A.front().empty()) {
    F.error(Key, "the program name (argv[0]) is empty");
    return {};
  }
  return A;
}

std::vector<std::string> readEnvNames(const JsonObject &F, std::string_view Key, bool Required) {
  std::vector<std::string> Names = F.strings(Key, Required, false);
  for (size_t I = 0; I < Names.size(); ++I)
    if (!isValidEnvName(Names[I]))
      F.errors().add(fmt::format("{}[{}]", F.pathOf(Key), I),
                     fmt::format("'{}' is not a valid environment variable name", Names[I]));
  return Names;
}

EnvMap readEnv(const JsonObject &F, std::string_view Key) {
  const json *V = F.get(Key, false);
  if (!V || V->is_null())
    return {};
  if (!V->is_object()) {
    F.error(Key, fmt::format("expected an object of strings, got {}", jsonTypeName(*V)));
    return {};
  }
  EnvMap Out;
  JsonObject Vars(V, F.pathOf(Key), F.errors());
  for (auto It = V->begin(); It != V->end(); ++It) {
    if (!isValidEnvName(It.key()))
      Vars.error(It.key(),
                 fmt::format("'{}' is not a valid environment variable name", It.key()));
    else if (!It.value().is_string())
      Vars.error(It.key(), fmt::format("expected a string, got {}", jsonTypeName(It.value())));
    else
      Out[It.key()] = Vars.str(It.key(), true); // reports a NUL byte
  }
  return Out;
}

PreflightAction readAction(const JsonObject &F) {
  std::string Kind =
      F.oneOf("action", true,
              {"unset_env", "require_version", "stage_model", "check_paths", "wait_clean_gpus",
               "prepare_cache", "verify_import", "run", "capture"});
  if (Kind == "unset_env")
    return UnsetEnvAction{readEnvNames(F, "names", true)};
  if (Kind == "require_version") {
    RequireVersionAction A;
    A.Tool = F.nonEmptyStr("tool");
    A.Probe = readArgv(F, "probe");
    A.Pattern = F.nonEmptyStr("pattern");
    A.FailOnMismatch = F.oneOf("on_mismatch", true, {"warn", "fail"}) == "fail";
    return A;
  }
  if (Kind == "stage_model") {
    StageModelAction A;
    A.Repo = F.nonEmptyStr("repo");
    if (!A.Repo.empty() && !isValidRepoId(A.Repo)) {
      F.error("repo", fmt::format("'{}' is not a model repository id: expected 'org/name' "
                                  "using only letters, digits, '_', '-' and '.' (no '..')",
                                  A.Repo));
      A.Repo.clear();
    }
    A.Attempts = int(F.integer("attempts", true, 1, 1, 1000));
    A.DelayS = duration(F, "delay_s", true, 0);
    A.Env = readEnv(F, "env");
    A.Command = F.has("argv") ? readArgv(F, "argv") : Argv{"hf", "download", A.Repo};
    return A;
  }
  if (Kind == "check_paths") {
    CheckPathsAction A;
    A.Paths = F.strings("paths", true, true);
    A.AllNodes = F.oneOf("nodes", false, {"all", "rank0"}, "all") == "all";
    return A;
  }
  if (Kind == "wait_clean_gpus") {
    WaitCleanGpusAction A;
    A.MaxUsedFraction = F.number("max_used_fraction", true, 0.01, 0, 1);
    A.TimeoutS = duration(F, "timeout_s", true, 600);
    A.PollS = duration(F, "poll_s", false, 5, 0.001);
    return A;
  }
  if (Kind == "prepare_cache") {
    PrepareCacheAction A;
    A.Dir = F.nonEmptyStr("dir");
    A.FromImagePath = F.str("from_image_path", false);
    A.Scope = F.oneOf("scope", false, {"node_user_image"}, "node_user_image");
    A.Fallback = F.oneOf("fallback", false, {"private"}, "private");
    return A;
  }
  if (Kind == "verify_import") {
    VerifyImportAction A;
    A.Package = F.nonEmptyStr("package");
    A.Python = readArgv(F, "python");
    A.ExpectPrefix = F.nonEmptyStr("expect_prefix");
    return A;
  }
  if (Kind == "capture") {
    CaptureAction A;
    A.Name = F.nonEmptyStr("name");
    checkPlaceholderName(F, "name", A.Name);
    A.Command = readArgv(F, "argv");
    A.TimeoutS = duration(F, "timeout_s", false, A.TimeoutS);
    if (F.has("simulated_output"))
      A.SimulatedOutput = F.str("simulated_output", false);
    return A;
  }
  RunAction A;
  if (Kind == "run") {
    A.Command = readArgv(F, "argv");
    A.TimeoutS = duration(F, "timeout_s", false, 0);
  }
  return A;
}

/// A list of {source, target, read_only} bind mounts (`container.mounts`,
/// `slurm.container_mounts`).
std::vector<ContainerMount> readMounts(const JsonObject &F, std::string_view Key) {
  std::vector<ContainerMount> Out;
  for (auto &El : F.list(Key, false)) {
    JsonObject Mt = F.element(El);
    ContainerMount Mount;
    Mount.Source = Mt.nonEmptyStr("source");
    Mount.Target = Mt.nonEmptyStr("target");
    // One `--volume=SOURCE:TARGET[:ro]` word: a ':' or ',' would add fields.
    for (auto [Field, Value] : {std::pair{"source", &Mount.Source}, {"target", &Mount.Target}})
      if (Value->find_first_of(":,") != std::string::npos || Value->rfind('-', 0) == 0)
        Mt.error(Field, fmt::format("'{}' cannot be a mount {}: it must not contain ':' or ',' "
                                    "nor start with '-'",
                                    *Value, Field));
    Mount.ReadOnly = Mt.boolean("read_only", false, true);
    Out.push_back(Mount);
  }
  return Out;
}

Endpoints readEndpoints(const JsonObject &F) {
  Endpoints E;
  auto Path = [&](std::string_view Key, std::string &Out) {
    std::string V = F.str(Key, false, Out);
    if (!V.empty() && V.front() != '/')
      F.error(Key, "expected a path starting with '/'");
    else
      Out = V;
  };
  Path("health", E.Health);
  Path("models", E.Models);
  Path("metrics", E.Metrics);
  Path("start_profile", E.StartProfile);
  Path("stop_profile", E.StopProfile);
  return E;
}

ProcessSpec readProcess(const JsonObject &F) {
  ProcessSpec P;
  P.Name = F.nonEmptyStr("name");
  checkFileComponent(F, "name", P.Name, "it names the log file");
  P.Role = F.oneOf("role", true,
                   {"server", "prefill", "decode", "router", "worker", "service"});
  P.NodeRank = int(F.integer("node_rank", false, 0, 0, 4096));
  P.Template = F.optStr("template");
  P.Replica = int(F.integer("replica", false, 0, 0, 1 << 16));
  if (F.has("node"))
    P.Node = int(F.integer("node", false, 0, 0, 4096));
  P.Command = readArgv(F, "argv");
  P.Env = readEnv(F, "env");
  P.EnvUnset = readEnvNames(F, "env_unset", false);
  if (F.has("gpus")) {
    auto Items = F.list("gpus", false);
    std::vector<int> Gpus;
    for (auto &[Path, V] : Items) {
      if (!V->is_number_integer() || V->get<int64_t>() < 0 || V->get<int64_t>() > 4096)
        F.errors().add(Path, "expected a GPU index (an integer >= 0)");
      else
        Gpus.push_back(V->get<int>());
    }
    P.Gpus = Gpus;
  }
  if (F.has("numa")) {
    JsonObject N = F.object("numa", false);
    P.Numa = NumaBinding{N.nonEmptyStr("cpunodebind"), N.nonEmptyStr("membind")};
  }
  if (F.has("port"))
    P.Port = int(F.integer("port", false, 0, 0, 65535));
  if (F.has("endpoints"))
    P.HttpEndpoints = readEndpoints(F.object("endpoints", false));
  P.After = F.strings("after", false, false);
  JsonObject R = F.object("ready", false);
  P.Ready.StartupTimeoutS = duration(R, "startup_timeout_s", false, P.Ready.StartupTimeoutS);
  P.Ready.StallTimeoutS = duration(R, "stall_timeout_s", false, P.Ready.StallTimeoutS);
  P.Ready.RequiresModel = R.optStr("requires_model");
  P.Ready.Kind = R.oneOf("kind", false, {"http", "tcp", "alive", "running"},
                         P.HttpEndpoints ? "http" : "running");
  if (P.Ready.Kind == "alive")
    P.Ready.AliveS = R.number("alive_s", true, 0, 0);
  P.ServesApi = F.boolean("serves_api", false, false);
  if (F.has("sim_router")) {
    if (P.Role != "router")
      F.error("sim_router", "only a router process has one");
    JsonObject SR = F.object("sim_router", false);
    SimRouterSpec Sim;
    if (SR.has("policy"))
      Sim.Policy = SR.nonEmptyStr("policy");
    if (SR.has("header"))
      Sim.Header = SR.nonEmptyStr("header");
    P.SimRouter = Sim;
  }
  if (P.HttpEndpoints && !P.Port)
    F.error("port", "a process with endpoints needs a port");
  if (P.Ready.Kind == "http" && !P.HttpEndpoints)
    R.error("kind", "'http' readiness needs the process's endpoints");
  if (P.Ready.Kind == "tcp" && !P.Port)
    R.error("kind", "'tcp' readiness needs the process's port");
  return P;
}

ClientSpec readClient(const JsonObject &F) {
  ClientSpec C;
  C.Target = F.nonEmptyStr("target");
  C.ServedModelName = F.nonEmptyStr("served_model_name");
  C.Concurrency = int(F.integer("concurrency", true, 1, 1, 1 << 20));
  C.SessionHeader = F.optStr("session_header");
  C.StallTimeoutS = F.number("stall_timeout_s", false, C.StallTimeoutS, 0, 1e7);
  JsonObject W = F.object("workload", true);
  std::string Kind = W.oneOf("kind", W.present(), {"fixed", "agentic"}, "fixed");
  if (Kind == "agentic") {
    AgenticWorkload A;
    A.Trace = W.nonEmptyStr("trace");
    A.TraceFormat = W.oneOf("trace_format", false, {"arecipe", "mooncake", "weka"}, "arecipe");
    A.DurationS = duration(W, "duration_s", true, 0);
    A.WarmupS = duration(W, "warmup_s", false, 0);
    A.MaxFailedFraction = W.number("max_failed_fraction", false, 0.1, 0, 1);
    C.Workload = A;
  } else {
    FixedWorkload X;
    // Token and request counts are bounded like durations: the client
    // sizes prompts and schedules from them.
    X.Isl = W.integer("isl", true, 0, 1, MaxPlanCount);
    X.Osl = W.integer("osl", true, 0, 1, MaxPlanCount);
    X.RangeBelow = W.oneOf("range_rule", false, {"below", "around"}, "around") == "below";
    X.RangeRatio = W.number("range_ratio", false, 0, 0, 1);
    if (!X.RangeBelow && X.RangeRatio >= 1)
      W.error("range_ratio", "must be below 1 under range_rule \"around\"");
    X.NumPrompts = W.integer("num_prompts", true, 0, 1, MaxPlanCount);
    X.Warmup = W.integer("warmup", false, 0, 0, MaxPlanCount);
    X.IgnoreEos = W.boolean("ignore_eos", false, true);
    X.RequestRate = W.number("request_rate", false, 0, 0, MaxPlanCount);
    X.PromptMode = W.oneOf("prompt_mode", false, {"words", "token_ids", "text"}, "words");
    X.Tokenizer = W.optStr("tokenizer");
    if (W.has("vocab_size"))
      X.VocabSize = W.integer("vocab_size", false, 0, 1, UINT32_MAX);
    if (X.PromptMode == "token_ids" && X.Tokenizer.empty() && X.VocabSize == 0)
      W.error("prompt_mode", "'token_ids' needs 'tokenizer' or 'vocab_size'");
    if (X.PromptMode == "text" && X.Tokenizer.empty())
      W.error("prompt_mode", "'text' needs 'tokenizer'");
    C.Workload = X;
  }
  return C;
}

/// `after` must name processes of the same cell without a cycle. Linear in
/// processes and dependencies, so a long chain is checked at once.
void checkProcessGraph(const Cell &C, const std::string &Path, JsonErrors &Errs) {
  std::map<std::string_view, size_t> Index;
  for (size_t I = 0; I < C.Processes.size(); ++I) {
    const ProcessSpec &P = C.Processes[I];
    if (!P.Name.empty() && !Index.emplace(P.Name, I).second)
      Errs.add(fmt::format("{}.processes[{}].name", Path, I),
               fmt::format("duplicate process name '{}'", P.Name));
  }
  // Kahn's algorithm over the edges that name a known other process:
  // whatever cannot be ordered is on a cycle.
  std::vector<size_t> Waiting(C.Processes.size(), 0);
  std::vector<std::vector<size_t>> Dependents(C.Processes.size());
  for (size_t I = 0; I < C.Processes.size(); ++I)
    for (size_t J = 0; J < C.Processes[I].After.size(); ++J) {
      const std::string &Dep = C.Processes[I].After[J];
      auto It = Index.find(Dep);
      if (It == Index.end()) {
        Errs.add(fmt::format("{}.processes[{}].after[{}]", Path, I, J),
                 fmt::format("no process named '{}' in this cell", Dep));
      } else if (Dep == C.Processes[I].Name) {
        Errs.add(fmt::format("{}.processes[{}].after[{}]", Path, I, J),
                 "a process cannot wait for itself");
      } else {
        ++Waiting[I];
        Dependents[It->second].push_back(I);
      }
    }
  std::vector<size_t> Ready;
  for (size_t I = 0; I < C.Processes.size(); ++I)
    if (Waiting[I] == 0)
      Ready.push_back(I);
  size_t Ordered = 0;
  while (!Ready.empty()) {
    size_t I = Ready.back();
    Ready.pop_back();
    ++Ordered;
    for (size_t D : Dependents[I])
      if (--Waiting[D] == 0)
        Ready.push_back(D);
  }
  if (Ordered < C.Processes.size()) {
    std::string Cycle;
    for (size_t I = 0; I < C.Processes.size(); ++I)
      if (Waiting[I] > 0)
        Cycle += fmt::format("{}'{}'", Cycle.empty() ? "" : ", ", C.Processes[I].Name);
    Errs.add(Path + ".processes", "the 'after' dependencies form a cycle between " + Cycle);
  }
}

/// Every placeholder of the cell names a node it has, a file it generates
/// or a capture step it runs (before the step that uses it, in a step's
/// argv); files and capture steps have unique names.
void checkCellPlaceholders(const Cell &C, const std::string &Path, JsonErrors &Errs) {
  std::set<std::string> Files, Captures;
  for (size_t I = 0; I < C.Files.size(); ++I)
    if (!C.Files[I].Name.empty() && !Files.insert(C.Files[I].Name).second)
      Errs.add(fmt::format("{}.files[{}].name", Path, I),
               fmt::format("duplicate file name '{}'", C.Files[I].Name));
  for (const PreflightAction &A : C.Preflight)
    if (const auto *Cap = std::get_if<CaptureAction>(&A))
      Captures.insert(Cap->Name);
  PlaceholderScope Scope{C.Nodes, &Files, &Captures, {}};
  auto Check = [&](const std::string &Text, const std::string &Where) {
    if (std::string Problem = checkPlaceholders(Text, Scope); !Problem.empty())
      Errs.add(Where, Problem);
  };
  // A step's argv sees the captures of the steps before it only.
  std::set<std::string> Before;
  PlaceholderScope StepScope{C.Nodes, &Files, &Before, "no capture step that runs before this one"};
  for (size_t I = 0; I < C.Preflight.size(); ++I) {
    const Argv *Words = nullptr;
    if (const auto *Run = std::get_if<RunAction>(&C.Preflight[I]))
      Words = &Run->Command;
    const auto *Cap = std::get_if<CaptureAction>(&C.Preflight[I]);
    if (Cap)
      Words = &Cap->Command;
    for (size_t K = 0; Words && K < Words->size(); ++K)
      if (std::string Problem = checkPlaceholders((*Words)[K], StepScope); !Problem.empty())
        Errs.add(fmt::format("{}.preflight[{}].argv[{}]", Path, I, K), Problem);
    if (Cap && !Before.insert(Cap->Name).second)
      Errs.add(fmt::format("{}.preflight[{}].name", Path, I),
               fmt::format("duplicate capture step name '{}'", Cap->Name));
  }
  for (size_t I = 0; I < C.Files.size(); ++I)
    Check(C.Files[I].Content, fmt::format("{}.files[{}].content", Path, I));
  for (size_t J = 0; J < C.Processes.size(); ++J) {
    const ProcessSpec &P = C.Processes[J];
    for (size_t K = 0; K < P.Command.size(); ++K)
      Check(P.Command[K], fmt::format("{}.processes[{}].argv[{}]", Path, J, K));
    for (const auto &[Name, Value] : P.Env)
      Check(Value, fmt::format("{}.processes[{}].env.{}", Path, J, Name));
  }
}

Cell readCell(const JsonObject &F) {
  Cell C;
  C.Id = F.nonEmptyStr("id");
  checkFileComponent(F, "id", C.Id, "it names the cell's result directory");
  C.Conc = int(F.integer("conc", true, 0, 1, 1 << 20));
  C.Arm = F.optStr("arm");
  checkFileComponent(F, "arm", C.Arm, "it is part of the cell's id");
  C.Band = F.optStr("band");
  C.ServerFrom = F.optStr("server_from");
  C.Gpus = int(F.integer("gpus", true, 1, 0, 1 << 16));
  C.Nodes = int(F.integer("nodes", false, 1, 1, 4096));
  if (JsonObject G = F.object("gpus_by_role", false); G.present()) {
    const json *Roles = G.value();
    int Sum = 0;
    for (auto It = Roles->begin(); It != Roles->end(); ++It) {
      if (It.key() != "server" && It.key() != "prefill" &&
          It.key() != "decode") {
        G.error(It.key(), "expected a role: 'server', 'prefill' or 'decode'");
        continue;
      }
      int N = int(G.integer(It.key(), true, 0, 0, 1 << 16));
      C.GpusByRole.emplace_back(It.key(), N);
      Sum += N;
    }
    if (!C.GpusByRole.empty() && Sum != C.Gpus)
      F.error("gpus_by_role",
              fmt::format("the roles' GPUs add up to {}, but the cell has {}",
                          Sum, C.Gpus));
  }
  C.ServerReuse = F.oneOf("server_reuse", false, {"cell", "arm"}, "cell");
  for (auto &E : F.list("knobs", false)) {
    JsonObject K = F.element(E);
    Knob Kn;
    Kn.Name = K.nonEmptyStr("name");
    if (const json *V = K.get("value", true))
      Kn.ValueJson = support::dumpJson(*V);
    JsonObject O = K.object("origin", false);
    Kn.Origin.File = O.str("file", false);
    Kn.Origin.Line = int(O.integer("line", false, 0, 0));
    Kn.Origin.Col = int(O.integer("col", false, 0, 0));
    Kn.Origin.Level = O.str("level", false);
    C.Knobs.push_back(std::move(Kn));
  }
  for (auto &E : F.list("preflight", false))
    C.Preflight.push_back(readAction(F.element(E)));
  for (auto &E : F.list("files", false)) {
    JsonObject Fi = F.element(E);
    GeneratedFile G;
    G.Name = Fi.nonEmptyStr("name");
    checkPlaceholderName(Fi, "name", G.Name);
    G.Content = Fi.str("content", true);
    C.Files.push_back(std::move(G));
  }
  auto Procs = F.list("processes", true);
  if (F.get("processes", false) && Procs.empty() && F.get("processes", false)->is_array())
    F.error("processes", "expected at least one process");
  for (auto &E : Procs)
    C.Processes.push_back(readProcess(F.element(E)));
  C.Client = readClient(F.object("client", true));
  for (auto &E : F.list("profile", false)) {
    JsonObject W = F.element(E);
    C.Profile.push_back({duration(W, "start_s", true, 0), duration(W, "duration_s", true, 0)});
  }
  JsonObject V = F.object("validity", false);
  C.Validity.MaxErrorRate = V.number("max_error_rate", false, 0.1, 0, 1);
  C.Validity.RequiredMetricPrefix = V.optStr("required_metric_prefix");

  checkProcessGraph(C, F.path(), F.errors());
  checkCellPlaceholders(C, F.path(), F.errors());
  if (!C.Client.Target.empty()) {
    const ProcessSpec *T = C.findProcess(C.Client.Target);
    if (!T)
      F.error("client.target", fmt::format("no process named '{}' in this cell", C.Client.Target));
    else if (!T->Port || !T->HttpEndpoints)
      F.error("client.target",
              fmt::format("process '{}' has no port and endpoints to send requests to",
                          C.Client.Target));
  }
  return C;
}

/// `arecipe.plan/v1` and `arecipe.plan/v1.N` are major 1.
bool isMajorOne(const std::string &Schema, bool &Recognised) {
  static const std::string Prefix = "arecipe.plan/v";
  Recognised = Schema.rfind(Prefix, 0) == 0 && Schema.size() > Prefix.size() &&
               std::isdigit(static_cast<unsigned char>(Schema[Prefix.size()]));
  if (!Recognised)
    return false;
  std::string Rest = Schema.substr(Prefix.size());
  std::string Major = Rest.substr(0, Rest.find('.'));
  return Major == "1";
}

/// The simulation figures of `model` and `hardware` (docs/plan-schema.md,
/// minor version 1.1), checked for type and range and gathered into the
/// --sim-spec document arecipe-sim reads; whether the set is complete is
/// the simulator's to say, naming the field. Empty when the plan has none.
std::string readSimFigures(const JsonObject &M, const JsonObject &H, const LaunchPlan &P) {
  enum Kind { Int, Num, Str, Attention, Numbers };
  struct Figure {
    const char *Key;
    Kind K;
  };
  static const Figure ModelFigures[] = {{"layers", Int},
                                        {"hidden_size", Int},
                                        {"attention", Attention},
                                        {"kv_heads", Int},
                                        {"head_dim", Int},
                                        {"kv_lora_rank", Int},
                                        {"rope_dim", Int},
                                        {"kv_layers", Int},
                                        {"kv_bytes_per_token", Int},
                                        {"attention_heads", Int},
                                        {"params_total", Num},
                                        {"params_active", Num},
                                        {"experts", Int},
                                        {"experts_per_token", Int},
                                        {"checkpoint_bytes", Int},
                                        {"precision", Str},
                                        {"context_length", Int},
                                        {"state_bytes_per_sequence", Int},
                                        {"activation_reserve_bytes", Int},
                                        {"draft_checkpoint_bytes", Int},
                                        {"attention_flops_per_token_pair", Num},
                                        {"acceptance_lengths", Numbers}};
  static const Figure HardwareFigures[] = {{"hbm_bytes", Int},
                                           {"hbm_bandwidth", Num},
                                           {"flops_bf16", Num},
                                           {"flops_fp8", Num},
                                           {"flops_fp4", Num},
                                           {"interconnect_bandwidth", Num},
                                           {"host_to_device_bandwidth", Num},
                                           {"dram_bytes", Int}};
  static const Figure CalibrationFigures[] = {
      {"mem_efficiency", Num},   {"flops_efficiency", Num},      {"step_overhead_s", Num},
      {"stage_overhead_s", Num}, {"weight_load_bandwidth", Num}, {"graph_capture_s_per_size", Num}};
  auto Gather = [](const JsonObject &F, const auto &Table, json &Out) {
    for (const Figure &Fig : Table) {
      if (!F.has(Fig.Key))
        continue;
      switch (Fig.K) {
      case Int:
        Out[Fig.Key] = F.integer(Fig.Key, false, 0, 0, int64_t(1) << 60);
        break;
      case Num:
        Out[Fig.Key] = F.number(Fig.Key, false, 0, 0, 1e18);
        break;
      case Str:
        Out[Fig.Key] = F.nonEmptyStr(Fig.Key);
        break;
      case Attention:
        Out[Fig.Key] = F.oneOf(Fig.Key, false, {"gqa", "mla"});
        break;
      case Numbers: {
        json List = json::array();
        for (auto &El : F.list(Fig.Key, false)) {
          if (!El.second->is_number() ||
              !(El.second->get<double>() >= 1 && El.second->get<double>() <= 1e6))
            F.errors().add(El.first, "expected a number >= 1");
          else
            List.push_back(El.second->get<double>());
        }
        Out[Fig.Key] = List;
        break;
      }
      }
    }
  };
  json Model = json::object(), Hardware = json::object();
  Gather(M, ModelFigures, Model);
  Gather(H, HardwareFigures, Hardware);
  JsonObject Cal = H.object("calibration", false);
  if (Cal.present()) {
    json Calibration = json::object();
    Gather(Cal, CalibrationFigures, Calibration);
    Hardware["calibration"] = Calibration;
  }
  if (Model.empty() && Hardware.empty())
    return "";
  Model["id"] = P.ModelId;
  Hardware["name"] = P.Hardware.Name;
  Hardware["gpus_per_node"] = P.Hardware.GpusPerNode;
  return json({{"model", Model}, {"hardware", Hardware}}).dump();
}

void readPlan(const json &Root, LaunchPlan &P, JsonErrors &Errs) {
  if (!Root.is_object()) {
    Errs.add("", fmt::format("expected the plan to be an object, got {}", jsonTypeName(Root)));
    return;
  }
  JsonObject F(&Root, "", Errs);
  P.Schema = F.nonEmptyStr("schema");
  if (P.Schema.empty())
    return;
  bool Recognised = false;
  if (!isMajorOne(P.Schema, Recognised)) {
    F.error("schema", Recognised ? fmt::format("unsupported plan schema '{}': this runtime "
                                               "reads major version 1 ('{}')",
                                               P.Schema, PlanSchemaV1)
                                 : fmt::format("'{}' is not an arecipe plan schema (expected "
                                               "'{}')",
                                               P.Schema, PlanSchemaV1));
    return;
  }
  JsonObject R = F.object("recipe", true);
  P.RecipeName = R.nonEmptyStr("name");
  checkFileComponent(R, "name", P.RecipeName,
                     "it names the default results directory and the containers");
  P.RecipeFile = R.str("file", false);
  P.Mode = R.oneOf("mode", false, {"bench", "eval"}, "bench");
  JsonObject M = F.object("model", true);
  P.ModelId = M.nonEmptyStr("id");
  P.ModelPath = M.str("path", false);
  P.ModelProfile = M.optStr("profile");
  checkOptionValue(M, "profile", P.ModelProfile, "_-.", "a simulator profile name");
  P.Image = F.optStr("image");
  checkOptionValue(F, "image", P.Image, "._/:@-", "an image reference");
  JsonObject H = F.object("hardware", true);
  P.Hardware.Name = H.nonEmptyStr("name");
  P.Hardware.GpusPerNode = int(H.integer("gpus_per_node", false, 8, 1, 4096));
  P.Hardware.VisibleDevicesEnv =
      H.oneOf("visible_devices_env", false, {"HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"},
              "HIP_VISIBLE_DEVICES");
  P.Hardware.Smi = H.oneOf("smi", false, {"amd-smi", "rocm-smi", "nvidia-smi"}, "amd-smi");
  P.Hardware.Profile = H.str("profile", false, P.Hardware.Name);
  P.SimSpec = readSimFigures(M, H, P);
  checkOptionValue(H, H.has("profile") ? "profile" : "name", P.Hardware.Profile, "_-.",
                   "a simulator profile name");
  JsonObject E = F.object("engine", true);
  P.EngineName = E.nonEmptyStr("name");
  P.MetricPrefix = E.optStr("metric_prefix");
  if (F.has("container")) {
    JsonObject C = F.object("container", false);
    ContainerSpec S;
    S.Runtime = C.oneOf("runtime", true, {"docker", "podman"});
    S.Mounts = readMounts(C, "mounts");
    S.Entrypoint = C.optStr("entrypoint");
    P.Container = S;
    if (P.Image.empty())
      F.error("image", "a plan with a container needs an image");
  }
  if (F.has("slurm")) {
    JsonObject Sl = F.object("slurm", false);
    SlurmSpec S;
    // These become lines of the job script.
    S.Partition = Sl.optStr("partition");
    checkOptionValue(Sl, "partition", S.Partition, "_-.", "a Slurm partition name");
    S.Account = Sl.optStr("account");
    checkOptionValue(Sl, "account", S.Account, "_-.", "a Slurm account name");
    if (Sl.has("time_limit_s"))
      S.TimeLimitS = duration(Sl, "time_limit_s", false, 0, 1);
    if (const json *N = Sl.get("nodelist", false); N && !N->is_null()) {
      if (N->is_string() && N->get<std::string>() != "auto")
        Sl.error("nodelist", "expected \"auto\" or a list of node names");
      else if (!N->is_string())
        S.NodeList = Sl.strings("nodelist", false, /*NonEmpty=*/true);
      for (size_t I = 0; I < S.NodeList.size(); ++I)
        checkOptionValue(Sl, fmt::format("nodelist[{}]", I), S.NodeList[I], "_-.,[]",
                         "a Slurm node name or host list");
    }
    if (Sl.has("gpus_per_node"))
      S.GpusPerNode = int(Sl.integer("gpus_per_node", false, 0, 0, 4096));
    if (Sl.has("container_runtime"))
      S.ContainerRuntime = Sl.oneOf("container_runtime", false, {"docker", "podman"});
    S.ContainerMounts = readMounts(Sl, "container_mounts");
    P.Slurm = S;
  }
  auto Cells = F.list("cells", true);
  const json *CellsValue = F.get("cells", false);
  if (CellsValue && CellsValue->is_array() && CellsValue->empty())
    F.error("cells", "expected at least one cell");
  // A cell's digest covers the cell and everything outside the cells list
  // (image, hardware, model, engine, container, Slurm): a finished cell is
  // only trusted by --resume for the very same definition.
  json Shared = json::object();
  for (auto It = Root.begin(); It != Root.end(); ++It)
    if (It.key() != "cells")
      Shared[It.key()] = It.value();
  std::string SharedText = support::dumpJson(Shared);
  std::set<std::string> Ids;
  for (auto &El : Cells) {
    Cell C = readCell(F.element(El));
    C.Digest = fnv1a(support::dumpJson(*El.second) + "\n" + SharedText);
    if (!C.Id.empty() && !Ids.insert(C.Id).second)
      Errs.add(El.first + ".id", fmt::format("duplicate cell id '{}'", C.Id));
    P.Cells.push_back(std::move(C));
  }
}

} // namespace

const char *actionName(const PreflightAction &Action) {
  static const char *Names[] = {
      "unset_env",     "require_version", "stage_model", "check_paths", "wait_clean_gpus",
      "prepare_cache", "verify_import",   "run",         "capture"};
  return Names[Action.index()];
}

const ProcessSpec *Cell::findProcess(const std::string &Name) const {
  for (const ProcessSpec &P : Processes)
    if (P.Name == Name)
      return &P;
  return nullptr;
}

const Cell *LaunchPlan::findCell(const std::string &Id) const {
  for (const Cell &C : Cells)
    if (C.Id == Id)
      return &C;
  return nullptr;
}

PlanLoadResult parseLaunchPlan(std::string_view Text, size_t MaxErrors) {
  PlanLoadResult Result;
  JsonErrors Errs(MaxErrors);
  json Root;
  support::JsonSyntaxError Syntax;
  if (!support::parseJson(Text, Root, Syntax, PlanJsonLimits)) {
    Errs.add(Syntax.Position, Syntax.Message);
  } else {
    try {
      readPlan(Root, Result.Plan, Errs);
    } catch (const std::exception &E) {
      Errs.add("", std::string("cannot read the plan: ") + E.what());
    }
  }
  for (const JsonErrors::Entry &E : Errs.entries())
    Result.Errors.push_back({E.Path, E.Message});
  return Result;
}

PlanLoadResult loadLaunchPlan(const std::string &Path, size_t MaxErrors) {
  std::ifstream In(Path, std::ios::binary);
  if (!In) {
    PlanLoadResult Result;
    Result.Errors.push_back({"", fmt::format("cannot read the plan: {}", std::strerror(errno))});
    return Result;
  }
  std::stringstream SS;
  SS << In.rdbuf();
  return parseLaunchPlan(SS.str(), MaxErrors);
}

} // namespace arecipe::runtime
