//===- LaunchCommand.cpp - The exact command a process runs ---------------===//

#include "arecipe/Runtime/LaunchCommand.h"
#include "arecipe/Runtime/VirtualTime.h"

#include <fmt/format.h>

#include <algorithm>

namespace arecipe::runtime {

namespace {

std::string joinGpus(const std::vector<int> &Gpus) {
  std::string Out;
  for (int G : Gpus)
    Out += (Out.empty() ? "" : ",") + std::to_string(G);
  return Out;
}

bool isAmd(const LaunchPlan &Plan) {
  return Plan.Hardware.VisibleDevicesEnv == "HIP_VISIBLE_DEVICES";
}

/// The engine argv with numactl in front when the plan binds NUMA.
Argv withNuma(const ProcessSpec &P) {
  if (!P.Numa)
    return P.Command;
  Argv Out = {"numactl", "--cpunodebind=" + P.Numa->CpuNodeBind, "--membind=" + P.Numa->MemBind};
  Out.insert(Out.end(), P.Command.begin(), P.Command.end());
  return Out;
}

Argv simulatedCommand(const LaunchPlan &Plan, const Cell &C, const ProcessSpec &P,
                      const RunSettings &S, const std::string &CellDir, PortSource &Port,
                      std::string &SimSpecPath) {
  Argv Out = {S.SimulatorPath};
  if (!Plan.SimSpec.empty()) {
    // The plan describes the model and hardware itself: the simulator gets
    // that description, written into the cell directory before the start.
    SimSpecPath = fmt::format("{}/sim-spec.json", CellDir);
    Out.insert(Out.end(), {"--sim-spec", SimSpecPath});
  } else {
    Out.insert(Out.end(), {"--sim-hardware", Plan.Hardware.Profile});
    // Without a profile in the plan the simulator picks one from --model.
    if (!Plan.ModelProfile.empty())
      Out.insert(Out.end(), {"--sim-model", Plan.ModelProfile});
  }
  Out.insert(Out.end(), {"--sim-time-scale", fmt::format("{}", S.TimeScale), "--sim-gpu-mem-file",
                         fmt::format("{}/{}-{}.mem", simulatedGpuMemoryDir(S), C.Id, P.Name)});
  if (P.Port && *P.Port == 0) {
    Port.PortFile = fmt::format("{}/{}.port", CellDir, P.Name);
    Out.insert(Out.end(), {"--sim-port-file", Port.PortFile});
  }
  // The engine the client measures steps in lock-step with it
  // (virtualClockRefusal has kept every other kind of cell out).
  if (S.virtualClock() && P.Name == C.Client.Target) {
    Argv Lockstep = virtualClockSimArgs(C, S, CellDir);
    Out.insert(Out.end(), Lockstep.begin(), Lockstep.end());
  }
  Out.insert(Out.end(), S.SimArgs.begin(), S.SimArgs.end());
  if (auto It = S.CellSimArgs.find(C.Id); It != S.CellSimArgs.end())
    Out.insert(Out.end(), It->second.begin(), It->second.end());
  Out.push_back("--");
  Out.insert(Out.end(), P.Command.begin(), P.Command.end());
  return Out;
}

/// The simulator's policy for a router's: the ones it implements by name
/// (SGLang spells consistent hashing `consistent_hashing`); any other
/// (cache_aware, power_of_two, prefix_hash, ...) simulates as round robin,
/// and Note says so.
std::string simulatedPolicy(const ProcessSpec &P, std::string &Note) {
  std::optional<std::string> Policy =
      P.SimRouter ? P.SimRouter->Policy : std::nullopt;
  if (!Policy) {
    Note = fmt::format(
        "router '{}' has no policy in the plan: arecipe-sim routes round_robin",
        P.Name);
    return "round_robin";
  }
  if (*Policy == "round_robin" || *Policy == "random" ||
      *Policy == "consistent_hash" || *Policy == "dp_sticky")
    return *Policy;
  if (*Policy == "consistent_hashing")
    return "consistent_hash";
  Note = fmt::format("router '{}' policy '{}' is not simulated: arecipe-sim "
                     "routes round_robin",
                     P.Name, *Policy);
  return "round_robin";
}

/// arecipe-sim's router in place of the router the client calls: its
/// backends are the engine servers it waits for (the leaders of their
/// replicas), on their ports as the cell runs them; prefill and decode
/// servers among them make it a PD router. Empty without an Error: the
/// router runs as given (it is not in the request path, or fronts no
/// engine server).
Argv simulatedRouterCommand(const Cell &C, const ProcessSpec &P,
                            const RunSettings &S,
                            const PlaceholderValues &Values, std::string &Note,
                            std::string &Error) {
  // A router out of the request path (a helper of the cell) runs as given.
  if (!P.ServesApi)
    return {};
  if (!P.Port || *P.Port <= 0) {
    Error = fmt::format(
        "--simulate cannot stand in for router '{}': it has no fixed port",
        P.Name);
    return {};
  }
  std::vector<std::pair<std::string, std::string>> Backends; // (role, URL)
  bool Pd = false;
  for (const ProcessSpec &Q : C.Processes) {
    if (std::find(P.After.begin(), P.After.end(), Q.Name) == P.After.end() ||
        !Q.HttpEndpoints || (Q.Node && *Q.Node != 0) ||
        (Q.Role != "server" && Q.Role != "prefill" && Q.Role != "decode"))
      continue;
    if (!Q.Port || *Q.Port <= 0) {
      Error = fmt::format(
          "--simulate cannot stand in for router '{}': its backend '{}' has no "
          "fixed port",
          P.Name, Q.Name);
      return {};
    }
    int Port = *Q.Port;
    if (auto It = Values.Ports.find({Q.NodeRank, Port});
        It != Values.Ports.end())
      Port = It->second;
    std::string Host = size_t(Q.NodeRank) < Values.NodeAddrs.size() &&
                               !Values.NodeAddrs[size_t(Q.NodeRank)].empty()
                           ? Values.NodeAddrs[size_t(Q.NodeRank)]
                           : "127.0.0.1";
    Backends.emplace_back(Q.Role, fmt::format("http://{}:{}", Host, Port));
    Pd |= Q.Role != "server";
  }
  if (Backends.empty()) {
    Note = fmt::format("router '{}' waits for no engine server: --simulate runs it as given",
                       P.Name);
    return {};
  }
  Argv Out = {S.SimulatorPath, "--sim-router"};
  if (Pd) {
    // arecipe-sim's PD router takes each pool in turn: a policy that keeps
    // a session on one prefill server is not simulated.
    std::optional<std::string> Policy =
        P.SimRouter ? P.SimRouter->Policy : std::nullopt;
    if (Policy && *Policy != "round_robin")
      Note = fmt::format(
          "router '{}' policy '{}' is not simulated: arecipe-sim's pd router "
          "takes prefill and decode servers in turn",
          P.Name, *Policy);
    Out.push_back("pd");
    for (const char *Role : {"prefill", "decode"})
      for (const auto &[R, Url] : Backends)
        if (R == Role)
          Out.insert(Out.end(), {std::string("--sim-") + Role, Url});
  } else {
    Out.push_back(simulatedPolicy(P, Note));
    for (const auto &[R, Url] : Backends)
      Out.insert(Out.end(), {"--sim-backend", Url});
    // The router's own header, else the one the client sends sessions on.
    if (P.SimRouter && P.SimRouter->Header)
      Out.insert(Out.end(), {"--sim-router-header", *P.SimRouter->Header});
    else if (!C.Client.SessionHeader.empty())
      Out.insert(Out.end(), {"--sim-router-header", C.Client.SessionHeader});
  }
  Out.insert(Out.end(),
             {"--sim-router-port", std::to_string(*P.Port), "--sim-time-scale",
              fmt::format("{}", S.TimeScale), "--"});
  Out.insert(Out.end(), P.Command.begin(), P.Command.end());
  return Out;
}

Argv containerCommand(const LaunchPlan &Plan, const ProcessSpec &P,
                      const std::string &Name, const std::string &FilesDir,
                      const std::string &LogDir) {
  const ContainerSpec &K = *Plan.Container;
  Argv Out = {K.Runtime, "run", "--rm", "--name=" + Name, "--network=host", "--ipc=host"};
  if (isAmd(Plan))
    Out.insert(Out.end(), {"--device=/dev/kfd", "--device=/dev/dri", "--group-add=video",
                           "--security-opt=seccomp=unconfined"});
  else if (K.Runtime == "podman")
    Out.push_back("--device=nvidia.com/gpu=all");
  else
    Out.push_back("--gpus=all");
  for (const ContainerMount &M : K.Mounts)
    Out.push_back(fmt::format("--volume={}:{}{}", M.Source, M.Target, M.ReadOnly ? ":ro" : ""));
  // The cell's generated files, at the path their placeholders name.
  if (!FilesDir.empty())
    Out.push_back(fmt::format("--volume={}:{}:ro", FilesDir, FilesDir));
  // The directory the processes write their own files into, at the path
  // `{dir:logs}` names.
  if (!LogDir.empty())
    Out.push_back(fmt::format("--volume={}:{}", LogDir, LogDir));
  // The container does not inherit the host environment: everything the
  // plan sets is passed explicitly.
  EnvMap Env = P.Env;
  if (P.Gpus)
    Env[Plan.Hardware.VisibleDevicesEnv] = joinGpus(*P.Gpus);
  for (const auto &[Key, Value] : Env)
    Out.push_back(fmt::format("--env={}={}", Key, Value));
  // Variables baked into the image (a leaked proxy) cannot be removed with
  // --env, so `env -u` runs first inside the container.
  Argv Inner = withNuma(P);
  if (!K.Entrypoint.empty())
    Inner.insert(Inner.begin(), K.Entrypoint);
  if (!P.EnvUnset.empty()) {
    Argv Unset = {"env"};
    for (const std::string &N : P.EnvUnset)
      Unset.insert(Unset.end(), {"-u", N});
    Inner.insert(Inner.begin(), Unset.begin(), Unset.end());
  }
  Out.push_back("--entrypoint=" + Inner.front());
  // Whatever the image and the argv say, they are not options of `run`
  // (the loader also refuses an image that starts with '-').
  Out.push_back("--");
  Out.push_back(Plan.Image);
  Out.insert(Out.end(), Inner.begin() + 1, Inner.end());
  return Out;
}

} // namespace

std::string simulatedHfHome(const RunSettings &Settings) {
  return Settings.OutDir + "/.sim-hf-home";
}

std::string simulatedGpuMemoryDir(const RunSettings &Settings) {
  // Each node has its own GPUs: fake nodes sharing one output directory
  // must not see each other's simulated device memory.
  if (!Settings.NodeName.empty())
    return Settings.OutDir + "/.sim-gpu-memory/" + Settings.NodeName;
  return Settings.OutDir + "/.sim-gpu-memory";
}

std::string generatedFilesDir(const std::string &CellDir) { return CellDir + "/files"; }

std::string processLogDir(const std::string &CellDir) {
  return CellDir + "/logs";
}

bool cellUsesLogDir(const Cell &C) {
  for (const ProcessSpec &P : C.Processes) {
    for (const std::string &Word : P.Command)
      if (usesLogDir(Word))
        return true;
    for (const auto &[Key, Value] : P.Env)
      if (usesLogDir(Value))
        return true;
  }
  for (const GeneratedFile &F : C.Files)
    if (usesLogDir(F.Content))
      return true;
  return false;
}

PlaceholderValues cellPlaceholderValues(const Cell &C, const RunSettings &S,
                                        const std::string &CellDir) {
  PlaceholderValues V;
  V.NodeAddrs = S.NodeAddrs;
  V.NodeHosts = S.NodeHosts;
  V.DefaultHost = S.NodeName.empty() ? localHostName() : S.NodeName;
  for (const GeneratedFile &F : C.Files)
    V.Files[F.Name] = generatedFilesDir(CellDir) + "/" + F.Name;
  V.LogDir = processLogDir(CellDir);
  return V;
}

LaunchCommand buildLaunchCommand(const LaunchPlan &Plan, const Cell &C, const ProcessSpec &Spec,
                                 const RunSettings &S, const std::string &CellDir,
                                 const PlaceholderValues &Values) {
  // Addresses, files and captured values are known only on the
  // allocation; everything downstream sees the substituted argv and
  // environment.
  // Under --simulate the plan's fixed ports are replaced first, in the
  // plan's own words (a port follows its option, or a host).
  ProcessSpec Resolved = Spec;
  for (size_t I = 0; I < Resolved.Command.size(); ++I)
    Resolved.Command[I] = substitutePlaceholders(
        remapPorts(Spec.Command[I], Values.Ports, Spec.NodeRank,
                   I == 0 ? std::string_view() : std::string_view(Spec.Command[I - 1])),
        Values);
  for (auto &[Key, Value] : Resolved.Env)
    Value = substitutePlaceholders(remapPorts(Value, Values.Ports, Spec.NodeRank, Key), Values);
  if (Spec.Port)
    if (auto It = Values.Ports.find({Spec.NodeRank, *Spec.Port}); It != Values.Ports.end())
      Resolved.Port = It->second;
  const ProcessSpec &P = Resolved;
  LaunchCommand L;
  L.LogPath = fmt::format("{}/{}.log", CellDir, P.Name);
  L.Port.Port = P.Port.value_or(0);
  // The router the client calls is arecipe-sim's router under --simulate
  // (any other router runs as given); the engines are simulated engines.
  if (S.Simulate && P.Role == "router")
    L.Command = simulatedRouterCommand(C, P, S, Values, L.Note, L.Error);
  L.Simulated = S.Simulate && (P.Role != "router" || !L.Command.empty() || !L.Error.empty());
  if (L.Simulated && P.Role == "router") {
    // arecipe-sim's router, or nothing to run (Error)
  } else if (L.Simulated) {
    L.Command = simulatedCommand(Plan, C, P, S, CellDir, L.Port, L.SimSpecPath);
  } else if (Plan.Container) {
    L.ContainerName = fmt::format("arecipe-{}-{}-{}", Plan.RecipeName, C.Id, P.Name);
    L.Command =
        containerCommand(Plan, P, L.ContainerName,
                         C.Files.empty() ? "" : generatedFilesDir(CellDir),
                         cellUsesLogDir(C) ? Values.LogDir : "");
    return L; // the container gets its environment through --env
  } else {
    L.Command = withNuma(P);
  }
  L.Env.Set = P.Env;
  L.Env.Unset = P.EnvUnset;
  if (L.Simulated) {
    L.Env.Set["HF_HOME"] = simulatedHfHome(S);
    L.Env.Set.erase("HF_HUB_CACHE");
    L.Env.Set.erase("HUGGINGFACE_HUB_CACHE");
    L.Env.Unset.insert(L.Env.Unset.end(), {"HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"});
  }
  if (P.Gpus)
    L.Env.Set[Plan.Hardware.VisibleDevicesEnv] = joinGpus(*P.Gpus);
  return L;
}

Argv containerRemoveCommand(const LaunchPlan &Plan, const std::string &ContainerName) {
  return {Plan.Container ? Plan.Container->Runtime : "docker", "rm", "-f", ContainerName};
}

} // namespace arecipe::runtime
