//===- Formatter.cpp - Syntax tree and tokens to the canonical layout -----===//
//
// The tree says what to print and in which shape; the tokens say how each
// piece is spelled and where the comments are. Printing walks the tree in
// source order and consumes the file's tokens as it goes: every keyword,
// name, literal and bracket printed is the next token of the file, checked
// to be the expected one, so each comment is printed between the same two
// tokens it sat between in the input. Literals and strings are printed as
// written (`1_000`, `0x1F`, escapes and `${...}` untouched).
//
// Layout decisions that depend on the author are few and stable under
// reformatting: blank lines between statements (at most one), statements
// written on one line (joined with `; ` when they still fit), and blocks
// written on one line (kept so when they fit). Everything else follows from
// the tree and the column limit; docs/formatting.md is the rule book.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Format/Format.h"

#include "Doc.h"

#include "arecipe/AST/Decl.h"
#include "arecipe/Parse/Lexer.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Casting.h"

#include <algorithm>

using namespace arecipe;
using namespace arecipe::ast;
using namespace arecipe::format;
using parse::Token;
using parse::TokenKind;

namespace {

constexpr unsigned IndentWidth = 2;
/// Continuation lines of an expression (after a binary operator or before
/// `if`/`else`) are indented this much more than the line they continue.
constexpr int ContinuationIndent = 4;

/// One statement (or top-level declaration) being laid out.
struct Item {
  enum class Shape : uint8_t {
    Other,  ///< printed as Content
    Assign, ///< Key Eq Value: `=` aligned in runs
    Let,    ///< the same, for `let`
    Knob,   ///< Key (the head) Where? Renders: renders aligned in runs
  };
  Shape S = Shape::Other;
  Doc Leading = 0; ///< own-line comments before it
  bool HasLeading = false;
  bool LeadingOwnLine = false; ///< a leading comment starts its line
  Doc Content = 0; ///< the whole statement, single spaces, for Other
  Doc Key = 0;     ///< Assign/Let: target; Knob: `knob NAME : TYPE = D`
  Doc Rest = 0;    ///< Assign/Let: ` = value`
  Doc Where = 0;   ///< Knob: `where C`, or 0
  llvm::SmallVector<Doc, 2> Renders;
  Doc Trailing = 0;      ///< comments of `;` tokens skipped after it
  bool HasBlock = false; ///< contains a `{ ... }` body
  bool BlankBefore = false;
  bool SameLineAsPrev = false;
  bool IsImport = false;
  bool IsEntity = false;
};

class Formatter {
public:
  Formatter(llvm::StringRef Text, std::vector<Token> Tokens)
      : Text(Text), All(std::move(Tokens)) {
    for (unsigned I = 0, E = All.size(); I != E; ++I)
      if (!All[I].isComment())
        Sig.push_back(I);
  }

  std::optional<std::string> run(const File &F, std::string &Err);

private:
  //===-- Tokens and comments --------------------------------------------===//

  const Token *peek() const {
    return Cur < Sig.size() ? &All[Sig[Cur]] : nullptr;
  }
  bool at(llvm::StringRef S) const { return peek() && peek()->is(S); }
  const char *tokStart() const {
    return peek() ? peek()->Range.Start.getPointer() : Text.end();
  }

  void fail(const std::string &Msg) {
    if (Error.empty())
      Error = Msg;
  }

  std::string where(const char *P) const {
    unsigned Line = 1, Col = 1;
    for (const char *I = Text.begin(); I < P && I < Text.end(); ++I) {
      if (*I == '\n') {
        ++Line;
        Col = 1;
      } else {
        ++Col;
      }
    }
    return std::to_string(Line) + ":" + std::to_string(Col);
  }

  static unsigned newlines(const char *From, const char *To) {
    unsigned N = 0;
    for (const char *I = From; I < To; ++I)
      N += *I == '\n';
    return N;
  }
  static bool sameLine(const char *From, const char *To) {
    return newlines(From, To) == 0;
  }
  const char *endOf(unsigned AllIdx) const {
    return All[AllIdx].Range.End.getPointer();
  }
  const char *startOf(unsigned AllIdx) const {
    return All[AllIdx].Range.Start.getPointer();
  }
  /// Where the text before All[I] begins: the end of the token or comment
  /// before it, or the start of the text.
  const char *endBefore(unsigned I) const {
    return I ? endOf(I - 1) : Text.begin();
  }
  /// The index in All of the next significant token, or All.size().
  unsigned nextAll() const { return Cur < Sig.size() ? Sig[Cur] : All.size(); }

  Doc commentText(unsigned I) {
    llvm::StringRef S = All[I].getText();
    if (All[I].Kind == TokenKind::LineComment)
      return A.text(S.rtrim(" \t\f\v"));
    std::string Norm;
    for (size_t J = 0; J < S.size(); ++J)
      if (!(S[J] == '\r' && J + 1 < S.size() && S[J + 1] == '\n'))
        Norm += S[J];
    return A.verbatim(Norm);
  }

  /// The comments not printed yet before the next token: each own-line
  /// comment on its own line (with the blank line before it kept, but for
  /// the first), a comment on the line of the token before it inline.
  /// Dangling: they end a block or a list, so nothing follows on their
  /// last line and the caller breaks the line.
  Doc commentsBefore(bool Dangling = false, bool BlankBeforeFirst = false) {
    unsigned End = nextAll();
    llvm::SmallVector<Doc, 8> Parts;
    bool First = true;
    for (unsigned I = NextComment; I < End; ++I) {
      if (!All[I].isComment())
        continue;
      bool OwnLine = I == 0 || !sameLine(endBefore(I), startOf(I));
      bool Blank = newlines(endBefore(I), startOf(I)) >= 2;
      if (OwnLine) {
        Parts.push_back(A.lineStart());
        if (Blank && (!First || BlankBeforeFirst))
          Parts.push_back(A.hardLine());
        Parts.push_back(commentText(I));
        bool Last = I + 1 == End;
        const char *Next = I + 1 < All.size() ? startOf(I + 1) : Text.end();
        bool NextOnSameLine = I + 1 < All.size() && sameLine(endOf(I), Next);
        if (All[I].Kind == TokenKind::BlockComment && NextOnSameLine) {
          Parts.push_back(A.text(" "));
        } else if (!(Last && Dangling)) {
          Parts.push_back(A.hardLine());
          if (Last && newlines(endOf(I), Next) >= 2 && I + 1 < All.size())
            Parts.push_back(A.hardLine());
        }
      } else if (All[I].Kind == TokenKind::LineComment) {
        Parts.push_back(A.lineSuffix(All[I].getText().rtrim(" \t\f\v")));
      } else {
        Parts.push_back(commentText(I));
        Parts.push_back(A.text(" "));
      }
      First = false;
    }
    NextComment = std::max(NextComment, End);
    return A.concat(Parts);
  }
  bool hasCommentsBefore() const {
    for (unsigned I = NextComment, E = nextAll(); I < E; ++I)
      if (All[I].isComment())
        return true;
    return false;
  }

