//===- SyntaxErrorStrategy.cpp - Syntax errors in the project's words ----===//

#include "SyntaxErrorStrategy.h"

#include "ARecipeParser.h"
#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Basic/Unit.h"

#include "InputMismatchException.h"
#include "NoViableAltException.h"
#include "atn/ATN.h"
#include "atn/ATNState.h"
#include "atn/ParserATNSimulator.h"

#include <algorithm>

using namespace arecipe;
using namespace arecipe::parse;
using antlr4::Parser;
using antlr4::Token;
using antlr4::TokenStream;
using P_ = arecipe_antlr::ARecipeParser;

bool LexicalErrors::within(size_t Begin, size_t End) const {
  auto It = std::lower_bound(Offsets.begin(), Offsets.end(), Begin);
  return It != Offsets.end() && *It <= End;
}

//===-- Token classes ------------------------------------------------------===//

static bool isIdentLike(size_t Type) {
  switch (Type) {
  case P_::IDENT: case P_::RECIPE: case P_::HARDWARE: case P_::ENGINE:
  case P_::MODEL:
  case P_::ROUTER:
  case P_::SERVICE:
  case P_::ENUM:
  case P_::KNOB:
  case P_::EMIT:
  case P_::FLAG:
  case P_::SWITCH:
  case P_::ARG:
  case P_::ARGS:
  case P_::ENV:
  case P_::JSON:
  case P_::YAML:
  case P_::JSON_FILE:
  case P_::WHERE:
  case P_::FLOOR:
  case P_::CEIL:
  case P_::ROUND:
  case P_::EXTENDS:
  case P_::ARM:
  case P_::FILE:
  case P_::EACH:
  case P_::SPREAD:
  case P_::TUNE:
  case P_::MAXIMIZE:
  case P_::MINIMIZE:
    return true;
  default:
    return false;
  }
}

/// Tokens that can only continue an expression; they are left out of
/// "expected ..." lists, which name what the construct itself needs.
static bool continuesExpression(size_t Type) {
  switch (Type) {
  case P_::DOT: case P_::LPAREN: case P_::LBRACK: case P_::AS: case P_::STAR:
  case P_::SLASH: case P_::PERCENT: case P_::PLUS: case P_::MINUS:
  case P_::RANGE: case P_::STEP: case P_::EQ: case P_::NE: case P_::LT:
  case P_::LE: case P_::GT: case P_::GE: case P_::IN: case P_::AND:
  case P_::OR: case P_::IF: case P_::ELSE: case P_::FLOOR: case P_::CEIL:
  case P_::ROUND:
  case P_::FOR:
    return true;
  default:
    return false;
  }
}

/// Keywords reserved everywhere (docs/language.md §1): never a name.
static bool isReservedKeyword(size_t Type) {
  switch (Type) {
  case P_::IMPORT:
  case P_::AS:
  case P_::LET:
  case P_::BAND:
  case P_::WHEN:
  case P_::AT:
  case P_::CONC:
  case P_::CHECK:
  case P_::PREFLIGHT:
  case P_::TRUE:
  case P_::FALSE:
  case P_::NONE:
  case P_::IN:
  case P_::STEP:
  case P_::IF:
  case P_::ELSE:
  case P_::AND:
  case P_::OR:
  case P_::NOT:
  case P_::FOR:
    return true;
  default:
    return false;
  }
}

/// A reserved keyword that begins no statement or declaration: written
/// first on a line and followed by `=`, it is a knob the user named after
/// a keyword (`step = 4`).
static bool isKeywordAssignedLikeName(TokenStream *TS, size_t Index) {
  switch (TS->get(Index)->getType()) {
  case P_::IMPORT:
  case P_::LET:
  case P_::BAND:
  case P_::AT:
  case P_::CHECK:
  case P_::PREFLIGHT:
    return false;
  default:
    break;
  }
  if (!isReservedKeyword(TS->get(Index)->getType()))
    return false;
  for (size_t I = Index + 1, E = TS->size(); I < E; ++I)
    if (TS->get(I)->getChannel() == Token::DEFAULT_CHANNEL) {
      size_t Next = TS->get(I)->getType();
      return Next == P_::ASSIGN || Next == P_::DOT;
    }
  return false;
}

