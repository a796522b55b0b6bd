//===- ShellQuote.cpp - Words as POSIX shell text -------------------------===//

#include "arecipe/Support/ShellQuote.h"

namespace arecipe::support {

namespace {

bool isSafe(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || (C >= '0' && C <= '9') ||
         std::string_view("_./:=@%+-").find(C) != std::string_view::npos;
}

} // namespace

std::string shellQuote(std::string_view Word) {
  bool Plain = !Word.empty();
  for (char C : Word)
    Plain &= isSafe(C);
  if (Plain)
    return std::string(Word);
  std::string Out = "'";
  for (char C : Word) {
    if (C == '\'')
      Out += "'\\''";
    else
      Out += C;
  }
  return Out + "'";
}

std::string shellJoin(const std::vector<std::string> &Words) {
  std::string Out;
  for (const std::string &W : Words) {
    if (!Out.empty())
      Out += ' ';
    Out += shellQuote(W);
  }
  return Out;
}

} // namespace arecipe::support
