//===- StringLiteralDecoder.cpp - Escapes and `${...}` in strings --------===//

#include "StringLiteralDecoder.h"

#include "arecipe/Basic/Diagnostic.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/ConvertUTF.h"

using namespace arecipe;
using namespace arecipe::parse;

static llvm::SMLoc locOf(const char *P) { return llvm::SMLoc::getFromPointer(P); }

bool arecipe::parse::isTerminatedString(llvm::StringRef Token) {
  if (Token.startswith("r\""))
    return Token.size() >= 3 && Token.endswith("\"");
  // The closing quote is the first unescaped quote after the opening one
  // that is not inside an interpolation's quoted string (the lexer's rule:
  // `${` up to the first `}`, skipping quoted strings without a `}`).
  for (size_t I = 1; I < Token.size(); ++I) {
    if (Token.substr(I).startswith("${")) {
      size_t J = I + 2;
      while (J < Token.size() && Token[J] != '}') {
        if (Token[J] != '"') {
          ++J;
          continue;
        }
        size_t K = Token.find_first_of("\"}", J + 1);
        if (K == llvm::StringRef::npos || Token[K] != '"')
          break;
        J = K + 1;
      }
      if (J < Token.size() && Token[J] == '}') {
        I = J;
        continue;
      }
    }
    if (Token[I] == '\\')
      ++I;
    else if (Token[I] == '"')
      return I + 1 == Token.size();
  }
  return false;
}

/// Decodes `\u{...}` at Text (after the `u`); returns the bytes consumed, or
/// 0 if the escape is malformed.
static size_t decodeUnicodeEscape(llvm::StringRef Text, std::string &Out) {
  if (!Text.startswith("{"))
    return 0;
  size_t Close = Text.find('}');
  if (Close == llvm::StringRef::npos || Close == 1 || Close > 7)
    return 0;
  unsigned Value;
  if (Text.slice(1, Close).getAsInteger(16, Value))
    return 0;
  if (Value > 0x10FFFF || (Value >= 0xD800 && Value <= 0xDFFF))
    return 0;
  char Buf[4];
  char *Ptr = Buf;
  if (!llvm::ConvertCodePointToUTF8(Value, Ptr))
    return 0;
  Out.append(Buf, Ptr);
  return Close + 1;
}

bool arecipe::parse::decodeStringLiteral(llvm::StringRef Token,
                                         DiagnosticEngine *Diags,
                                         std::vector<StringPiece> &Pieces) {
  bool Raw = Token.startswith("r\"");
  llvm::StringRef Body = Token.drop_front(Raw ? 2 : 1);
  if (isTerminatedString(Token))
    Body = Body.drop_back();
  if (Raw) {
    Pieces.push_back({false, Body.str(), {}, {locOf(Token.begin()), locOf(Token.end())}});
    return true;
  }

  bool Ok = true;
  StringPiece Text;
  const char *TextStart = Body.begin();
  auto FlushText = [&](const char *End) {
    if (Text.Text.empty() && TextStart == End)
      return;
    Text.Range = {locOf(TextStart), locOf(End)};
    Pieces.push_back(std::move(Text));
    Text = StringPiece();
  };

  for (size_t I = 0; I < Body.size();) {
    char C = Body[I];
    if (C == '$' && Body.substr(I).startswith("${")) {
      FlushText(Body.begin() + I);
      size_t Close = Body.find('}', I + 2);
      if (Close == llvm::StringRef::npos) {
        if (Diags)
          Diags->report(llvm::SMRange(locOf(Body.begin() + I),
                                      locOf(Body.begin() + I + 2)),
                        DiagID::err_unterminated_interpolation);
        return false;
      }
      // The lexer keeps `"${capture("x")}"` one token so that this is the
      // one error: a quote cannot be written inside an interpolation.
      if (Body.slice(I + 2, Close).contains('"')) {
        if (Diags)
          Diags->report(llvm::SMRange(locOf(Body.begin() + I),
                                      locOf(Body.begin() + Close + 1)),
                        DiagID::err_interpolation_quote)
              << Body.slice(I + 2, Close).trim().str();
        return false;
      }
      StringPiece Interp;
      Interp.IsInterpolation = true;
      Interp.Source = Body.slice(I + 2, Close);
      Interp.Range = {locOf(Body.begin() + I), locOf(Body.begin() + Close + 1)};
      Pieces.push_back(std::move(Interp));
      I = Close + 1;
      TextStart = Body.begin() + I;
      continue;
    }
    if (C != '\\') {
      Text.Text += C;
      ++I;
      continue;
    }
    if (I + 1 >= Body.size()) {
      // A backslash right before the end of the line: the string is
      // unterminated, which the lexical checks report.
      ++I;
      continue;
    }
    char E = Body[I + 1];
    size_t Len = 2;
    switch (E) {
    case '"': Text.Text += '"'; break;
    case '\\': Text.Text += '\\'; break;
    case 'n': Text.Text += '\n'; break;
    case 't': Text.Text += '\t'; break;
    case 'r': Text.Text += '\r'; break;
    case '$': Text.Text += '$'; break;
    case 'u': {
      size_t Used = decodeUnicodeEscape(Body.substr(I + 2), Text.Text);
      if (Used) {
        Len += Used;
        break;
      }
      llvm::StringRef Bad = Body.substr(I, 2);
      size_t Close = Body.find('}', I);
      if (Body.substr(I + 2).startswith("{") && Close != llvm::StringRef::npos)
        Bad = Body.slice(I, Close + 1);
      if (Diags)
        Diags->report(llvm::SMRange(locOf(Bad.begin()), locOf(Bad.end())),
                      DiagID::err_invalid_escape)
            << Bad;
      Ok = false;
      Len = Bad.size();
      break;
    }
    default: {
      // Report the whole (possibly multi-byte) character after the '\'.
      size_t CharLen = llvm::getNumBytesForUTF8(static_cast<llvm::UTF8>(E));
      llvm::StringRef Bad = Body.substr(I, 1 + CharLen);
      if (Diags)
        Diags->report(llvm::SMRange(locOf(Bad.begin()), locOf(Bad.end())),
                      DiagID::err_invalid_escape)
            << Bad;
      Ok = false;
      Len = Bad.size();
      break;
    }
    }
    I += Len;
  }
  FlushText(Body.end());
  return Ok;
}