static bool isOpener(size_t T) {
  return T == P_::LPAREN || T == P_::LBRACK || T == P_::LBRACE;
}
static bool isCloser(size_t T) {
  return T == P_::RPAREN || T == P_::RBRACK || T == P_::RBRACE;
}

static const char *spellingOf(size_t Type) {
  switch (Type) {
  case P_::LPAREN: return "(";
  case P_::RPAREN: return ")";
  case P_::LBRACK: return "[";
  case P_::RBRACK: return "]";
  case P_::LBRACE: return "{";
  case P_::RBRACE: return "}";
  default: return "";
  }
}

/// The innermost statement, declaration or import being parsed, by the
/// index of its first token; -1 at block or file level.
static ssize_t currentStatement(Parser *P) {
  for (antlr4::RuleContext *C = P->getContext(); C;
       C = dynamic_cast<antlr4::RuleContext *>(C->parent)) {
    size_t Rule = C->getRuleIndex();
    if (Rule == P_::RuleStatement || Rule == P_::RuleDeclaration ||
        Rule == P_::RuleImportDecl || Rule == P_::RuleInterpolation ||
        Rule == P_::RuleStandaloneExpr || Rule == P_::RuleTuneItem) {
      Token *Start = static_cast<antlr4::ParserRuleContext *>(C)->getStart();
      return Start ? static_cast<ssize_t>(Start->getTokenIndex()) : -1;
    }
  }
  return -1;
}

//===-- Locations and descriptions ----------------------------------------===//

llvm::SMRange SyntaxErrorStrategy::rangeOf(Token *T) const {
  if (T->getType() == Token::EOF) {
    llvm::SMLoc End = Src.getLoc(Src.getNumCodePoints());
    return {End, End};
  }
  return Src.getRange(T->getStartIndex(), T->getStopIndex());
}

llvm::SMLoc SyntaxErrorStrategy::endOf(Token *T) const {
  return rangeOf(T).End;
}

std::string SyntaxErrorStrategy::describe(Token *T) const {
  if (T->getType() == Token::EOF)
    return "end of file";
  llvm::StringRef Text = Src.getBytes(T->getStartIndex(), T->getStopIndex());
  if (Text.size() <= 24)
    return "'" + Text.str() + "'";
  switch (T->getType()) {
  case P_::STRING:
  case P_::RAW_STRING:
    return "string literal";
  default:
    return "'" + Text.take_front(20).str() + "...'";
  }
}

/// The token after T on the parser's channel (EOF at the end).
static Token *nextToken(Parser *P, Token *T) {
  TokenStream *TS = P->getTokenStream();
  for (size_t I = T->getTokenIndex() + 1, E = TS->size(); I < E; ++I)
    if (TS->get(I)->getChannel() == Token::DEFAULT_CHANNEL)
      return TS->get(I);
  return nullptr;
}

/// The token before T on the parser's channel, or null at the start.
Token *SyntaxErrorStrategy::previousToken(TokenStream *TS, Token *T) {
  for (size_t I = T->getTokenIndex(); I-- > 0;) {
    Token *Prev = TS->get(I);
    if (Prev->getChannel() == Token::DEFAULT_CHANNEL)
      return Prev;
  }
  return nullptr;
}

static std::string describeExpected(const antlr4::misc::IntervalSet &Set,
                                    const antlr4::dfa::Vocabulary &Vocab) {
  std::vector<ssize_t> Types = Set.toList();
  bool OnlyContinuations = std::all_of(Types.begin(), Types.end(), [](ssize_t T) {
    return T < 0 || continuesExpression(static_cast<size_t>(T));
  });
  std::vector<std::string> Names;
  bool Name = false, String = false;
  for (ssize_t T : Types) {
    if (T == static_cast<ssize_t>(Token::EOF)) {
      Names.push_back("end of file");
      continue;
    }
    if (T < 0 || (!OnlyContinuations && continuesExpression(T)))
      continue;
    if (isIdentLike(T)) {
      Name = true;
      continue;
    }
    if (T == P_::STRING || T == P_::RAW_STRING) {
      String = true;
      continue;
    }
    Names.push_back(Vocab.getLiteralName(T));
  }
  if (String)
    Names.insert(Names.begin(), "string");
  if (Name)
    Names.insert(Names.begin(), "name");
  if (Names.empty())
    return "more input";
  if (Names.size() > 4)
    Names.resize(4);
  std::string Out = Names[0];
  for (size_t I = 1; I < Names.size(); ++I)
    Out += (I + 1 == Names.size() ? " or " : ", ") + Names[I];
  return Out;
}

