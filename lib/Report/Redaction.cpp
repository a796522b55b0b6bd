//===- Redaction.cpp - Keep secrets out of reports ------------------------===//

#include "arecipe/Report/Redaction.h"

#include <cctype>

namespace arecipe::report {

namespace {

bool isNameChar(char C) {
  return std::isalnum(static_cast<unsigned char>(C)) || C == '_' || C == '-' || C == '.';
}

bool endsWith(std::string_view S, std::string_view Suffix) {
  return S.size() >= Suffix.size() && S.substr(S.size() - Suffix.size()) == Suffix;
}

/// Where the value that starts at Pos ends: a quoted value at its closing
/// quote, a bare one at the first blank, comma, brace or quote.
size_t valueEnd(std::string_view Text, size_t Pos) {
  if (Pos < Text.size() && (Text[Pos] == '"' || Text[Pos] == '\'')) {
    size_t Close = Text.find(Text[Pos], Pos + 1);
    return Close == std::string_view::npos ? Text.size() : Close + 1;
  }
  size_t End = Pos;
  while (End < Text.size() && !std::isspace(static_cast<unsigned char>(Text[End])) &&
         Text[End] != ',' && Text[End] != '}' && Text[End] != '"' && Text[End] != '\'')
    ++End;
  return End;
}

} // namespace

bool isSecretName(std::string_view Name) {
  if (size_t Dot = Name.rfind('.'); Dot != std::string_view::npos)
    Name = Name.substr(Dot + 1);
  while (!Name.empty() && Name.front() == '-')
    Name.remove_prefix(1);
  std::string Upper;
  for (char C : Name)
    Upper += C == '-' ? '_' : char(std::toupper(static_cast<unsigned char>(C)));
  return endsWith(Upper, "_TOKEN") || endsWith(Upper, "_KEY") || endsWith(Upper, "_SECRET");
}

std::string redactSecrets(std::string_view Text) {
  std::string Out;
  size_t I = 0;
  while (I < Text.size()) {
    if (!isNameChar(Text[I]) || (I > 0 && isNameChar(Text[I - 1]))) {
      Out += Text[I++];
      continue;
    }
    size_t NameEnd = I;
    while (NameEnd < Text.size() && isNameChar(Text[NameEnd]))
      ++NameEnd;
    std::string_view Name = Text.substr(I, NameEnd - I);
    Out.append(Name);
    I = NameEnd;
    if (!isSecretName(Name))
      continue;
    // The separator between a name and its value: '=', ':' or (for an
    // option) blanks, with the closing quote of a JSON key before it.
    size_t J = I;
    if (J < Text.size() && Text[J] == '"')
      ++J;
    bool Separated = false;
    if (J < Text.size() && (Text[J] == '=' || Text[J] == ':')) {
      ++J;
      Separated = true;
    }
    size_t Blanks = J;
    while (Blanks < Text.size() && (Text[Blanks] == ' ' || Text[Blanks] == '\t'))
      ++Blanks;
    if (!Separated && !(Name.substr(0, 2) == "--" && Blanks > J))
      continue;
    J = Blanks;
    size_t End = valueEnd(Text, J);
    if (End == J)
      continue;
    Out.append(Text.substr(I, J - I));
    bool Quoted = Text[J] == '"' || Text[J] == '\'';
    if (Quoted)
      Out += Text[J];
    Out += RedactedValue;
    if (Quoted && End - J >= 2 && Text[End - 1] == Text[J])
      Out += Text[J];
    I = End;
  }
  return Out;
}

std::vector<std::string> redactArgv(const std::vector<std::string> &Argv) {
  std::vector<std::string> Out;
  bool NextIsSecret = false;
  for (const std::string &Word : Argv) {
    if (NextIsSecret) {
      Out.push_back(RedactedValue);
      NextIsSecret = false;
      continue;
    }
    size_t Eq = Word.find('=');
    std::string_view Name = std::string_view(Word).substr(0, Eq);
    if (isSecretName(Name) && Eq != std::string::npos) {
      Out.push_back(Word.substr(0, Eq + 1) + RedactedValue);
      continue;
    }
    NextIsSecret = Word.size() > 2 && Word.substr(0, 2) == "--" && isSecretName(Name);
    Out.push_back(Word);
  }
  return Out;
}

} // namespace arecipe::report