  /// A closing bracket or a separator: a block comment right before one
  /// stays with the code before it.
  static bool isClosing(const Token &T) {
    return T.is("}") || T.is("]") || T.is(")") || T.is(",") || T.is(";");
  }

  /// The comments right after token All[K] on its line: a line comment
  /// goes to the end of the output line; a block comment stays after the
  /// token unless more code follows it on its line, in which case it
  /// belongs to that code.
  Doc trailingComments(unsigned K) {
    llvm::SmallVector<Doc, 4> Parts;
    unsigned J = K + 1;
    while (J < All.size() && All[J].isComment() &&
           sameLine(endOf(J - 1), startOf(J))) {
      if (All[J].Kind == TokenKind::LineComment) {
        Parts.push_back(A.lineSuffix(All[J].getText().rtrim(" \t\f\v")));
        ++J;
        break;
      }
      unsigned S = J + 1;
      while (S < All.size() && All[S].isComment())
        ++S;
      if (S < All.size() && sameLine(endOf(J), startOf(S)) &&
          !isClosing(All[S]))
        break;
      Parts.push_back(A.text(" "));
      Parts.push_back(commentText(J));
      ++J;
    }
    NextComment = J;
    return A.concat(Parts);
  }

  /// Prints the next token, which must be Expected (any token if empty),
  /// with the comments before and after it.
  Doc tok(llvm::StringRef Expected = {}) {
    const Token *T = peek();
    if (!T || (!Expected.empty() && !T->is(Expected))) {
      fail("expected '" + Expected.str() + "' at " + where(tokStart()));
      return A.empty();
    }
    Doc Before = commentsBefore();
    unsigned K = Sig[Cur++];
    Doc Self = A.text(T->getText());
    return A.concat({Before, Self, trailingComments(K)});
  }

  /// Consumes an optional `;` or `,` that the layout does not print; its
  /// comments are kept.
  Doc skip(llvm::StringRef Expected) {
    Doc Before = commentsBefore();
    bool StartsLine = Cur > 0 && !sameLine(endOf(Sig[Cur - 1]), tokStart());
    unsigned K = Sig[Cur++];
    (void)Expected;
    if (!StartsLine)
      return A.concat({Before, trailingComments(K)});
    // `;` alone at the start of a line: the comments after it start the
    // line once it is gone.
    llvm::SmallVector<Doc, 4> Parts{Before};
    unsigned J = K + 1;
    for (; J < All.size() && All[J].isComment() &&
           sameLine(endOf(J - 1), startOf(J));
         ++J) {
      Parts.push_back(J == K + 1 ? A.lineStart() : A.text(" "));
      Parts.push_back(commentText(J));
    }
    NextComment = J;
    return A.concat(Parts);
  }

  //===-- Expressions ----------------------------------------------------===//

  Doc join(llvm::ArrayRef<Doc> Parts) { return A.concat(Parts); }

  static bool isCompound(const Expr *E) {
    return llvm::isa<BinaryExpr, UnaryExpr, ConditionalExpr, RangeExpr>(E);
  }
  static bool isNumber(const Expr *E) {
    if (const auto *U = llvm::dyn_cast<UnaryExpr>(E))
      return U->getOp() == UnaryOp::Negate && isNumber(U->getOperand());
    if (const auto *R = llvm::dyn_cast<RangeExpr>(E))
      return isNumber(R->getLo()) && isNumber(R->getHi()) &&
             (!R->getStep() || isNumber(R->getStep()));
    return llvm::isa<IntegerLiteral, FloatLiteral, QuantityLiteral>(E);
  }

  /// E with the parentheses written around it.
  Doc expr(const Expr *E, bool ListElement = false) {
    llvm::SmallVector<Doc, 2> Opens;
    while (peek() && tokStart() < E->getRange().Start.getPointer()) {
      if (!at("(")) {
        fail("unexpected token at " + where(tokStart()));
        return A.empty();
      }
      Opens.push_back(tok("("));
    }
    Doc Inner = exprInner(E, ListElement && Opens.empty());
    if (Opens.empty())
      return Inner;
    llvm::SmallVector<Doc, 6> Parts(Opens.begin(), Opens.end());
    Parts.push_back(Inner);
    for (size_t I = 0; I < Opens.size(); ++I) {
      Parts.push_back(commentsBefore());
      Parts.push_back(tok(")"));
    }
    return A.concat(Parts);
  }

  /// `[...]`, `(...)`, `{...}` around Items: flat if it fits, else one item
  /// a line with a trailing comma (or, for numbers, as many a line as fit).
  /// Spaced: a space inside the brackets when flat (`{ a, b }`).
  Doc bracketed(Doc Open, llvm::ArrayRef<Doc> Items, bool Fill, Doc Close,
                Doc AfterLast, Doc Dangling, bool HasDangling,
                bool Spaced = false) {
    if (Items.empty())
      return A.concat({Open, Dangling, Close});
    llvm::SmallVector<Doc, 16> Body;
    Body.push_back(Spaced ? A.line() : A.softLine());
    if (Fill) {
      llvm::SmallVector<Doc, 16> Parts;
      for (size_t I = 0; I < Items.size(); ++I) {
        if (I)
          Parts.push_back(A.line());
        Parts.push_back(Items[I]);
      }
      Body.push_back(A.fill(Parts));
    } else {
      for (size_t I = 0; I < Items.size(); ++I) {
        if (I)
          Body.push_back(A.line());
        Body.push_back(Items[I]);
      }
    }
    Body.push_back(A.ifBreak(A.addedComma(), A.empty()));
    Body.push_back(AfterLast);
    if (HasDangling)
      Body.push_back(Dangling);
    return A.group(A.concat({Open, A.nest(IndentWidth, A.concat(Body)),
                             Spaced ? A.line() : A.softLine(), Close}));
  }