//===-- Reporting ----------------------------------------------------------===//

bool SyntaxErrorStrategy::shouldSuppress(Parser *P, Token *Offending) {
  if (JunkReported)
    return true;
  ssize_t Statement = currentStatement(P);
  size_t Rule = P->getContext()->getRuleIndex();
  bool AtBlockLevel = Rule == P_::RuleBlock || Rule == P_::RuleFile;
  if (Statement >= 0 && Statement == LastErrorStatement &&
      !(AtBlockLevel && StatementBegun))
    return true;
  LastErrorStatement = Statement;
  StatementBegun = false;
  if (Offending->getType() == Token::EOF && LexErrors.UnterminatedComment)
    return true;
  // A lexical error just before or at the offending token already explains
  // why the parser is lost here.
  Token *Prev = previousToken(P->getTokenStream(), Offending);
  size_t Begin = Prev ? Src.getByteOffset(Prev->getStartIndex()) : 0;
  size_t End = Offending->getType() == Token::EOF
                   ? Src.getText().size()
                   : Src.getByteOffset(Offending->getStopIndex() + 1);
  return LexErrors.within(Begin, End);
}

void SyntaxErrorStrategy::reportExpectedAfter(Parser *P, Token *Offending,
                                              const std::string &What) {
  Token *Prev = previousToken(P->getTokenStream(), Offending);
  if (!Prev) {
    Diags.report(rangeOf(Offending), DiagID::err_expected) << What;
    return;
  }
  Diags.report(endOf(Prev), DiagID::err_expected_after) << What
                                                        << describe(Prev);
}

/// What a `{` belongs to, in words: "band 'mid'", "recipe 'kimi'".
static std::string describeBraceOwner(antlr4::RuleContext *Block) {
  auto Quote = [](P_::IdentContext *Id) {
    return Id ? "'" + Id->getText() + "'" : std::string("''");
  };
  antlr4::tree::ParseTree *Owner = Block->parent;
  if (auto *E = dynamic_cast<P_::EntityDeclContext *>(Owner))
    return (E->kind ? E->kind->getText() : std::string("declaration")) + " " +
           Quote(E->name);
  if (auto *B = dynamic_cast<P_::BandStmtContext *>(Owner))
    return "band " + Quote(B->name);
  if (auto *A = dynamic_cast<P_::ArmStmtContext *>(Owner))
    return "arm " + Quote(A->name);
  if (dynamic_cast<P_::AtStmtContext *>(Owner))
    return "'at conc' block";
  if (dynamic_cast<P_::EmitStmtContext *>(Owner))
    return "'emit' block";
  if (auto *B = dynamic_cast<P_::BlockStmtContext *>(Owner))
    return "block " + Quote(B->name);
  return "block";
}

/// The still-open bracket of type OpenType nearest to the error, searched in
/// the current rule and its callers.
static Token *findOpener(Parser *P, size_t OpenType) {
  antlr4::RuleContext *C = P->getContext();
  for (unsigned Level = 0; C && Level < 4;
       ++Level, C = dynamic_cast<antlr4::RuleContext *>(C->parent)) {
    Token *Found = nullptr;
    for (antlr4::tree::ParseTree *Child : C->children)
      if (auto *TN = dynamic_cast<antlr4::tree::TerminalNode *>(Child)) {
        size_t Type = TN->getSymbol()->getType();
        if (Type == OpenType)
          Found = TN->getSymbol();
        else if (Found && isCloser(Type))
          Found = nullptr;
      }
    if (Found)
      return Found;
  }
  return nullptr;
}

