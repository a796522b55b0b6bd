//===- SourceText.h - Code point positions to byte locations ---*- C++ -*-===//
//
// ANTLR's C++ runtime decodes its input to UTF-32 and reports positions as
// code point indexes; diagnostics and the AST use byte locations in the
// SourceMgr buffer. A SourceText is one slice of a buffer handed to ANTLR
// (the whole file minus its byte-order mark, or the text of one `${...}`)
// with a table built once so each conversion is O(1). It assumes the slice
// is valid UTF-8 (checked before ANTLR sees it).
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_PARSE_SOURCETEXT_H
#define ARECIPE_LIB_PARSE_SOURCETEXT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/SMLoc.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace arecipe::parse {

class SourceText {
public:
  explicit SourceText(llvm::StringRef Text);

  llvm::StringRef getText() const { return Text; }
  size_t getNumCodePoints() const { return NumCodePoints; }

  /// Byte offset in getText() of code point Index (Index may equal
  /// getNumCodePoints(), meaning the end).
  size_t getByteOffset(size_t Index) const {
    return ByteOffsets.empty() ? Index : ByteOffsets[Index];
  }
  llvm::SMLoc getLoc(size_t CodePointIndex) const {
    return llvm::SMLoc::getFromPointer(Text.data() +
                                       getByteOffset(CodePointIndex));
  }
  /// The half-open byte range of code points [Start, Stop], ANTLR's
  /// inclusive token bounds.
  llvm::SMRange getRange(size_t Start, size_t Stop) const {
    return {getLoc(Start), getLoc(Stop + 1)};
  }
  /// The bytes of code points [Start, Stop].
  llvm::StringRef getBytes(size_t Start, size_t Stop) const {
    size_t B = getByteOffset(Start);
    return Text.substr(B, getByteOffset(Stop + 1) - B);
  }

private:
  llvm::StringRef Text;
  size_t NumCodePoints = 0;
  /// Empty for pure ASCII text, where code point and byte offsets agree.
  std::vector<uint32_t> ByteOffsets;
};

/// The offset of the first byte that is not part of valid UTF-8 (overlong
/// forms, surrogates and values above U+10FFFF are invalid), or none.
std::optional<size_t> findInvalidUTF8(llvm::StringRef Text);

} // namespace arecipe::parse

#endif // ARECIPE_LIB_PARSE_SOURCETEXT_H
