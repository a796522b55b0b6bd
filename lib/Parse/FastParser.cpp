//===- FastParser.cpp - A hand-written parser for well-formed text -------===//
//
// Mirrors grammar/ARecipe.g4 rule by rule; the comments name the rule or the
// ANTLR behaviour each piece follows. Two things differ from an ordinary
// recursive-descent parser, both because the ANTLR parser is the reference:
// - The lexer takes the longest match over all token rules, earlier rule
//   first on a tie, exactly as the generated lexer does (so `0x1F` is a
//   HEX_INT, `1e9` a FLOAT and `"a\\" b"` one STRING token).
// - Wherever ANTLR's adaptive prediction would look further ahead than this
//   parser does (an optional contextual keyword that could start the next
//   statement, two ranges in one expression, a conditional inside a
//   comprehension's source), it gives up rather than guess.
// Giving up is a C++ exception (Bail) caught at the entry points: it keeps
// every rule free of error plumbing, and it is thrown only for text the
// reference path then parses (almost always text with an error).
//
//===----------------------------------------------------------------------===//

#include "FastParser.h"

#include "Literals.h"
#include "StringLiteralDecoder.h"

#include "arecipe/AST/ASTContext.h"
#include "arecipe/AST/Decl.h"
#include "arecipe/Basic/Diagnostic.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringSwitch.h"

#include <algorithm>
#include <vector>

using namespace arecipe;
using namespace arecipe::ast;
using namespace arecipe::parse;
using llvm::SMLoc;
using llvm::SMRange;
using llvm::StringRef;

namespace {

/// The token types of grammar/ARecipe.g4 that reach the parser.
// clang-format off
enum class Tok : uint8_t {
  Eof,
  Ident,
  Int,
  HexInt,
  Float,
  Quantity,
  String,
  RawString,
  // Reserved keywords.
  Import, As, Let, Band, When, At, Conc, Check, Preflight, True, False, None,
  In, Step, If, Else, And, Or, Not, For,
  // Contextual keywords: names wherever a name is expected (rule `ident`).
  Recipe, Hardware, Engine, Model, Router, Service, Extends, Arm, File, Enum,
  Knob, Emit, Flag, Switch, Arg, Args, Env, Json, Yaml, JsonFile, Each,
  Spread, Where, Floor, Ceil, Round, Tune, Maximize, Minimize,
  // Punctuation.
  LBrace, RBrace, LBrack, RBrack, LParen, RParen, Comma, Semi, Colon,
  Question, Range, Dot, Arrow, Eq, Ne, Le, Ge, Lt, Gt, Assign, Plus, Minus,
  Star, Slash, Percent,
};
// clang-format on

bool isIdent(Tok K) {
  return K == Tok::Ident || (K >= Tok::Recipe && K <= Tok::Minimize);
}
bool isComparisonTok(Tok K) { return K >= Tok::Eq && K <= Tok::Gt; }

struct Token {
  Tok Kind;
  const char *Begin;
  uint32_t Len;
};

/// Thrown to give up; see the file comment.
struct Bail {};

[[noreturn]] void bail() { throw Bail(); }

//===-- Lexer -------------------------------------------------------------===//

bool isDigit(char C) { return C >= '0' && C <= '9'; }
bool isLetter(char C) {
  return (C >= 'a' && C <= 'z') || (C >= 'A' && C <= 'Z') || C == '_';
}
bool isWordChar(char C) { return isLetter(C) || isDigit(C); }
bool isHexOrUnderscore(char C) {
  return isDigit(C) || (C >= 'a' && C <= 'f') || (C >= 'A' && C <= 'F') ||
         C == '_';
}

Tok keywordOrIdent(StringRef W) {
  return llvm::StringSwitch<Tok>(W)
      .Case("import", Tok::Import)
      .Case("as", Tok::As)
      .Case("let", Tok::Let)
      .Case("band", Tok::Band)
      .Case("when", Tok::When)
      .Case("at", Tok::At)
      .Case("conc", Tok::Conc)
      .Case("check", Tok::Check)
      .Case("preflight", Tok::Preflight)
      .Case("true", Tok::True)
      .Case("false", Tok::False)
      .Case("none", Tok::None)
      .Case("in", Tok::In)
      .Case("step", Tok::Step)
      .Case("if", Tok::If)
      .Case("else", Tok::Else)
      .Case("and", Tok::And)
      .Case("or", Tok::Or)
      .Case("not", Tok::Not)
      .Case("for", Tok::For)
      .Case("recipe", Tok::Recipe)
      .Case("hardware", Tok::Hardware)
      .Case("engine", Tok::Engine)
      .Case("model", Tok::Model)
      .Case("router", Tok::Router)
      .Case("service", Tok::Service)
      .Case("extends", Tok::Extends)
      .Case("arm", Tok::Arm)
      .Case("file", Tok::File)
      .Case("enum", Tok::Enum)
      .Case("knob", Tok::Knob)
      .Case("emit", Tok::Emit)
      .Case("flag", Tok::Flag)
      .Case("switch", Tok::Switch)
      .Case("arg", Tok::Arg)
      .Case("args", Tok::Args)
      .Case("env", Tok::Env)
      .Case("json", Tok::Json)
      .Case("yaml", Tok::Yaml)
      .Case("json_file", Tok::JsonFile)
      .Case("each", Tok::Each)
      .Case("spread", Tok::Spread)
      .Case("where", Tok::Where)
      .Case("floor", Tok::Floor)
      .Case("ceil", Tok::Ceil)
      .Case("round", Tok::Round)
      .Case("tune", Tok::Tune)
      .Case("maximize", Tok::Maximize)
      .Case("minimize", Tok::Minimize)
      .Default(Tok::Ident);
}

class Lexer {
public:
  Lexer(StringRef Text, unsigned MaxNesting)
      : S(Text.data()), N(Text.size()), MaxNesting(MaxNesting) {}