void SyntaxErrorStrategy::reportUnclosed(Parser *P, Token *Offending,
                                         size_t OpenType) {
  Token *Prev = previousToken(P->getTokenStream(), Offending);
  llvm::SMLoc Loc = Prev ? endOf(Prev) : rangeOf(Offending).Start;
  size_t CloseType = OpenType == P_::LPAREN   ? P_::RPAREN
                     : OpenType == P_::LBRACK ? P_::RBRACK
                                              : P_::RBRACE;
  Token *Open = findOpener(P, OpenType);
  antlr4::RuleContext *Ctx = P->getContext();
  if (OpenType == P_::LBRACE && Ctx->getRuleIndex() == P_::RuleBlock) {
    DiagnosticBuilder D = Diags.report(Loc, DiagID::err_expected_close_brace);
    D << describeBraceOwner(Ctx);
    if (Open)
      D.note(rangeOf(Open).Start, DiagID::note_matching_delimiter) << "{";
    return;
  }
  DiagnosticBuilder D = Diags.report(Loc, DiagID::err_unmatched_delimiter);
  D << spellingOf(CloseType);
  if (Open)
    D.note(rangeOf(Open).Start, DiagID::note_matching_delimiter)
        << spellingOf(OpenType);
}

bool SyntaxErrorStrategy::reportSpacedUnit(Parser *P, Token *Unit) {
  // `hbm = 80 GB`: the number ended the expression and `GB` looks like the
  // start of the next statement; say what the user meant.
  if (!Unit || !isIdentLike(Unit->getType()))
    return false;
  llvm::StringRef Name =
      Src.getBytes(Unit->getStartIndex(), Unit->getStopIndex());
  if (!parseUnit(Name))
    return false;
  Token *Number = previousToken(P->getTokenStream(), Unit);
  if (!Number ||
      (Number->getType() != P_::INT && Number->getType() != P_::FLOAT))
    return false;
  size_t Begin = Src.getByteOffset(Number->getStopIndex() + 1);
  size_t End = Src.getByteOffset(Unit->getStartIndex());
  llvm::StringRef Between = Src.getText().slice(Begin, End);
  if (Between.empty() ||
      Between.find_first_not_of(" \t") != llvm::StringRef::npos)
    return false;
  llvm::SMRange Space(endOf(Number), rangeOf(Unit).Start);
  llvm::StringRef Digits =
      Src.getBytes(Number->getStartIndex(), Number->getStopIndex());
  Diags.report(Space, DiagID::err_unit_after_space)
      << (Digits.str() + Name.str()) << FixIt::remove(Space);
  return true;
}

bool SyntaxErrorStrategy::reportReservedName(Token *Offending) {
  if (!isReservedKeyword(Offending->getType()))
    return false;
  Diags.report(rangeOf(Offending), DiagID::err_reserved_keyword_as_name)
      << Src.getBytes(Offending->getStartIndex(), Offending->getStopIndex());
  return true;
}

/// `prefill.env { X = 1 }`: a dotted path reaches one value
/// (`prefill.env.X = 1`), but a block opens after a single name, so the
/// block form nests one block per name.
bool SyntaxErrorStrategy::reportDottedBlock(Parser *P, Token *Offending) {
  if (Offending->getType() != P_::LBRACE)
    return false;
  // The names before the `{`, last first, while they are joined by dots.
  std::vector<std::string> Names;
  TokenStream *TS = P->getTokenStream();
  for (Token *T = previousToken(TS, Offending);
       T && isIdentLike(T->getType());) {
    Names.insert(Names.begin(), T->getText());
    Token *Dot = previousToken(TS, T);
    if (!Dot || Dot->getType() != P_::DOT)
      break;
    T = previousToken(TS, Dot);
  }
  if (Names.size() < 2)
    return false;
  std::string Path, Nested;
  for (size_t I = 0; I < Names.size(); ++I) {
    Path += (I ? "." : "") + Names[I];
    Nested += Names[I] + " { ";
  }
  Nested += "…";
  for (size_t I = 0; I < Names.size(); ++I)
    Nested += " }";
  Diags.report(rangeOf(Offending), DiagID::err_dotted_block) << Path << Nested;
  return true;
}

