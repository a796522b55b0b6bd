//===- Timeline.h - Each request's virtual times, for the runtime -*- C++
//-*-===//
//
// Under `--sim-clock virtual` the figures of a cell come from the engine's
// own clock, not from what the client saw on the wall clock. This writes,
// for every request that carried the client's sequence number, its virtual
// arrival, the time of every streamed token event, and its end, one JSON
// line each (`--sim-timeline FILE`); arecipe-run puts these times in the
// client's records after the cell. Steps the engine ran without waiting for
// the requests it expected (the gate's grace ran out) are lines of their
// own, so a figure that depended on real-time behaviour is never silent.
// Lines are buffered and written when the engine's fire ends.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_LIB_SIM_TIMELINE_H
#define ARECIPE_LIB_SIM_TIMELINE_H

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace arecipe::sim {

class Timeline {
public:
  Timeline() = default;
  Timeline(const Timeline &) = delete;
  Timeline &operator=(const Timeline &) = delete;
  ~Timeline();

  /// Opens (truncates) \p Path. False with \p Error set when it cannot.
  bool open(const std::string &Path, std::string &Error);
  bool enabled() const { return File != nullptr; }

  /// A request left the engine: \p Outcome is finished, cancelled (its
  /// client went away), reset (fault) or rejected (answered with an error
  /// before the engine saw it; no events).
  void request(uint64_t Seq, const char *Outcome, double Arrival,
               const std::vector<double> &Events, double End);
  /// A step ran although only \p Arrived of the \p Expected requests were
  /// there: the wait for the rest gave up after its real-time grace.
  void forcedStep(double At, uint64_t Arrived, uint64_t Expected);
  void flush();

private:
  std::FILE *File = nullptr;
  std::string Pending;
};

} // namespace arecipe::sim

#endif
