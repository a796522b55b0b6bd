//===- ProgressReport.cpp - What the user sees while a sweep runs ---------===//

#include "arecipe/Runtime/ProgressReport.h"

#include "arecipe/Support/Redaction.h"
#include "arecipe/Support/Utf8.h"

#include <fmt/format.h>

namespace arecipe::runtime {

void ProgressReport::write(std::string_view Text) {
  // The console is a sink like any file: reasons and notes quote commands,
  // logs and engine answers.
  std::string Safe = support::sanitizeUtf8(support::redact(Text));
  std::fwrite(Safe.data(), 1, Safe.size(), Out);
  std::fflush(Out);
}

std::string ProgressReport::prefix() const { return fmt::format("[{}/{}] {}", Index, Count, Id); }

void ProgressReport::clearLive() {
  if (Live && LineShown) {
    std::fputs("\r\x1b[2K", Out);
    LineShown = false;
  }
}

void ProgressReport::redraw() {
  if (!Live)
    return;
  double Elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - CellStart).count();
  std::string Line = fmt::format("{}  {:<10} {:>6.1f}s", prefix(), Phase, Elapsed);
  if (Finished || Failed)
    Line +=
        fmt::format("  requests {} ({} failed)  {:.0f} tok/s", Finished, Failed, TokensPerSecond);
  write("\r\x1b[2K" + Line);
  LineShown = true;
}

void ProgressReport::beginCell(size_t I, size_t N, const std::string &CellId) {
  Index = I;
  Count = N;
  Id = CellId;
  Phase.clear();
  Finished = Failed = 0;
  TokensPerSecond = 0;
  CellStart = std::chrono::steady_clock::now();
}

void ProgressReport::phase(const std::string &Name) {
  Phase = Name;
  if (Live) {
    redraw();
    return;
  }
  write(fmt::format("{}: {}\n", prefix(), Name));
}

void ProgressReport::requests(size_t F, size_t Fl, double Tps) {
  Finished = F;
  Failed = Fl;
  TokensPerSecond = Tps;
  redraw();
}

void ProgressReport::note(const std::string &Text) {
  clearLive();
  write(fmt::format("{}: {}\n", prefix(), Text));
  redraw();
}

void ProgressReport::endCell(const std::string &Status, const std::string &Detail) {
  clearLive();
  double Elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - CellStart).count();
  write(fmt::format("{}: {} after {:.1f}s{}{}\n", prefix(), Status, Elapsed,
                    Detail.empty() ? "" : ": ", Detail));
}

void ProgressReport::message(const std::string &Text) {
  clearLive();
  write(Text + "\n");
}

} // namespace arecipe::runtime