  /// Every token of the text, then Eof; bails at any lexical error, at
  /// brackets nested deeper than the limit, and at a string whose extent
  /// the longest-match rule might set otherwise than a left-to-right scan.
  void lex(std::vector<Token> &Out) {
    size_t I = 0;
    unsigned Depth = 0;
    while (true) {
      while (I < N && (S[I] == ' ' || S[I] == '\t' || S[I] == '\r' ||
                       S[I] == '\n' || S[I] == '\f'))
        ++I;
      if (I >= N)
        break;
      char C = S[I];
      if (C == '/' && I + 1 < N && S[I + 1] == '/') {
        while (I < N && S[I] != '\r' && S[I] != '\n')
          ++I;
        continue;
      }
      if (C == '/' && I + 1 < N && S[I + 1] == '*') {
        StringRef Rest(S + I + 2, N - I - 2);
        size_t Close = Rest.find("*/");
        if (Close == StringRef::npos)
          bail(); // err_unterminated_block_comment
        I += 2 + Close + 2;
        continue;
      }
      size_t Start = I;
      Tok K;
      if (isDigit(C)) {
        I = lexNumber(I, K);
      } else if (isLetter(C)) {
        while (I < N && isWordChar(S[I]))
          ++I;
        if (I - Start == 1 && C == 'r' && I < N && S[I] == '"') {
          // RAW_STRING : 'r"' ~["\r\n]* '"'? (longer than IDENT `r`).
          ++I;
          while (I < N && S[I] != '"' && S[I] != '\r' && S[I] != '\n')
            ++I;
          if (I >= N || S[I] != '"')
            bail(); // err_unterminated_string
          ++I;
          K = Tok::RawString;
        } else {
          K = keywordOrIdent(StringRef(S + Start, I - Start));
        }
      } else if (C == '"') {
        I = lexString(I);
        K = Tok::String;
      } else {
        I = lexPunctuation(I, K);
        if (K == Tok::LParen || K == Tok::LBrack || K == Tok::LBrace) {
          if (++Depth > MaxNesting)
            bail(); // err_nesting_too_deep
        } else if ((K == Tok::RParen || K == Tok::RBrack || K == Tok::RBrace) &&
                   Depth) {
          --Depth;
        }
      }
      Out.push_back({K, S + Start, static_cast<uint32_t>(I - Start)});
    }
    Out.push_back({Tok::Eof, S + N, 0});
  }

private:
  /// The end of EXPONENT (`[eE] [+-]? DIGIT+`) at I, or 0 if none.
  size_t exponentEnd(size_t I) const {
    if (I >= N || (S[I] != 'e' && S[I] != 'E'))
      return 0;
    ++I;
    if (I < N && (S[I] == '+' || S[I] == '-'))
      ++I;
    if (I >= N || !isDigit(S[I]))
      return 0;
    while (I < N && isDigit(S[I]))
      ++I;
    return I;
  }
  size_t digitsEnd(size_t I) const {
    while (I < N && (isDigit(S[I]) || S[I] == '_'))
      ++I;
    return I;
  }

  /// HEX_INT, FLOAT, INT, QUANTITY: the longest match, the first of these
  /// rules on a tie.
  size_t lexNumber(size_t Start, Tok &K) {
    size_t HexEnd = 0;
    if (S[Start] == '0' && Start + 1 < N &&
        (S[Start + 1] == 'x' || S[Start + 1] == 'X')) {
      HexEnd = Start + 2;
      while (HexEnd < N && isHexOrUnderscore(S[HexEnd]))
        ++HexEnd;
    }
    size_t IntEnd = digitsEnd(Start + 1);
    size_t FracEnd = 0; // After `'.' DIGIT [0-9_]*`, if there is one.
    if (IntEnd + 1 < N && S[IntEnd] == '.' && isDigit(S[IntEnd + 1]))
      FracEnd = digitsEnd(IntEnd + 2);
    size_t FloatEnd = 0;
    if (FracEnd) {
      size_t E = exponentEnd(FracEnd);
      FloatEnd = E ? E : FracEnd;
    } else if (size_t E = exponentEnd(IntEnd)) {
      FloatEnd = E;
    }
    // QUANTITY: a mantissa (with or without its fraction), an optional
    // exponent, then a unit word.
    size_t QuantEnd = 0;
    for (size_t Mantissa : {IntEnd, FracEnd}) {
      if (!Mantissa)
        continue;
      for (size_t UnitStart : {Mantissa, exponentEnd(Mantissa)}) {
        if (!UnitStart || UnitStart >= N || !isLetter(S[UnitStart]))
          continue;
        size_t End = UnitStart + 1;
        while (End < N && isWordChar(S[End]))
          ++End;
        QuantEnd = std::max(QuantEnd, End);
      }
    }
    size_t Best = HexEnd;
    K = Tok::HexInt;
    if (FloatEnd > Best) {
      Best = FloatEnd;
      K = Tok::Float;
    }
    if (IntEnd > Best) {
      Best = IntEnd;
      K = Tok::Int;
    }
    if (QuantEnd > Best) {
      Best = QuantEnd;
      K = Tok::Quantity;
    }
    return Best;
  }

  /// STRING, closed on its line. An escape is a backslash and one
  /// character, so the first quote that no backslash escapes closes the
  /// string. The rule's closing quote is optional, so its longest match can
  /// still run past that quote when an open `${` could quote it
  /// (`"${a" + "}"` is one token): such strings, like unterminated ones,
  /// are left to the reference path.
  size_t lexString(size_t Start) {
    size_t I = Start + 1;
    while (true) {
      if (I >= N || S[I] == '\r' || S[I] == '\n')
        bail(); // err_unterminated_string
      char C = S[I];
      if (C == '"')
        break;
      if (C == '\\') {
        if (I + 1 >= N || S[I + 1] == '\r' || S[I + 1] == '\n')
          bail(); // err_unterminated_string
        I += 2;
        continue;
      }
      if (C == '$' && I + 1 < N && S[I + 1] == '{') {
        I += 2;
        while (I < N && S[I] != '}' && S[I] != '"' && S[I] != '\r' &&
               S[I] != '\n')
          ++I;
        if (I >= N || S[I] != '}')
          bail(); // a quote inside `${...}`, or no `}` on the line
        ++I;
        continue;
      }
      ++I;
    }
    return I + 1;
  }

  size_t lexPunctuation(size_t I, Tok &K) {
    char Next = I + 1 < N ? S[I + 1] : '\0';
    // The two-character operator when its second character follows (the
    // longest match), else the one-character one.
    auto OneOrTwo = [&](char Second, Tok Two, Tok One) {
      K = Next == Second ? Two : One;
      return I + (Next == Second ? 2 : 1);
    };
    switch (S[I]) {
    case '.':
      return OneOrTwo('.', Tok::Range, Tok::Dot);
    case '-':
      return OneOrTwo('>', Tok::Arrow, Tok::Minus);
    case '=':
      return OneOrTwo('=', Tok::Eq, Tok::Assign);
    case '<':
      return OneOrTwo('=', Tok::Le, Tok::Lt);
    case '>':
      return OneOrTwo('=', Tok::Ge, Tok::Gt);
    case '!':
      if (Next != '=')
        bail(); // err_invalid_character
      K = Tok::Ne;
      return I + 2;
    default:
      break;
    }
    static constexpr struct {
      char C;
      Tok K;
    } Single[] = {{'{', Tok::LBrace},   {'}', Tok::RBrace}, {'[', Tok::LBrack},
                  {']', Tok::RBrack},   {'(', Tok::LParen}, {')', Tok::RParen},
                  {',', Tok::Comma},    {';', Tok::Semi},   {':', Tok::Colon},
                  {'?', Tok::Question}, {'+', Tok::Plus},   {'*', Tok::Star},
                  {'/', Tok::Slash},    {'%', Tok::Percent}};
    for (const auto &P : Single)
      if (P.C == S[I]) {
        K = P.K;
        return I + 1;
      }
    bail(); // err_invalid_character
  }