void SyntaxErrorStrategy::reportNoViableAlt(Parser *P, Token *Offending) {
  size_t Rule = P->getContext()->getRuleIndex();
  if (reportSpacedUnit(P, Offending))
    return;
  if (Rule == P_::RuleStatement) {
    Token *Start = P->getContext()->getStart();
    if (reportSpacedUnit(P, Start))
      return;
    // `args` in an `emit` block takes the list that follows it.
    if (Start && Start->getType() == P_::ARGS &&
        Offending == nextToken(P, Start)) {
      Diags.report(endOf(Start), DiagID::err_expected_expr) << describe(Start);
      return;
    }
    if (reportDottedBlock(P, Offending))
      return;
    reportExpectedAfter(P, Offending, "'='");
    return;
  }
  if (Rule == P_::RuleDeclaration) {
    Diags.report(rangeOf(Offending), DiagID::err_expected_declaration)
        << describe(Offending);
    return;
  }
  // Every other decision is between the alternatives of an expression.
  Token *Prev = previousToken(P->getTokenStream(), Offending);
  if (!Prev) {
    Diags.report(rangeOf(Offending), DiagID::err_unexpected_token)
        << describe(Offending);
    return;
  }
  Diags.report(endOf(Prev), DiagID::err_expected_expr) << describe(Prev);
}

void SyntaxErrorStrategy::reportMismatch(
    Parser *P, Token *Offending, const antlr4::misc::IntervalSet &Expected) {
  size_t Rule = P->getContext()->getRuleIndex();
  if (reportSpacedUnit(P, Offending))
    return;
  // `let step = 4`: a reserved keyword where only a name may be.
  if (Expected.contains(static_cast<size_t>(P_::IDENT)) &&
      !Expected.contains(static_cast<size_t>(P_::INT)) &&
      reportReservedName(Offending))
    return;
  if (Expected.contains(static_cast<size_t>(P_::RBRACE)) &&
      (Rule == P_::RuleBlock || Rule == P_::RuleEnumDecl ||
       Rule == P_::RulePrimary)) {
    reportUnclosed(P, Offending, P_::LBRACE);
    return;
  }
  if (Expected.contains(static_cast<size_t>(P_::INT))) {
    Token *Prev = previousToken(P->getTokenStream(), Offending);
    if (Prev)
      Diags.report(endOf(Prev), DiagID::err_expected_expr) << describe(Prev);
    else
      Diags.report(rangeOf(Offending), DiagID::err_expected) << "expression";
    return;
  }
  if (Rule == P_::RuleInterpolation &&
      Expected.contains(static_cast<size_t>(Token::EOF))) {
    // The end of an interpolation's text is its closing '}'.
    Token *Prev = previousToken(P->getTokenStream(), Offending);
    Diags.report(Prev ? endOf(Prev) : rangeOf(Offending).Start,
                 DiagID::err_unterminated_interpolation);
    return;
  }
  if (Rule == P_::RuleStandaloneExpr &&
      Expected.contains(static_cast<size_t>(Token::EOF))) {
    // More text after a complete value: `--set tp=8 9`.
    reportExpectedAfter(P, Offending, "end of the value");
    return;
  }
  if (Expected.contains(static_cast<size_t>(P_::RPAREN))) {
    reportUnclosed(P, Offending, P_::LPAREN);
    return;
  }
  if (Expected.contains(static_cast<size_t>(P_::RBRACK))) {
    reportUnclosed(P, Offending, P_::LBRACK);
    return;
  }
  if (Expected.contains(static_cast<size_t>(P_::ASSIGN)) &&
      reportDottedBlock(P, Offending))
    return;
  reportExpectedAfter(P, Offending,
                      describeExpected(Expected, P->getVocabulary()));
}

