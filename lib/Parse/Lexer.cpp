//===- Lexer.cpp - The tokens of a recipe text, comments included --------===//
//
// Runs the generated ANTLR lexer over the text and maps its token types to
// the project's TokenKind, so the generated types never leave lib/Parse.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Parse/Lexer.h"

#include "SourceText.h"

#include "ANTLRInputStream.h"
#include "ARecipeLexer.h"
#include "CommonTokenStream.h"

using namespace arecipe;
using namespace arecipe::parse;
using L = arecipe_antlr::ARecipeLexer;

static TokenKind kindOf(size_t Type) {
  switch (Type) {
  case L::IDENT:
    return TokenKind::Identifier;
  case L::IMPORT: case L::AS: case L::LET: case L::BAND: case L::WHEN:
  case L::AT: case L::CONC: case L::CHECK: case L::PREFLIGHT: case L::TRUE:
  case L::FALSE: case L::NONE: case L::IN: case L::STEP: case L::IF:
  case L::ELSE: case L::AND: case L::OR: case L::NOT: case L::FOR:
    return TokenKind::Keyword;
  case L::RECIPE: case L::HARDWARE: case L::ENGINE: case L::MODEL:
  case L::ROUTER: case L::SERVICE: case L::EXTENDS: case L::ARM: case L::FILE:
  case L::ENUM: case L::KNOB: case L::EMIT: case L::FLAG: case L::SWITCH:
  case L::ARG: case L::ARGS: case L::ENV: case L::JSON: case L::YAML:
  case L::JSON_FILE: case L::EACH: case L::SPREAD: case L::WHERE:
  case L::FLOOR: case L::CEIL: case L::ROUND: case L::TUNE: case L::MAXIMIZE:
  case L::MINIMIZE:
    return TokenKind::ContextualKeyword;
  case L::INT:
  case L::HEX_INT:
    return TokenKind::Integer;
  case L::FLOAT:
    return TokenKind::Float;
  case L::QUANTITY:
    return TokenKind::Quantity;
  case L::STRING:
    return TokenKind::String;
  case L::RAW_STRING:
    return TokenKind::RawString;
  case L::LINE_COMMENT:
    return TokenKind::LineComment;
  case L::BLOCK_COMMENT:
    return TokenKind::BlockComment;
  case L::INVALID_CHAR:
    return TokenKind::Invalid;
  default:
    return TokenKind::Punctuation;
  }
}

std::optional<std::vector<Token>> arecipe::parse::lexTokens(llvm::StringRef Text) {
  if (findInvalidUTF8(Text))
    return std::nullopt;
  Text.consume_front("\xEF\xBB\xBF");
  SourceText Src(Text);
  antlr4::ANTLRInputStream Input(Text.data(), Text.size());
  L Lexer(&Input);
  Lexer.removeErrorListeners();
  std::vector<Token> Tokens;
  try {
    // The lexer has a rule for every character (INVALID_CHAR last), so it
    // never reports; the guard is for runtime failures only.
    for (std::unique_ptr<antlr4::Token> T = Lexer.nextToken();
         T->getType() != antlr4::Token::EOF; T = Lexer.nextToken())
      Tokens.push_back(Token{kindOf(T->getType()),
                             Src.getRange(T->getStartIndex(), T->getStopIndex())});
  } catch (std::exception &) {
    return std::nullopt;
  }
  return Tokens;
}
