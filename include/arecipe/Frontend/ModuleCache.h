//===- ModuleCache.h - Parsed files shared across compilations -*- C++ -*-===//
//
// A process that compiles again and again -- the language server on every
// keystroke, the knob tuner over its candidates, the in-process benchmark --
// re-reads the same std imports each time, and parsing them was a quarter
// of a compilation. A ModuleCache keeps the syntax tree of each file parsed
// through it, so the next CompilerInstance given the same cache reuses it.
//
// What is cached is the parse only: the file's bytes and its tree, in an
// arena of their own. Sema's per-file state (scopes, checked declarations)
// still belongs to each compilation, and the tree is immutable once built
// (Sema and Codegen only read it), so sharing it cannot leak one
// compilation into another.
//
// Never stale: an entry is found by the path the file was read from, the
// buffer name output shows, the parser's limits and the file's whole
// contents. The instance always reads the file (through its file system,
// so an override -- an editor's unsaved buffer -- is what it reads) and a
// cached tree is used only when those bytes equal the cached bytes; an
// edited file, or a different override, is parsed afresh.
//
// Diagnostics are unchanged: only a parse that reported nothing is kept,
// so using it means skipping a parse that would have reported nothing. A
// file with syntax errors or warnings is parsed every time and reports
// every time, exactly as without a cache.
//
// Read once: with the parses, the cache keeps each file of the real file
// system as it last read it, with its stamp (device, inode, size and
// modification time in nanoseconds). A compilation stats each file it
// imports -- it must, to find it -- and does not open or read it again when
// the stamp is the kept one and old enough to be trusted
// (docs/architecture.md, ModuleCache); an override is always read.
//
// Bounded: a path keeps its few most recently used versions (an edited
// document does not pile up one tree per keystroke). Thread-safe: instances
// on several threads may share one cache.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_FRONTEND_MODULECACHE_H
#define ARECIPE_FRONTEND_MODULECACHE_H

#include "arecipe/Parse/Parser.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace arecipe::frontend {

/// One cached parse; defined privately in lib/Frontend. An instance that
/// used it holds it (its buffer and tree) until the instance is gone, so a
/// cache may evict or be destroyed while compilations are still alive.
struct CachedParse;
/// One file of the real file system as the cache last read it.
struct FileRecord;

class ModuleCache {
public:
  /// Keeps at most VersionsPerPath versions of each path.
  explicit ModuleCache(unsigned VersionsPerPath = 4);
  ~ModuleCache();
  ModuleCache(const ModuleCache &) = delete;
  ModuleCache &operator=(const ModuleCache &) = delete;

  struct Stats {
    uint64_t Hits = 0;   ///< Parses skipped.
    uint64_t Misses = 0; ///< Parses done (kept or not).
    uint64_t Entries = 0;
    uint64_t FileReads = 0;  ///< Real files read for want of a trusted stamp.
    uint64_t ReadsSaved = 0; ///< Real files not read: their stamp was kept.
  };
  Stats getStats() const;
  /// Drops every entry (instances keep what they hold).
  void clear();

  /// The parse of Contents read from Path and named DisplayName under
  /// Limits, or null (a miss is counted).
  std::shared_ptr<const CachedParse> lookup(llvm::StringRef Path,
                                            llvm::StringRef DisplayName,
                                            llvm::StringRef Contents,
                                            const parse::ParseLimits &Limits);
  /// Keeps Entry as the most recent version of its path.
  void insert(std::shared_ptr<const CachedParse> Entry);

  /// The record of the real file at Path, or null.
  std::shared_ptr<const FileRecord> findFile(llvm::StringRef Path) const;
  /// Keeps Record as what the cache knows of its path (counted as a read).
  void keepFile(std::shared_ptr<const FileRecord> Record);
  /// Counts a read that a record made unnecessary.
  void countReadSaved();

private:
  unsigned VersionsPerPath;
  mutable std::mutex Mutex;
  /// Per path, most recently used first.
  std::map<std::string, std::vector<std::shared_ptr<const CachedParse>>,
           std::less<>>
      Entries;
  /// Per path, its latest read only (the parses above keep older versions
  /// by their bytes).
  std::map<std::string, std::shared_ptr<const FileRecord>, std::less<>> Files;
  uint64_t Hits = 0, Misses = 0, FileReads = 0, ReadsSaved = 0;
};

} // namespace arecipe::frontend

#endif // ARECIPE_FRONTEND_MODULECACHE_H