  /// Elements separated by commas up to the closing token Close; Each
  /// prints one element. The comma after each element but the last is part
  /// of that element's doc.
  template <typename Fn>
  Doc list(llvm::StringRef OpenS, size_t N, Fn Each, llvm::StringRef CloseS,
           bool Fill, bool Spaced = false) {
    Doc Open = tok(OpenS);
    llvm::SmallVector<Doc, 16> Items;
    for (size_t I = 0; I < N; ++I) {
      Doc D = Each(I);
      if (I + 1 < N)
        D = A.concat({D, tok(",")});
      Items.push_back(D);
    }
    Doc AfterLast = A.empty();
    if (N && at(","))
      AfterLast = skip(",");
    bool HasDangling = hasCommentsBefore();
    Doc Dangling = commentsBefore(/*Dangling=*/true);
    Doc Close = tok(CloseS);
    if (HasDangling && N)
      Dangling = A.concat({Dangling, A.breakParent()});
    return bracketed(Open, Items, Fill, Close, AfterLast, Dangling, HasDangling,
                     Spaced);
  }

  Doc argument(const Argument &Arg) {
    if (!Arg.isNamed())
      return expr(Arg.Value);
    Doc Name = tok();
    Doc Eq = tok("=");
    return A.concat({Name, A.text(" "), Eq, A.text(" "), expr(Arg.Value)});
  }

  /// `(args)` of a call or a pre-flight action. A single list or map
  /// argument hugs the parentheses: `json({` ... `})`.
  Doc arguments(llvm::ArrayRef<Argument> Args) {
    if (Args.size() == 1 && !Args[0].isNamed()) {
      const Expr *V = Args[0].Value;
      bool Literal = llvm::isa<ListExpr, MapExpr, ComprehensionExpr>(V);
      // The token after `(` must be the literal's own bracket (no extra
      // parentheses, no comment in between).
      if (Literal && Cur + 1 < Sig.size() &&
          All[Sig[Cur + 1]].Range.Start.getPointer() ==
              V->getRange().Start.getPointer()) {
        unsigned OpenIdx = Sig[Cur];
        bool CommentAfterOpen =
            OpenIdx + 1 < All.size() && All[OpenIdx + 1].isComment();
        if (!CommentAfterOpen) {
          Doc Open = tok("(");
          Doc Value = expr(V);
          Doc After = at(",") ? skip(",") : A.empty();
          if (!hasCommentsBefore())
            return A.concat({Open, Value, After, tok(")")});
          Doc Dangling = commentsBefore(/*Dangling=*/true);
          return A.concat({Open, Value, After, A.nest(IndentWidth, Dangling),
                           A.hardLine(), tok(")")});
        }
      }
    }
    return list(
        "(", Args.size(), [&](size_t I) { return argument(Args[I]); }, ")",
        /*Fill=*/false);
  }

  static int precedence(BinaryOp Op) {
    switch (Op) {
    case BinaryOp::Mul:
    case BinaryOp::Div:
    case BinaryOp::Rem:
      return 8;
    case BinaryOp::Add:
    case BinaryOp::Sub:
      return 7;
    case BinaryOp::And:
      return 3;
    case BinaryOp::Or:
      return 2;
    default:
      return 5; // comparisons: not associative
    }
  }

  Doc binary(const BinaryExpr *B) {
    // A run of one precedence (`a + b - c`, `x and y and z`) breaks as one:
    // all its operators end a line, or none.
    llvm::SmallVector<const BinaryExpr *, 8> Chain{B};
    int Prec = precedence(B->getOp());
    while (Prec != 5) {
      const auto *L = llvm::dyn_cast<BinaryExpr>(Chain.back()->getLHS());
      if (!L || precedence(L->getOp()) != Prec ||
          L->getRange().Start.getPointer() !=
              Chain.back()->getRange().Start.getPointer())
        break;
      Chain.push_back(L);
    }
    Doc First = expr(Chain.back()->getLHS());
    llvm::SmallVector<Doc, 16> Rest;
    for (auto I = Chain.rbegin(), E = Chain.rend(); I != E; ++I) {
      Rest.push_back(A.text(" "));
      Rest.push_back(tok(getSpelling((*I)->getOp())));
      Rest.push_back(A.line());
      Rest.push_back(expr((*I)->getRHS()));
    }
    return A.group(
        A.concat({First, A.nest(ContinuationIndent, A.concat(Rest))}));
  }

  Doc exprInner(const Expr *E, bool ListElement) {
    switch (E->getKind()) {
    case NodeKind::IntegerLiteral:
    case NodeKind::FloatLiteral:
    case NodeKind::QuantityLiteral:
    case NodeKind::BoolLiteral:
    case NodeKind::NoneLiteral:
    case NodeKind::ConcExpr:
    case NodeKind::StringLiteral:
    case NodeKind::NameExpr:
      return tok();
    case NodeKind::ListExpr: {
      const auto *L = llvm::cast<ListExpr>(E);
      bool Numbers =
          !L->getElements().empty() && llvm::all_of(L->getElements(), isNumber);
      return list(
          "[", L->getElements().size(),
          [&](size_t I) { return expr(L->getElements()[I], true); }, "]",
          Numbers);
    }
    case NodeKind::MapExpr: {
      const auto *M = llvm::cast<MapExpr>(E);
      return list(
          "{", M->getEntries().size(),
          [&](size_t I) {
            const MapEntry &En = M->getEntries()[I];
            Doc K = expr(En.Key);
            Doc Colon = tok(":");
            return A.concat({K, Colon, A.text(" "), expr(En.Value)});
          },
          "}", /*Fill=*/false);
    }
    case NodeKind::ComprehensionExpr: {
      const auto *C = llvm::cast<ComprehensionExpr>(E);
      Doc Open = tok("[");
      Doc Elem = expr(C->getElement());
      Doc For = tok("for");
      Doc Var = tok();
      Doc In = tok("in");
      Doc Src = expr(C->getSource());
      llvm::SmallVector<Doc, 12> Body{A.softLine(), Elem, A.line(),    For,
                                      A.text(" "),  Var,  A.text(" "), In,
                                      A.text(" "),  Src};
      if (C->getCondition()) {
        Body.push_back(A.line());
        Body.push_back(tok("if"));
        Body.push_back(A.text(" "));
        Body.push_back(expr(C->getCondition()));
      }
      Body.push_back(commentsBefore(/*Dangling=*/true));
      return A.group(A.concat(
          {Open, A.nest(IndentWidth, A.concat(Body)), A.softLine(), tok("]")}));
    }
    case NodeKind::UnaryExpr: {
      const auto *U = llvm::cast<UnaryExpr>(E);
      if (U->getOp() == UnaryOp::Negate) {
        Doc Minus = tok("-");
        return A.concat({Minus, expr(U->getOperand())});
      }
      Doc Not = tok("not");
      return A.concat({Not, A.text(" "), expr(U->getOperand())});
    }
    case NodeKind::BinaryExpr:
      return binary(llvm::cast<BinaryExpr>(E));
    case NodeKind::RangeExpr: {
      const auto *R = llvm::cast<RangeExpr>(E);
      bool Spaced = ListElement || isCompound(R->getLo()) ||
                    isCompound(R->getHi()) ||
                    (R->getStep() && isCompound(R->getStep()));
      Doc Sp = A.text(Spaced ? " " : "");
      Doc Lo = expr(R->getLo());
      Doc Dots = tok("..");
      Doc Hi = expr(R->getHi());
      llvm::SmallVector<Doc, 8> Parts{Lo, Sp, Dots, Sp, Hi};
      if (R->getStep()) {
        Parts.push_back(A.text(" "));
        Parts.push_back(tok("step"));
        Parts.push_back(A.text(" "));
        Parts.push_back(expr(R->getStep()));
      }
      return A.concat(Parts);
    }
    case NodeKind::ConditionalExpr: {
      const auto *C = llvm::cast<ConditionalExpr>(E);
      Doc Then = expr(C->getThen());
      Doc If = tok("if");
      Doc Cond = expr(C->getCond());
      Doc Else = tok("else");
      Doc Otherwise = expr(C->getElse());
      return A.group(A.concat(
          {Then, A.nest(ContinuationIndent,
                        A.concat({A.line(), If, A.text(" "), Cond, A.line(),
                                  Else, A.text(" "), Otherwise}))}));
    }
    case NodeKind::CallExpr: {
      const auto *C = llvm::cast<CallExpr>(E);
      Doc Callee = expr(C->getCallee());
      return A.concat({Callee, arguments(C->getArgs())});
    }
    case NodeKind::IndexExpr: {
      const auto *I = llvm::cast<IndexExpr>(E);
      Doc Base = expr(I->getBase());
      Doc Open = tok("[");
      Doc Index = expr(I->getIndex());
      Doc Dangling = commentsBefore(/*Dangling=*/true);
      return A.concat({Base, Open, Index, Dangling, tok("]")});
    }
    case NodeKind::MemberExpr: {
      const auto *M = llvm::cast<MemberExpr>(E);
      Doc Base = expr(M->getBase());
      Doc Dot = tok(".");
      return A.concat({Base, Dot, tok()});
    }
    case NodeKind::ConvertExpr: {
      const auto *C = llvm::cast<ConvertExpr>(E);
      Doc Operand = expr(C->getOperand());
      Doc As = tok("as");
      Doc Unit = tok();
      if (C->getRounding() == RoundingMode::Exact)
        return A.concat({Operand, A.text(" "), As, A.text(" "), Unit});
      return A.concat(
          {Operand, A.text(" "), As, A.text(" "), Unit, A.text(" "), tok()});
    }
    default:
      fail("unexpected expression at " +
           where(E->getRange().Start.getPointer()));
      return A.empty();
    }
  }

