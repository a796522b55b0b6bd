//===- SourceText.cpp - Code point positions to byte locations -----------===//

#include "SourceText.h"

#include "llvm/Support/ConvertUTF.h"

using namespace arecipe::parse;

static bool isContinuationByte(unsigned char C) { return (C & 0xC0) == 0x80; }

SourceText::SourceText(llvm::StringRef Text) : Text(Text) {
  bool Ascii = true;
  for (unsigned char C : Text)
    if (C >= 0x80) {
      Ascii = false;
      break;
    }
  if (Ascii) {
    NumCodePoints = Text.size();
    return;
  }
  // 16 MiB files at most, so offsets fit in 32 bits.
  ByteOffsets.reserve(Text.size() + 1);
  for (size_t I = 0, E = Text.size(); I != E; ++I)
    if (!isContinuationByte(Text[I]))
      ByteOffsets.push_back(static_cast<uint32_t>(I));
  NumCodePoints = ByteOffsets.size();
  ByteOffsets.push_back(static_cast<uint32_t>(Text.size()));
}

std::optional<size_t> arecipe::parse::findInvalidUTF8(llvm::StringRef Text) {
  const auto *Begin = reinterpret_cast<const llvm::UTF8 *>(Text.data());
  const llvm::UTF8 *Cur = Begin;
  if (llvm::isLegalUTF8String(&Cur, Begin + Text.size()))
    return std::nullopt;
  return static_cast<size_t>(Cur - Begin);
}
