//===- Timeline.cpp - Each request's virtual times, for the runtime -------===//
#include "Timeline.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

namespace arecipe::sim {

Timeline::~Timeline() {
  flush();
  if (Fd >= 0)
    close(Fd);
}

bool Timeline::open(const std::string &Path, std::string &Error) {
  Fd = ::open(Path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (Fd < 0) {
    Error =
        fmt::format("cannot write the timeline {}: {}", Path, strerror(errno));
    return false;
  }
  return true;
}

void Timeline::request(uint64_t Seq, const char *Outcome, double Arrival,
                       const std::vector<double> &Events, double End) {
  if (Fd < 0)
    return;
  // Nanosecond resolution: the runtime turns these into the records'
  // integer nanoseconds, and the same step must give the same integer.
  fmt::format_to(std::back_inserter(Pending),
                 R"({{"seq":{},"outcome":"{}","arrival":{:.9f},"events":[)",
                 Seq, Outcome, Arrival);
  for (size_t I = 0; I < Events.size(); ++I)
    fmt::format_to(std::back_inserter(Pending), "{}{:.9f}", I ? "," : "",
                   Events[I]);
  fmt::format_to(std::back_inserter(Pending),
                 R"(],"end":{:.9f}}})"
                 "\n",
                 End);
}

void Timeline::forcedStep(double At, uint64_t Arrived, uint64_t Expected) {
  if (Fd < 0)
    return;
  fmt::format_to(std::back_inserter(Pending),
                 R"({{"forced_step":{:.9f},"arrived":{},"expected":{}}})"
                 "\n",
                 At, Arrived, Expected);
}

void Timeline::flush() {
  size_t Done = 0;
  while (Fd >= 0 && Done < Pending.size()) {
    ssize_t N = ::write(Fd, Pending.data() + Done, Pending.size() - Done);
    if (N < 0 && errno == EINTR)
      continue;
    if (N <= 0)
      break; // a full disk loses lines; the runtime reports each missing one
    Done += size_t(N);
  }
  Pending.clear();
}

} // namespace arecipe::sim
