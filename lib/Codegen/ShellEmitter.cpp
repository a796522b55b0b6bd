//===- ShellEmitter.cpp - `arecipec --emit sh` ----------------------------===//
//
// The script is a fixed prelude of bash functions (one per pre-flight
// action kind, process start, readiness, client, teardown) followed by one
// generated function per cell that calls them with the plan's values.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Codegen/ShellEmitter.h"

#include "arecipe/Codegen/PlanEmitter.h"
#include "arecipe/Support/ShellQuote.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace arecipe;
using namespace arecipe::codegen;
using arecipe::support::shellQuote;

/// Bash has no `{node_addr:K}`: in print mode it is printed as the plan has
/// it, at launch it becomes ARECIPE_NODE_ADDR_<K> (default 127.0.0.1).
static const char *const Prelude = R"bash(set -euo pipefail

print_mode=${ARECIPE_PRINT:-0}
if [[ ${1:-} == --print ]]; then
  print_mode=1
  shift
fi
cell=${1:-}
node_rank=${NODE_RANK:-0}
log_dir=${ARECIPE_LOG_DIR:-.}
pids=()
declare -A health_url=() tcp_addr=()
proc_argv=()
proc_env=()

fail() {
  printf 'arecipe: %s\n' "$*" >&2
  exit 1
}

teardown() {
  local pid
  for pid in "${pids[@]}"; do
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  done
  wait || true
}
trap teardown EXIT

node_addr() {
  local var="ARECIPE_NODE_ADDR_$1"
  printf '%s' "${!var:-127.0.0.1}"
}

# Replaces every {node_addr:K} in one word.
subst() {
  local word=$1 k
  while [[ $word =~ \{node_addr:([0-9]+)\} ]]; do
    k=${BASH_REMATCH[1]}
    word=${word//"{node_addr:$k}"/$(node_addr "$k")}
  done
  printf '%s' "$word"
}

unset_env() {
  [[ $print_mode == 1 ]] && return 0
  unset "$@"
}

require_version() {
  local tool=$1 pattern=$2 on_mismatch=$3 version
  shift 3
  [[ $print_mode == 1 ]] && return 0
  version=$("$@" 2>/dev/null || printf 'unknown')
  printf 'arecipe: %s version %s\n' "$tool" "$version"
  # shellcheck disable=SC2053 # the pattern is a glob on purpose
  if [[ $version != $pattern ]]; then
    [[ $on_mismatch == fail ]] && fail "$tool $version does not match $pattern"
    printf 'arecipe: warning: %s %s does not match %s\n' "$tool" "$version" "$pattern" >&2
  fi
}

stage_model() {
  local repo=$1 attempts=$2 delay=$3 n
  [[ $print_mode == 1 ]] && return 0
  for ((n = 1; n <= attempts; n++)); do
    if hf download "$repo" >/dev/null; then
      return 0
    fi
    ((n < attempts)) && sleep "$delay"
  done
  fail "could not stage $repo after $attempts attempts"
}

check_paths() {
  local nodes=$1 path
  shift
  [[ $print_mode == 1 ]] && return 0
  [[ $nodes == rank0 && $node_rank != 0 ]] && return 0
  for path in "$@"; do
    [[ -e $path ]] || fail "missing $path on node $node_rank"
  done
}

# The largest fraction of VRAM in use on any GPU of this node.
gpu_used_fraction() {
  case "$smi" in
  nvidia-smi)
    nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader,nounits |
      awk -F', *' 'BEGIN { m = 0 } { f = $1 / $2; if (f > m) m = f } END { print m }'
    ;;
  *)
    rocm-smi --showmemuse --csv |
      awk -F, 'NR > 1 { f = $NF / 100; if (f > m) m = f } END { print m + 0 }'
    ;;
  esac
}

wait_clean_gpus() {
  local max_used=$1 timeout=$2 poll=$3 waited=0 used
  [[ $print_mode == 1 ]] && return 0
  while :; do
    used=$(gpu_used_fraction)
    awk -v u="$used" -v m="$max_used" 'BEGIN { exit !(u <= m) }' && return 0
    ((waited >= timeout)) && fail "GPUs still ${used} used after ${timeout}s"
    sleep "$poll"
    waited=$((waited + poll))
  done
}

prepare_cache() {
  local dir=$1 from=$2
  [[ $print_mode == 1 ]] && return 0
  if ! mkdir -p "$dir" 2>/dev/null || [[ ! -w $dir ]]; then
    dir=$(mktemp -d)
    printf 'arecipe: shared cache unavailable, private copy in %s\n' "$dir" >&2
  fi
  if [[ -n $from && -d $from ]]; then
    cp -rn "$from/." "$dir/"
  fi
}

