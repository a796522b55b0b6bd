//===- ChildProcess.cpp - One supervised process and its group ------------===//

#include "arecipe/Runtime/ChildProcess.h"

#include "arecipe/Support/Redaction.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <deque>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <functional>
#include <map>
#include <poll.h>
#include <set>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <utility>

extern char **environ;

namespace arecipe::runtime {

using Clock = std::chrono::steady_clock;

namespace {

void sleepMs(int Ms) { std::this_thread::sleep_for(std::chrono::milliseconds(Ms)); }

struct ProcStat {
  char State = '?';
  pid_t PPid = 0, PGrp = 0;
};

std::optional<ProcStat> readProcStat(long Pid) {
  std::ifstream Stat(fmt::format("/proc/{}/stat", Pid));
  std::string Line;
  if (!std::getline(Stat, Line))
    return std::nullopt;
  // The command name is in parentheses and may itself hold spaces.
  auto Close = Line.rfind(')');
  if (Close == std::string::npos || Close + 2 >= Line.size())
    return std::nullopt;
  ProcStat S;
  long PPid = 0, PGrp = 0;
  if (std::sscanf(Line.c_str() + Close + 2, "%c %ld %ld", &S.State, &PPid, &PGrp) != 3)
    return std::nullopt;
  S.PPid = pid_t(PPid);
  S.PGrp = pid_t(PGrp);
  return S;
}

/// Every process in /proc with its state, parent and group; stops early
/// when Visit returns false.
void forEachProcess(const std::function<bool(pid_t, const ProcStat &)> &Visit) {
  DIR *D = opendir("/proc");
  if (!D)
    return;
  while (dirent *E = readdir(D)) {
    char *End = nullptr;
    long Pid = std::strtol(E->d_name, &End, 10);
    if (!End || *End || Pid <= 0)
      continue;
    if (std::optional<ProcStat> S = readProcStat(Pid); S && !Visit(pid_t(Pid), *S))
      break;
  }
  closedir(D);
}

/// Every process whose parent is this one; with Pgid, only zombies of that
/// group.
std::vector<pid_t> childrenOfSelf(pid_t ZombiesOfGroup = 0) {
  std::vector<pid_t> Out;
  pid_t Self = getpid();
  forEachProcess([&](pid_t Pid, const ProcStat &S) {
    if (S.PPid == Self &&
        (!ZombiesOfGroup || (S.State == 'Z' && S.PGrp == ZombiesOfGroup && Pid != ZombiesOfGroup)))
      Out.push_back(Pid);
    return true;
  });
  return Out;
}

/// The keeper (ChildProcess.h): the write end of its pipe, close-on-exec,
/// and its pid.
int KeeperFd = -1;
pid_t KeeperPid = -1;

/// One message to the keeper, written whole (a pipe write of at most
/// PIPE_BUF bytes is atomic). Async-signal-safe: a child calls it between
/// fork and exec.
void tellKeeper(const char *Msg, size_t Len) {
  if (KeeperFd < 0)
    return;
  while (write(KeeperFd, Msg, Len) < 0 && errno == EINTR) {
  }
}

/// "+PID\n" or "-PID\n" into Buf, without allocating (after fork).
size_t groupMessage(char Sign, pid_t Pid, char *Buf) {
  char Digits[24];
  size_t N = 0;
  for (unsigned long V = static_cast<unsigned long>(Pid); V || N == 0; V /= 10)
    Digits[N++] = char('0' + V % 10);
  size_t Len = 0;
  Buf[Len++] = Sign;
  while (N)
    Buf[Len++] = Digits[--N];
  Buf[Len++] = '\n';
  return Len;
}

/// Whether any process of group Pgid is alive (zombies, which the keeper
/// cannot reap, do not count).
bool groupHasLiveMember(pid_t Pgid) {
  bool Live = false;
  forEachProcess([&](pid_t, const ProcStat &S) {
    Live = S.PGrp == Pgid && S.State != 'Z';
    return !Live;
  });
  return Live;
}

/// The keeper's life: collect what the runtime registers until the pipe
/// closes; if anything is still registered then, the runtime died without
/// its teardown, and the keeper does it.
[[noreturn]] void keeperMain(int Fd, pid_t Runtime, std::chrono::milliseconds Grace) {
  std::set<pid_t> Groups;
  std::map<std::string, Argv> Containers;
  std::string Pending;
  char Buf[4096];
  while (true) {
    ssize_t N = read(Fd, Buf, sizeof Buf);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break;
    Pending.append(Buf, size_t(N));
    for (size_t Nl; (Nl = Pending.find('\n')) != std::string::npos; Pending.erase(0, Nl + 1)) {
      std::string Line = Pending.substr(0, Nl);
      if (Line == "q")
        _exit(0); // the runtime ended normally, after its own teardown
      if (Line.size() < 2)
        continue;
      if (Line[0] == '+' || Line[0] == '-') {
        pid_t Pgid = pid_t(std::strtol(Line.c_str() + 1, nullptr, 10));
        if (Pgid > 1)
          Line[0] == '+' ? (void)Groups.insert(Pgid) : (void)Groups.erase(Pgid);
      } else if (Line[0] == 'C' || Line[0] == 'c') {
        // "C\tNAME\tWORD\t..." (tabs never occur in a container name).
        Argv Words;
        for (size_t Pos = 2, Tab;; Pos = Tab + 1) {
          Tab = Line.find('\t', Pos);
          Words.push_back(Line.substr(Pos, Tab == std::string::npos ? Tab : Tab - Pos));
          if (Tab == std::string::npos)
            break;
        }
        std::string Name = Words.front();
        Words.erase(Words.begin());
        if (Line[0] == 'C')
          Containers[Name] = Words;
        else
          Containers.erase(Name);
      }
    }
  }
  if (Groups.empty() && Containers.empty())
    _exit(0);
  std::string Note =
      fmt::format("arecipe-run (pid {}) ended without its teardown: stopping {} "
                  "process group{}{}\n",
                  Runtime, Groups.size(), Groups.size() == 1 ? "" : "s",
                  Containers.empty() ? std::string()
                                     : fmt::format(" and {} container{}", Containers.size(),
                                                   Containers.size() == 1 ? "" : "s"));
  ssize_t Ignored = write(2, Note.data(), Note.size());
  (void)Ignored;
  for (pid_t G : Groups)
    kill(-G, SIGTERM);
  auto Deadline = Clock::now() + Grace;
  auto AnyLive = [&] {
    for (pid_t G : Groups)
      if (groupHasLiveMember(G))
        return true;
    return false;
  };
  while (AnyLive() && Clock::now() < Deadline)
    sleepMs(50);
  for (pid_t G : Groups)
    kill(-G, SIGKILL);
  for (int I = 0; I < 100 && AnyLive(); ++I)
    sleepMs(50);
  // A container outlives its killed `docker run` client.
  for (const auto &[Name, Remove] : Containers) {
    std::vector<char *> Args;
    for (const std::string &W : Remove)
      Args.push_back(const_cast<char *>(W.c_str()));
    Args.push_back(nullptr);
    pid_t Rm = fork();
    if (Rm == 0) {
      int Null = open("/dev/null", O_RDWR);
      dup2(Null, 0);
      dup2(Null, 1);
      dup2(Null, 2);
      execvp(Args[0], Args.data());
      _exit(127);
    }
    for (int I = 0; Rm > 0 && I < 600 && waitpid(Rm, nullptr, WNOHANG) == 0; ++I)
      sleepMs(100);
  }
  _exit(0);
}

} // namespace

void startProcessKeeper(std::chrono::milliseconds Grace) {
  if (KeeperFd >= 0)
    return;
  int Pipe[2];
  if (pipe2(Pipe, O_CLOEXEC) != 0)
    return; // no keeper: PR_SET_PDEATHSIG still reaches the children
  pid_t Runtime = getpid();
  pid_t Pid = fork();
  if (Pid == 0) {
    // Out of the runtime's group (a Ctrl-C on the terminal is for the
    // runtime, which tears down itself), deaf to the signals that stop it,
    // and holding nothing of the runtime's but its stderr.
    setpgid(0, 0);
    for (int Sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE})
      signal(Sig, SIG_IGN);
    for (int Fd = 3; Fd < 1024; ++Fd)
      if (Fd != Pipe[0])
        close(Fd);
    keeperMain(Pipe[0], Runtime, Grace);
  }
  close(Pipe[0]);
  if (Pid < 0) {
    close(Pipe[1]);
    return;
  }
  KeeperFd = Pipe[1];
  KeeperPid = Pid;
}

