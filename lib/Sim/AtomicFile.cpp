//===- AtomicFile.cpp - Whole-file writes a reader never sees half of -----===//
#include "AtomicFile.h"

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace arecipe::sim {

bool writeAtomically(const std::string &Path, const std::string &Text) {
  std::string Tmp = fmt::format("{}.tmp.{}", Path, getpid());
  {
    std::ofstream Out(Tmp, std::ios::trunc);
    if (!(Out << Text))
      return false;
  }
  std::error_code Ec;
  fs::rename(Tmp, Path, Ec);
  return !Ec;
}

} // namespace arecipe::sim
