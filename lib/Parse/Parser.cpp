//===- Parser.cpp - Recipe text to syntax tree ---------------------------===//
//
// Runs the pipeline for one text (a file, one `${...}` of a string, or one
// standalone expression such as a `--set` value):
// limits and UTF-8 first, then the hand-written fast parser (FastParser.h);
// only where it gives up, the reference: the ANTLR lexer, a pass over all
// tokens for lexical errors and bracket depth, the ANTLR parser with the
// project's error strategy, and the AST builder. Every exception the ANTLR
// runtime might throw stops here.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Parse/Parser.h"

#include "ASTBuilder.h"
#include "FastParser.h"
#include "StringLiteralDecoder.h"
#include "SyntaxErrorStrategy.h"

#include "ARecipeLexer.h"
#include "ARecipeParser.h"
#include "ANTLRInputStream.h"
#include "CommonTokenStream.h"

#include "arecipe/Basic/Diagnostic.h"

#include "llvm/Support/SourceMgr.h"

#include <sys/resource.h>

using namespace arecipe;
using namespace arecipe::parse;
using P = arecipe_antlr::ARecipeParser;

namespace {

/// Thrown when the parser's recursion nears the end of the stack.
struct StackExhausted {};

/// How far below the stack position where parsing started the parser may
/// recurse: half the stack limit, at most 4 MiB. The bracket limit keeps
/// real recipes far from it; this stops pathological ones (10,000 prefix
/// operators in a row) before they overflow.
static uintptr_t stackBudget() {
  rlimit Limit;
  uintptr_t Budget = 4u << 20;
  if (getrlimit(RLIMIT_STACK, &Limit) == 0 && Limit.rlim_cur != RLIM_INFINITY)
    Budget = std::min<uintptr_t>(Budget, Limit.rlim_cur / 2);
  return Budget;
}

static uintptr_t currentStackPosition() {
  return reinterpret_cast<uintptr_t>(__builtin_frame_address(0));
}

/// The generated parser, told when statements begin (for error recovery)
/// and stopped before deep recursion exhausts the stack.
class GuardedParser : public P {
public:
  GuardedParser(antlr4::TokenStream *Tokens, SyntaxErrorStrategy &Strategy)
      : P(Tokens), Strategy(Strategy),
        StackFloor(currentStackPosition() - stackBudget()) {}

  void enterRule(antlr4::ParserRuleContext *Ctx, size_t State,
                 size_t Rule) override {
    checkStack();
    if (Rule == RuleStatement || Rule == RuleDeclaration ||
        Rule == RuleImportDecl)
      Strategy.beginStatement();
    else if (Rule == RuleTuneItem)
      Strategy.beginItem(this);
    P::enterRule(Ctx, State, Rule);
  }

  using P::enterRecursionRule;
  void enterRecursionRule(antlr4::ParserRuleContext *Ctx, size_t State,
                          size_t Rule, int Precedence) override {
    checkStack();
    P::enterRecursionRule(Ctx, State, Rule, Precedence);
  }

private:
  void checkStack() {
    if (currentStackPosition() < StackFloor)
      throw StackExhausted();
  }

  SyntaxErrorStrategy &Strategy;
  uintptr_t StackFloor;
};

/// The ANTLR objects for one text, which must outlive the parse tree.
struct Pipeline {
  SourceText Src;
  antlr4::ANTLRInputStream Input;
  arecipe_antlr::ARecipeLexer Lexer;
  antlr4::CommonTokenStream Tokens;
  LexicalErrors LexErrors;

  explicit Pipeline(llvm::StringRef Text)
      : Src(Text), Input(Text.data(), Text.size()), Lexer(&Input),
        Tokens(&Lexer) {}
};

class ParseSession {
public:
  ParseSession(const llvm::SourceMgr &SM, DiagnosticEngine &Diags,
               ast::ASTContext &Ctx, const ParseLimits &Limits,
               ParserChoice Choice)
      : SM(SM), Diags(Diags), Ctx(Ctx), Limits(Limits), Choice(Choice) {}

  ast::File *parseFile(unsigned BufferID);
  ast::Expr *parseExpr(llvm::StringRef Text);

private:
  /// Refuses a text above the size limit or with invalid UTF-8.
  bool checkText(llvm::StringRef Text);
  ast::Expr *parseInterpolation(llvm::StringRef Source);
  bool checkTokens(Pipeline &Pipe);
  void reportInvalidCharacters(Pipeline &Pipe, size_t First, size_t Last);

