//===- InstallLayout.cpp - Where a running tool finds its data -----------===//

#include "arecipe/Support/InstallLayout.h"

#include <filesystem>
#include <system_error>

namespace fs = std::filesystem;

// The data directory relative to the directory of the executables, as the
// install rules lay them out (CMAKE_INSTALL_BINDIR, CMAKE_INSTALL_DATADIR);
// the build tree mirrors it. A relative path, so nothing of the machine that
// built the binary is compiled into it.
#ifndef ARECIPE_DATADIR_FROM_BINDIR
#define ARECIPE_DATADIR_FROM_BINDIR "../share/arecipe"
#endif

std::string arecipe::support::executablePath() {
  std::error_code Ec;
  fs::path Self = fs::read_symlink("/proc/self/exe", Ec);
  return Ec ? std::string() : Self.string();
}

std::string arecipe::support::executableDir() {
  std::string Exe = executablePath();
  return Exe.empty() ? std::string() : fs::path(Exe).parent_path().string();
}

std::string arecipe::support::dataDirFor(std::string_view ExePath) {
  if (ExePath.empty())
    return "";
  fs::path Dir = fs::path(ExePath).parent_path() / ARECIPE_DATADIR_FROM_BINDIR;
  return Dir.lexically_normal().string();
}

std::string arecipe::support::dataDir() { return dataDirFor(executablePath()); }

std::string arecipe::support::simProfilesDir() {
  std::string Data = dataDir();
  return Data.empty() ? std::string()
                      : (fs::path(Data) / "sim").string();
}