  const char *S;
  size_t N;
  unsigned MaxNesting;
};

//===-- Parser ------------------------------------------------------------===//

/// An expression as parsed: its node, the tokens it spans (parentheses
/// around it included, as ANTLR's rule contexts do for the enclosing
/// node's range), and its height in the AST builder's depth measure.
struct PExpr {
  Expr *E;
  uint32_t First, Last;
  uint32_t Height;
  /// A comparison not in parentheses (for err_chained_comparison).
  bool IsComparison = false;
};

// clang-format off
BinaryOp binaryOpFor(Tok K) {
  switch (K) {
  case Tok::Star: return BinaryOp::Mul;
  case Tok::Slash: return BinaryOp::Div;
  case Tok::Percent: return BinaryOp::Rem;
  case Tok::Plus: return BinaryOp::Add;
  case Tok::Minus: return BinaryOp::Sub;
  case Tok::Eq: return BinaryOp::Eq;
  case Tok::Ne: return BinaryOp::Ne;
  case Tok::Lt: return BinaryOp::Lt;
  case Tok::Le: return BinaryOp::Le;
  case Tok::Gt: return BinaryOp::Gt;
  case Tok::Ge: return BinaryOp::Ge;
  case Tok::In: return BinaryOp::In;
  case Tok::And: return BinaryOp::And;
  default: return BinaryOp::Or;
  }
}

/// The precedence of the operator alternative of `expr` that token K
/// begins, as numbered in the generated ARecipeParser::expr(int) (the
/// first alternative binds tightest); 0 if K continues no expression.
unsigned operatorPrecedence(Tok K) {
  switch (K) {
  case Tok::Dot: return 14;
  case Tok::LParen: return 13;
  case Tok::LBrack: return 12;
  case Tok::As: return 11;
  case Tok::Star: case Tok::Slash: case Tok::Percent: return 9;
  case Tok::Plus: case Tok::Minus: return 8;
  case Tok::Range: return 7;
  case Tok::Eq: case Tok::Ne: case Tok::Lt: case Tok::Le: case Tok::Gt:
  case Tok::Ge: case Tok::In: return 5;
  case Tok::And: return 3;
  case Tok::Or: return 2;
  case Tok::If: return 1;
  default: return 0;
  }
}
// clang-format on

class Parser {
public:
  Parser(const std::vector<Token> &Toks, ASTContext &Ctx,
         const ParseLimits &Limits, std::vector<SMRange> *ExtraSemis)
      : Toks(Toks), Ctx(Ctx), Limits(Limits), ExtraSemis(ExtraSemis) {}

  File *parseFile(StringRef Name, SMRange FileRange);
  /// `standaloneExpr` and `interpolation`: expr EOF.
  Expr *parseWholeExpr() {
    Expr *E = parseRootExpr();
    expect(Tok::Eof);
    return E;
  }

private:
  // Tokens.
  Tok cur() const { return Toks[Pos].Kind; }
  Tok peek(size_t Ahead = 1) const {
    size_t I = std::min(Pos + Ahead, Toks.size() - 1);
    return Toks[I].Kind;
  }
  uint32_t expect(Tok K) {
    if (cur() != K)
      bail();
    return static_cast<uint32_t>(Pos++);
  }
  SMRange rangeOf(uint32_t First, uint32_t Last) const {
    return {SMLoc::getFromPointer(Toks[First].Begin),
            SMLoc::getFromPointer(Toks[Last].Begin + Toks[Last].Len)};
  }
  SMRange rangeOf(uint32_t I) const { return rangeOf(I, I); }
  uint32_t last() const { return static_cast<uint32_t>(Pos - 1); }
  StringRef textOf(uint32_t I) const { return {Toks[I].Begin, Toks[I].Len}; }

  Identifier ident() {
    if (!isIdent(cur()))
      bail();
    uint32_t I = static_cast<uint32_t>(Pos++);
    return Identifier{Ctx.copyString(textOf(I)), rangeOf(I)};
  }
  /// An optional contextual keyword (`each`, `floor`, `where`) is taken
  /// only where no statement or tune item could start with it instead;
  /// ANTLR's prediction would look further ahead there. AssignFollows: an
  /// `=` after the keyword continues the statement (`flag "--x" each = v`,
  /// where ANTLR resolves the ambiguity with `each = v` by taking the
  /// keyword, its first alternative).
  void checkOptionalKeyword(bool AssignFollows = false) const {
    Tok Next = peek();
    if ((Next == Tok::Assign && !AssignFollows) || Next == Tok::Dot ||
        Next == Tok::LBrace || Next == Tok::In || Next == Tok::Slash ||
        isComparisonTok(Next))
      bail();
  }
  /// `;` where no statement ended: after `;`, after `{` or first in file.
  void semicolon() {
    uint32_t I = expect(Tok::Semi);
    if (ExtraSemis && (I == 0 || Toks[I - 1].Kind == Tok::Semi ||
                       Toks[I - 1].Kind == Tok::LBrace))
      ExtraSemis->push_back(rangeOf(I));
  }

  // Declarations and statements.
  ImportDecl *parseImport();
  Decl *parseEntity();
  Decl *parseEnum();
  LetDecl *parseLetDecl();
  Decl *parseTune();
  void parseTuneBody(llvm::SmallVectorImpl<TuneItem> &Items);
  Block parseBlock();
  Stmt *parseStmt();
  Stmt *parseKnob();
  TypeRef *parseType(unsigned Depth);
  RenderClause parseRender();
  StringLiteral *parseStringLit();
  void parseArgs(llvm::SmallVectorImpl<Argument> &Args, uint32_t &Height);