void stopProcessKeeper() {
  if (KeeperFd < 0)
    return;
  tellKeeper("q\n", 2);
  close(KeeperFd);
  KeeperFd = -1;
  int St;
  waitpid(KeeperPid, &St, 0);
  KeeperPid = -1;
}

void keepContainer(const std::string &Name, const Argv &RemoveCommand) {
  std::string Msg = "C\t" + Name;
  for (const std::string &W : RemoveCommand)
    Msg += "\t" + W;
  Msg += "\n";
  tellKeeper(Msg.data(), Msg.size());
}

void forgetContainer(const std::string &Name) {
  std::string Msg = "c\t" + Name + "\n";
  tellKeeper(Msg.data(), Msg.size());
}

/// Copies what a process group writes to its stdout and stderr (one pipe)
/// into its log: each line redacted (support::redact) on its way. A line is
/// written when it ends ('\n' or '\r'); a partial one after a second
/// without more output, so the log keeps growing for the stall detector;
/// one longer than MaxLine in pieces cut at a blank where there is one. The
/// first Limits.CaptureBytes bytes are also kept as written, for the caller
/// to parse, and at most Limits.LogBytes reach the log, then a note.
class OutputRelay {
public:
  OutputRelay(int ReadFd, int LogFd, OutputLimits Limits)
      : ReadFd(ReadFd), LogFd(LogFd), Limits(Limits), Thread([this] { guardedRun(); }) {}
  ~OutputRelay() { finish(std::chrono::milliseconds(0)); }