  /// Runs the lexer, the token checks and the parser rule Rule on Pipe,
  /// then Build on the tree. Returns null if the text was refused or the
  /// runtime failed.
  template <typename RuleFn, typename BuildFn>
  auto run(Pipeline &Pipe, RuleFn Rule, BuildFn Build)
      -> decltype(Build(nullptr, std::declval<ASTBuilder &>()));

  const llvm::SourceMgr &SM;
  DiagnosticEngine &Diags;
  ast::ASTContext &Ctx;
  const ParseLimits &Limits;
  ParserChoice Choice;
};

} // namespace

/// A character for a message: itself if printable ASCII, else U+XXXX.
static std::string describeCharacter(llvm::StringRef Bytes) {
  if (Bytes.size() == 1 && Bytes[0] >= 0x20 && Bytes[0] < 0x7F)
    return Bytes.str();
  uint32_t CP = static_cast<unsigned char>(Bytes[0]);
  if (Bytes.size() > 1) {
    // Valid UTF-8 (checked before lexing): decode the lead and trail bytes.
    static const unsigned LeadMask[] = {0, 0, 0x1F, 0x0F, 0x07};
    CP &= LeadMask[Bytes.size()];
    for (char C : Bytes.drop_front())
      CP = (CP << 6) | (static_cast<unsigned char>(C) & 0x3F);
  }
  char Buf[16];
  snprintf(Buf, sizeof(Buf), "U+%04X", CP);
  return Buf;
}

void ParseSession::reportInvalidCharacters(Pipeline &Pipe, size_t First,
                                           size_t Last) {
  antlr4::Token *Start = Pipe.Tokens.get(First);
  antlr4::Token *End = Pipe.Tokens.get(Last);
  llvm::SMRange Range =
      Pipe.Src.getRange(Start->getStartIndex(), End->getStopIndex());
  Diags.report(Range, DiagID::err_invalid_character)
      << describeCharacter(
             Pipe.Src.getBytes(Start->getStartIndex(), Start->getStopIndex()));
  Pipe.LexErrors.Offsets.push_back(Pipe.Src.getByteOffset(Start->getStartIndex()));
}

/// Reports lexical errors (a run of invalid characters is one error) and
/// refuses brackets nested deeper than the limit, which the recursive
/// parser could not survive. Returns false if the text must not be parsed.
bool ParseSession::checkTokens(Pipeline &Pipe) {
  const std::vector<antlr4::Token *> &Tokens = Pipe.Tokens.getTokens();
  unsigned Depth = 0;
  for (size_t I = 0, E = Tokens.size(); I != E; ++I) {
    antlr4::Token *T = Tokens[I];
    size_t Type = T->getType();
    if (Type == antlr4::Token::EOF)
      break;
    llvm::StringRef Text = Pipe.Src.getBytes(T->getStartIndex(), T->getStopIndex());
    switch (Type) {
    case P::INVALID_CHAR: {
      size_t Last = I;
      while (Last + 1 < E && Tokens[Last + 1]->getType() == P::INVALID_CHAR &&
             Tokens[Last + 1]->getStartIndex() == Tokens[Last]->getStopIndex() + 1)
        ++Last;
      reportInvalidCharacters(Pipe, I, Last);
      I = Last;
      break;
    }
    case P::STRING:
    case P::RAW_STRING:
      if (!isTerminatedString(Text)) {
        size_t QuoteLen = Type == P::RAW_STRING ? 2 : 1;
        llvm::SMLoc Start = Pipe.Src.getLoc(T->getStartIndex());
        Diags.report(llvm::SMRange(Start, llvm::SMLoc::getFromPointer(
                                              Start.getPointer() + QuoteLen)),
                     DiagID::err_unterminated_string);
        Pipe.LexErrors.Offsets.push_back(
            Pipe.Src.getByteOffset(T->getStartIndex()));
      }
      break;
    case P::BLOCK_COMMENT:
      if (Text.size() < 4 || !Text.endswith("*/")) {
        llvm::SMLoc Start = Pipe.Src.getLoc(T->getStartIndex());
        Diags.report(llvm::SMRange(Start, llvm::SMLoc::getFromPointer(
                                              Start.getPointer() + 2)),
                     DiagID::err_unterminated_block_comment);
        Pipe.LexErrors.UnterminatedComment = true;
      }
      break;
    case P::LPAREN:
    case P::LBRACK:
    case P::LBRACE:
      if (++Depth > Limits.MaxNesting) {
        Diags.report(Pipe.Src.getRange(T->getStartIndex(), T->getStopIndex()),
                     DiagID::err_nesting_too_deep)
            << Limits.MaxNesting;
        return false;
      }
      break;
    case P::RPAREN:
    case P::RBRACK:
    case P::RBRACE:
      if (Depth)
        --Depth;
      break;
    default:
      break;
    }
  }
  std::sort(Pipe.LexErrors.Offsets.begin(), Pipe.LexErrors.Offsets.end());
  return true;
}