  //===-- Statements -----------------------------------------------------===//

  Doc path(llvm::ArrayRef<Identifier> Ids) {
    llvm::SmallVector<Doc, 4> Parts;
    for (size_t I = 0; I < Ids.size(); ++I) {
      if (I)
        Parts.push_back(tok("."));
      Parts.push_back(tok());
    }
    return A.concat(Parts);
  }

  Doc typeRef(const TypeRef *T) {
    llvm::SmallVector<Doc, 8> Parts{tok()};
    if (!T->Args.empty()) {
      Parts.push_back(tok("<"));
      for (size_t I = 0; I < T->Args.size(); ++I) {
        if (I) {
          Parts.push_back(tok(","));
          Parts.push_back(A.text(" "));
        }
        Parts.push_back(typeRef(T->Args[I]));
      }
      Parts.push_back(tok(">"));
    }
    if (T->Optional)
      Parts.push_back(tok("?"));
    return A.concat(Parts);
  }

  /// Appends ` ` and the next token.
  void word(llvm::SmallVectorImpl<Doc> &Parts, llvm::StringRef Expected = {}) {
    Parts.push_back(A.text(" "));
    Parts.push_back(tok(Expected));
  }

  /// ` = Value` ending an emit item, if it has a value.
  void itemValue(llvm::SmallVectorImpl<Doc> &Parts, const Expr *Value) {
    if (!Value)
      return;
    word(Parts, "=");
    Parts.push_back(A.text(" "));
    Parts.push_back(expr(Value));
  }

  Doc render(const RenderClause &R) {
    llvm::SmallVector<Doc, 12> Parts{tok("->")};
    word(Parts, getSpelling(R.Kind));
    switch (R.Kind) {
    case RenderKind::Flag:
      word(Parts);
      if (R.Mode != ListMode::None)
        word(Parts);
      break;
    case RenderKind::Switch:
      word(Parts);
      if (R.Negative) {
        word(Parts, "else");
        word(Parts);
      }
      break;
    case RenderKind::Env:
      word(Parts);
      break;
    case RenderKind::Json:
    case RenderKind::Yaml:
    case RenderKind::JsonFile:
      word(Parts);
      word(Parts);
      break;
    case RenderKind::Arg:
    case RenderKind::Args:
      break;
    }
    if (R.Cond) {
      word(Parts, "if");
      Parts.push_back(A.text(" "));
      Parts.push_back(expr(R.Cond));
    }
    return A.concat(Parts);
  }

  /// `HEADER {` statements `}`: on one line when the author wrote it on one
  /// line and it still fits, else one statement a line (statements the
  /// author joined with `;` stay joined while they fit).
  Doc block(Doc Header, const Block &B, unsigned Depth) {
    return braced(Header, Depth, [&](Doc &Open) {
      return statements(B.Stmts, Depth + 1, Open);
    });
  }

  /// `HEADER {` items `}` as block() lays it out, the items built by
  /// Build(Open) (Open: the `{`, to which comments of `;` before the first
  /// item are appended).
  template <typename BuildFn>
  Doc braced(Doc Header, unsigned Depth, BuildFn Build) {
    const char *LBrace = tokStart();
    Doc Open = tok("{");
    std::vector<Item> Items = Build(Open);
    bool BlankBeforeDangling =
        hasCommentsBefore() && !Items.empty() &&
        newlines(endBefore(NextComment), startOf(NextComment)) >= 2;
    bool HasDangling = hasCommentsBefore();
    Doc Dangling = commentsBefore(/*Dangling=*/true, BlankBeforeDangling);
    const char *RBrace = tokStart();
    Doc Close = tok("}");
    if (Items.empty() && !HasDangling)
      return A.concat({Header, A.text(" "), Open, Close});
    unsigned Indent = Depth * IndentWidth;
    if (sameLine(LBrace, RBrace) && !HasDangling) {
      llvm::SmallVector<Doc, 16> Parts{Header, A.text(" "), Open, A.text(" ")};
      for (size_t I = 0; I < Items.size(); ++I) {
        if (I)
          Parts.push_back(A.text("; "));
        Parts.push_back(flat(Items[I]));
      }
      Parts.push_back(A.text(" "));
      Parts.push_back(Close);
      Doc OneLine = A.concat(Parts);
      std::optional<unsigned> W = A.flatWidth(OneLine);
      if (W && Indent + *W <= ColumnLimit)
        return OneLine;
    }
    Doc Body = assemble(Items, Depth + 1, /*TopLevel=*/false);
    llvm::SmallVector<Doc, 8> Inner{Body};
    if (HasDangling)
      Inner.push_back(Dangling);
    return A.concat({Header, A.text(" "), Open,
                     A.nest(IndentWidth, A.concat(Inner)), A.hardLine(),
                     Close});
  }

