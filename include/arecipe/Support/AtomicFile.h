//===- AtomicFile.h - Replace a file so readers see old or new --*- C++ -*-===//
//
// Every result, summary, port file and plan copy the tools write must be
// either absent, the previous version, or complete: a reader (a resumed run,
// the report, the readiness probe) must never see half a file, and a crash
// or power loss right after a write must not leave an empty one. This
// writes a temporary file beside the target (created exclusively and never
// through a symbolic link), fsyncs it, renames it over the target and
// fsyncs the directory, so the new name is durable too.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_SUPPORT_ATOMICFILE_H
#define ARECIPE_SUPPORT_ATOMICFILE_H

#include <string>
#include <string_view>
#include <sys/types.h>

namespace arecipe::support {

/// Replaces Path with Contents. Mode applies to a newly created file (0600
/// for a file only the owner may read). Returns false with Err set ("cannot
/// write PATH: reason"); no temporary file is left behind on failure.
bool writeFileAtomically(const std::string &Path, std::string_view Contents, std::string &Err,
                         mode_t Mode = 0644);

/// A cheap identity of a file's current version (inode, size, modification
/// time): it changes when the file is replaced, as writeFileAtomically
/// does, or written to. Empty when the file does not exist. Lets a reader
/// keep what it parsed until the file changes.
std::string fileVersion(const std::string &Path);

} // namespace arecipe::support

#endif // ARECIPE_SUPPORT_ATOMICFILE_H