template <typename RuleFn, typename BuildFn>
auto ParseSession::run(Pipeline &Pipe, RuleFn Rule, BuildFn Build)
    -> decltype(Build(nullptr, std::declval<ASTBuilder &>())) {
  SyntaxErrorListener Listener(Pipe.Src, Diags);
  Pipe.Lexer.removeErrorListeners();
  Pipe.Lexer.addErrorListener(&Listener);
  auto Strategy =
      std::make_shared<SyntaxErrorStrategy>(Pipe.Src, Diags, Pipe.LexErrors);
  try {
    Pipe.Tokens.fill();
    if (!checkTokens(Pipe))
      return nullptr;
    GuardedParser Parser(&Pipe.Tokens, *Strategy);
    Parser.removeErrorListeners();
    // Two-stage parsing (ANTLR's recommended pattern): the faster SLL
    // prediction with a strategy that gives up at the first problem parses
    // every correct recipe; only input SLL cannot parse is re-parsed with
    // full LL prediction and the recovering, diagnosing strategy, so
    // diagnostics are exactly those of a single LL parse.
    auto *Interp = Parser.getInterpreter<antlr4::atn::ParserATNSimulator>();
    Interp->setPredictionMode(antlr4::atn::PredictionMode::SLL);
    Parser.setErrorHandler(std::make_shared<antlr4::BailErrorStrategy>());
    decltype(Rule(Parser)) Tree = nullptr;
    try {
      Tree = Rule(Parser);
    } catch (antlr4::ParseCancellationException &) {
      Tree = nullptr;
    }
    if (!Tree) {
      Pipe.Tokens.seek(0);
      Parser.reset();
      Interp->setPredictionMode(antlr4::atn::PredictionMode::LL);
      Parser.addErrorListener(&Listener);
      Parser.setErrorHandler(Strategy);
      Tree = Rule(Parser);
    }
    auto ParseInterpolation = [this](llvm::StringRef Source) {
      return parseInterpolation(Source);
    };
    ASTBuilder Builder(Pipe.Src, Diags, Ctx, Limits, ParseInterpolation);
    return Build(Tree, Builder);
  } catch (StackExhausted &) {
    Diags.report(Pipe.Src.getLoc(0), DiagID::err_expression_too_deep)
        << Limits.MaxExprDepth;
  } catch (std::exception &) {
    // The runtime failed in a way the strategy did not foresee; the file
    // is reported as unparsable rather than crashing the compiler.
    Diags.report(Pipe.Src.getLoc(0), DiagID::err_unexpected_token) << "input";
  }
  return nullptr;
}

ast::Expr *ParseSession::parseInterpolation(llvm::StringRef Source) {
  if (Source.trim().empty()) {
    Diags.report(llvm::SMLoc::getFromPointer(Source.begin()),
                 DiagID::err_expected_expr)
        << "'${'";
    return nullptr;
  }
  Pipeline Pipe(Source);
  return run(
      Pipe, [](GuardedParser &Parser) { return Parser.interpolation(); },
      [](P::InterpolationContext *Tree, ASTBuilder &Builder) {
        return Builder.buildInterpolation(Tree);
      });
}

bool ParseSession::checkText(llvm::StringRef Text) {
  if (Text.size() > Limits.MaxFileBytes) {
    Diags.report(llvm::SMLoc::getFromPointer(Text.begin()),
                 DiagID::err_file_too_large)
        << Text.size() << Limits.MaxFileBytes;
    return false;
  }
  if (std::optional<size_t> Bad = findInvalidUTF8(Text)) {
    Diags.report(llvm::SMLoc::getFromPointer(Text.begin() + *Bad),
                 DiagID::err_invalid_utf8);
    return false;
  }
  return true;
}