  /// An item's statement: Pad spaces after an assignment's target, a
  /// knob's renders at KnobColumn (0: one space after the head).
  Doc layItem(const Item &It, bool WithLeading, unsigned Pad,
              unsigned KnobColumn) {
    llvm::SmallVector<Doc, 8> Parts;
    if (It.HasLeading && WithLeading)
      Parts.push_back(It.Leading);
    switch (It.S) {
    case Item::Shape::Other:
      Parts.push_back(It.Content);
      break;
    case Item::Shape::Assign:
    case Item::Shape::Let:
      Parts.push_back(It.Key);
      if (Pad)
        Parts.push_back(A.text(std::string(Pad, ' ')));
      Parts.push_back(It.Rest);
      break;
    case Item::Shape::Knob:
      Parts.push_back(knobDoc(It, KnobColumn));
      break;
    }
    Parts.push_back(It.Trailing);
    return A.concat(Parts);
  }

  /// An item's statement with single spaces, for one-line blocks and joins.
  Doc flat(const Item &It, bool WithLeading = true) {
    return layItem(It, WithLeading, 0, 0);
  }

  /// The knob's head, then `where` (on the next line, under the knob's
  /// name, if the head does not fit), then each render clause at Column.
  Doc knobDoc(const Item &It, unsigned Column) {
    llvm::SmallVector<Doc, 8> Parts{It.Key};
    if (It.Where)
      Parts.push_back(A.nest(5, A.group(A.concat({A.line(), It.Where}))));
    for (Doc R : It.Renders) {
      Parts.push_back(Column ? A.alignLine(Column) : A.line());
      Parts.push_back(R);
    }
    return A.group(A.concat(Parts));
  }

  /// `let NAME = Value`, a statement or a top-level declaration alike.
  Item let(Item It, const Expr *Value) {
    It.S = Item::Shape::Let;
    Doc Let = tok("let");
    It.Key = A.concat({Let, A.text(" "), tok()});
    Doc Eq = tok("=");
    It.Rest = A.concat({A.text(" "), Eq, A.text(" "), expr(Value)});
    return It;
  }

  Item statement(const Stmt *S, unsigned Depth);
  std::vector<Item> statements(llvm::ArrayRef<Stmt *> Stmts, unsigned Depth,
                               Doc &AfterOpen);
  /// The items of a block, one per element of Elements (built by
  /// Build(element)): each with its leading comments and where the author
  /// put it; a `;` between them is dropped, its comments kept (on the item
  /// before it, or on AfterOpen, the block's `{`).
  template <typename T, typename BuildFn>
  std::vector<Item> items(llvm::ArrayRef<T> Elements, Doc &AfterOpen,
                          BuildFn Build);
  Item tuneItem(const TuneItem &T, unsigned Depth);
  std::vector<Item> tuneItems(llvm::ArrayRef<TuneItem> Items, unsigned Depth,
                              Doc &AfterOpen);
  Item declaration(const Decl *D);
  void beginItem(Item &It, unsigned PrevLastTok, bool HasPrev);
  Doc assemble(std::vector<Item> &Items, unsigned Depth, bool TopLevel);

  DocArena A;
  llvm::StringRef Text;
  std::vector<Token> All;
  std::vector<unsigned> Sig; ///< Indexes in All of the significant tokens.
  unsigned Cur = 0;          ///< The next significant token (index in Sig).
  unsigned NextComment = 0;  ///< The first comment not printed (index in All).
  std::string Error;
};

} // namespace

void Formatter::beginItem(Item &It, unsigned PrevLastTok, bool HasPrev) {
  unsigned First = NextComment;
  while (First < nextAll() && !All[First].isComment())
    ++First;
  if (First > nextAll())
    First = nextAll();
  if (First < All.size())
    It.BlankBefore = HasPrev && newlines(endBefore(First), startOf(First)) >= 2;
  It.SameLineAsPrev =
      HasPrev && Cur < Sig.size() && sameLine(endOf(PrevLastTok), tokStart());
  It.HasLeading = hasCommentsBefore();
  for (unsigned I = NextComment, E = nextAll(); I < E; ++I)
    if (All[I].isComment() && !sameLine(endBefore(I), startOf(I)))
      It.LeadingOwnLine = true;
  It.Leading = commentsBefore();
}