verify_import() {
  local package=$1 expect=$2 where
  shift 2
  [[ $print_mode == 1 ]] && return 0
  where=$("$@" -c "import os, $package; print(os.path.dirname($package.__file__))")
  [[ $where == "$expect"* ]] || fail "$package imports from $where, expected $expect"
}

run_step() {
  local limit=$1
  shift
  [[ $print_mode == 1 ]] && return 0
  timeout "$limit" "$@" || fail "setup command failed: $*"
}

wait_ready() {
  local name=$1 url=$2 timeout=$3 pid=${4:-} waited=0
  until curl -sf -o /dev/null "$url"; do
    [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null && fail "$name exited before it was ready"
    ((waited >= timeout)) && fail "$name not ready after ${timeout}s"
    sleep 5
    waited=$((waited + 5))
  done
}

wait_tcp() {
  local name=$1 addr=$2 timeout=$3 pid=${4:-} waited=0
  until (exec 3<>"/dev/tcp/${addr%:*}/${addr##*:}") 2>/dev/null; do
    [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null && fail "$name exited before it was ready"
    ((waited >= timeout)) && fail "$name not ready after ${timeout}s"
    sleep 1
    waited=$((waited + 1))
  done
}

# process NAME NODE GPUS PORT READY TIMEOUT [AFTER...], with proc_argv and
# proc_env set by the caller. READY is how the process is known to be ready:
# `http:PATH` (its health endpoint), `tcp` (a connection to PORT), `alive:S`
# (still running after S seconds) or `running`. A process waits for each
# AFTER it can check from here: HTTP and TCP ones on any node, the others
# only when they run on this node (they were waited for when started).
process() {
  local name=$1 node=$2 gpus=$3 port=$4 ready=$5 timeout=$6 dep word
  shift 6
  case $ready in
  http:*) health_url[$name]="http://$(node_addr "$node"):$port${ready#http:}" ;;
  tcp) tcp_addr[$name]="$(node_addr "$node"):$port" ;;
  esac
  if [[ $print_mode == 1 ]]; then
    printf 'process %s\n' "$name"
    printf 'argv %s\n' "${proc_argv[@]}"
    if ((${#proc_env[@]})); then
      printf 'env %s\n' "${proc_env[@]}"
    fi
    printf 'gpus %s\n' "$gpus"
    return 0
  fi
  [[ $node == "$node_rank" ]] || return 0
  for dep in "$@"; do
    if [[ -n ${health_url[$dep]:-} ]]; then
      wait_ready "$dep" "${health_url[$dep]}" "$timeout"
    elif [[ -n ${tcp_addr[$dep]:-} ]]; then
      wait_tcp "$dep" "${tcp_addr[$dep]}" "$timeout"
    fi
  done
  local -a argv=()
  for word in "${proc_argv[@]}"; do
    argv+=("$(subst "$word")")
  done
  printf 'arecipe: starting %s on node %s\n' "$name" "$node"
  env "${proc_env[@]}" "$visible_devices_env=$gpus" "${argv[@]}" \
    >"$log_dir/$name.log" 2>&1 &
  pids+=("$!")
  case $ready in
  http:*) wait_ready "$name" "${health_url[$name]}" "$timeout" "$!" ;;
  tcp) wait_tcp "$name" "${tcp_addr[$name]}" "$timeout" "$!" ;;
  alive:*)
    sleep "${ready#alive:}"
    kill -0 "$!" 2>/dev/null || fail "$name exited within ${ready#alive:}s"
    ;;
  esac
}

