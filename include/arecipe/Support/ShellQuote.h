//===- ShellQuote.h - Words as POSIX shell text -----------------*- C++ -*-===//
//
// The compiler's `--emit sh` launcher, the runtime's dry run and logs, and
// the Slurm job scripts all turn argv words into shell text. A word made only
// of letters, digits and `_./:=@%+-` is written as it is; any other word,
// and the empty word, is put in single quotes with each `'` written as
// `'\''`, which no POSIX shell expands. One rule for every emitter, so the
// command a dry run prints is the command a script runs.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_SUPPORT_SHELLQUOTE_H
#define ARECIPE_SUPPORT_SHELLQUOTE_H

#include <string>
#include <string_view>
#include <vector>

namespace arecipe::support {

/// One word, quoted when it needs to be.
std::string shellQuote(std::string_view Word);

/// The words quoted and joined with single spaces.
std::string shellJoin(const std::vector<std::string> &Words);

} // namespace arecipe::support

#endif // ARECIPE_SUPPORT_SHELLQUOTE_H