  /// Waits up to Wait for every writer to close the pipe, then ends the
  /// relay (a writer that escaped the group may hold it open for ever).
  void finish(std::chrono::milliseconds Wait) {
    if (!Thread.joinable())
      return;
    auto Deadline = Clock::now() + Wait;
    while (!Done && Clock::now() < Deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    Stop = true;
    Thread.join();
  }

  /// Waits up to Wait for the writers to close the pipe, then has a
  /// partial last line written anyway: what the log holds after this is
  /// everything the group wrote so far.
  void settle(std::chrono::milliseconds Wait) {
    auto Deadline = Clock::now() + Wait;
    while (!Done && Clock::now() < Deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    if (Done)
      return;
    FlushPartial = true;
    for (int I = 0; I < 100 && FlushPartial && !Done; ++I)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }

  std::string Captured;
  bool Truncated = false;

private:
  static constexpr size_t MaxLine = 64 << 10;
  static constexpr auto PartialLineWait = std::chrono::seconds(1);

  /// An exception may not leave a thread: a relay that cannot go on (out
  /// of memory) stops copying, and the child's writes then fail instead.
  void guardedRun() {
    try {
      run();
    } catch (const std::exception &) {
      close(ReadFd);
      close(LogFd);
      Done = true;
    }
  }

  void run() {
    char Buf[65536];
    auto PendingSince = Clock::now();
    while (true) {
      pollfd P{ReadFd, POLLIN, 0};
      int N = poll(&P, 1, Stop ? 0 : 100);
      if (N < 0 && errno == EINTR)
        continue;
      if (N == 0) {
        if (!Pending.empty() &&
            (Stop || FlushPartial || Clock::now() - PendingSince >= PartialLineWait))
          emit(Pending.size());
        FlushPartial = false;
        if (Stop)
          break;
        continue;
      }
      ssize_t R = read(ReadFd, Buf, sizeof Buf);
      if (R < 0 && (errno == EINTR || errno == EAGAIN))
        continue;
      if (R <= 0)
        break; // every writer has closed the pipe
      capture(Buf, size_t(R));
      if (Pending.empty())
        PendingSince = Clock::now();
      Pending.append(Buf, size_t(R));
      size_t End;
      while ((End = Pending.find_first_of("\n\r")) != std::string::npos) {
        emit(End + 1);
        PendingSince = Clock::now();
      }
      while (Pending.size() > MaxLine) {
        size_t Cut = Pending.find_last_of(" \t", MaxLine);
        emit(Cut != std::string::npos && Cut + 1024 >= MaxLine ? Cut + 1 : MaxLine);
      }
    }
    if (!Pending.empty())
      emit(Pending.size());
    close(ReadFd);
    close(LogFd);
    Done = true;
  }

  void capture(const char *Data, size_t Size) {
    size_t Room = Limits.CaptureBytes - std::min(Limits.CaptureBytes, Captured.size());
    Captured.append(Data, std::min(Room, Size));
    if (Limits.CaptureBytes && Size > Room)
      Truncated = true;
  }

  /// Writes the first Size bytes of Pending to the log, redacted.
  void emit(size_t Size) {
    bool Full = Limits.LogBytes && Logged >= Limits.LogBytes;
    std::string Text =
        Full ? std::string() : support::redact(std::string_view(Pending).substr(0, Size));
    Pending.erase(0, Size);
    if (!Full) {
      if (Limits.LogBytes && Logged + Text.size() > Limits.LogBytes)
        Text.resize(Limits.LogBytes - Logged);
      writeLog(Text);
    }
    if (Limits.LogBytes && Logged >= Limits.LogBytes && !NoteWritten) {
      // Past the limit the output is drained, not kept, and the log says so.
      writeLog(fmt::format("\n[arecipe-run: output truncated here, after {} bytes; the rest "
                           "was discarded]\n",
                           Limits.LogBytes));
      NoteWritten = Truncated = true;
    }
  }

  void writeLog(const std::string &Text) {
    Logged += Text.size();
    for (size_t Done = 0; Done < Text.size();) {
      ssize_t W = write(LogFd, Text.data() + Done, Text.size() - Done);
      if (W < 0 && errno == EINTR)
        continue;
      if (W <= 0)
        return; // a full disk: the process's output is lost, not the run
      Done += size_t(W);
    }
  }

  int ReadFd, LogFd;
  OutputLimits Limits;
  std::string Pending;
  size_t Logged = 0;
  bool NoteWritten = false;
  std::atomic<bool> Stop{false}, Done{false}, FlushPartial{false};
  std::thread Thread; ///< last: starts once every member above exists
};

std::vector<std::string> ChildEnvironment::materialize() const {
  std::map<std::string, std::string> Vars;
  for (char **E = environ; E && *E; ++E) {
    std::string_view Entry(*E);
    auto Eq = Entry.find('=');
    if (Eq == std::string_view::npos)
      continue;
    Vars[std::string(Entry.substr(0, Eq))] = std::string(Entry.substr(Eq + 1));
  }
  for (const std::string &Name : Unset)
    Vars.erase(Name);
  for (const auto &[Name, Value] : Set)
    Vars[Name] = Value;
  std::vector<std::string> Out;
  for (const auto &[Name, Value] : Vars)
    Out.push_back(Name + "=" + Value);
  return Out;
}

std::optional<std::string> findProgram(const std::string &Program, const ChildEnvironment &Env) {
  auto Executable = [](const std::string &Path) {
    struct stat St;
    return stat(Path.c_str(), &St) == 0 && S_ISREG(St.st_mode) && access(Path.c_str(), X_OK) == 0;
  };
  if (Program.find('/') != std::string::npos)
    return Executable(Program) ? std::optional<std::string>(Program) : std::nullopt;
  std::string Path;
  if (auto It = Env.Set.find("PATH"); It != Env.Set.end())
    Path = It->second;
  else if (const char *P = std::getenv("PATH"))
    Path = P;
  size_t Start = 0;
  while (Start <= Path.size()) {
    size_t End = Path.find(':', Start);
    if (End == std::string::npos)
      End = Path.size();
    std::string Dir = Path.substr(Start, End - Start);
    std::string Candidate = (Dir.empty() ? std::string(".") : Dir) + "/" + Program;
    if (Executable(Candidate))
      return Candidate;
    Start = End + 1;
  }
  return std::nullopt;
}

ChildProcess::ChildProcess() = default;

ChildProcess::ChildProcess(ChildProcess &&Other) noexcept
    : Pid(std::exchange(Other.Pid, -1)), Status(std::exchange(Other.Status, std::nullopt)),
      Forgotten(Other.Forgotten), Relay(std::move(Other.Relay)),
      ErrRelay(std::move(Other.ErrRelay)) {}

ChildProcess &ChildProcess::operator=(ChildProcess &&Other) noexcept {
  if (this != &Other) {
    if (started())
      stop(std::chrono::milliseconds(2000));
    Pid = std::exchange(Other.Pid, -1);
    Status = std::exchange(Other.Status, std::nullopt);
    Forgotten = Other.Forgotten;
    Relay = std::move(Other.Relay);
    ErrRelay = std::move(Other.ErrRelay);
  }
  return *this;
}

void ChildProcess::forgetGroup() {
  if (!started() || Forgotten)
    return;
  char Msg[32];
  tellKeeper(Msg, groupMessage('-', Pid, Msg));
  Forgotten = true;
}

ChildProcess::~ChildProcess() {
  if (started() && (!Status || groupAlive()))
    stop(std::chrono::milliseconds(2000));
  else
    forgetGroup();
  if (Relay)
    Relay->finish(std::chrono::milliseconds(1000));
  if (ErrRelay)
    ErrRelay->finish(std::chrono::milliseconds(1000));
}

void ChildProcess::settleOutput(std::chrono::milliseconds Wait) {
  if (Relay)
    Relay->settle(Wait);
  if (ErrRelay)
    ErrRelay->settle(Wait);
}

std::string ChildProcess::finishOutput(std::chrono::milliseconds Wait, bool &Truncated) {
  Truncated = false;
  if (!Relay)
    return {};
  Relay->finish(Wait);
  Truncated = Relay->Truncated;
  if (ErrRelay) {
    ErrRelay->finish(Wait);
    Truncated |= ErrRelay->Truncated;
  }
  return std::move(Relay->Captured);
}

std::string ChildProcess::takeErrorOutput() {
  return ErrRelay ? std::move(ErrRelay->Captured) : std::string();
}

bool ChildProcess::start(const Argv &Command, const ChildEnvironment &Env,
                         const std::string &LogPath, std::string &Err, const OutputLimits &Limits) {
  if (Command.empty()) {
    Err = "empty argv";
    return false;
  }
  std::optional<std::string> Program = findProgram(Command.front(), Env);
  if (!Program) {
    Err = fmt::format("program '{}' not found{}", Command.front(),
                      Command.front().find('/') == std::string::npos ? " on PATH" : "");
    return false;
  }
  // Everything the child needs is built before fork: after fork only
  // async-signal-safe calls are allowed.
  std::vector<std::string> EnvStrings = Env.materialize();
  std::vector<char *> ArgvPtrs, EnvPtrs;
  for (const std::string &A : Command)
    ArgvPtrs.push_back(const_cast<char *>(A.c_str()));
  ArgvPtrs.push_back(nullptr);
  for (const std::string &E : EnvStrings)
    EnvPtrs.push_back(const_cast<char *>(E.c_str()));
  EnvPtrs.push_back(nullptr);

  // Never through a link planted in the cell directory.
  int LogFd = open(LogPath.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (LogFd < 0) {
    Err = fmt::format("cannot open log '{}': {}", LogPath, std::strerror(errno));
    return false;
  }
  int NullFd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  // The exec-error pipe: closed by a successful exec, or carries errno; the
  // output pipe: the child's stdout and stderr, read by the relay.
  // With SeparateStderr, stderr has a pipe (and a relay, and a log
  // descriptor) of its own.
  int ErrPipe[2] = {-1, -1}, OutPipe[2] = {-1, -1}, StderrPipe[2] = {-1, -1};
  int StderrLogFd = -1;
  if (NullFd < 0 || pipe2(ErrPipe, O_CLOEXEC) != 0 || pipe2(OutPipe, O_CLOEXEC) != 0 ||
      (Limits.SeparateStderr && (pipe2(StderrPipe, O_CLOEXEC) != 0 ||
                                 (StderrLogFd = fcntl(LogFd, F_DUPFD_CLOEXEC, 0)) < 0))) {
    Err = fmt::format("cannot set up the child: {}", std::strerror(errno));
    for (int Fd : {LogFd, NullFd, ErrPipe[0], ErrPipe[1], OutPipe[0], OutPipe[1], StderrPipe[0],
                   StderrPipe[1], StderrLogFd})
      if (Fd >= 0)
        close(Fd);
    return false;
  }
  pid_t ParentPid = getpid();
  pid_t Child = fork();
  if (Child == 0) {
    setpgid(0, 0);
    // If arecipe-run dies without tearing down, the engine is told to stop,
    // and the keeper stops the whole group: registered here, before the
    // program runs, so no window exists in which it is unknown.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != ParentPid)
      _exit(127);
    char Msg[32];
    tellKeeper(Msg, groupMessage('+', getpid(), Msg));
    sigset_t All;
    sigemptyset(&All);
    sigprocmask(SIG_SETMASK, &All, nullptr);
    struct sigaction Default {};
    Default.sa_handler = SIG_DFL;
    for (int Sig : {SIGPIPE, SIGINT, SIGTERM, SIGCHLD, SIGHUP, SIGQUIT})
      sigaction(Sig, &Default, nullptr);
    dup2(NullFd, 0);
    dup2(OutPipe[1], 1);
    dup2(StderrPipe[1] >= 0 ? StderrPipe[1] : OutPipe[1], 2);
    execve(Program->c_str(), ArgvPtrs.data(), EnvPtrs.data());
    int E = errno;
    ssize_t Ignored = write(ErrPipe[1], &E, sizeof E);
    (void)Ignored;
    _exit(127);
  }
  close(ErrPipe[1]);
  close(OutPipe[1]);
  close(NullFd);
  if (StderrPipe[1] >= 0)
    close(StderrPipe[1]);
  if (Child < 0) {
    Err = fmt::format("fork failed: {}", std::strerror(errno));
    for (int Fd : {ErrPipe[0], OutPipe[0], LogFd, StderrPipe[0], StderrLogFd})
      if (Fd >= 0)
        close(Fd);
    return false;
  }
  Relay = std::make_unique<OutputRelay>(OutPipe[0], LogFd, Limits);
  if (StderrPipe[0] >= 0)
    ErrRelay = std::make_unique<OutputRelay>(StderrPipe[0], StderrLogFd, Limits);
  // Also set from the parent so the group exists before we ever signal it.
  setpgid(Child, Child);
  char Msg[32];
  tellKeeper(Msg, groupMessage('+', Child, Msg));
  Pid = Child;
  Status.reset();
  Forgotten = false;
  int ExecErrno = 0;
  ssize_t N;
  do
    N = read(ErrPipe[0], &ExecErrno, sizeof ExecErrno);
  while (N < 0 && errno == EINTR);
  close(ErrPipe[0]);
  if (N == sizeof ExecErrno) {
    int St = 0;
    waitpid(Child, &St, 0);
    tellKeeper(Msg, groupMessage('-', Child, Msg));
    Pid = -1;
    Err = fmt::format("cannot execute '{}': {}", *Program, std::strerror(ExecErrno));
    return false;
  }
  return true;
}

bool ChildProcess::running() {
  if (!started() || Status)
    return false;
  int St = 0;
  pid_t R = waitpid(Pid, &St, WNOHANG);
  if (R == Pid) {
    Status = St;
    return false;
  }
  if (R < 0 && errno == ECHILD) {
    Status = 0;
    return false;
  }
  return true;
}

bool ChildProcess::groupAlive() {
  if (!started())
    return false;
  // Members of the group orphaned to this subreaper stay zombies until
  // reaped, and a zombie still counts as a member.
  for (pid_t Zombie : childrenOfSelf(Pid)) {
    int St;
    waitpid(Zombie, &St, WNOHANG);
  }
  return kill(-Pid, 0) == 0 || errno == EPERM;
}

std::string describeWaitStatus(int St) {
  if (WIFEXITED(St))
    return fmt::format("exited with status {}", WEXITSTATUS(St));
  if (WIFSIGNALED(St)) {
    const char *Name = sigabbrev_np(WTERMSIG(St));
    return fmt::format("killed by signal {}{}", WTERMSIG(St),
                       Name ? fmt::format(" (SIG{})", Name) : std::string());
  }
  return fmt::format("stopped with wait status {}", St);
}

std::string ChildProcess::describeExit() const {
  return Status ? describeWaitStatus(*Status) : std::string("still running");
}

bool ChildProcess::stop(std::chrono::milliseconds Grace) {
  if (!started())
    return false;
  auto Gone = [&] {
    running(); // reaps the leader so a zombie does not keep the group alive
    if (groupAlive())
      return false;
    forgetGroup();
    return true;
  };
  if (Gone())
    return false;
  kill(-Pid, SIGTERM);
  // A stopped engine (SIGSTOP, a debugger) would hold SIGTERM pending until
  // the grace ran out; let it act on it.
  kill(-Pid, SIGCONT);
  auto Deadline = Clock::now() + Grace;
  while (Clock::now() < Deadline) {
    if (Gone())
      return false;
    sleepMs(20);
  }
  kill(-Pid, SIGKILL);
  // SIGKILL cannot be ignored; the wait is for the kernel to tear down.
  for (int I = 0; I < 500 && !Gone(); ++I)
    sleepMs(10);
  return true;
}

std::string CommandResult::describe() const {
  return Error.empty() && Status ? describeWaitStatus(*Status) : Error;
}

CommandResult runCommand(const Argv &Command, const ChildEnvironment &Env,
                         const std::string &LogPath, std::chrono::milliseconds Timeout,
                         const std::function<bool()> &ShouldStop, bool SeparateStderr) {
  CommandResult R;
  ChildProcess Child;
  if (!Child.start(Command, Env, LogPath, R.Error,
                   OutputLimits{MaxCommandOutputBytes, MaxCommandLogBytes, SeparateStderr}))
    return R;
  auto Deadline = Clock::now() + Timeout;
  while (Child.running()) {
    if (ShouldStop && ShouldStop()) {
      Child.stop(std::chrono::milliseconds(2000));
      R.Error = "interrupted";
      break;
    }
    if (Timeout.count() > 0 && Clock::now() >= Deadline) {
      Child.stop(std::chrono::milliseconds(2000));
      R.Error = fmt::format("timed out after {:.1f} s", Timeout.count() / 1000.0);
      break;
    }
    sleepMs(10);
  }
  if (Child.groupAlive())
    Child.stop(std::chrono::milliseconds(1000));
  R.Status = Child.waitStatus();
  R.Output = Child.finishOutput(std::chrono::milliseconds(2000), R.OutputTruncated);
  R.ErrorOutput = Child.takeErrorOutput();
  return R;
}

void adoptOrphans() { prctl(PR_SET_CHILD_SUBREAPER, 1); }

size_t killAdoptedOrphans(const std::vector<pid_t> &Keep) {
  std::set<pid_t> Kept(Keep.begin(), Keep.end());
  if (KeeperPid > 0)
    Kept.insert(KeeperPid); // the runtime's own child, not an orphan
  size_t Found = 0;
  for (int Round = 0; Round < 50; ++Round) {
    std::vector<pid_t> Orphans;
    for (pid_t P : childrenOfSelf())
      if (!Kept.count(P))
        Orphans.push_back(P);
    if (Orphans.empty())
      break;
    for (pid_t P : Orphans) {
      ++Found;
      kill(P, SIGKILL);
    }
    for (pid_t P : Orphans) {
      int St;
      waitpid(P, &St, 0);
    }
  }
  return Found;
}

std::string tailOfFile(const std::string &Path, size_t Lines) {
  std::ifstream In(Path, std::ios::binary);
  if (!In)
    return {};
  // Only the end of a multi-gigabyte engine log is of interest.
  In.seekg(0, std::ios::end);
  std::streamoff Size = In.tellg();
  std::streamoff From = std::max<std::streamoff>(0, Size - 64 * 1024);
  In.seekg(From);
  std::deque<std::string> Tail;
  std::string Line;
  bool First = From > 0;
  while (std::getline(In, Line)) {
    if (First) {
      First = false; // a partial line
      continue;
    }
    Tail.push_back(Line);
    if (Tail.size() > Lines)
      Tail.pop_front();
  }
  std::string Out;
  for (const std::string &L : Tail)
    Out += (Out.empty() ? "" : "\n") + L;
  return Out;
}

} // namespace arecipe::runtime