Item Formatter::statement(const Stmt *S, unsigned Depth) {
  Item It;
  auto Sp = [&] { return A.text(" "); };
  switch (S->getKind()) {
  case NodeKind::AssignStmt: {
    const auto *As = llvm::cast<AssignStmt>(S);
    It.S = Item::Shape::Assign;
    It.Key = path(As->getPath());
    Doc Eq = tok("=");
    It.Rest = A.concat({Sp(), Eq, Sp(), expr(As->getValue())});
    return It;
  }
  case NodeKind::LetStmt:
    return let(std::move(It), llvm::cast<LetStmt>(S)->getValue());
  case NodeKind::BlockStmt: {
    const auto *B = llvm::cast<BlockStmt>(S);
    It.HasBlock = true;
    It.Content = block(tok(), B->getBody(), Depth);
    return It;
  }
  case NodeKind::BandStmt: {
    const auto *B = llvm::cast<BandStmt>(S);
    It.HasBlock = true;
    Doc Band = tok("band");
    Doc Name = tok();
    Doc When = tok("when");
    Doc Header =
        A.concat({Band, Sp(), Name, Sp(), When, Sp(), expr(B->getCondition())});
    It.Content = block(Header, B->getBody(), Depth);
    return It;
  }
  case NodeKind::AtConcStmt: {
    const auto *At = llvm::cast<AtConcStmt>(S);
    It.HasBlock = true;
    llvm::SmallVector<Doc, 8> Parts{tok("at")};
    word(Parts, "conc");
    for (size_t I = 0; I < At->getConcs().size(); ++I) {
      if (I)
        Parts.push_back(tok(","));
      Parts.push_back(Sp());
      Parts.push_back(expr(At->getConcs()[I]));
    }
    It.Content = block(A.concat(Parts), At->getBody(), Depth);
    return It;
  }
  case NodeKind::ArmStmt: {
    const auto *Arm = llvm::cast<ArmStmt>(S);
    It.HasBlock = true;
    Doc Kw = tok("arm");
    Doc Header = A.concat({Kw, Sp(), tok()});
    It.Content = block(Header, Arm->getBody(), Depth);
    return It;
  }
  case NodeKind::EmitStmt: {
    const auto *Em = llvm::cast<EmitStmt>(S);
    It.HasBlock = true;
    Doc Emit = tok("emit");
    Doc When = tok("when");
    Doc Header = A.concat({Emit, Sp(), When, Sp(), expr(Em->getCondition())});
    It.Content = block(Header, Em->getBody(), Depth);
    return It;
  }
  case NodeKind::CheckStmt: {
    const auto *C = llvm::cast<CheckStmt>(S);
    Doc Check = tok("check");
    Doc Cond = expr(C->getCondition());
    Doc Colon = tok(":");
    Doc Msg = tok();
    It.Content = A.concat({Check, Sp(), Cond, Sp(), Colon, Sp(), Msg});
    return It;
  }
  case NodeKind::PreflightStmt: {
    const auto *P = llvm::cast<PreflightStmt>(S);
    Doc Kw = tok("preflight");
    Doc Action = tok();
    It.Content = A.concat({Kw, Sp(), Action, arguments(P->getArgs())});
    return It;
  }
  case NodeKind::KnobStmt: {
    const auto *K = llvm::cast<KnobStmt>(S);
    It.S = Item::Shape::Knob;
    Doc Kw = tok("knob");
    Doc Name = tok();
    Doc Colon = tok(":");
    llvm::SmallVector<Doc, 8> Head{
        Kw, Sp(), Name, Sp(), Colon, Sp(), typeRef(K->getType())};
    if (K->getDefault()) {
      word(Head, "=");
      Head.push_back(Sp());
      Head.push_back(expr(K->getDefault()));
    }
    It.Key = A.concat(Head);
    if (K->getConstraint()) {
      Doc Where = tok("where");
      It.Where = A.concat({Where, Sp(), expr(K->getConstraint())});
    }
    for (const RenderClause &R : K->getRenders())
      It.Renders.push_back(render(R));
    return It;
  }
  case NodeKind::FlagStmt: {
    const auto *F = llvm::cast<FlagStmt>(S);
    llvm::SmallVector<Doc, 8> Parts{tok("flag")};
    word(Parts);
    if (F->getListMode() != ListMode::None)
      word(Parts);
    itemValue(Parts, F->getValue());
    It.Content = A.concat(Parts);
    return It;
  }
  case NodeKind::SwitchStmt: {
    const auto *Sw = llvm::cast<SwitchStmt>(S);
    llvm::SmallVector<Doc, 8> Parts{tok("switch")};
    word(Parts);
    if (Sw->getNegative()) {
      word(Parts, "else");
      word(Parts);
    }
    itemValue(Parts, Sw->getValue());
    It.Content = A.concat(Parts);
    return It;
  }
  case NodeKind::ArgsStmt: {
    Doc Kw = tok("args");
    It.Content =
        A.concat({Kw, Sp(), expr(llvm::cast<ArgsStmt>(S)->getValue())});
    return It;
  }
  case NodeKind::FileStmt: {
    const auto *F = llvm::cast<FileStmt>(S);
    llvm::SmallVector<Doc, 8> Parts{tok("file")};
    word(Parts);
    itemValue(Parts, F->getValue());
    It.Content = A.concat(Parts);
    return It;
  }
  default:
    fail("unexpected statement at " + where(S->getRange().Start.getPointer()));
    return It;
  }
}

template <typename T, typename BuildFn>
std::vector<Item> Formatter::items(llvm::ArrayRef<T> Elements, Doc &AfterOpen,
                                   BuildFn Build) {
  std::vector<Item> Items;
  unsigned PrevLast = 0;
  auto SkipSemis = [&] {
    while (at(";")) {
      Doc D = skip(";");
      if (Items.empty())
        AfterOpen = A.concat({AfterOpen, D});
      else
        Items.back().Trailing = A.concat({Items.back().Trailing, D});
    }
  };
  for (const T &E : Elements) {
    SkipSemis();
    Item It;
    It.Trailing = A.empty();
    beginItem(It, PrevLast, !Items.empty());
    Item Built = Build(E);
    Built.Leading = It.Leading;
    Built.HasLeading = It.HasLeading;
    Built.LeadingOwnLine = It.LeadingOwnLine;
    Built.BlankBefore = It.BlankBefore;
    Built.SameLineAsPrev = It.SameLineAsPrev;
    Built.Trailing = A.empty();
    PrevLast = Cur ? Sig[Cur - 1] : 0;
    Items.push_back(std::move(Built));
  }
  SkipSemis();
  return Items;
}

std::vector<Item> Formatter::statements(llvm::ArrayRef<Stmt *> Stmts,
                                        unsigned Depth, Doc &AfterOpen) {
  return items(Stmts, AfterOpen,
               [&](const Stmt *S) { return statement(S, Depth); });
}

std::vector<Item> Formatter::tuneItems(llvm::ArrayRef<TuneItem> TItems,
                                       unsigned Depth, Doc &AfterOpen) {
  return items(TItems, AfterOpen,
               [&](const TuneItem &T) { return tuneItem(T, Depth); });
}