void SyntaxErrorStrategy::reportJunk(Parser *P, Token *Junk) {
  if (JunkReported || shouldSuppress(P, Junk)) {
    JunkReported = true;
    return;
  }
  JunkReported = true;
  // `tp = 8 +` followed by `dcp = 8` on the next line: the operator took
  // `dcp` as its operand, and the stray '=' is only a symptom. Blame the
  // expression that lacks its operand.
  TokenStream *TS = P->getTokenStream();
  Token *Name = previousToken(TS, Junk);
  Token *BeforeName = Name ? previousToken(TS, Name) : nullptr;
  if (Junk->getType() == P_::ASSIGN && BeforeName &&
      isIdentLike(Name->getType()) &&
      startsStatementOnNewLine(TS, Name->getTokenIndex()) &&
      (continuesExpression(BeforeName->getType()) ||
       BeforeName->getType() == P_::ASSIGN)) {
    Diags.report(endOf(BeforeName), DiagID::err_expected_expr)
        << describe(BeforeName);
    return;
  }
  if (reportSpacedUnit(P, Junk))
    return;
  // `step = 4` in a body: a reserved keyword assigned like a knob.
  if (isKeywordAssignedLikeName(TS, Junk->getTokenIndex()) &&
      reportReservedName(Junk))
    return;
  bool AtFileLevel = P->getContext()->getRuleIndex() == P_::RuleFile;
  Diags.report(rangeOf(Junk), AtFileLevel ? DiagID::err_expected_declaration
                                          : DiagID::err_expected_statement)
      << describe(Junk);
}

void SyntaxErrorStrategy::reportError(Parser *P,
                                      const antlr4::RecognitionException &E) {
  if (inErrorRecoveryMode(P) || Unwinding)
    return;
  beginErrorCondition(P);
  Token *Offending = E.getOffendingToken();
  if (!Offending)
    Offending = P->getCurrentToken();
  if (shouldSuppress(P, Offending))
    return;
  if (dynamic_cast<const antlr4::NoViableAltException *>(&E))
    reportNoViableAlt(P, Offending);
  else
    reportMismatch(P, Offending, E.getExpectedTokens());
}

//===-- Recovery -----------------------------------------------------------===//

void SyntaxErrorStrategy::reset(Parser *P) {
  DefaultErrorStrategy::reset(P);
  Unwinding = false;
  LastErrorStatement = -1;
  JunkReported = false;
}

void SyntaxErrorStrategy::reportMatch(Parser *P) {
  endErrorCondition(P);
  Unwinding = false;
  JunkReported = false;
}

Token *SyntaxErrorStrategy::recoverInline(Parser *P) {
  // No single-token insertion or deletion: guessing a token inside a
  // statement is what makes errors cascade. The rule's handler recovers.
  throw antlr4::InputMismatchException(P);
}

bool SyntaxErrorStrategy::beginsLine(TokenStream *TS, size_t Index) {
  Token *T = TS->get(Index);
  if (T->getType() == Token::EOF)
    return false;
  if (Token *Prev = previousToken(TS, T)) {
    llvm::StringRef Between = Src.getText().slice(
        Src.getByteOffset(Prev->getStopIndex() + 1),
        Src.getByteOffset(T->getStartIndex()));
    if (Between.find_first_of("\r\n") == llvm::StringRef::npos)
      return false;
  }
  return true;
}

/// The type of the first parser-channel token after Index (EOF if none).
static size_t nextTypeAfter(TokenStream *TS, size_t Index) {
  for (size_t I = Index + 1, E = TS->size(); I < E; ++I)
    if (TS->get(I)->getChannel() == Token::DEFAULT_CHANNEL)
      return TS->get(I)->getType();
  return Token::EOF;
}