  /// `(ASSIGN expr)?` after a flag or switch statement.
  Expr *parseOptionalValue() {
    if (cur() != Tok::Assign)
      return nullptr;
    ++Pos;
    return parseRootExpr();
  }
  /// `CONC expr (COMMA expr)*` of `at conc` (statement and tune item).
  void parseConcs(llvm::SmallVectorImpl<Expr *> &Concs) {
    expect(Tok::Conc);
    Concs.push_back(parseRootExpr());
    while (cur() == Tok::Comma) {
      ++Pos;
      Concs.push_back(parseRootExpr());
    }
  }

  // Expressions.
  Expr *parseRootExpr();
  PExpr parseScopedExpr(bool CompSource = false);
  PExpr parseExpr(unsigned Prec);
  PExpr parsePrimary();
  StringLiteral *parseString(uint32_t I);

  const std::vector<Token> &Toks;
  size_t Pos = 0;
  ASTContext &Ctx;
  const ParseLimits &Limits;
  std::vector<SMRange> *ExtraSemis;
  /// Nested parseExpr/parseType calls, bounded (maxRecursion) so that no
  /// input can exhaust the stack; deeper text goes to the reference path,
  /// which has its own guard.
  unsigned Recursion = 0;
  unsigned maxRecursion() const { return std::min(Limits.MaxExprDepth, 512u); }
  /// Ranges (`..`) seen in the current bracket-delimited expression: with
  /// two, which one is stepped is a choice of ANTLR's prediction.
  unsigned RangesInScope = 0;
  /// In a comprehension's source, where a bare `if` starts the filter.
  bool InCompSource = false;
};

/// Counts one level of recursion for the duration of a rule.
class RecursionGuard {
public:
  RecursionGuard(unsigned &Counter, unsigned Limit) : Counter(Counter) {
    if (++Counter > Limit)
      bail();
  }
  ~RecursionGuard() { --Counter; }

private:
  unsigned &Counter;
};

File *Parser::parseFile(StringRef Name, SMRange FileRange) {
  llvm::SmallVector<ImportDecl *, 8> Imports;
  llvm::SmallVector<Decl *, 16> Decls;
  // file : importDecl* (declaration | SEMI)* EOF
  while (cur() == Tok::Import)
    Imports.push_back(parseImport());
  while (cur() != Tok::Eof) {
    switch (cur()) {
    case Tok::Semi:
      semicolon();
      break;
    case Tok::Recipe:
    case Tok::Hardware:
    case Tok::Engine:
    case Tok::Model:
    case Tok::Router:
    case Tok::Service:
      Decls.push_back(parseEntity());
      break;
    case Tok::Enum:
      Decls.push_back(parseEnum());
      break;
    case Tok::Let:
      Decls.push_back(parseLetDecl());
      break;
    case Tok::Tune:
      Decls.push_back(parseTune());
      break;
    default:
      bail();
    }
  }
  return Ctx.create<File>(FileRange, Ctx.copyString(Name),
                          Ctx.copyArray(llvm::ArrayRef<ImportDecl *>(Imports)),
                          Ctx.copyArray(llvm::ArrayRef<Decl *>(Decls)));
}

ImportDecl *Parser::parseImport() {
  // importDecl : IMPORT target=STRING (AS alias=ident)?
  uint32_t First = expect(Tok::Import);
  uint32_t Target = expect(Tok::String);
  std::vector<StringPiece> Pieces;
  if (!decodeStringLiteral(textOf(Target), nullptr, Pieces))
    bail();
  llvm::SmallVector<StringPart, 2> Parts;
  for (StringPiece &Piece : Pieces) {
    // The reference drops an import with an interpolation without a word.
    if (Piece.IsInterpolation)
      bail();
    Parts.push_back({Ctx.copyString(Piece.Text), nullptr, Piece.Range});
  }
  auto *Lit = Ctx.create<StringLiteral>(
      rangeOf(Target), false, Ctx.copyArray(llvm::ArrayRef<StringPart>(Parts)));
  Identifier Alias;
  if (cur() == Tok::As) {
    ++Pos;
    Alias = ident();
  }
  return Ctx.create<ImportDecl>(rangeOf(First, last()), Lit, Alias);
}

Decl *Parser::parseEntity() {
  uint32_t First = static_cast<uint32_t>(Pos);
  EntityKind Kind = EntityKind::Recipe;
  switch (cur()) {
  case Tok::Hardware:
    Kind = EntityKind::Hardware;
    break;
  case Tok::Engine:
    Kind = EntityKind::Engine;
    break;
  case Tok::Model:
    Kind = EntityKind::Model;
    break;
  case Tok::Router:
    Kind = EntityKind::Router;
    break;
  case Tok::Service:
    Kind = EntityKind::Service;
    break;
  default:
    break;
  }
  ++Pos;
  Identifier Name = ident();
  llvm::SmallVector<Identifier, 2> Parent;
  if (cur() == Tok::Extends) {
    // EXTENDS is a name too, but `recipe x extends {` is no entity.
    ++Pos;
    Parent.push_back(ident());
    while (cur() == Tok::Dot) {
      ++Pos;
      Parent.push_back(ident());
    }
  }
  Block Body = parseBlock();
  return Ctx.create<EntityDecl>(
      rangeOf(First, last()), Kind, Name,
      Ctx.copyArray(llvm::ArrayRef<Identifier>(Parent)), Body);
}

Decl *Parser::parseEnum() {
  // enumDecl : ENUM name=ident LBRACE (ident (COMMA ident)* COMMA?)? RBRACE
  uint32_t First = expect(Tok::Enum);
  Identifier Name = ident();
  expect(Tok::LBrace);
  llvm::SmallVector<Identifier, 8> Members;
  while (cur() != Tok::RBrace) {
    Members.push_back(ident());
    if (cur() != Tok::Comma)
      break;
    ++Pos;
  }
  expect(Tok::RBrace);
  return Ctx.create<EnumDecl>(
      rangeOf(First, last()), Name,
      Ctx.copyArray(llvm::ArrayRef<Identifier>(Members)));
}

LetDecl *Parser::parseLetDecl() {
  uint32_t First = expect(Tok::Let);
  Identifier Name = ident();
  expect(Tok::Assign);
  Expr *Value = parseRootExpr();
  return Ctx.create<LetDecl>(rangeOf(First, last()), Name, Value);
}

Decl *Parser::parseTune() {
  // tuneDecl : TUNE name=ident FOR recipe=ident tuneBody
  uint32_t First = expect(Tok::Tune);
  Identifier Name = ident();
  expect(Tok::For);
  Identifier Recipe = ident();
  llvm::SmallVector<TuneItem, 8> Items;
  parseTuneBody(Items);
  return Ctx.create<TuneDecl>(rangeOf(First, last()), Name, Recipe,
                              Ctx.copyArray(llvm::ArrayRef<TuneItem>(Items)));
}

void Parser::parseTuneBody(llvm::SmallVectorImpl<TuneItem> &Items) {
  expect(Tok::LBrace);
  while (cur() != Tok::RBrace) {
    if (cur() == Tok::Semi) {
      semicolon();
      continue;
    }
    uint32_t First = static_cast<uint32_t>(Pos);
    TuneItem Item;
    llvm::SmallVector<TuneItem, 8> Inner;
    Tok Next = peek();
    if (cur() == Tok::Band) {
      ++Pos;
      Item.K = TuneItem::Band;
      Item.Name = ident();
      parseTuneBody(Inner);
    } else if (cur() == Tok::At) {
      ++Pos;
      llvm::SmallVector<Expr *, 4> Concs;
      parseConcs(Concs);
      parseTuneBody(Inner);
      Item.K = TuneItem::At;
      Item.Concs = Ctx.copyArray(llvm::ArrayRef<Expr *>(Concs));
    } else if ((cur() == Tok::Maximize || cur() == Tok::Minimize) &&
               isIdent(Next)) {
      Item.K = TuneItem::Objective;
      Item.Maximize = cur() == Tok::Maximize;
      ++Pos;
      Item.Name = ident();
    } else if (isIdent(cur()) && Next == Tok::In) {
      Item.K = TuneItem::Candidates;
      Item.Name = ident();
      ++Pos;
      Item.Value = parseRootExpr();
    } else if (isIdent(cur()) && isComparisonTok(Next)) {
      Item.K = TuneItem::Constraint;
      Item.Name = ident();
      Item.Op = binaryOpFor(cur());
      ++Pos;
      Item.Value = parseRootExpr();
      // unit=tuneUnit? : a name here could also start the next item.
      if (isIdent(cur())) {
        Tok After = peek();
        bool IsUnit = true;
        if (After == Tok::In || isComparisonTok(After))
          IsUnit = false;
        else if ((cur() == Tok::Maximize || cur() == Tok::Minimize) &&
                 isIdent(After))
          bail();
        if (IsUnit) {
          uint32_t UnitFirst = static_cast<uint32_t>(Pos);
          std::string Unit = ident().Name.str();
          while (cur() == Tok::Slash) {
            ++Pos;
            Unit += "/" + ident().Name.str();
          }
          Item.Unit =
              Identifier{Ctx.copyString(Unit), rangeOf(UnitFirst, last())};
        }
      }
    } else {
      bail();
    }
    Item.Range = rangeOf(First, last());
    Item.Items = Ctx.copyArray(llvm::ArrayRef<TuneItem>(Inner));
    Items.push_back(Item);
  }
  ++Pos;
}

Block Parser::parseBlock() {
  uint32_t LBrace = expect(Tok::LBrace);
  llvm::SmallVector<Stmt *, 16> Stmts;
  while (cur() != Tok::RBrace) {
    if (cur() == Tok::Semi)
      semicolon();
    else
      Stmts.push_back(parseStmt());
  }
  uint32_t RBrace = expect(Tok::RBrace);
  return Block{rangeOf(LBrace).Start, rangeOf(RBrace).Start,
               Ctx.copyArray(llvm::ArrayRef<Stmt *>(Stmts))};
}

StringLiteral *Parser::parseStringLit() {
  if (cur() != Tok::String && cur() != Tok::RawString)
    bail();
  return parseString(static_cast<uint32_t>(Pos++));
}

Stmt *Parser::parseStmt() {
  uint32_t First = static_cast<uint32_t>(Pos);
  Tok K = cur();
  Tok Next = peek();
  auto R = [&] { return rangeOf(First, last()); };
  switch (K) {
  case Tok::Let: {
    ++Pos;
    Identifier Name = ident();
    expect(Tok::Assign);
    Expr *Value = parseRootExpr();
    return Ctx.create<LetStmt>(R(), Name, Value);
  }
  case Tok::Band: {
    // bandStmt : BAND name=ident WHEN cond=expr block
    ++Pos;
    Identifier Name = ident();
    expect(Tok::When);
    Expr *Cond = parseRootExpr();
    Block Body = parseBlock();
    return Ctx.create<BandStmt>(R(), Name, Cond, Body);
  }
  case Tok::At: {
    ++Pos;
    llvm::SmallVector<Expr *, 4> Concs;
    parseConcs(Concs);
    Block Body = parseBlock();
    return Ctx.create<AtConcStmt>(
        R(), Ctx.copyArray(llvm::ArrayRef<Expr *>(Concs)), Body);
  }
  case Tok::Check: {
    ++Pos;
    Expr *Cond = parseRootExpr();
    expect(Tok::Colon);
    StringLiteral *Message = parseStringLit();
    return Ctx.create<CheckStmt>(R(), Cond, Message);
  }
  case Tok::Preflight: {
    // preflightStmt : PREFLIGHT action=ident LPAREN argList? RPAREN; the
    // arguments are one level below the statement.
    ++Pos;
    Identifier Action = ident();
    llvm::SmallVector<Argument, 4> Args;
    uint32_t Height = 0;
    parseArgs(Args, Height);
    if (Height + 1 > Limits.MaxExprDepth)
      bail();
    return Ctx.create<PreflightStmt>(
        R(), Action, Ctx.copyArray(llvm::ArrayRef<Argument>(Args)));
  }
  default:
    break;
  }
  if (!isIdent(K))
    bail();
  // Statements that begin with a contextual keyword, told apart from
  // `name { ... }` and `path = expr` by the next token.
  bool IsString = Next == Tok::String || Next == Tok::RawString;
  if (K == Tok::Arm && isIdent(Next)) {
    ++Pos;
    Identifier Name = ident();
    Block Body = parseBlock();
    return Ctx.create<ArmStmt>(R(), Name, Body);
  }
  if (K == Tok::Knob && isIdent(Next))
    return parseKnob();
  if (K == Tok::Emit && Next == Tok::When) {
    Pos += 2;
    Expr *Cond = parseRootExpr();
    Block Body = parseBlock();
    return Ctx.create<EmitStmt>(R(), Cond, Body);
  }
  if (K == Tok::Flag && IsString) {
    // flagStmt : FLAG flag=stringLit listMode=(EACH | SPREAD)? (ASSIGN expr)?
    ++Pos;
    StringLiteral *Flag = parseStringLit();
    ListMode Mode = ListMode::None;
    if (cur() == Tok::Each || cur() == Tok::Spread) {
      checkOptionalKeyword(/*AssignFollows=*/true);
      Mode = cur() == Tok::Each ? ListMode::Each : ListMode::Spread;
      ++Pos;
    }
    Expr *Value = parseOptionalValue();
    return Ctx.create<FlagStmt>(R(), Flag, Mode, Value);
  }
  if (K == Tok::Switch && IsString) {
    ++Pos;
    StringLiteral *Flag = parseStringLit();
    StringLiteral *Negative = nullptr;
    if (cur() == Tok::Else) {
      ++Pos;
      Negative = parseStringLit();
    }
    Expr *Value = parseOptionalValue();
    return Ctx.create<SwitchStmt>(R(), Flag, Negative, Value);
  }
  if (K == Tok::File && IsString) {
    ++Pos;
    StringLiteral *Name = parseStringLit();
    expect(Tok::Assign);
    Expr *Value = parseRootExpr();
    return Ctx.create<FileStmt>(R(), Name, Value);
  }
  if (K == Tok::Args && Next != Tok::Assign && Next != Tok::Dot) {
    // `args { }` is a block or an empty map: ANTLR's choice.
    if (Next == Tok::LBrace)
      bail();
    ++Pos;
    Expr *Value = parseRootExpr();
    return Ctx.create<ArgsStmt>(R(), Value);
  }
  if (Next == Tok::LBrace) {
    Identifier Name = ident();
    Block Body = parseBlock();
    return Ctx.create<BlockStmt>(R(), Name, Body);
  }
  if (Next != Tok::Assign && Next != Tok::Dot)
    bail();
  // assignStmt : path ASSIGN expr
  llvm::SmallVector<Identifier, 4> Path;
  Path.push_back(ident());
  while (cur() == Tok::Dot) {
    ++Pos;
    Path.push_back(ident());
  }
  expect(Tok::Assign);
  Expr *Value = parseRootExpr();
  return Ctx.create<AssignStmt>(
      R(), Ctx.copyArray(llvm::ArrayRef<Identifier>(Path)), Value);
}

Stmt *Parser::parseKnob() {
  // knobStmt : KNOB name=ident COLON typeRef (ASSIGN defaultValue=expr)?
  //            (WHERE constraint=expr)? render*
  uint32_t First = expect(Tok::Knob);
  Identifier Name = ident();
  expect(Tok::Colon);
  TypeRef *Type = parseType(0);
  Expr *Default = nullptr, *Constraint = nullptr;
  if (cur() == Tok::Assign) {
    ++Pos;
    Default = parseRootExpr();
  }
  if (cur() == Tok::Where) {
    checkOptionalKeyword();
    ++Pos;
    Constraint = parseRootExpr();
  }
  llvm::SmallVector<RenderClause, 2> Renders;
  while (cur() == Tok::Arrow)
    Renders.push_back(parseRender());
  return Ctx.create<KnobStmt>(
      rangeOf(First, last()), Name, Type, Default, Constraint,
      Ctx.copyArray(llvm::ArrayRef<RenderClause>(Renders)));
}

TypeRef *Parser::parseType(unsigned Depth) {
  // typeRef : name=ident (LT typeRef (COMMA typeRef)* GT)? optional=QUESTION?
  RecursionGuard Guard(Recursion, maxRecursion());
  if (Depth > Limits.MaxExprDepth)
    bail();
  uint32_t First = static_cast<uint32_t>(Pos);
  auto *T = Ctx.create<TypeRef>();
  T->Name = ident();
  llvm::SmallVector<TypeRef *, 2> Args;
  if (cur() == Tok::Lt) {
    ++Pos;
    Args.push_back(parseType(Depth + 1));
    while (cur() == Tok::Comma) {
      ++Pos;
      Args.push_back(parseType(Depth + 1));
    }
    expect(Tok::Gt);
  }
  T->Args = Ctx.copyArray(llvm::ArrayRef<TypeRef *>(Args));
  if (cur() == Tok::Question) {
    ++Pos;
    T->Optional = true;
  }
  T->Range = rangeOf(First, last());
  return T;
}

RenderClause Parser::parseRender() {
  uint32_t First = expect(Tok::Arrow);
  RenderClause R;
  Tok K = cur();
  ++Pos;
  switch (K) {
  case Tok::Flag:
    R.Kind = RenderKind::Flag;
    R.Target = parseStringLit();
    if (cur() == Tok::Each || cur() == Tok::Spread) {
      checkOptionalKeyword();
      R.Mode = cur() == Tok::Each ? ListMode::Each : ListMode::Spread;
      ++Pos;
    }
    break;
  case Tok::Switch:
    R.Kind = RenderKind::Switch;
    R.Target = parseStringLit();
    if (cur() == Tok::Else) {
      ++Pos;
      R.Negative = parseStringLit();
    }
    break;
  case Tok::Arg:
    R.Kind = RenderKind::Arg;
    break;
  case Tok::Args:
    R.Kind = RenderKind::Args;
    break;
  case Tok::Env:
    R.Kind = RenderKind::Env;
    R.Target = parseStringLit();
    break;
  case Tok::Json:
  case Tok::Yaml:
  case Tok::JsonFile:
    R.Kind = K == Tok::Json   ? RenderKind::Json
             : K == Tok::Yaml ? RenderKind::Yaml
                              : RenderKind::JsonFile;
    R.Target = parseStringLit();
    R.Key = parseStringLit();
    break;
  default:
    bail();
  }
  if (cur() == Tok::If) {
    ++Pos;
    R.Cond = parseRootExpr();
  }
  R.Range = rangeOf(First, last());
  return R;
}

/// Raises Height to the greatest height among the arguments.
void Parser::parseArgs(llvm::SmallVectorImpl<Argument> &Args,
                       uint32_t &Height) {
  // LPAREN argList? RPAREN; argList : argument (COMMA argument)* COMMA?;
  // argument : (name=ident ASSIGN)? expr
  expect(Tok::LParen);
  while (cur() != Tok::RParen) {
    uint32_t First = static_cast<uint32_t>(Pos);
    Argument Arg;
    if (isIdent(cur()) && peek() == Tok::Assign) {
      Arg.Name = ident();
      ++Pos;
    }
    PExpr Value = parseScopedExpr();
    Arg.Value = Value.E;
    Arg.Range = rangeOf(First, last());
    Height = std::max(Height, Value.Height);
    Args.push_back(Arg);
    if (cur() != Tok::Comma)
      break;
    ++Pos;
  }
  expect(Tok::RParen);
}

//===-- Expressions -------------------------------------------------------===//

Expr *Parser::parseRootExpr() {
  PExpr E = parseScopedExpr();
  // ASTBuilder's err_expression_too_deep.
  if (E.Height > Limits.MaxExprDepth)
    bail();
  return E.E;
}

PExpr Parser::parseScopedExpr(bool CompSource) {
  unsigned SavedRanges = RangesInScope;
  bool SavedCompSource = InCompSource;
  RangesInScope = 0;
  InCompSource = CompSource;
  PExpr E = parseExpr(0);
  RangesInScope = SavedRanges;
  InCompSource = SavedCompSource;
  return E;
}

/// `expr[Prec]` as ANTLR rewrites the left-recursive rule: a prefix or
/// primary, then every operator whose precedence is at least Prec. The
/// precedences (1 conditional .. 14 member) and each operand's minimum are
/// those of the generated ARecipeParser::expr(int).
PExpr Parser::parseExpr(unsigned Prec) {
  RecursionGuard Guard(Recursion, maxRecursion());
  PExpr L;
  uint32_t First = static_cast<uint32_t>(Pos);
  if (cur() == Tok::Minus || cur() == Tok::Not) {
    bool Negate = cur() == Tok::Minus;
    ++Pos;
    PExpr Operand = parseExpr(Negate ? 10 : 4);
    L.E = Ctx.create<UnaryExpr>(rangeOf(First, Operand.Last),
                                Negate ? UnaryOp::Negate : UnaryOp::Not,
                                Operand.E);
    L.First = First;
    L.Last = Operand.Last;
    L.Height = Operand.Height + 1;
  } else {
    L = parsePrimary();
  }

  while (true) {
    Tok K = cur();
    unsigned OpPrec = operatorPrecedence(K);
    if (OpPrec == 0)
      return L;
    if (OpPrec < Prec)
      return L;
    uint32_t OpTok = static_cast<uint32_t>(Pos++);
    PExpr Result;
    Result.First = L.First;
    switch (K) {
    case Tok::Dot: {
      Identifier Member = ident();
      Result.E = Ctx.create<MemberExpr>(rangeOf(L.First, last()), L.E, Member);
      Result.Height = L.Height + 1;
      break;
    }
    case Tok::LParen: {
      --Pos;
      llvm::SmallVector<Argument, 4> Args;
      uint32_t Height = L.Height;
      parseArgs(Args, Height);
      Result.E =
          Ctx.create<CallExpr>(rangeOf(L.First, last()), L.E,
                               Ctx.copyArray(llvm::ArrayRef<Argument>(Args)));
      Result.Height = Height + 1;
      break;
    }
    case Tok::LBrack: {
      PExpr Index = parseScopedExpr();
      expect(Tok::RBrack);
      Result.E = Ctx.create<IndexExpr>(rangeOf(L.First, last()), L.E, Index.E);
      Result.Height = std::max(L.Height, Index.Height) + 1;
      break;
    }
    case Tok::As: {
      // expr AS unit=ident rounding=(FLOOR | CEIL | ROUND)?
      Identifier Unit = ident();
      RoundingMode Mode = RoundingMode::Exact;
      if (cur() == Tok::Floor || cur() == Tok::Ceil || cur() == Tok::Round) {
        checkOptionalKeyword();
        Mode = cur() == Tok::Floor  ? RoundingMode::Floor
               : cur() == Tok::Ceil ? RoundingMode::Ceil
                                    : RoundingMode::Round;
        ++Pos;
      }
      Result.E =
          Ctx.create<ConvertExpr>(rangeOf(L.First, last()), L.E, Unit, Mode);
      Result.Height = L.Height + 1;
      break;
    }
    case Tok::Range: {
      // steppedRangeExpr (precedence 7: expr RANGE expr(0) STEP expr(8))
      // or rangeExpr (6: expr RANGE expr(7)), chosen by prediction. With
      // one `..` in the expression the choice is whether `step` follows.
      if (++RangesInScope > 1)
        bail();
      PExpr Hi = parseExpr(7);
      Expr *StepE = nullptr;
      uint32_t Height = std::max(L.Height, Hi.Height);
      if (cur() == Tok::Step) {
        ++Pos;
        PExpr StepX = parseExpr(8);
        StepE = StepX.E;
        Height = std::max(Height, StepX.Height);
      } else if (Prec > 6) {
        bail();
      }
      Result.E =
          Ctx.create<RangeExpr>(rangeOf(L.First, last()), L.E, Hi.E, StepE);
      Result.Height = Height + 1;
      break;
    }
    case Tok::If: {
      // conditionalExpr: expr IF expr(0) ELSE expr(1). In a comprehension's
      // source a bare `if` is the filter (ANTLR's prediction takes it as a
      // conditional only when an `else` follows: left to the reference).
      if (InCompSource) {
        --Pos;
        return L;
      }
      PExpr Cond = parseExpr(0);
      expect(Tok::Else);
      PExpr Else = parseExpr(1);
      Result.E = Ctx.create<ConditionalExpr>(rangeOf(L.First, Else.Last), L.E,
                                             Cond.E, Else.E);
      Result.Height = std::max({L.Height, Cond.Height, Else.Height}) + 1;
      break;
    }
    default: {
      BinaryOp Op = binaryOpFor(K);
      if (isComparison(Op) && L.IsComparison)
        bail(); // err_chained_comparison
      PExpr R = parseExpr(OpPrec + 1);
      Result.E = Ctx.create<BinaryExpr>(rangeOf(L.First, R.Last), Op,
                                        rangeOf(OpTok), L.E, R.E);
      Result.Height = std::max(L.Height, R.Height) + 1;
      Result.IsComparison = isComparison(Op);
      break;
    }
    }
    Result.Last = last();
    L = Result;
  }
}

PExpr Parser::parsePrimary() {
  uint32_t I = static_cast<uint32_t>(Pos);
  Tok K = cur();
  PExpr P;
  P.First = P.Last = I;
  P.Height = 0;
  if (K != Tok::LParen && K != Tok::LBrack && K != Tok::LBrace)
    ++Pos;
  switch (K) {
  case Tok::Int:
  case Tok::HexInt: {
    int64_t Value = 0;
    if (checkIntegerLiteral(textOf(I), Value) != LiteralProblem::None)
      bail();
    P.E = Ctx.create<IntegerLiteral>(rangeOf(I), Ctx.copyString(textOf(I)),
                                     Value);
    return P;
  }
  case Tok::Float:
    if (checkFloatLiteral(textOf(I)) != LiteralProblem::None)
      bail();
    P.E = Ctx.create<FloatLiteral>(rangeOf(I), Ctx.copyString(textOf(I)));
    return P;
  case Tok::Quantity: {
    StringRef Number, UnitText;
    Unit U;
    if (checkQuantityLiteral(textOf(I), Number, UnitText, U) !=
        LiteralProblem::None)
      bail();
    P.E = Ctx.create<QuantityLiteral>(rangeOf(I), Ctx.copyString(textOf(I)),
                                      Ctx.copyString(Number), U);
    return P;
  }
  case Tok::True:
  case Tok::False:
    P.E = Ctx.create<BoolLiteral>(rangeOf(I), K == Tok::True);
    return P;
  case Tok::None:
    P.E = Ctx.create<NoneLiteral>(rangeOf(I));
    return P;
  case Tok::Conc:
    P.E = Ctx.create<ConcExpr>(rangeOf(I));
    return P;
  case Tok::String:
  case Tok::RawString:
    P.E = parseString(I);
    return P;
  case Tok::LParen: {
    ++Pos;
    PExpr Inner = parseScopedExpr();
    expect(Tok::RParen);
    // The node is the inner expression's; the span includes the parens.
    Inner.First = I;
    Inner.Last = last();
    Inner.IsComparison = false;
    return Inner;
  }
  case Tok::LBrack: {
    ++Pos;
    if (cur() == Tok::RBrack) {
      ++Pos;
      P.E = Ctx.create<ListExpr>(rangeOf(I, last()), llvm::ArrayRef<Expr *>());
      P.Last = last();
      return P;
    }
    PExpr Element = parseScopedExpr();
    if (cur() == Tok::For) {
      // comprehensionExpr : LBRACK element=expr FOR var=ident IN source=expr
      //                     (IF cond=expr)? RBRACK
      ++Pos;
      Identifier Var = ident();
      expect(Tok::In);
      PExpr Source = parseScopedExpr(/*CompSource=*/true);
      uint32_t Height = std::max(Element.Height, Source.Height);
      Expr *Cond = nullptr;
      if (cur() == Tok::If) {
        ++Pos;
        PExpr C = parseScopedExpr();
        Cond = C.E;
        Height = std::max(Height, C.Height);
      }
      expect(Tok::RBrack);
      P.E = Ctx.create<ComprehensionExpr>(rangeOf(I, last()), Element.E, Var,
                                          Source.E, Cond);
      P.Last = last();
      P.Height = Height + 1;
      return P;
    }
    llvm::SmallVector<Expr *, 8> Elements;
    uint32_t Height = Element.Height;
    Elements.push_back(Element.E);
    while (cur() == Tok::Comma) {
      ++Pos;
      if (cur() == Tok::RBrack)
        break;
      PExpr Next = parseScopedExpr();
      Height = std::max(Height, Next.Height);
      Elements.push_back(Next.E);
    }
    expect(Tok::RBrack);
    P.E = Ctx.create<ListExpr>(rangeOf(I, last()),
                               Ctx.copyArray(llvm::ArrayRef<Expr *>(Elements)));
    P.Last = last();
    P.Height = Height + 1;
    return P;
  }
  case Tok::LBrace: {
    // mapExpr : LBRACE (mapEntry (COMMA mapEntry)* COMMA?)? RBRACE
    ++Pos;
    llvm::SmallVector<MapEntry, 8> Entries;
    uint32_t Height = 0;
    bool Any = false;
    while (cur() != Tok::RBrace) {
      PExpr Key = parseScopedExpr();
      expect(Tok::Colon);
      PExpr Value = parseScopedExpr();
      Entries.push_back({Key.E, Value.E, rangeOf(Key.First, Value.Last)});
      Height = std::max({Height, Key.Height, Value.Height});
      Any = true;
      if (cur() != Tok::Comma)
        break;
      ++Pos;
    }
    expect(Tok::RBrace);
    P.E = Ctx.create<MapExpr>(rangeOf(I, last()),
                              Ctx.copyArray(llvm::ArrayRef<MapEntry>(Entries)));
    P.Last = last();
    P.Height = Any ? Height + 1 : 0;
    return P;
  }
  default:
    if (!isIdent(K))
      bail();
    P.E =
        Ctx.create<NameExpr>(Identifier{Ctx.copyString(textOf(I)), rangeOf(I)});
    return P;
  }
}

StringLiteral *Parser::parseString(uint32_t I) {
  StringRef Text = textOf(I);
  std::vector<StringPiece> Pieces;
  if (!decodeStringLiteral(Text, nullptr, Pieces))
    bail();
  llvm::SmallVector<StringPart, 4> Parts;
  for (StringPiece &Piece : Pieces) {
    StringPart Part;
    Part.Range = Piece.Range;
    if (Piece.IsInterpolation) {
      // `interpolation : expr EOF`, lexed and parsed on its own as the
      // reference path does.
      if (Piece.Source.trim().empty())
        bail(); // err_expected_expr
      std::vector<Token> Sub;
      Lexer(Piece.Source, Limits.MaxNesting).lex(Sub);
      Parser Inner(Sub, Ctx, Limits, nullptr);
      Inner.Recursion = Recursion;
      Part.Interpolation = Inner.parseWholeExpr();
    } else {
      Part.Text = Ctx.copyString(Piece.Text);
    }
    Parts.push_back(Part);
  }
  return Ctx.create<StringLiteral>(
      rangeOf(I), Toks[I].Kind == Tok::RawString,
      Ctx.copyArray(llvm::ArrayRef<StringPart>(Parts)));
}

} // namespace

ast::File *arecipe::parse::fastParseFile(StringRef Text, StringRef Name,
                                         SMRange FileRange,
                                         DiagnosticEngine &Diags,
                                         ASTContext &Ctx,
                                         const ParseLimits &Limits) {
  std::vector<SMRange> ExtraSemis;
  ast::File *F = nullptr;
  try {
    std::vector<Token> Toks;
    Toks.reserve(Text.size() / 4 + 1);
    Lexer(Text, Limits.MaxNesting).lex(Toks);
    F = Parser(Toks, Ctx, Limits, &ExtraSemis).parseFile(Name, FileRange);
  } catch (Bail &) {
    return nullptr;
  }
  for (SMRange R : ExtraSemis)
    Diags.report(R, DiagID::warn_extra_semicolon) << FixIt::remove(R);
  return F;
}

ast::Expr *arecipe::parse::fastParseExpr(StringRef Text, ASTContext &Ctx,
                                         const ParseLimits &Limits) {
  try {
    std::vector<Token> Toks;
    Lexer(Text, Limits.MaxNesting).lex(Toks);
    return Parser(Toks, Ctx, Limits, nullptr).parseWholeExpr();
  } catch (Bail &) {
    return nullptr;
  }
}
