//===- AtomicFile.h - Whole-file writes a reader never sees half of -*- C++
//-*-===//
//
// The port file, the fake device-memory file and profiler traces are read by
// other processes while the simulator runs; each is written through a
// temporary file and a rename.
//
//===----------------------------------------------------------------------===//
#ifndef ARECIPE_LIB_SIM_ATOMICFILE_H
#define ARECIPE_LIB_SIM_ATOMICFILE_H

#include <string>

namespace arecipe::sim {

/// Writes \p Text to \p Path through a temporary file and rename, so a
/// reader never sees a partial file.
bool writeAtomically(const std::string &Path, const std::string &Text);

} // namespace arecipe::sim

#endif
