//===- ProcessExit.h - Leaving a tool without teardown ------*- C++ -*-===//
//
// A compiler run is a few milliseconds, and a fresh process spends a
// noticeable share of them at exit: destroying the compilation (syntax
// trees, Sema's cells, the source buffers) and static objects (ANTLR's
// DFA and ATN caches) whose memory the kernel takes back anyway. A tool
// that has written, flushed, closed and checked every output of its own
// can end the process here instead (as clang's -disable-free does by
// leaking its compiler instance). A build with a leak checker (ASan's
// LeakSanitizer) never skips teardown, so a leak anywhere else is still
// reported; a tool returns from main as usual there.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_SUPPORT_PROCESSEXIT_H
#define ARECIPE_SUPPORT_PROCESSEXIT_H

namespace arecipe::support {

/// Whether this build checks for leaks at exit, so that teardown must run.
constexpr bool leakCheckedBuild() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

/// Ends the process with Status after flushing C stdio, running no
/// destructor (neither main's locals nor static objects) and no atexit
/// handler. The caller has flushed and closed its own streams and
/// reported their errors. Must not be called in a leakCheckedBuild().
[[noreturn]] void exitWithoutTeardown(int Status);

} // namespace arecipe::support

#endif // ARECIPE_SUPPORT_PROCESSEXIT_H
