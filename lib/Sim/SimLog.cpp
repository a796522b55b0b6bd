//===- SimLog.cpp - The simulator's clock and its log lines ---------------===//
#include "SimLog.h"

#include <cstdio>

#include <fmt/format.h>

namespace arecipe::sim {

static const char *levelName(LogLevel L) {
  switch (L) {
  case LogLevel::Debug:
    return "DEBUG";
  case LogLevel::Info:
    return "INFO";
  case LogLevel::Warning:
    return "WARNING";
  case LogLevel::Error:
    return "ERROR";
  }
  return "INFO";
}

void SimLog::operator()(LogLevel Level, std::string_view Text) const {
  if (Level < Min)
    return;
  // One write per line so interleaving with other writers stays line-sized.
  std::string Line =
      fmt::format("{} [arecipe-sim {} sim={:.3f}s x{:g}] {}\n",
                  levelName(Level), Who, Clock.now(), Clock.scale(), Text);
  fwrite(Line.data(), 1, Line.size(), stderr);
}

} // namespace arecipe::sim
