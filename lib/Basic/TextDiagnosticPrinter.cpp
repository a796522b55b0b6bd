//===- TextDiagnosticPrinter.cpp - Clang-style text output ----------------===//

#include "arecipe/Basic/TextDiagnosticPrinter.h"

#include "arecipe/Basic/SourceLocation.h"

#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/Unicode.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace arecipe;

namespace {

/// Source lines longer than this many bytes are shown as a window around
/// the caret, so a diagnostic in a 50 MB one-line file stays readable.
constexpr size_t MaxShownBytes = 1024;
constexpr unsigned TabStop = 8;

/// One source line as printed: the display text, and for every byte offset
/// of the original line (plus its end) the display column it starts at.
struct DisplayLine {
  std::string Text;
  std::vector<unsigned> ColumnOfByte;
};

/// Appends one character (a tab, a valid UTF-8 sequence, or a single bad
/// byte) and returns how many bytes of Rest it used. Unprintable and invalid
/// input is shown escaped, as clang does, so the terminal never receives raw
/// control bytes from a recipe.
size_t appendChar(llvm::StringRef Rest, std::string &Text, unsigned &Column) {
  unsigned char First = Rest[0];
  if (First == '\t') {
    unsigned Width = TabStop - Column % TabStop;
    Text.append(Width, ' ');
    Column += Width;
    return 1;
  }
  unsigned Len = llvm::getNumBytesForUTF8(First);
  if (Len <= Rest.size() &&
      llvm::isLegalUTF8Sequence(
          reinterpret_cast<const llvm::UTF8 *>(Rest.data()),
          reinterpret_cast<const llvm::UTF8 *>(Rest.data() + Len))) {
    llvm::StringRef Seq = Rest.take_front(Len);
    int Width = llvm::sys::unicode::columnWidthUTF8(Seq);
    if (Width >= 0) {
      Text += Seq;
      Column += Width;
      return Len;
    }
    const llvm::UTF8 *Begin = reinterpret_cast<const llvm::UTF8 *>(Seq.data());
    llvm::UTF32 CodePoint = 0;
    llvm::convertUTF8Sequence(&Begin, Begin + Len, &CodePoint,
                              llvm::strictConversion);
    std::string Escaped;
    llvm::raw_string_ostream(Escaped)
        << "<U+" << llvm::format_hex_no_prefix(CodePoint, 4, true) << ">";
    Text += Escaped;
    Column += Escaped.size();
    return Len;
  }
  std::string Escaped;
  llvm::raw_string_ostream(Escaped)
      << "<" << llvm::format_hex_no_prefix(First, 2, true) << ">";
  Text += Escaped;
  Column += Escaped.size();
  return 1;
}

DisplayLine layOut(llvm::StringRef Line) {
  DisplayLine Result;
  Result.ColumnOfByte.reserve(Line.size() + 1);
  unsigned Column = 0;
  for (size_t I = 0; I < Line.size();) {
    unsigned Start = Column;
    size_t Used = appendChar(Line.drop_front(I), Result.Text, Column);
    Result.ColumnOfByte.insert(Result.ColumnOfByte.end(), Used, Start);
    I += Used;
  }
  Result.ColumnOfByte.push_back(Column);
  return Result;
}

/// The line containing Loc, without its terminator ("\n" or "\r\n").
llvm::StringRef lineAround(llvm::StringRef Buffer, const char *Loc) {
  size_t Offset = Loc - Buffer.data();
  size_t Newline = Buffer.rfind('\n', Offset);
  size_t Begin = Newline == llvm::StringRef::npos ? 0 : Newline + 1;
  size_t End = Buffer.find('\n', Offset);
  if (End == llvm::StringRef::npos)
    End = Buffer.size();
  llvm::StringRef Line = Buffer.slice(Begin, End);
  if (Line.endswith("\r"))
    Line = Line.drop_back();
  return Line;
}

/// Narrows an overlong line to a window around Offset, moved to UTF-8
/// character boundaries; returns the byte offset of the window's start.
size_t clipLine(llvm::StringRef &Line, size_t Offset) {
  if (Line.size() <= MaxShownBytes)
    return 0;
  size_t Begin = Offset > MaxShownBytes / 2 ? Offset - MaxShownBytes / 2 : 0;
  size_t End = std::min(Line.size(), Begin + MaxShownBytes);
  auto IsContinuation = [&](size_t I) {
    return I < Line.size() &&
           (static_cast<unsigned char>(Line[I]) & 0xC0) == 0x80;
  };
  while (Begin < Offset && IsContinuation(Begin))
    ++Begin;
  while (End < Line.size() && IsContinuation(End))
    ++End;
  Line = Line.slice(Begin, End);
  return Begin;
}

} // namespace