# client TARGET MODEL CONC KIND ARGS... (agentic: TRACE DURATION HEADER;
# fixed: ISL OSL RATIO PROMPTS WARMUP RATE). The client's results stay in
# $log_dir: vllm bench serve's result_CELL.json, aiperf's artifacts.
client() {
  local target=$1 model=$2 conc=$3 kind=$4 url
  shift 4
  if [[ $print_mode == 1 ]]; then
    printf 'client %s %s %s\n' "$target" "$conc" "$kind"
    return 0
  fi
  [[ $node_rank == 0 ]] || { wait; return 0; }
  url=${health_url[$target]%/*}
  if [[ $kind == agentic ]]; then
    "${ARECIPE_AIPERF:-aiperf}" profile --url "$url" --endpoint /v1/chat/completions \
      --endpoint-type chat --streaming --model "$model" --concurrency "$conc" \
      --public-dataset "$1" --benchmark-duration "$2" \
      --output-artifact-dir "$log_dir/aiperf_artifacts"
  else
    "${ARECIPE_BENCH:-vllm}" bench serve --base-url "$url" --model "$model" \
      --dataset-name random --random-input-len "$1" --random-output-len "$2" \
      --random-range-ratio "$3" --num-prompts "$4" --num-warmups "$5" \
      --request-rate "${6/#0/inf}" --max-concurrency "$conc" --ignore-eos \
      --save-result --result-dir "$log_dir" --result-filename "result_${cell:-$conc}.json"
  fi
}
)bash";

/// Only a v1.1 plan's launcher has it, so a v1 plan's script is unchanged.
/// A `capture` step stands for its output in {capture:NAME}; this launcher
/// does not substitute that yet, so a cell with one stops at the step
/// rather than start its processes with the placeholder in their argv.
static const char *const CapturePrelude = R"bash(
capture_step() {
  local name=$1
  [[ $print_mode == 1 ]] && return 0
  fail "pre-flight 'capture' ($name) is not supported by this launcher yet"
}
)bash";

static std::string functionName(llvm::StringRef Id) {
  std::string Out = "cell_";
  for (char C : Id)
    Out += llvm::isAlnum(C) ? C : '_';
  return Out;
}

/// A number as the plan writes it, as one word.
static std::string word(const PlanNumber &N) { return shellQuote(toText(N)); }
static std::string word(int64_t N) { return shellQuote(std::to_string(N)); }

namespace {
/// One pre-flight step as a call of its prelude function.
struct PreflightCall {
  llvm::raw_ostream &OS;
  void words(const std::vector<std::string> &List) {
    for (const std::string &W : List)
      OS << " " << shellQuote(W);
  }
  void operator()(const preflight::UnsetEnv &S) {
    OS << "unset_env";
    words(S.Names);
  }
  void operator()(const preflight::RequireVersion &S) {
    OS << "require_version " << shellQuote(S.Tool) << " "
       << shellQuote(S.Pattern) << " "
       << (S.OnMismatchDo == preflight::RequireVersion::OnMismatch::Fail
               ? "fail"
               : "warn");
    words(S.Probe);
  }
  void operator()(const preflight::StageModel &S) {
    OS << "stage_model " << shellQuote(S.Repo) << " " << word(S.Attempts) << " "
       << word(S.DelayS);
  }
  void operator()(const preflight::CheckPaths &S) {
    OS << "check_paths "
       << (S.On == preflight::CheckPaths::Nodes::All ? "all" : "rank0");
    words(S.Paths);
  }
  void operator()(const preflight::WaitCleanGpus &S) {
    OS << "wait_clean_gpus " << word(S.MaxUsedFraction) << " "
       << word(S.TimeoutS) << " " << word(S.PollS);
  }
  void operator()(const preflight::PrepareCache &S) {
    OS << "prepare_cache " << shellQuote(S.Dir) << " "
       << shellQuote(S.FromImagePath.value_or(""));
  }
  void operator()(const preflight::VerifyImport &S) {
    OS << "verify_import " << shellQuote(S.Package) << " "
       << shellQuote(S.ExpectPrefix);
    words(S.Python);
  }
  void operator()(const preflight::RunStep &S) {
    OS << "run_step " << word(S.TimeoutS);
    words(S.Argv);
  }
  void operator()(const preflight::Capture &S) {
    OS << "capture_step " << shellQuote(S.Name) << " " << word(S.TimeoutS);
    words(S.Argv);
  }
};

/// The client's workload arguments after its target, model and conc.
struct WorkloadWords {
  llvm::raw_ostream &OS;
  void operator()(std::monostate) {}
  void operator()(const AgenticWorkload &A) {
    OS << " agentic " << shellQuote(A.Trace) << " " << word(A.DurationS);
  }
  void operator()(const FixedWorkload &F) {
    OS << " fixed " << word(F.Isl) << " " << word(F.Osl) << " "
       << word(F.RangeRatio) << " " << word(F.NumPrompts) << " "
       << word(F.Warmup) << " " << word(F.RequestRate);
  }
};
} // namespace

static void emitPreflight(const PreflightStep &S, llvm::raw_ostream &OS) {
  OS << "  ";
  std::visit(PreflightCall{OS}, S);
  OS << "\n";
}

static void emitProcess(const ProcessSpec &P, llvm::raw_ostream &OS) {
  OS << "  proc_argv=(";
  for (size_t I = 0; I < P.Argv.size(); ++I)
    OS << (I ? " " : "") << shellQuote(P.Argv[I]);
  OS << ")\n  proc_env=(";
  size_t I = 0;
  for (const auto &[Name, Value] : P.env())
    OS << (I++ ? " " : "") << shellQuote(Name + "=" + Value);
  OS << ")\n";
  std::string Gpus;
  for (int64_t G : P.Gpus.value_or(std::vector<int64_t>()))
    Gpus += (Gpus.empty() ? "" : ",") + std::to_string(G);
  // Readiness as the plan states it: a kind, else the health endpoint,
  // else running.
  std::string Ready = "running";
  if (P.Ready == ProcessSpec::Readiness::Tcp)
    Ready = "tcp";
  else if (P.Ready == ProcessSpec::Readiness::Alive)
    Ready = "alive:" + word(P.AliveS);
  else if (P.Endpoints)
    for (const auto &[Name, Path] : *P.Endpoints)
      if (Name == "health")
        Ready = "http:" + Path;
  OS << "  process " << shellQuote(P.Name) << " " << P.NodeRank << " "
     << shellQuote(Gpus) << " " << P.Port.value_or(0) << " "
     << shellQuote(Ready) << " " << word(P.StartupTimeoutS);
  for (const std::string &A : P.After)
    OS << " " << shellQuote(A);
  OS << "\n";
}

static void emitCell(const PlanCell &C, llvm::raw_ostream &OS) {
  OS << "\n# " << C.Id << ": conc " << C.Conc << ", " << C.Gpus << " GPUs on "
     << C.Nodes << (C.Nodes == 1 ? " node" : " nodes");
  if (C.ServerFrom)
    OS << ", the server of " << *C.ServerFrom;
  OS << "\n" << functionName(C.Id) << "() {\n";
  OS << "  if [[ $print_mode == 1 ]]; then printf 'cell %s\\n' "
     << shellQuote(C.Id) << "; fi\n";
  for (const PreflightStep &S : C.Preflight)
    emitPreflight(S, OS);
  for (const ProcessSpec &P : C.Processes)
    emitProcess(P, OS);
  OS << "  client " << shellQuote(C.Client.Target) << " "
     << shellQuote(C.Client.ServedModelName) << " " << C.Client.Concurrency;
  std::visit(WorkloadWords{OS}, C.Client.Workload);
  OS << "\n}\n";
}

void codegen::emitShell(PlanLowering &Lowering, llvm::raw_ostream &OS) {
  const PlanHeader &Plan = Lowering.header();
  size_t N = Lowering.size();
  bool ById = N && Lowering.cellRecipe(0) != Plan.RecipeName;
  auto Name = [&](size_t I) {
    return ById ? Lowering.cellId(I) : std::to_string(Lowering.cellConc(I));
  };
  std::string Cells;
  for (size_t I = 0; I < N; ++I)
    Cells += (Cells.empty() ? "" : " ") + Name(I);
  OS << "#!/usr/bin/env bash\n"
     << "# Launcher for " << Plan.RecipeName << ", generated by arecipec from "
     << Plan.RecipeFile << ".\n"
     << "# The same program as `arecipec --emit plan`: regenerate, do not edit.\n"
     << "#\n"
     << "# usage: " << Plan.RecipeName << ".sh [--print] CELL\n"
     << "#   CELL: one of " << Cells << "\n"
     << "#   --print or ARECIPE_PRINT=1: print argv and env, run nothing (no\n"
     << "#     CELL: every cell); NODE_RANK: this node of the allocation (0);\n"
     << "#   ARECIPE_NODE_ADDR_<K>: the address of node K (127.0.0.1).\n"
     << Prelude << (Plan.UsesV11 ? CapturePrelude : "") << "\n"
     << "smi=" << shellQuote(Plan.Smi) << "\n"
     << "visible_devices_env=" << shellQuote(Plan.VisibleDevicesEnv) << "\n";
  for (size_t I = 0; I < N; ++I)
    emitCell(Lowering.cell(I), OS);
  OS << "\nrun_cell() {\n  case \"$1\" in\n";
  for (size_t I = 0; I < N; ++I) {
    std::string Id = Lowering.cellId(I);
    OS << "  ";
    if (!ById)
      OS << Lowering.cellConc(I) << " | ";
    OS << shellQuote(Id) << ") " << functionName(Id) << " ;;\n";
  }
  OS << "  *)\n"
     << "    printf 'unsupported cell %s; cells: %s\\n' \"$1\" "
     << shellQuote(Cells) << " >&2\n"
     << "    exit 2\n"
     << "    ;;\n"
     << "  esac\n}\n\n"
     << "if [[ -z $cell && $print_mode == 1 ]]; then\n"
     << "  cells=(" << Cells << ")\n"
     << "  for each in \"${cells[@]}\"; do\n"
     << "    run_cell \"$each\"\n"
     << "  done\n"
     << "else\n"
     << "  run_cell \"$cell\"\n"
     << "fi\n";
}
