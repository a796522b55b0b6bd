//===- Utf8.h - Text from outside, made safe to show and store --*- C++ -*-===//
//
// Engines, pre-flight commands and plan authors hand the tools arbitrary
// bytes: a log line cut in the middle of a multi-byte character, a `\xff`
// from a probe, a NUL or an escape sequence in a plan key. Such text must
// never abort a JSON dump (nlohmann throws on invalid UTF-8) nor forge extra
// lines or terminal control sequences in an error message. These are the
// two ways the tools make it safe: replace what is not UTF-8 (for files
// other programs read), or escape it visibly (for one-line error messages).
// Both use the same decoder: well-formed UTF-8 with no overlong forms, no
// surrogates and nothing above U+10FFFF.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_SUPPORT_UTF8_H
#define ARECIPE_SUPPORT_UTF8_H

#include <string>
#include <string_view>

namespace arecipe::support {

/// True when Text is entirely well-formed UTF-8.
bool isValidUtf8(std::string_view Text);

/// Text with every byte that does not start a well-formed sequence replaced
/// by U+FFFD; valid text is returned unchanged.
std::string sanitizeUtf8(std::string_view Text);

/// Text for one error line: control characters and bytes that are not
/// valid UTF-8 are shown as \n, \t, \r or \xNN.
std::string escapeForErrorLine(std::string_view Text);

} // namespace arecipe::support

#endif // ARECIPE_SUPPORT_UTF8_H