TextDiagnosticPrinter::TextDiagnosticPrinter(llvm::raw_ostream &OS,
                                             llvm::StringRef ProgramName,
                                             bool UseColors)
    : OS(OS), ProgramName(ProgramName.str()), UseColors(UseColors) {
  if (UseColors)
    OS.enable_colors(true);
}

void TextDiagnosticPrinter::handleDiagnostic(const llvm::SourceMgr &SM,
                                             const Diagnostic &Diag) {
  printOne(SM, Diag);
  for (const Diagnostic &Note : Diag.Notes)
    printOne(SM, Note);
}

static llvm::raw_ostream::Colors levelColor(DiagLevel Level) {
  switch (Level) {
  case DiagLevel::Error:
    return llvm::raw_ostream::RED;
  case DiagLevel::Warning:
    return llvm::raw_ostream::MAGENTA;
  case DiagLevel::Remark:
    return llvm::raw_ostream::BLUE;
  case DiagLevel::Note:
    return llvm::raw_ostream::BLACK;
  }
  return llvm::raw_ostream::SAVEDCOLOR;
}

void TextDiagnosticPrinter::printOne(const llvm::SourceMgr &SM,
                                     const Diagnostic &Diag) {
  std::optional<std::string> Where = formatLocation(SM, Diag.Loc);

  if (UseColors)
    OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  const llvm::MemoryBuffer *Buffer = nullptr;
  if (Where) {
    Buffer = SM.getMemoryBuffer(SM.FindBufferContainingLoc(Diag.Loc));
    OS << *Where << ": ";
  } else {
    OS << ProgramName << ": ";
  }
  if (UseColors)
    OS.changeColor(levelColor(Diag.Level), /*Bold=*/true);
  OS << getLevelName(Diag.Level) << ": ";
  if (UseColors)
    OS.changeColor(llvm::raw_ostream::SAVEDCOLOR, /*Bold=*/true);
  OS << Diag.Message << '\n';
  if (UseColors)
    OS.resetColor();
  if (!Buffer)
    return;

  llvm::StringRef Text = Buffer->getBuffer();
  llvm::StringRef Line = lineAround(Text, Diag.Loc.getPointer());
  size_t LineStart = Line.data() - Text.data();
  size_t CaretOffset = Diag.Loc.getPointer() - Line.data();
  if (CaretOffset > Line.size())
    CaretOffset = Line.size(); // A location on the "\r" of "\r\n".
  size_t Shift = clipLine(Line, CaretOffset);
  LineStart += Shift;
  CaretOffset -= Shift;
  DisplayLine Shown = layOut(Line);

  // Byte range [Begin, End) of the shown line covered by [Start, Stop) of
  // the buffer, clipped; false when they do not meet.
  auto Clip = [&](llvm::SMRange R, size_t &Begin, size_t &End) {
    size_t S = R.Start.getPointer() - Text.data();
    size_t E = R.End.getPointer() - Text.data();
    if (R.Start.getPointer() < Text.data() || R.End.getPointer() > Text.end() ||
        E < LineStart || S > LineStart + Line.size())
      return false;
    Begin = std::max(S, LineStart) - LineStart;
    End = std::min(E, LineStart + Line.size()) - LineStart;
    return Begin <= End;
  };

  std::string Caret(Shown.ColumnOfByte.back() + 1, ' ');
  for (llvm::SMRange R : Diag.Ranges) {
    size_t Begin, End;
    if (!Clip(R, Begin, End))
      continue;
    for (unsigned C = Shown.ColumnOfByte[Begin]; C < Shown.ColumnOfByte[End];
         ++C)
      Caret[C] = '~';
  }
  Caret[Shown.ColumnOfByte[CaretOffset]] = '^';

  std::string FixItLine;
  for (const FixIt &Fix : Diag.FixIts) {
    size_t Begin, End;
    if (Fix.Text.empty() || Fix.Text.find('\n') != std::string::npos ||
        !Clip(Fix.Range, Begin, End))
      continue;
    unsigned Column = Shown.ColumnOfByte[Begin];
    // Overlapping hints would garble each other; show the first only.
    if (FixItLine.size() > Column && !FixItLine.empty())
      continue;
    FixItLine.resize(Column, ' ');
    FixItLine += Fix.Text;
  }

  OS << Shown.Text << '\n';
  if (UseColors)
    OS.changeColor(llvm::raw_ostream::GREEN, /*Bold=*/true);
  OS << llvm::StringRef(Caret).rtrim(' ') << '\n';
  if (UseColors)
    OS.resetColor();
  if (!FixItLine.empty())
    OS << FixItLine << '\n';
}