bool SyntaxErrorStrategy::startsStatementOnNewLine(TokenStream *TS,
                                                   size_t Index) {
  if (!beginsLine(TS, Index))
    return false;
  size_t Type = TS->get(Index)->getType();
  switch (Type) {
  case P_::IMPORT: case P_::LET: case P_::BAND: case P_::AT: case P_::CHECK:
  case P_::PREFLIGHT:
    return true;
  default:
    break;
  }
  // `step = 4`: a keyword assigned like a knob is still a statement (an
  // error of its own), not part of the broken one before it.
  if (isKeywordAssignedLikeName(TS, Index))
    return true;
  if (!isIdentLike(Type))
    return false;
  size_t Next = nextTypeAfter(TS, Index);
  switch (Type) {
  case P_::RECIPE: case P_::HARDWARE: case P_::ENGINE: case P_::MODEL:
  case P_::ROUTER:
  case P_::SERVICE:
  case P_::ENUM:
  case P_::KNOB:
  case P_::ARM:
    if (isIdentLike(Next))
      return true;
    break;
  case P_::EMIT:
    if (Next == P_::WHEN)
      return true;
    break;
  case P_::FLAG:
  case P_::SWITCH:
  case P_::FILE:
    if (Next == P_::STRING || Next == P_::RAW_STRING)
      return true;
    break;
  case P_::ARGS:
    if (isIdentLike(Next) || Next == P_::LBRACK)
      return true;
    break;
  default:
    break;
  }
  return Next == P_::ASSIGN || Next == P_::DOT || Next == P_::LBRACE;
}

/// Whether the innermost list of items around the parser's position is a
/// tune block's (rather than a block's statements or the file's
/// declarations).
static bool inTuneBody(Parser *P) {
  for (antlr4::RuleContext *Ctx = P->getContext(); Ctx;
       Ctx = static_cast<antlr4::RuleContext *>(Ctx->parent)) {
    switch (Ctx->getRuleIndex()) {
    case P_::RuleTuneBody:
      return true;
    case P_::RuleBlock:
    case P_::RuleFile:
      return false;
    default:
      break;
    }
  }
  return false;
}

bool SyntaxErrorStrategy::startsTuneItemOnNewLine(TokenStream *TS,
                                                  size_t Index) {
  if (!beginsLine(TS, Index))
    return false;
  size_t Type = TS->get(Index)->getType();
  if (!isIdentLike(Type))
    return false;
  size_t Next = nextTypeAfter(TS, Index);
  // `maximize tput`, `dcp in [1, 8]`, `p90_ttft <= 2s` (`band` and
  // `at conc` start statements too).
  if (Type == P_::MAXIMIZE || Type == P_::MINIMIZE)
    return isIdentLike(Next);
  switch (Next) {
  case P_::IN:
  case P_::EQ:
  case P_::NE:
  case P_::LT:
  case P_::LE:
  case P_::GT:
  case P_::GE:
    return true;
  default:
    return false;
  }
}

void SyntaxErrorStrategy::skipToSyncPoint(Parser *P, bool ConsumeOne) {
  TokenStream *TS = P->getTokenStream();
  // In a tune block, the start of an item is a sync point as a statement's
  // is, so that each broken item gets its own error and the items after it
  // are kept.
  bool InTune = inTuneBody(P);
  // Braces opened by the broken statement before the error: a `}` that
  // closes one of them is part of the statement, not the end of the block.
  unsigned OpenBefore = 0;
  ssize_t Statement = currentStatement(P);
  if (Statement >= 0)
    for (size_t I = Statement, E = TS->index(); I < E; ++I) {
      size_t Type = TS->get(I)->getType();
      if (Type == P_::LBRACE)
        ++OpenBefore;
      else if (Type == P_::RBRACE && OpenBefore)
        --OpenBefore;
    }
  unsigned Depth = 0; // Brackets opened while skipping.
  for (;;) {
    size_t Type = TS->LA(1);
    if (Type == Token::EOF)
      return;
    if (!ConsumeOne && Depth == 0) {
      if (Type == P_::SEMI)
        return;
      if (Type == P_::RBRACE && OpenBefore == 0)
        return;
      if (startsStatementOnNewLine(TS, TS->index()) ||
          (InTune && startsTuneItemOnNewLine(TS, TS->index())))
        return;
    }
    ConsumeOne = false;
    if (isOpener(Type))
      ++Depth;
    else if (isCloser(Type)) {
      if (Depth)
        --Depth;
      else if (Type == P_::RBRACE)
        --OpenBefore;
    }
    P->consume();
  }
}