/// One item of a tune block: scopes as blocks, candidate sets as
/// assignments (`in` aligned in runs, as `=` is), the objective and
/// constraints with single spaces (`p90_ttft <= 2s`, `>= 20 tok/s/user`).
Item Formatter::tuneItem(const TuneItem &T, unsigned Depth) {
  Item It;
  auto Sp = [&] { return A.text(" "); };
  switch (T.K) {
  case TuneItem::Band: {
    It.HasBlock = true;
    Doc Kw = tok("band");
    Doc Header = A.concat({Kw, Sp(), tok()});
    It.Content = braced(Header, Depth, [&](Doc &Open) {
      return tuneItems(T.Items, Depth + 1, Open);
    });
    return It;
  }
  case TuneItem::At: {
    It.HasBlock = true;
    llvm::SmallVector<Doc, 8> Parts{tok("at")};
    word(Parts, "conc");
    for (size_t I = 0; I < T.Concs.size(); ++I) {
      if (I)
        Parts.push_back(tok(","));
      Parts.push_back(Sp());
      Parts.push_back(expr(T.Concs[I]));
    }
    It.Content = braced(A.concat(Parts), Depth, [&](Doc &Open) {
      return tuneItems(T.Items, Depth + 1, Open);
    });
    return It;
  }
  case TuneItem::Objective: {
    Doc Goal = tok(T.Maximize ? "maximize" : "minimize");
    It.Content = A.concat({Goal, Sp(), tok()});
    return It;
  }
  case TuneItem::Candidates: {
    It.S = Item::Shape::Assign;
    It.Key = tok();
    Doc In = tok("in");
    It.Rest = A.concat({Sp(), In, Sp(), expr(T.Value)});
    return It;
  }
  case TuneItem::Constraint: {
    llvm::SmallVector<Doc, 12> Parts{tok()};
    word(Parts); // the comparison
    Parts.push_back(Sp());
    Parts.push_back(expr(T.Value));
    if (!T.Unit.empty()) {
      // `tok/s/user`: its segments and slashes, written without spaces.
      size_t Tokens = 2 * (size_t)llvm::count(T.Unit.Name, '/') + 1;
      Parts.push_back(Sp());
      for (size_t I = 0; I < Tokens; ++I)
        Parts.push_back(tok());
    }
    It.Content = A.concat(Parts);
    return It;
  }
  }
  fail("unexpected tune item at " + where(T.Range.Start.getPointer()));
  return It;
}

Item Formatter::declaration(const Decl *D) {
  Item It;
  auto Sp = [&] { return A.text(" "); };
  switch (D->getKind()) {
  case NodeKind::ImportDecl: {
    const auto *I = llvm::cast<ImportDecl>(D);
    It.IsImport = true;
    llvm::SmallVector<Doc, 6> Parts{tok("import")};
    word(Parts);
    if (!I->getAlias().empty()) {
      word(Parts, "as");
      word(Parts);
    }
    It.Content = A.concat(Parts);
    return It;
  }
  case NodeKind::EntityDecl: {
    const auto *E = llvm::cast<EntityDecl>(D);
    It.HasBlock = true;
    It.IsEntity = true;
    llvm::SmallVector<Doc, 8> Parts{tok(getSpelling(E->getEntityKind()))};
    word(Parts);
    if (E->hasExtends()) {
      word(Parts, "extends");
      Parts.push_back(Sp());
      Parts.push_back(path(E->getExtends()));
    }
    It.Content = block(A.concat(Parts), E->getBody(), 0);
    return It;
  }
  case NodeKind::EnumDecl: {
    const auto *E = llvm::cast<EnumDecl>(D);
    Doc Kw = tok("enum");
    Doc Name = tok();
    // Members read as a set: `{ a, b }` with spaces, like a block.
    It.Content = A.concat(
        {Kw, Sp(), Name, Sp(),
         list(
             "{", E->getMembers().size(), [&](size_t) { return tok(); }, "}",
             /*Fill=*/false, /*Spaced=*/true)});
    return It;
  }
  case NodeKind::LetDecl:
    return let(std::move(It), llvm::cast<LetDecl>(D)->getValue());
  case NodeKind::TuneDecl: {
    const auto *T = llvm::cast<TuneDecl>(D);
    It.HasBlock = true;
    llvm::SmallVector<Doc, 6> Parts{tok("tune")};
    word(Parts);
    word(Parts, "for");
    word(Parts);
    It.Content = braced(A.concat(Parts), 0, [&](Doc &Open) {
      return tuneItems(T->getItems(), 1, Open);
    });
    return It;
  }
  default:
    fail("unexpected declaration at " +
         where(D->getRange().Start.getPointer()));
    return It;
  }
}

/// The lower median of Widths times two: wider entries are outliers that
/// a run does not align on (they would push every other line far right).
static unsigned outlierLimit(std::vector<unsigned> Widths) {
  std::sort(Widths.begin(), Widths.end());
  return 2 * Widths[(Widths.size() - 1) / 2];
}

