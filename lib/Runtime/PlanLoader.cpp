//===- PlanLoader.cpp - Reading and validating a launch plan --------------===//

#include "arecipe/Runtime/PlanLoader.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

using nlohmann::json;

namespace arecipe::runtime {

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

std::string escapeForErrorLine(std::string_view Text) {
  std::string Out;
  Out.reserve(Text.size());
  size_t I = 0;
  while (I < Text.size()) {
    unsigned char C = static_cast<unsigned char>(Text[I]);
    if (C < 0x80) {
      if (C == '\n')
        Out += "\\n";
      else if (C == '\t')
        Out += "\\t";
      else if (C == '\r')
        Out += "\\r";
      else if (C < 0x20 || C == 0x7f)
        Out += fmt::format("\\x{:02x}", C);
      else
        Out += char(C);
      ++I;
      continue;
    }
    // A well-formed UTF-8 sequence (no overlongs, surrogates or > U+10FFFF)
    // is kept; any other byte is shown as \xNN.
    size_t Len = C >= 0xc2 && C <= 0xdf ? 2 : C >= 0xe0 && C <= 0xef ? 3 : C >= 0xf0 && C <= 0xf4 ? 4 : 0;
    bool Ok = Len > 0 && I + Len <= Text.size();
    for (size_t K = 1; Ok && K < Len; ++K)
      Ok = (static_cast<unsigned char>(Text[I + K]) & 0xc0) == 0x80;
    if (Ok && Len >= 3) {
      unsigned char C1 = static_cast<unsigned char>(Text[I + 1]);
      if ((C == 0xe0 && C1 < 0xa0) || (C == 0xed && C1 > 0x9f) || (C == 0xf0 && C1 < 0x90) ||
          (C == 0xf4 && C1 > 0x8f))
        Ok = false;
    }
    if (!Ok) {
      Out += fmt::format("\\x{:02x}", C);
      ++I;
      continue;
    }
    Out.append(Text.substr(I, Len));
    I += Len;
  }
  return Out;
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

/// Ids and process names become directory and file names.
bool isValidFileComponent(std::string_view Name) {
  if (Name.empty() || Name == "." || Name == "..")
    return false;
  for (char C : Name)
    if (!(std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '-' || C == '.'))
      return false;
  return true;
}

const char *typeName(const json &V) {
  switch (V.type()) {
  case json::value_t::null:
    return "null";
  case json::value_t::object:
    return "an object";
  case json::value_t::array:
    return "a list";
  case json::value_t::string:
    return "a string";
  case json::value_t::boolean:
    return "a boolean";
  case json::value_t::number_integer:
  case json::value_t::number_unsigned:
    return "an integer";
  case json::value_t::number_float:
    return "a number";
  default:
    return "an unsupported value";
  }
}

std::string fnv1a(std::string_view Text) {
  uint64_t H = 1469598103934665603ull;
  for (unsigned char C : Text) {
    H ^= C;
    H *= 1099511628211ull;
  }
  return fmt::format("{:016x}", H);
}

class ErrorList {
public:
  ErrorList(std::vector<PlanError> &Errors, size_t Max) : Errors(Errors), Max(Max) {}
  /// Paths and messages quote plan keys and values: they are escaped so an
  /// error is one printable line of valid UTF-8 (F6).
  void add(std::string Path, std::string Message) {
    if (Errors.size() < Max)
      Errors.push_back({escapeForErrorLine(Path), escapeForErrorLine(Message)});
  }

private:
  std::vector<PlanError> &Errors;
  size_t Max;
};

/// One JSON object being read, with the path that names it in errors.
/// Reading a missing optional field yields the default; a present field of
/// the wrong type is an error even when it is optional.
class Fields {
public:
  Fields(const json *Obj, std::string Path, ErrorList &Errs)
      : Obj(Obj), Path(std::move(Path)), Errs(Errs) {}

  std::string pathOf(std::string_view Key) const {
    return Path.empty() ? std::string(Key) : fmt::format("{}.{}", Path, Key);
  }
  void error(std::string_view Key, std::string Message) const {
    Errs.add(pathOf(Key), std::move(Message));
  }

  /// The field's value; null when absent (reported when Required).
  const json *get(std::string_view Key, bool Required) const {
    if (!Obj)
      return nullptr;
    auto It = Obj->find(Key);
    if (It == Obj->end()) {
      if (Required)
        error(Key, "missing required field");
      return nullptr;
    }
    return &*It;
  }
  bool has(std::string_view Key) const {
    const json *V = get(Key, false);
    return V && !V->is_null();
  }

  std::string str(std::string_view Key, bool Required, std::string Default = {}) const {
    const json *V = get(Key, Required);
    if (!V)
      return Default;
    if (!V->is_string()) {
      error(Key, fmt::format("expected a string, got {}", typeName(*V)));
      return Default;
    }
    return V->get<std::string>();
  }
  /// A string or null (null and absent both give the empty string).
  std::string optStr(std::string_view Key) const {
    const json *V = get(Key, false);
    if (!V || V->is_null())
      return {};
    return str(Key, false);
  }
  std::string nonEmptyStr(std::string_view Key) const {
    const json *V = get(Key, true);
    if (!V)
      return {};
    if (!V->is_string() || V->get<std::string>().empty()) {
      error(Key, "expected a non-empty string");
      return {};
    }
    return V->get<std::string>();
  }
  std::string oneOf(std::string_view Key, bool Required,
                    std::initializer_list<const char *> Allowed, std::string Default = {}) const {
    const json *V = get(Key, Required);
    if (!V)
      return Default;
    std::string Choices;
    for (const char *A : Allowed) {
      if (V->is_string() && V->get<std::string>() == A)
        return A;
      Choices += fmt::format("{}'{}'", Choices.empty() ? "" : ", ", A);
    }
    error(Key, fmt::format("expected one of {}", Choices));
    return Default;
  }
  int64_t integer(std::string_view Key, bool Required, int64_t Default, int64_t Min,
                  int64_t Max = INT64_MAX) const {
    const json *V = get(Key, Required);
    if (!V)
      return Default;
    if (!V->is_number_integer()) {
      error(Key, fmt::format("expected an integer, got {}", typeName(*V)));
      return Default;
    }
    int64_t N = V->is_number_unsigned() && V->get<uint64_t>() > uint64_t(INT64_MAX)
                    ? INT64_MAX
                    : V->get<int64_t>();
    if (N < Min || N > Max) {
      error(Key, Max == INT64_MAX
                     ? fmt::format("expected an integer >= {}, got {}", Min, N)
                     : fmt::format("expected an integer in [{}, {}], got {}", Min, Max, N));
      return Default;
    }
    return N;
  }
  double number(std::string_view Key, bool Required, double Default, double Min,
                double Max = 1e300) const {
    const json *V = get(Key, Required);
    if (!V)
      return Default;
    if (!V->is_number()) {
      error(Key, fmt::format("expected a number, got {}", typeName(*V)));
      return Default;
    }
    double D = V->get<double>();
    if (!(D >= Min && D <= Max)) {
      error(Key, Max >= 1e300 ? fmt::format("expected a number >= {}, got {}", Min, D)
                              : fmt::format("expected a number in [{}, {}], got {}", Min, Max, D));
      return Default;
    }
    return D;
  }
  bool boolean(std::string_view Key, bool Required, bool Default) const {
    const json *V = get(Key, Required);
    if (!V)
      return Default;
    if (!V->is_boolean()) {
      error(Key, fmt::format("expected a boolean, got {}", typeName(*V)));
      return Default;
    }
    return V->get<bool>();
  }
  std::vector<std::string> strings(std::string_view Key, bool Required, bool NonEmpty) const {
    const json *V = get(Key, Required);
    if (!V)
      return {};
    auto Bad = [&] {
      error(Key, NonEmpty ? "expected a non-empty list of strings" : "expected a list of strings");
      return std::vector<std::string>{};
    };
    if (!V->is_array() || (NonEmpty && V->empty()))
      return Bad();
    std::vector<std::string> Out;
    for (const json &E : *V) {
      if (!E.is_string())
        return Bad();
      Out.push_back(E.get<std::string>());
    }
    return Out;
  }
  /// argv: a non-empty list of strings whose first element is non-empty.
  Argv argv(std::string_view Key, bool Required = true) const {
    const json *V = get(Key, Required);
    if (!V)
      return {};
    Argv A = strings(Key, Required, /*NonEmpty=*/true);
    if (!A.empty() && A.front().empty()) {
      error(Key, "the program name (argv[0]) is empty");
      return {};
    }
    return A;
  }
  std::vector<std::string> envNames(std::string_view Key, bool Required) const {
    std::vector<std::string> Names = strings(Key, Required, false);
    for (size_t I = 0; I < Names.size(); ++I)
      if (!isValidEnvName(Names[I]))
        Errs.add(fmt::format("{}[{}]", pathOf(Key), I),
                 fmt::format("'{}' is not a valid environment variable name", Names[I]));
    return Names;
  }
  EnvMap env(std::string_view Key) const {
    const json *V = get(Key, false);
    if (!V || V->is_null())
      return {};
    if (!V->is_object()) {
      error(Key, fmt::format("expected an object of strings, got {}", typeName(*V)));
      return {};
    }
    EnvMap Out;
    for (auto It = V->begin(); It != V->end(); ++It) {
      std::string Sub = fmt::format("{}.{}", pathOf(Key), It.key());
      if (!isValidEnvName(It.key()))
        Errs.add(Sub, fmt::format("'{}' is not a valid environment variable name", It.key()));
      else if (!It.value().is_string())
        Errs.add(Sub, fmt::format("expected a string, got {}", typeName(It.value())));
      else
        Out[It.key()] = It.value().get<std::string>();
    }
    return Out;
  }
  /// A nested object; absent or null gives an object with no fields.
  Fields object(std::string_view Key, bool Required) const {
    const json *V = get(Key, Required);
    if (V && !V->is_object()) {
      if (!V->is_null() || Required)
        error(Key, fmt::format("expected an object, got {}", typeName(*V)));
      V = nullptr;
    }
    return Fields(V, pathOf(Key), Errs);
  }
  /// Each element of a list, as a path and value; reports a non-list.
  std::vector<std::pair<std::string, const json *>> list(std::string_view Key,
                                                         bool Required) const {
    const json *V = get(Key, Required);
    std::vector<std::pair<std::string, const json *>> Out;
    if (!V || (V->is_null() && !Required))
      return Out;
    if (!V->is_array()) {
      error(Key, fmt::format("expected a list, got {}", typeName(*V)));
      return Out;
    }
    for (size_t I = 0; I < V->size(); ++I)
      Out.push_back({fmt::format("{}[{}]", pathOf(Key), I), &(*V)[I]});
    return Out;
  }
  /// Reads an element of a list() as an object.
  Fields element(const std::pair<std::string, const json *> &E) const {
    if (!E.second->is_object()) {
      Errs.add(E.first, fmt::format("expected an object, got {}", typeName(*E.second)));
      return Fields(nullptr, E.first, Errs);
    }
    return Fields(E.second, E.first, Errs);
  }

  bool present() const { return Obj != nullptr; }
  const std::string &path() const { return Path; }
  ErrorList &errors() const { return Errs; }

private:
  const json *Obj;
  std::string Path;
  ErrorList &Errs;
};

PreflightAction readAction(const Fields &F) {
  std::string Kind = F.oneOf("action", true,
                             {"unset_env", "require_version", "stage_model", "check_paths",
                              "wait_clean_gpus", "prepare_cache", "verify_import", "run"});
  if (Kind == "unset_env")
    return UnsetEnvAction{F.envNames("names", true)};
  if (Kind == "require_version") {
    RequireVersionAction A;
    A.Tool = F.nonEmptyStr("tool");
    A.Probe = F.argv("probe");
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
    A.DelayS = F.number("delay_s", true, 0, 0);
    A.Env = F.env("env");
    A.Command = F.has("argv") ? F.argv("argv") : Argv{"hf", "download", A.Repo};
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
    A.TimeoutS = F.number("timeout_s", true, 600, 0);
    A.PollS = F.number("poll_s", false, 5, 0.001);
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
    A.Python = F.argv("python");
    A.ExpectPrefix = F.nonEmptyStr("expect_prefix");
    return A;
  }
  RunAction A;
  if (Kind == "run") {
    A.Command = F.argv("argv");
    A.TimeoutS = F.number("timeout_s", false, 0, 0);
  }
  return A;
}

/// A list of {source, target, read_only} bind mounts (`container.mounts`,
/// `slurm.container_mounts`).
std::vector<ContainerMount> readMounts(const Fields &F, std::string_view Key) {
  std::vector<ContainerMount> Out;
  for (auto &El : F.list(Key, false)) {
    Fields Mt = F.element(El);
    ContainerMount Mount;
    Mount.Source = Mt.nonEmptyStr("source");
    Mount.Target = Mt.nonEmptyStr("target");
    Mount.ReadOnly = Mt.boolean("read_only", false, true);
    Out.push_back(Mount);
  }
  return Out;
}

Endpoints readEndpoints(const Fields &F) {
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

ProcessSpec readProcess(const Fields &F) {
  ProcessSpec P;
  P.Name = F.nonEmptyStr("name");
  if (!P.Name.empty() && !isValidFileComponent(P.Name))
    F.error("name", fmt::format("'{}' must use only letters, digits, '_', '-' and '.' "
                                "(it names the log file)",
                                P.Name));
  P.Role =
      F.oneOf("role", true,
              {"server", "prefill", "decode", "router", "worker", "service"});
  P.NodeRank = int(F.integer("node_rank", false, 0, 0, 4096));
  P.Template = F.optStr("template");
  P.Replica = int(F.integer("replica", false, 0, 0, 1 << 16));
  if (F.has("node"))
    P.Node = int(F.integer("node", false, 0, 0, 4096));
  P.Command = F.argv("argv");
  P.Env = F.env("env");
  P.EnvUnset = F.envNames("env_unset", false);
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
    Fields N = F.object("numa", false);
    P.Numa = NumaBinding{N.nonEmptyStr("cpunodebind"), N.nonEmptyStr("membind")};
  }
  if (F.has("port"))
    P.Port = int(F.integer("port", false, 0, 0, 65535));
  if (F.has("endpoints"))
    P.HttpEndpoints = readEndpoints(F.object("endpoints", false));
  P.After = F.strings("after", false, false);
  Fields R = F.object("ready", false);
  P.Ready.StartupTimeoutS = R.number("startup_timeout_s", false, P.Ready.StartupTimeoutS, 0);
  P.Ready.StallTimeoutS = R.number("stall_timeout_s", false, P.Ready.StallTimeoutS, 0);
  P.Ready.RequiresModel = R.optStr("requires_model");
  P.Ready.Kind = R.oneOf("kind", false, {"http", "tcp", "alive", "running"},
                         P.HttpEndpoints ? "http" : "running");
  if (P.Ready.Kind == "alive")
    P.Ready.AliveS = R.number("alive_s", true, 0, 0);
  P.ServesApi = F.boolean("serves_api", false, false);
  if (P.HttpEndpoints && !P.Port)
    F.error("port", "a process with endpoints needs a port");
  if (P.Ready.Kind == "http" && !P.HttpEndpoints)
    R.error("kind", "'http' readiness needs the process's endpoints");
  if (P.Ready.Kind == "tcp" && !P.Port)
    R.error("kind", "'tcp' readiness needs the process's port");
  return P;
}

ClientSpec readClient(const Fields &F) {
  ClientSpec C;
  C.Target = F.nonEmptyStr("target");
  C.ServedModelName = F.nonEmptyStr("served_model_name");
  C.Concurrency = int(F.integer("concurrency", true, 1, 1, 1 << 20));
  C.SessionHeader = F.optStr("session_header");
  Fields W = F.object("workload", true);
  std::string Kind = W.oneOf("kind", W.present(), {"fixed", "agentic"}, "fixed");
  if (Kind == "agentic") {
    AgenticWorkload A;
    A.Trace = W.nonEmptyStr("trace");
    A.DurationS = W.number("duration_s", true, 0, 0);
    A.WarmupS = W.number("warmup_s", false, 0, 0);
    A.MaxFailedFraction = W.number("max_failed_fraction", false, 0.1, 0, 1);
    C.Workload = A;
  } else {
    FixedWorkload X;
    X.Isl = W.integer("isl", true, 0, 1);
    X.Osl = W.integer("osl", true, 0, 1);
    X.RangeRatio = W.number("range_ratio", false, 0, 0, 1);
    X.NumPrompts = W.integer("num_prompts", true, 0, 1);
    X.Warmup = W.integer("warmup", false, 0, 0);
    X.IgnoreEos = W.boolean("ignore_eos", false, true);
    X.RequestRate = W.number("request_rate", false, 0, 0);
    C.Workload = X;
  }
  return C;
}

/// `after` must name processes of the same cell without a cycle.
void checkProcessGraph(const Cell &C, const std::string &Path, ErrorList &Errs) {
  std::set<std::string> Names;
  for (size_t I = 0; I < C.Processes.size(); ++I) {
    const ProcessSpec &P = C.Processes[I];
    if (!P.Name.empty() && !Names.insert(P.Name).second)
      Errs.add(fmt::format("{}.processes[{}].name", Path, I),
               fmt::format("duplicate process name '{}'", P.Name));
  }
  for (size_t I = 0; I < C.Processes.size(); ++I)
    for (size_t J = 0; J < C.Processes[I].After.size(); ++J) {
      const std::string &Dep = C.Processes[I].After[J];
      if (!Names.count(Dep))
        Errs.add(fmt::format("{}.processes[{}].after[{}]", Path, I, J),
                 fmt::format("no process named '{}' in this cell", Dep));
      else if (Dep == C.Processes[I].Name)
        Errs.add(fmt::format("{}.processes[{}].after[{}]", Path, I, J),
                 "a process cannot wait for itself");
    }
  // Kahn's algorithm: whatever cannot be ordered is on a cycle.
  std::set<std::string> Done;
  bool Progress = true;
  while (Progress) {
    Progress = false;
    for (const ProcessSpec &P : C.Processes) {
      if (Done.count(P.Name))
        continue;
      bool Ready = true;
      for (const std::string &Dep : P.After)
        Ready &= Done.count(Dep) || !Names.count(Dep) || Dep == P.Name;
      if (Ready) {
        Done.insert(P.Name);
        Progress = true;
      }
    }
  }
  if (Done.size() < Names.size()) {
    std::string Cycle;
    for (const ProcessSpec &P : C.Processes)
      if (!Done.count(P.Name))
        Cycle += fmt::format("{}'{}'", Cycle.empty() ? "" : ", ", P.Name);
    Errs.add(Path + ".processes", "the 'after' dependencies form a cycle between " + Cycle);
  }
}

Cell readCell(const Fields &F) {
  Cell C;
  C.Id = F.nonEmptyStr("id");
  if (!C.Id.empty() && !isValidFileComponent(C.Id))
    F.error("id", fmt::format("'{}' must use only letters, digits, '_', '-' and '.' (it names "
                              "the cell's result directory)",
                              C.Id));
  C.Conc = int(F.integer("conc", true, 0, 1, 1 << 20));
  C.Arm = F.optStr("arm");
  if (!C.Arm.empty() && !isValidFileComponent(C.Arm))
    F.error("arm",
            fmt::format("'{}' must use only letters, digits, '_', '-' and '.'",
                        C.Arm));
  C.Band = F.optStr("band");
  C.ServerFrom = F.optStr("server_from");
  C.Gpus = int(F.integer("gpus", true, 1, 0, 1 << 16));
  C.Nodes = int(F.integer("nodes", false, 1, 1, 4096));
  if (F.has("gpus_by_role")) {
    const json *Roles = F.get("gpus_by_role", false);
    if (!Roles->is_object()) {
      F.error("gpus_by_role",
              fmt::format("expected an object, got {}", typeName(*Roles)));
    } else {
      Fields G = F.object("gpus_by_role", false);
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
  }
  C.ServerReuse = F.oneOf("server_reuse", false, {"cell", "arm"}, "cell");
  for (auto &E : F.list("knobs", false)) {
    Fields K = F.element(E);
    Knob Kn;
    Kn.Name = K.nonEmptyStr("name");
    if (const json *V = K.get("value", true))
      Kn.ValueJson = V->dump(-1, ' ', false, json::error_handler_t::replace);
    Fields O = K.object("origin", false);
    Kn.Origin.File = O.str("file", false);
    Kn.Origin.Line = int(O.integer("line", false, 0, 0));
    Kn.Origin.Col = int(O.integer("col", false, 0, 0));
    Kn.Origin.Level = O.str("level", false);
    C.Knobs.push_back(std::move(Kn));
  }
  for (auto &E : F.list("preflight", false))
    C.Preflight.push_back(readAction(F.element(E)));
  auto Procs = F.list("processes", true);
  if (F.get("processes", false) && Procs.empty() && F.get("processes", false)->is_array())
    F.error("processes", "expected at least one process");
  for (auto &E : Procs)
    C.Processes.push_back(readProcess(F.element(E)));
  C.Client = readClient(F.object("client", true));
  for (auto &E : F.list("profile", false)) {
    Fields W = F.element(E);
    C.Profile.push_back({W.number("start_s", true, 0, 0), W.number("duration_s", true, 0, 0)});
  }
  Fields V = F.object("validity", false);
  C.Validity.MaxErrorRate = V.number("max_error_rate", false, 0.1, 0, 1);
  C.Validity.RequiredMetricPrefix = V.optStr("required_metric_prefix");

  checkProcessGraph(C, F.path(), F.errors());
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

void readPlan(const json &Root, LaunchPlan &P, ErrorList &Errs) {
  if (!Root.is_object()) {
    Errs.add("", fmt::format("expected the plan to be an object, got {}", typeName(Root)));
    return;
  }
  Fields F(&Root, "", Errs);
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
  Fields R = F.object("recipe", true);
  P.RecipeName = R.nonEmptyStr("name");
  P.RecipeFile = R.str("file", false);
  P.Mode = R.oneOf("mode", false, {"bench", "eval"}, "bench");
  Fields M = F.object("model", true);
  P.ModelId = M.nonEmptyStr("id");
  P.ModelPath = M.str("path", false);
  P.ModelProfile = M.optStr("profile");
  P.Image = F.optStr("image");
  Fields H = F.object("hardware", true);
  P.Hardware.Name = H.nonEmptyStr("name");
  P.Hardware.GpusPerNode = int(H.integer("gpus_per_node", false, 8, 1, 4096));
  P.Hardware.VisibleDevicesEnv =
      H.oneOf("visible_devices_env", false, {"HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"},
              "HIP_VISIBLE_DEVICES");
  P.Hardware.Smi = H.oneOf("smi", false, {"amd-smi", "rocm-smi", "nvidia-smi"}, "amd-smi");
  P.Hardware.Profile = H.str("profile", false, P.Hardware.Name);
  Fields E = F.object("engine", true);
  P.EngineName = E.nonEmptyStr("name");
  P.MetricPrefix = E.optStr("metric_prefix");
  if (F.has("container")) {
    Fields C = F.object("container", false);
    ContainerSpec S;
    S.Runtime = C.oneOf("runtime", true, {"docker", "podman"});
    S.Mounts = readMounts(C, "mounts");
    S.Entrypoint = C.optStr("entrypoint");
    P.Container = S;
    if (P.Image.empty())
      F.error("image", "a plan with a container needs an image");
  }
  if (F.has("slurm")) {
    Fields Sl = F.object("slurm", false);
    SlurmSpec S;
    S.Partition = Sl.optStr("partition");
    S.Account = Sl.optStr("account");
    if (Sl.has("time_limit_s"))
      S.TimeLimitS = Sl.number("time_limit_s", false, 0, 1);
    if (const json *N = Sl.get("nodelist", false); N && !N->is_null()) {
      if (N->is_string() && N->get<std::string>() != "auto")
        Sl.error("nodelist", "expected \"auto\" or a list of node names");
      else if (!N->is_string())
        S.NodeList = Sl.strings("nodelist", false, /*NonEmpty=*/true);
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
  std::set<std::string> Ids;
  for (auto &El : Cells) {
    Cell C = readCell(F.element(El));
    C.Digest = fnv1a(El.second->dump(-1, ' ', false, json::error_handler_t::replace));
    if (!C.Id.empty() && !Ids.insert(C.Id).second)
      Errs.add(El.first + ".id", fmt::format("duplicate cell id '{}'", C.Id));
    P.Cells.push_back(std::move(C));
  }
}

} // namespace

const char *actionName(const PreflightAction &Action) {
  static const char *Names[] = {
      "unset_env",       "require_version", "stage_model",   "check_paths",
      "wait_clean_gpus", "prepare_cache",   "verify_import", "run"};
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

namespace {

/// nlohmann's what() without its "[json.exception.KIND.N] " prefix.
std::string exceptionReason(const char *What) {
  std::string Why = What;
  if (!Why.empty() && Why.front() == '[')
    if (size_t Close = Why.find("] "); Close != std::string::npos)
      Why = Why.substr(Close + 2);
  return Why;
}

/// "line:col" of the token an exception quotes ("... parsing '1e400'"),
/// or "" when it quotes none found in the text.
std::string exceptionPosition(std::string_view Text, const char *What) {
  std::string Why = What;
  size_t Open = Why.find('\'');
  size_t Close = Open == std::string::npos ? Open : Why.find('\'', Open + 1);
  if (Close == std::string::npos || Close == Open + 1)
    return "";
  size_t At = Text.find(std::string_view(Why).substr(Open + 1, Close - Open - 1));
  if (At == std::string_view::npos)
    return "";
  size_t Line = 1, Col = 1;
  for (size_t I = 0; I < At; ++I) {
    if (Text[I] == '\n') {
      ++Line;
      Col = 1;
    } else {
      ++Col;
    }
  }
  return fmt::format("{}:{}", Line, Col);
}

} // namespace

PlanLoadResult parseLaunchPlan(std::string_view Text, size_t MaxErrors) {
  PlanLoadResult Result;
  ErrorList Errs(Result.Errors, MaxErrors);
  json Root;
  try {
    Root = json::parse(Text);
  } catch (const json::parse_error &E) {
    size_t Byte = E.byte == 0 ? 0 : E.byte - 1;
    size_t Line = 1, Col = 1;
    for (size_t I = 0; I < Byte && I < Text.size(); ++I) {
      if (Text[I] == '\n') {
        ++Line;
        Col = 1;
      } else {
        ++Col;
      }
    }
    std::string Why = E.what();
    auto Pos = Why.find(": syntax error");
    Why = Pos == std::string::npos ? "invalid JSON" : Why.substr(Pos + 2);
    Errs.add(fmt::format("{}:{}", Line, Col), Why);
    return Result;
  } catch (const json::exception &E) {
    // out_of_range.406 (a number beyond double) and anything else the
    // parser throws: an error, never an abort (F1).
    Errs.add(exceptionPosition(Text, E.what()), "invalid JSON: " + exceptionReason(E.what()));
    return Result;
  }
  try {
    readPlan(Root, Result.Plan, Errs);
  } catch (const json::exception &E) {
    Errs.add("", "cannot read the plan: " + exceptionReason(E.what()));
  } catch (const std::exception &E) {
    Errs.add("", std::string("cannot read the plan: ") + E.what());
  }
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
