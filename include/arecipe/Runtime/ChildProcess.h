//===- ChildProcess.h - One supervised process and its group ----*- C++ -*-===//
//
// Starts a program from an argv (fork + execve, never a shell) in its own
// process group with its output appended to a log file, and stops it: SIGTERM
// to the whole group, a grace period, then SIGKILL. The output reaches the
// log through a pipe and a relay thread that redacts it line by line
// (support::redact), so a secret an engine or a pre-flight command prints
// never reaches a file under --out, and that may bound how much is kept. The group is what gets
// signalled because engines fork workers (one per rank) that must not outlive
// the cell. The runtime also makes itself a child subreaper
// (adoptOrphans()), so a descendant that escapes its group with setsid() is
// still reparented to arecipe-run and killed by killAdoptedOrphans() at the
// end of the cell.
//
// A runtime killed with SIGKILL runs no teardown, and the parent-death
// signal reaches only direct children, which may ignore it. So the runtime
// starts a keeper (startProcessKeeper) before any cell: a small process of
// its own, outside its process group, told through a pipe of every group
// started and stopped and every container run. When the pipe closes with
// groups still registered (the runtime died), the keeper sends each group
// SIGTERM, SIGKILL after the grace, and removes the containers. Process
// groups, not cgroups: they need no privileges or delegated hierarchy; what
// they cannot catch is a descendant that left its group (setsid) after the
// runtime died, since only a live runtime adopts orphans. This component
// knows nothing about plans, HTTP or cells.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_CHILDPROCESS_H
#define ARECIPE_RUNTIME_CHILDPROCESS_H

#include "arecipe/Runtime/LaunchPlan.h"

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace arecipe::runtime {

/// The environment a child gets: the runtime's own environment, then Unset
/// removed, then Set applied.
struct ChildEnvironment {
  EnvMap Set;
  std::vector<std::string> Unset;

  /// "NAME=value" strings, sorted, ready for execve.
  std::vector<std::string> materialize() const;
};

/// Finds Program on the PATH of Env (or as a path if it contains '/').
std::optional<std::string> findProgram(const std::string &Program,
                                       const ChildEnvironment &Env = {});

class OutputRelay;

/// How much of a child's output to keep: in memory (raw, for the caller
/// to parse) and in the log. 0 means no capture, or no limit on the log.
struct OutputLimits {
  size_t CaptureBytes = 0;
  size_t LogBytes = 0;
  /// Capture stderr apart from stdout (both still reach the log): for a
  /// command whose standard output is a value (a `capture` step) and whose
  /// errors explain a failure.
  bool SeparateStderr = false;
};

class ChildProcess {
public:
  ChildProcess();
  ChildProcess(ChildProcess &&Other) noexcept;
  ChildProcess &operator=(ChildProcess &&Other) noexcept;
  ChildProcess(const ChildProcess &) = delete;
  ChildProcess &operator=(const ChildProcess &) = delete;
  /// Stops the group if it is still running: no process outlives its owner.
  ~ChildProcess();

  /// Starts Command with stdout and stderr appended to LogPath and stdin from
  /// /dev/null. On failure (program not found, exec error, unwritable log)
  /// returns false with Err set; nothing is left running.
  bool start(const Argv &Command, const ChildEnvironment &Env, const std::string &LogPath,
             std::string &Err, const OutputLimits &Limits = {});

  pid_t pid() const { return Pid; }
  bool started() const { return Pid > 0; }

  /// Reaps the leader if it has exited; true while the leader runs.
  bool running();
  /// True while any process of the group exists (the leader may be gone).
  bool groupAlive();
  /// The leader's wait status, once reaped.
  std::optional<int> waitStatus() const { return Status; }
  /// "exited with status 3", "killed by signal 9 (SIGKILL)".
  std::string describeExit() const;

  /// SIGTERM to the group, up to Grace for it to go, then SIGKILL and wait
  /// until the group is empty. Returns true if SIGKILL was needed.
  bool stop(std::chrono::milliseconds Grace);

  /// Waits (up to Wait) until the log holds everything the group wrote so
  /// far: before a log tail is read for a failure.
  void settleOutput(std::chrono::milliseconds Wait);
  /// Waits (up to Wait) for the output relay to copy everything the group
  /// wrote, then ends it; what was captured (OutputLimits::CaptureBytes),
  /// and whether more was written than the limits kept.
  std::string finishOutput(std::chrono::milliseconds Wait, bool &Truncated);
  /// With OutputLimits::SeparateStderr, after finishOutput: what the group
  /// wrote to stderr (at most CaptureBytes).
  std::string takeErrorOutput();

private:
  /// Tells the keeper the group is gone (once it is).
  void forgetGroup();

  pid_t Pid = -1;
  std::optional<int> Status;
  bool Forgotten = false;
  std::unique_ptr<OutputRelay> Relay;
  std::unique_ptr<OutputRelay> ErrRelay; ///< stderr, with SeparateStderr
};

/// A short command run to completion (pre-flight probes, `docker rm`).
struct CommandResult {
  std::string Error; ///< could not start, timed out, or was interrupted
  std::optional<int> Status;
  /// stdout and stderr as the command wrote them, at most
  /// MaxCommandOutputBytes; the log has them redacted.
  std::string Output;
  bool OutputTruncated = false; ///< the command wrote more than was kept
  /// With SeparateStderr: Output is stdout only, and this is stderr.
  std::string ErrorOutput;

  bool succeeded() const { return Error.empty() && Status && *Status == 0; }
  /// "exited with status 1", or the error.
  std::string describe() const;
};

/// A short command's output kept in memory, and written to its log: more
/// is discarded with a note, so a command printing without end costs
/// neither the runtime's memory nor the output disk.
inline constexpr size_t MaxCommandOutputBytes = 1 << 20;
inline constexpr size_t MaxCommandLogBytes = 16 << 20;

/// Runs Command with its output appended to LogPath, and returns that
/// output. Timeout 0 means none; ShouldStop is polled and, when it returns
/// true, the command is stopped and reported as interrupted.
CommandResult runCommand(const Argv &Command, const ChildEnvironment &Env,
                         const std::string &LogPath, std::chrono::milliseconds Timeout,
                         const std::function<bool()> &ShouldStop, bool SeparateStderr = false);

/// Makes the calling process a child subreaper (PR_SET_CHILD_SUBREAPER).
void adoptOrphans();

/// Starts the keeper described above. Call once, before any thread or
/// child exists (it forks). Grace is its SIGTERM-to-SIGKILL wait.
void startProcessKeeper(std::chrono::milliseconds Grace);
/// Ends the keeper after a normal exit and waits for it: nothing is left
/// for it to stop.
void stopProcessKeeper();
/// Tells the keeper how to remove a container if the runtime dies before
/// it does (`docker rm -f NAME`), and that it is gone.
void keepContainer(const std::string &Name, const Argv &RemoveCommand);
void forgetContainer(const std::string &Name);

/// Kills and reaps every process reparented to this one that is not one of
/// Keep. Returns how many were found.
size_t killAdoptedOrphans(const std::vector<pid_t> &Keep = {});

/// The last N lines of a file, joined with newlines.
std::string tailOfFile(const std::string &Path, size_t Lines);

/// Describes a wait status the way describeExit() does.
std::string describeWaitStatus(int Status);

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_CHILDPROCESS_H
