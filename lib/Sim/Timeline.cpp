//===- Timeline.cpp - Each request's virtual times, for the runtime -------===//
#include "Timeline.h"

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace arecipe::sim {

Timeline::~Timeline() {
  flush();
  if (File)
    std::fclose(File);
}

bool Timeline::open(const std::string &Path, std::string &Error) {
  // "e": close-on-exec, so no child inherits the descriptor.
  File = std::fopen(Path.c_str(), "we");
  if (!File) {
    Error =
        fmt::format("cannot write the timeline {}: {}", Path, strerror(errno));
    return false;
  }
  return true;
}

void Timeline::request(uint64_t Seq, const char *Outcome, double Arrival,
                       const std::vector<double> &Events, double End) {
  if (!File)
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
  if (!File)
    return;
  fmt::format_to(std::back_inserter(Pending),
                 R"({{"forced_step":{:.9f},"arrived":{},"expected":{}}})"
                 "\n",
                 At, Arrived, Expected);
}

void Timeline::flush() {
  // A full disk loses lines; the runtime reports each request whose line is
  // missing.
  if (File && !Pending.empty()) {
    std::fwrite(Pending.data(), 1, Pending.size(), File);
    std::fflush(File);
  }
  Pending.clear();
}

} // namespace arecipe::sim