ast::File *ParseSession::parseFile(unsigned BufferID) {
  const llvm::MemoryBuffer *Buffer = SM.getMemoryBuffer(BufferID);
  llvm::StringRef Text = Buffer->getBuffer();
  llvm::SMLoc Start = llvm::SMLoc::getFromPointer(Text.begin());
  if (!checkText(Text))
    return nullptr;
  // ANTLR drops a leading byte-order mark itself; dropping it here keeps
  // its code point indexes aligned with our bytes.
  llvm::StringRef Body = Text;
  Body.consume_front("\xEF\xBB\xBF");
  llvm::SMRange FileRange(Start, llvm::SMLoc::getFromPointer(Text.end()));
  llvm::StringRef Name = Buffer->getBufferIdentifier();
  if (Choice != ParserChoice::ReferenceOnly) {
    if (ast::File *F = fastParseFile(Body, Name, FileRange, Diags, Ctx, Limits))
      return F;
    if (Choice == ParserChoice::FastOnly)
      return nullptr;
  }
  Pipeline Pipe(Body);
  return run(
      Pipe, [](GuardedParser &Parser) { return Parser.file(); },
      [&](P::FileContext *Tree, ASTBuilder &Builder) {
        return Builder.buildFile(Tree, Name, FileRange);
      });
}

ast::Expr *ParseSession::parseExpr(llvm::StringRef Text) {
  assert(
      SM.FindBufferContainingLoc(llvm::SMLoc::getFromPointer(Text.begin())) &&
      "the text must lie in a buffer of the SourceMgr");
  if (Text.trim().empty()) {
    Diags.report(llvm::SMLoc::getFromPointer(Text.begin()),
                 DiagID::err_expected)
        << "expression";
    return nullptr;
  }
  if (!checkText(Text))
    return nullptr;
  if (Choice != ParserChoice::ReferenceOnly) {
    if (ast::Expr *E = fastParseExpr(Text, Ctx, Limits))
      return E;
    if (Choice == ParserChoice::FastOnly)
      return nullptr;
  }
  unsigned Errors = Diags.errorCount();
  Pipeline Pipe(Text);
  ast::Expr *E = run(
      Pipe, [](GuardedParser &Parser) { return Parser.standaloneExpr(); },
      [](P::StandaloneExprContext *Tree, ASTBuilder &Builder) {
        return Builder.buildStandaloneExpr(Tree);
      });
  // A tree the parser recovered may still build: the caller gets an
  // expression only when the text is one.
  return Diags.errorCount() == Errors ? E : nullptr;
}

ast::File *arecipe::parse::parseFile(const llvm::SourceMgr &SM,
                                     unsigned BufferID,
                                     DiagnosticEngine &Diags,
                                     ast::ASTContext &Ctx,
                                     const ParseLimits &Limits) {
  return parseFile(SM, BufferID, Diags, Ctx, Limits, ParserChoice::Default);
}

ast::File *arecipe::parse::parseFile(const llvm::SourceMgr &SM,
                                     unsigned BufferID, DiagnosticEngine &Diags,
                                     ast::ASTContext &Ctx,
                                     const ParseLimits &Limits,
                                     ParserChoice Choice) {
  return ParseSession(SM, Diags, Ctx, Limits, Choice).parseFile(BufferID);
}

ast::Expr *arecipe::parse::parseExpr(const llvm::SourceMgr &SM,
                                     llvm::StringRef Text,
                                     DiagnosticEngine &Diags,
                                     ast::ASTContext &Ctx,
                                     const ParseLimits &Limits) {
  return parseExpr(SM, Text, Diags, Ctx, Limits, ParserChoice::Default);
}

ast::Expr *
arecipe::parse::parseExpr(const llvm::SourceMgr &SM, llvm::StringRef Text,
                          DiagnosticEngine &Diags, ast::ASTContext &Ctx,
                          const ParseLimits &Limits, ParserChoice Choice) {
  return ParseSession(SM, Diags, Ctx, Limits, Choice).parseExpr(Text);
}
