//===- InstallLayout.h - Where a running tool finds its data ----*- C++ -*-===//
//
// The one place that knows where arecipe's data lives. An installed tree
// (`cmake --install`, the .deb) is
//
//   <prefix>/bin/        arecipec, arecipe-run, arecipe-sim, arecipe-load
//   <prefix>/share/arecipe/std/       the standard library (import "std/...")
//   <prefix>/share/arecipe/sim/       the simulator's hardware and model
//                                     profiles (generated from std)
//
// and every tool finds its data relative to its own executable, never
// through a path compiled into the binary, so the tree works wherever it is
// copied or unpacked. The build tree has the same shape (build/bin beside
// build/share/arecipe, whose std is a link to the source std/), so a tool
// run from build/bin finds its data by the same rule. See
// docs/build.md#install.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_SUPPORT_INSTALLLAYOUT_H
#define ARECIPE_SUPPORT_INSTALLLAYOUT_H

#include <string>
#include <string_view>

namespace arecipe::support {

/// The absolute path of the running executable, symbolic links resolved
/// (/proc/self/exe); empty if it cannot be read.
std::string executablePath();

/// The directory holding the running executable; empty if unknown. Sibling
/// tools (arecipe-run starts arecipe-sim and itself) are found here.
std::string executableDir();

/// The data directory of the executable at ExePath:
/// `<dir of ExePath>/../share/arecipe`, normalised, whether or not it
/// exists (a caller that reads from it reports the path it looked at).
/// Empty if ExePath is empty.
std::string dataDirFor(std::string_view ExePath);

/// dataDirFor(executablePath()): the directory that contains `std/`, which
/// is what the compiler searches last for `import "std/..."`.
std::string dataDir();

/// `dataDir()/sim`: arecipe-sim's default `--sim-profiles-dir`. Empty
/// if the executable's path is unknown.
std::string simProfilesDir();

} // namespace arecipe::support

#endif // ARECIPE_SUPPORT_INSTALLLAYOUT_H
