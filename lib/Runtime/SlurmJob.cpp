//===- SlurmJob.cpp - Job scripts and Slurm's answers, as text ------------===//

#include "arecipe/Runtime/SlurmJob.h"

#include "arecipe/Runtime/LaunchCommand.h"
#include "arecipe/Support/ShellQuote.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <cstring>
#include <string.h>

namespace arecipe::runtime {

std::string formatSlurmTime(double Seconds) {
  long long S = static_cast<long long>(std::ceil(Seconds));
  return fmt::format("{}-{:02}:{:02}:{:02}", S / 86400, S % 86400 / 3600, S % 3600 / 60, S % 60);
}

namespace {

/// The cell runner's command line as shell words, then the per-node part.
std::string cellRunLine(const JobScriptSpec &Spec, const std::string &RankArgs) {
  return fmt::format("{} --cells \"$cell\" {} {}", support::shellJoin(Spec.CellRun), RankArgs,
                     support::shellJoin({Spec.PlanPath}));
}

} // namespace

std::string buildJobScript(const SlurmOptions &O, const JobScriptSpec &Spec) {
  std::string Out = "#!/bin/bash\n";
  Out += fmt::format("# Written by arecipe-run --executor slurm: cells {} of {}, {} node{} each,\n"
                     "# one array task per cell.\n",
                     fmt::join(Spec.CellIds, " "), Spec.PlanPath, Spec.Nodes,
                     Spec.Nodes == 1 ? "" : "s");
  auto Directive = [&](const std::string &Option) { Out += "#SBATCH " + Option + "\n"; };
  Directive("--job-name=" + Spec.JobName);
  Directive(fmt::format("--nodes={}", Spec.Nodes));
  Directive("--ntasks-per-node=1");
  // A benchmark cell owns its nodes: nothing else may share their GPUs,
  // CPUs or network while it measures.
  Directive("--exclusive");
  if (!O.Partition.empty())
    Directive("--partition=" + O.Partition);
  if (!O.Account.empty())
    Directive("--account=" + O.Account);
  if (O.TimeLimitS > 0)
    Directive("--time=" + formatSlurmTime(O.TimeLimitS));
  if (O.GpusPerNode > 0)
    Directive(fmt::format("--gpus-per-node={}", O.GpusPerNode));
  if (!O.Exclude.empty())
    Directive(fmt::format("--exclude={}", fmt::join(O.Exclude, ",")));
  Directive(fmt::format("--array=0-{}", Spec.CellIds.size() - 1));
  Directive("--output=" + Spec.OutputPattern);
  Out += "set -u\n";
  Out += fmt::format("cells=({})\n", fmt::join(Spec.CellIds, " "));
  Out += "cell=${cells[${SLURM_ARRAY_TASK_ID:-0}]}\n";
  if (Spec.Nodes == 1) {
    Out += "exec " + cellRunLine(Spec, "--node-rank 0") + "\n";
    return Out;
  }
  Out += R"(mapfile -t nodes < <(scontrol show hostnames "$SLURM_JOB_NODELIST")
addrs=
hosts=
for node in "${nodes[@]}"; do
  addr=$(scontrol show node "$node" | grep -o 'NodeAddr=[^ ]*' | cut -d= -f2)
  addrs+=${addrs:+,}${addr:-$node}
  hosts+=${hosts:+,}$node
done
# One step per node rank. Rank 0 runs its processes and the client, and ends
# the cell for the other ranks by writing the stop file in the shared cell
# directory; written here too, in case rank 0 died before it could.
pids=()
for ((rank = 1; rank < ${#nodes[@]}; rank++)); do
  srun --nodes=1 --ntasks=1 --nodelist="${nodes[rank]}" \
)";
  Out +=
      "    " +
      cellRunLine(Spec, "--node-rank \"$rank\" --node-addrs \"$addrs\" --node-hosts \"$hosts\"") +
      " &\n";
  Out += "  pids+=($!)\ndone\n";
  Out += "srun --nodes=1 --ntasks=1 --nodelist=\"${nodes[0]}\" \\\n";
  Out += "  " + cellRunLine(Spec, "--node-rank 0 --node-addrs \"$addrs\" --node-hosts \"$hosts\"") +
         "\n";
  Out += "status=$?\n";
  Out += fmt::format("touch {}/\"$cell\"/stop\n", support::shellJoin({Spec.CellsDir}));
  Out += "wait \"${pids[@]}\"\nexit $status\n";
  return Out;
}

std::optional<std::string> parseSbatchJobId(std::string_view Output) {
  while (!Output.empty() && std::isspace(static_cast<unsigned char>(Output.back())))
    Output.remove_suffix(1);
  // sbatch may print warnings first; the id is the last line.
  if (size_t Nl = Output.rfind('\n'); Nl != std::string_view::npos)
    Output.remove_prefix(Nl + 1);
  std::string_view Id = Output.substr(0, Output.find(';'));
  if (Id.empty() || Id.find_first_not_of("0123456789") != std::string_view::npos)
    return std::nullopt;
  return std::string(Id);
}

std::vector<int> parseArrayTaskIds(std::string_view Text) {
  Text = Text.substr(0, Text.find('%')); // a throttle, not a task
  std::vector<int> Out;
  while (!Text.empty()) {
    std::string_view Part = Text.substr(0, Text.find(','));
    Text.remove_prefix(std::min(Text.size(), Part.size() + 1));
    size_t Dash = Part.find('-');
    std::string A(Part.substr(0, Dash));
    std::string B(Dash == std::string_view::npos ? A : std::string(Part.substr(Dash + 1)));
    if (A.empty() || B.empty() || A.find_first_not_of("0123456789") != std::string::npos ||
        B.find_first_not_of("0123456789") != std::string::npos || A.size() > 7 || B.size() > 7)
      continue;
    for (int I = std::stoi(A), E = std::stoi(B); I <= E; ++I)
      Out.push_back(I);
  }
  return Out;
}

std::vector<SlurmJobRecord> parseScontrolJobs(std::string_view Text) {
  std::vector<SlurmJobRecord> Out;
  while (!Text.empty()) {
    std::string_view Line = Text.substr(0, Text.find('\n'));
    Text.remove_prefix(std::min(Text.size(), Line.size() + 1));
    // Key=Value words; a word without '=' continues the previous value (a
    // path or a name with a space in it).
    std::vector<std::pair<std::string, std::string>> Fields;
    size_t Pos = 0;
    while (Pos < Line.size()) {
      size_t End = Line.find(' ', Pos);
      std::string_view Word = Line.substr(Pos, End == std::string_view::npos ? End : End - Pos);
      Pos = End == std::string_view::npos ? Line.size() : End + 1;
      if (Word.empty())
        continue;
      size_t Eq = Word.find('=');
      if (Eq == std::string_view::npos || Eq == 0) {
        if (!Fields.empty())
          Fields.back().second += " " + std::string(Word);
        continue;
      }
      Fields.emplace_back(std::string(Word.substr(0, Eq)), std::string(Word.substr(Eq + 1)));
    }
    SlurmJobRecord R;
    std::string TaskIds;
    for (auto &[Key, Value] : Fields) {
      if (Key == "JobId")
        R.JobId = Value;
      else if (Key == "ArrayJobId")
        R.ArrayJobId = Value;
      else if (Key == "ArrayTaskId")
        TaskIds = Value;
      else if (Key == "JobState")
        R.State = Value.substr(0, Value.find(' '));
      else if (Key == "Reason")
        R.Reason = Value;
      else if (Key == "ExitCode")
        R.ExitCode = Value;
      else if (Key == "NodeList")
        R.NodeList = Value == "(null)" ? "" : Value;
      else if (Key == "StdOut")
        R.StdOut = Value;
    }
    if (R.JobId.empty())
      continue;
    R.ArrayTasks = parseArrayTaskIds(TaskIds);
    Out.push_back(std::move(R));
  }
  return Out;
}

bool isFinalJobState(std::string_view State) {
  for (const char *Final : {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
                            "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE"})
    if (State == Final)
      return true;
  return false;
}

std::string describeSlurmExitCode(std::string_view ExitCode) {
  size_t Colon = ExitCode.find(':');
  std::string Status(ExitCode.substr(0, Colon));
  std::string Signal(Colon == std::string_view::npos ? "" : ExitCode.substr(Colon + 1));
  auto IsNumber = [](const std::string &S) {
    return !S.empty() && S.size() < 6 && S.find_first_not_of("0123456789") == std::string::npos;
  };
  if (IsNumber(Signal) && std::stoi(Signal) != 0) {
    int Sig = std::stoi(Signal);
    const char *Name = sigabbrev_np(Sig);
    return fmt::format("killed by signal {}{}", Sig,
                       Name ? fmt::format(" (SIG{})", Name) : std::string());
  }
  if (IsNumber(Status))
    return fmt::format("exit status {}", Status);
  return fmt::format("exit code {}", ExitCode.empty() ? "unknown" : ExitCode);
}

std::string describeJobEnd(const std::string &JobKey, const SlurmJobRecord &R) {
  std::string What;
  if (R.State == "CANCELLED")
    What = "was cancelled";
  else if (R.State == "TIMEOUT")
    What = "reached its time limit";
  else if (R.State == "NODE_FAIL")
    What = "lost a node";
  else if (R.State == "OUT_OF_MEMORY")
    What = "ran out of memory";
  else if (R.State == "PREEMPTED")
    What = "was preempted";
  else if (R.State == "COMPLETED")
    What = "completed without writing the cell's summary";
  else
    What = "failed";
  return fmt::format("Slurm job {} {} ({}, {}{})", JobKey, What, R.State,
                     describeSlurmExitCode(R.ExitCode),
                     R.NodeList.empty() ? "" : ", on " + R.NodeList);
}

} // namespace arecipe::runtime