void SyntaxErrorStrategy::recover(Parser *P, std::exception_ptr) {
  size_t Index = P->getTokenStream()->index();
  if (Unwinding) {
    // Still unwinding, and a rule failed again at the very token the last
    // recovery stopped at, with nothing matched since: an enclosing loop
    // (a tune block's items, say) came back to it. Skip past it, or the
    // loop would fail on it forever.
    if (lastErrorIndex == static_cast<int>(Index))
      skipToSyncPoint(P, /*ConsumeOne=*/true);
    lastErrorIndex = static_cast<int>(P->getTokenStream()->index());
    return;
  }
  // Guarantees progress if the same token fails again after a restart.
  bool ConsumeOne = lastErrorIndex == static_cast<int>(Index);
  // A tune item that failed at its first token (`knob tp x`: no
  // alternative starts `IDENT IDENT`) is broken from there: recovery must
  // not stop at that token, which may look like the start of a statement,
  // or the block's loop would begin the same item again (beginItem) and
  // report it twice.
  antlr4::ParserRuleContext *Ctx = P->getContext();
  if (Ctx->getRuleIndex() == P_::RuleTuneItem && Ctx->getStart() &&
      Ctx->getStart()->getTokenIndex() == Index)
    ConsumeOne = true;
  lastErrorIndex = static_cast<int>(Index);
  skipToSyncPoint(P, ConsumeOne);
  Unwinding = true;
}

void SyntaxErrorStrategy::beginItem(Parser *P) {
  // A tune item begins where recovery stopped: it is the next mistake if
  // it fails, even at its first token, as a statement is once it matched
  // its first token (reportMatch).
  if (!Unwinding)
    return;
  endErrorCondition(P);
  Unwinding = false;
  JunkReported = false;
}

void SyntaxErrorStrategy::sync(Parser *P) {
  size_t Rule = P->getContext()->getRuleIndex();
  TokenStream *TS = P->getTokenStream();
  if ((Rule == P_::RuleBlock || Rule == P_::RuleFile) &&
      TS->LA(1) != Token::EOF && isKeywordAssignedLikeName(TS, TS->index())) {
    // `step = 4`: recovery stopped here because this is a statement of
    // its own, but no statement rule can start with a keyword. Report it
    // and skip it, so the block keeps the statements after it.
    endErrorCondition(P);
    Unwinding = false;
    JunkReported = false;
    reportJunk(P, P->getCurrentToken());
    skipToSyncPoint(P, /*ConsumeOne=*/true);
    return;
  }
  if (inErrorRecoveryMode(P) || Unwinding)
    return;
  const antlr4::atn::ATN &ATN = P->getATN();
  antlr4::atn::ATNState *S = ATN.states[P->getState()];
  size_t LA = P->getTokenStream()->LA(1);
  antlr4::misc::IntervalSet Next = ATN.nextTokens(S);
  if (Next.contains(Token::EPSILON) || Next.contains(LA))
    return;
  if (Rule == P_::RuleBlock || Rule == P_::RuleFile) {
    // Junk where a statement (or declaration) should start: report it and
    // skip it here, so the enclosing block keeps its statements.
    if (LA == Token::EOF)
      return;
    reportJunk(P, P->getCurrentToken());
    skipToSyncPoint(P, /*ConsumeOne=*/true);
    return;
  }
  switch (S->getStateType()) {
  case antlr4::atn::ATNState::BLOCK_START:
  case antlr4::atn::ATNState::STAR_BLOCK_START:
  case antlr4::atn::ATNState::PLUS_BLOCK_START:
  case antlr4::atn::ATNState::STAR_LOOP_ENTRY:
  case antlr4::atn::ATNState::PLUS_LOOP_BACK:
  case antlr4::atn::ATNState::STAR_LOOP_BACK:
    throw antlr4::InputMismatchException(P);
  default:
    break;
  }
}

void SyntaxErrorListener::syntaxError(antlr4::Recognizer *, Token *Offending,
                                      size_t, size_t, const std::string &,
                                      std::exception_ptr) {
  llvm::SMLoc Loc = Offending && Offending->getType() != Token::EOF
                        ? Src.getLoc(Offending->getStartIndex())
                        : Src.getLoc(Src.getNumCodePoints());
  Diags.report(Loc, DiagID::err_unexpected_token) << "input";
}