Doc Formatter::assemble(std::vector<Item> &Items, unsigned Depth,
                        bool TopLevel) {
  unsigned Indent = Depth * IndentWidth;
  size_t N = Items.size();
  // Lines: statements the author wrote on one line stay joined with `; `
  // if the joined line fits, else each gets its own line.
  std::vector<size_t> LineStart; // first item of each output line
  for (size_t I = 0; I < N;) {
    LineStart.push_back(I);
    size_t J = I + 1;
    if (!TopLevel && !Items[I].HasBlock) {
      // As many as fit of the statements that follow on the author's line.
      std::optional<unsigned> W = A.flatWidth(flat(Items[I], false));
      while (W && J < N && Items[J].SameLineAsPrev && !Items[J].HasBlock &&
             !Items[J].BlankBefore && !Items[J].LeadingOwnLine) {
        std::optional<unsigned> Next = A.flatWidth(flat(Items[J]));
        if (!Next || Indent + *W + 2 + *Next > ColumnLimit)
          break;
        *W += 2 + *Next;
        ++J;
      }
    }
    I = J;
  }
  LineStart.push_back(N);

  // Alignment runs: consecutive lines of one statement each, of the same
  // shape (assignments, lets, knobs), not separated by a blank line.
  std::vector<unsigned> Pad(N, 0);       // Assign/Let: spaces after the key
  std::vector<unsigned> RenderCol(N, 0); // Knob: the render column
  size_t L = 0, NumLines = LineStart.size() - 1;
  auto Single = [&](size_t Line) {
    return LineStart[Line + 1] - LineStart[Line] == 1;
  };
  while (L < NumLines) {
    size_t I = LineStart[L];
    Item::Shape Shape = Items[I].S;
    if (!Single(L) || Shape == Item::Shape::Other) {
      ++L;
      continue;
    }
    size_t End = L + 1;
    while (End < NumLines && Single(End) && Items[LineStart[End]].S == Shape &&
           !Items[LineStart[End]].BlankBefore)
      ++End;
    std::vector<size_t> Run;
    for (size_t K = L; K < End; ++K)
      Run.push_back(LineStart[K]);
    L = End;
    if (Shape == Item::Shape::Knob) {
      // The column is one space after the widest head without a `where`
      // constraint (outliers aside) at which every knob that fits on one
      // line still does once its renders are moved to the column. A longer
      // head puts its renders one space after it when the line fits, else
      // on the next line at the column.
      struct Knob {
        size_t K;
        std::optional<unsigned> Head; ///< With the `where`, if any.
        unsigned Renders = 0;         ///< Flat width, spaces between.
      };
      std::vector<Knob> Knobs;
      std::vector<unsigned> Widths;
      for (size_t K : Run) {
        if (Items[K].Renders.empty())
          continue;
        Knob Kn{K, A.flatWidth(flat(Items[K], /*WithLeading=*/false)), 0};
        for (Doc R : Items[K].Renders)
          Kn.Renders += 1 + A.flatWidth(R).value_or(ColumnLimit);
        if (Kn.Head)
          *Kn.Head -= std::min(*Kn.Head, Kn.Renders);
        Knobs.push_back(Kn);
        if (!Items[K].Where)
          if (std::optional<unsigned> W = A.flatWidth(Items[K].Key))
            Widths.push_back(*W);
      }
      unsigned Column = 0;
      if (!Widths.empty()) {
        unsigned Limit = outlierLimit(Widths);
        std::sort(Widths.rbegin(), Widths.rend());
        for (unsigned W : Widths) {
          if (W > Limit)
            continue;
          bool AllFit = llvm::all_of(Knobs, [&](const Knob &Kn) {
            bool FitsAlone =
                Kn.Head && Indent + *Kn.Head + Kn.Renders <= ColumnLimit;
            return !FitsAlone || *Kn.Head > W ||
                   Indent + W + Kn.Renders <= ColumnLimit;
          });
          if (AllFit) {
            Column = Indent + W + 1;
            break;
          }
        }
      }
      for (const Knob &Kn : Knobs)
        RenderCol[Kn.K] = Column && Column + Kn.Renders - 1 <= ColumnLimit
                              ? Column
                              : Indent + ContinuationIndent;
      continue;
    }
    std::vector<unsigned> Widths;
    for (size_t K : Run)
      if (std::optional<unsigned> W = A.flatWidth(Items[K].Key))
        Widths.push_back(*W);
    if (Widths.size() < 2)
      continue;
    unsigned Limit = outlierLimit(Widths), Column = 0;
    for (unsigned W : Widths)
      if (W <= Limit)
        Column = std::max(Column, W);
    for (size_t K : Run)
      if (std::optional<unsigned> W = A.flatWidth(Items[K].Key))
        if (*W <= Column)
          Pad[K] = Column - *W;
  }

  auto Lay = [&](size_t K) {
    return layItem(Items[K], /*WithLeading=*/true, Pad[K],
                   RenderCol[K] ? RenderCol[K] : Indent + ContinuationIndent);
  };

  auto MultiLine = [&](size_t K) {
    std::optional<unsigned> W = A.flatWidth(Lay(K));
    return !W || Indent + *W > ColumnLimit;
  };

  llvm::SmallVector<Doc, 64> Out;
  for (size_t Line = 0; Line < NumLines; ++Line) {
    size_t I = LineStart[Line];
    bool Blank = Items[I].BlankBefore;
    if (TopLevel && Line > 0) {
      size_t P = LineStart[Line - 1];
      if (Items[P].IsImport && !Items[I].IsImport)
        Blank = true;
      // A declaration over several lines stands apart.
      if ((!Items[P].IsImport && MultiLine(P)) ||
          (!Items[I].IsImport && MultiLine(I)))
        Blank = true;
    }
    if (Line > 0 || !TopLevel)
      Out.push_back(A.hardLine());
    if (Blank && Line > 0)
      Out.push_back(A.hardLine());
    if (LineStart[Line + 1] - I == 1) {
      Out.push_back(Lay(I));
      continue;
    }
    if (Items[I].HasLeading)
      Out.push_back(Items[I].Leading);
    for (size_t K = I; K < LineStart[Line + 1]; ++K) {
      if (K > I)
        Out.push_back(A.text("; "));
      Out.push_back(flat(Items[K], /*WithLeading=*/K > I));
    }
  }
  return A.concat(Out);
}

std::optional<std::string> Formatter::run(const File &F, std::string &Err) {
  std::vector<Item> Items;
  unsigned PrevLast = 0;
  auto SkipSemis = [&] {
    while (at(";")) {
      Doc D = skip(";");
      if (!Items.empty())
        Items.back().Trailing = A.concat({Items.back().Trailing, D});
    }
  };
  auto Add = [&](const Decl *D) {
    SkipSemis();
    Item It;
    beginItem(It, PrevLast, !Items.empty());
    Item Built = declaration(D);
    Built.Leading = It.Leading;
    Built.HasLeading = It.HasLeading;
    Built.BlankBefore = It.BlankBefore;
    Built.Trailing = A.empty();
    PrevLast = Cur ? Sig[Cur - 1] : 0;
    Items.push_back(std::move(Built));
  };
  for (const ImportDecl *I : F.getImports())
    Add(I);
  for (const Decl *D : F.getDecls())
    Add(D);
  SkipSemis();
  bool BlankBeforeEnd =
      hasCommentsBefore() && !Items.empty() &&
      newlines(endBefore(NextComment), startOf(NextComment)) >= 2;
  bool HasEndComments = hasCommentsBefore();
  Doc End = commentsBefore(/*Dangling=*/true, BlankBeforeEnd);
  if (Cur != Sig.size())
    fail("unexpected token at " + where(tokStart()));
  Doc Root = assemble(Items, 0, /*TopLevel=*/true);
  if (HasEndComments)
    Root = A.concat({Root, End});
  if (!Error.empty()) {
    Err = Error;
    return std::nullopt;
  }

  std::vector<DocArena::OutputLine> Lines = A.print(Root, ColumnLimit);
  // Trailing comments of consecutive lines line up, two spaces after the
  // longest code among them.
  for (size_t I = 0; I < Lines.size();) {
    if (Lines[I].Comment.empty()) {
      ++I;
      continue;
    }
    size_t J = I;
    unsigned Col = 0;
    while (J < Lines.size() && !Lines[J].Comment.empty())
      Col = std::max(Col, displayWidth(Lines[J++].Code));
    for (size_t K = I; K < J; ++K) {
      std::string &Code = Lines[K].Code;
      if (!Code.empty())
        Code.append(Col + 2 - displayWidth(Code), ' ');
      Code += Lines[K].Comment;
    }
    I = J;
  }
  std::string Out;
  for (const DocArena::OutputLine &Line : Lines) {
    Out += Line.Code;
    Out += '\n';
  }
  // A file of nothing (or of whitespace) stays empty.
  if (llvm::StringRef(Out).trim().empty())
    return std::string();
  return Out;
}

std::optional<std::string> arecipe::format::formatTree(llvm::StringRef Text,
                                                       const ast::File &F,
                                                       std::string &Error) {
  std::optional<std::vector<Token>> Tokens = parse::lexTokens(Text);
  if (!Tokens) {
    Error = "the text is not valid UTF-8";
    return std::nullopt;
  }
  return Formatter(Text, std::move(*Tokens)).run(F, Error);
}
