//===- Doc.cpp - A layout document and its printer -----------------------===//
//
// The printer is the usual stack machine: commands (indentation, mode, doc)
// are popped one at a time; a group is printed flat when its content, and
// what follows it up to the next possible line break, fits in what is left
// of the line. It never recurses, so deeply nested expressions cannot
// exhaust the stack while printing.
//
//===----------------------------------------------------------------------===//

#include "Doc.h"

#include <algorithm>
#include <cassert>

using namespace arecipe::format;
using Kind = DocArena::Kind;

unsigned arecipe::format::displayWidth(llvm::StringRef S) {
  unsigned W = 0;
  for (unsigned char C : S)
    if ((C & 0xC0) != 0x80)
      ++W;
  return W;
}

Doc DocArena::text(llvm::StringRef S) {
  Doc D = make(Kind::Text);
  Nodes[D].Str = S.str();
  return D;
}

Doc DocArena::addedComma() {
  Doc D = text(",");
  Nodes[D].Added = true;
  return D;
}

Doc DocArena::verbatim(llvm::StringRef S) {
  Doc D = make(S.contains('\n') ? Kind::Verbatim : Kind::Text);
  Nodes[D].Str = S.str();
  return D;
}

Doc DocArena::concat(llvm::ArrayRef<Doc> Kids) {
  Doc D = make(Kind::Concat);
  Nodes[D].Kids.assign(Kids.begin(), Kids.end());
  return D;
}

Doc DocArena::group(Doc Kid) {
  Doc D = make(Kind::Group);
  Nodes[D].Kids = {Kid};
  return D;
}

Doc DocArena::nest(int N, Doc Kid) {
  Doc D = make(Kind::Nest);
  Nodes[D].N = N;
  Nodes[D].Kids = {Kid};
  return D;
}

Doc DocArena::ifBreak(Doc Broken, Doc Flat) {
  Doc D = make(Kind::IfBreak);
  Nodes[D].Kids = {Broken, Flat};
  return D;
}

Doc DocArena::lineSuffix(llvm::StringRef Comment) {
  Doc D = make(Kind::LineSuffix);
  Nodes[D].Str = Comment.str();
  return D;
}

Doc DocArena::alignLine(unsigned Column) {
  Doc D = make(Kind::AlignLine);
  Nodes[D].N = static_cast<int>(Column);
  return D;
}

Doc DocArena::fill(llvm::ArrayRef<Doc> Kids) {
  Doc D = make(Kind::Fill);
  Nodes[D].Kids.assign(Kids.begin(), Kids.end());
  return D;
}

bool DocArena::propagateBreaks(Doc D, std::vector<signed char> &Memo) {
  if (Memo[D] >= 0)
    return Memo[D];
  bool Forced = false;
  Node &N = Nodes[D];
  switch (N.K) {
  case Kind::HardLine:
  case Kind::BreakParent:
  case Kind::LineStart:
  case Kind::Verbatim:
    Forced = true;
    break;
  default:
    for (Doc Kid : N.Kids)
      Forced |= propagateBreaks(Kid, Memo);
    break;
  }
  // An IfBreak's flat branch never prints where the group breaks, and its
  // broken branch only where it does: neither forces its group.
  if (N.K == Kind::IfBreak)
    Forced = false;
  if (N.K == Kind::Group)
    Nodes[D].Broken = Forced;
  Memo[D] = Forced;
  return Forced;
}

std::optional<unsigned> DocArena::flatWidth(Doc Root) const {
  unsigned Width = 0;
  bool SuffixPending = false;
  std::vector<Doc> Stack = {Root};
  while (!Stack.empty()) {
    const Node &N = Nodes[Stack.back()];
    Stack.pop_back();
    switch (N.K) {
    case Kind::Text: {
      unsigned W = displayWidth(N.Str);
      if (W && SuffixPending)
        return std::nullopt;
      Width += W;
      break;
    }
    case Kind::Verbatim:
    case Kind::HardLine:
    case Kind::BreakParent:
    case Kind::LineStart:
      return std::nullopt;
    case Kind::Line:
    case Kind::AlignLine:
      if (SuffixPending)
        return std::nullopt;
      Width += 1;
      break;
    case Kind::SoftLine:
      break;
    case Kind::LineSuffix:
      SuffixPending = true;
      break;
    case Kind::Group:
      if (N.Broken)
        return std::nullopt;
      Stack.push_back(N.Kids[0]);
      break;
    case Kind::IfBreak:
      Stack.push_back(N.Kids[1]);
      break;
    case Kind::Concat:
    case Kind::Nest:
    case Kind::Fill:
      for (auto I = N.Kids.rbegin(), E = N.Kids.rend(); I != E; ++I)
        Stack.push_back(*I);
      break;
    }
  }
  return Width;
}

namespace arecipe::format {

class Printer {
public:
  Printer(DocArena &A, unsigned Limit) : A(A), Limit(Limit) {}

  std::vector<DocArena::OutputLine> run(Doc Root) {
    std::vector<signed char> Memo(A.Nodes.size(), -1);
    A.propagateBreaks(Root, Memo);
    Stack.push_back({0, Mode::Break, Root, 0});
    while (!Stack.empty()) {
      Cmd C = Stack.back();
      Stack.pop_back();
      step(C);
    }
    newline(0);
    // The last newline() opened an empty line that is not part of the text.
    Lines.pop_back();
    return std::move(Lines);
  }

private:
  enum class Mode : uint8_t { Break, Flat };
  struct Cmd {
    int Indent;
    Mode M;
    Doc D;
    unsigned FillStart; ///< For Fill: the first kid still to print.
  };

  const DocArena::Node &node(Doc D) const { return A.Nodes[D]; }

  unsigned column() const {
    return HasContent ? displayWidth(Lines.back().Code)
                      : static_cast<unsigned>(std::max(PendingIndent, 0));
  }

  void write(llvm::StringRef S, int Indent, bool Added = false) {
    if (S.empty())
      return;
    // Code after a trailing line comment would be commented out: the
    // comment ends the line first.
    if (!Suffixes.empty() && !Added)
      newline(Indent);
    if (!HasContent) {
      Lines.back().Code.assign(static_cast<size_t>(std::max(PendingIndent, 0)),
                               ' ');
      HasContent = true;
    }
    Lines.back().Code += S;
  }

  void newline(int Indent) {
    DocArena::OutputLine &L = Lines.back();
    for (const std::string &S : Suffixes) {
      if (!L.Comment.empty())
        L.Comment += ' ';
      L.Comment += S;
    }
    Suffixes.clear();
    while (!L.Code.empty() && L.Code.back() == ' ')
      L.Code.pop_back();
    Lines.emplace_back();
    HasContent = false;
    PendingIndent = Indent;
  }

  void step(const Cmd &C) {
    const DocArena::Node &N = node(C.D);
    switch (N.K) {
    case Kind::Text:
      write(N.Str, C.Indent, N.Added);
      break;
    case Kind::Verbatim: {
      llvm::StringRef Rest = N.Str;
      auto [First, Tail] = Rest.split('\n');
      write(First, C.Indent);
      Rest = Tail;
      while (true) {
        newline(0);
        auto [Piece, More] = Rest.split('\n');
        if (!Piece.empty()) {
          Lines.back().Code = Piece.str();
          HasContent = true;
        }
        if (!Rest.contains('\n'))
          break;
        Rest = More;
      }
      break;
    }
    case Kind::Concat:
      for (auto I = N.Kids.rbegin(), E = N.Kids.rend(); I != E; ++I)
        Stack.push_back({C.Indent, C.M, *I, 0});
      break;
    case Kind::Line:
    case Kind::SoftLine:
      if (C.M == Mode::Break)
        newline(C.Indent);
      else if (N.K == Kind::Line)
        write(" ", C.Indent);
      break;
    case Kind::HardLine:
      newline(C.Indent);
      break;
    case Kind::AlignLine:
      if (C.M == Mode::Break) {
        newline(N.N);
      } else {
        unsigned Col = column();
        unsigned Pad = static_cast<unsigned>(N.N) > Col ? N.N - Col : 1;
        write(std::string(std::max(Pad, 1u), ' '), C.Indent);
      }
      break;
    case Kind::LineStart:
      if (HasContent)
        newline(C.Indent);
      break;
    case Kind::Group: {
      Mode M = Mode::Flat;
      if (C.M == Mode::Break &&
          (N.Broken || !fits({{C.Indent, Mode::Flat, N.Kids[0], 0}})))
        M = Mode::Break;
      Stack.push_back({C.Indent, M, N.Kids[0], 0});
      break;
    }
    case Kind::Nest:
      Stack.push_back({C.Indent + N.N, C.M, N.Kids[0], 0});
      break;
    case Kind::IfBreak:
      Stack.push_back({C.Indent, C.M, N.Kids[C.M == Mode::Break ? 0 : 1], 0});
      break;
    case Kind::LineSuffix:
      Suffixes.push_back(N.Str);
      break;
    case Kind::BreakParent:
      break;
    case Kind::Fill:
      stepFill(C, N);
      break;
    }
  }

  /// Content, separator, content, ...: a separator breaks only when the
  /// content after it does not fit on the line.
  void stepFill(const Cmd &C, const DocArena::Node &N) {
    size_t I = C.FillStart, E = N.Kids.size();
    if (I >= E)
      return;
    Cmd ContentFlat{C.Indent, Mode::Flat, N.Kids[I], 0};
    Cmd ContentBreak{C.Indent, Mode::Break, N.Kids[I], 0};
    bool ContentFits = fits({ContentFlat}, /*UseRest=*/false);
    if (I + 1 >= E) {
      Stack.push_back(ContentFits ? ContentFlat : ContentBreak);
      return;
    }
    Cmd SepFlat{C.Indent, Mode::Flat, N.Kids[I + 1], 0};
    Cmd SepBreak{C.Indent, Mode::Break, N.Kids[I + 1], 0};
    if (I + 2 >= E) {
      Stack.push_back(ContentFits ? SepFlat : SepBreak);
      Stack.push_back(ContentFits ? ContentFlat : ContentBreak);
      return;
    }
    Cmd Rest{C.Indent, C.M, C.D, static_cast<unsigned>(I + 2)};
    Cmd Second{C.Indent, Mode::Flat, N.Kids[I + 2], 0};
    bool BothFit = fits({Second, SepFlat, ContentFlat}, /*UseRest=*/false);
    Stack.push_back(Rest);
    if (BothFit) {
      Stack.push_back(SepFlat);
      Stack.push_back(ContentFlat);
    } else if (ContentFits) {
      Stack.push_back(SepBreak);
      Stack.push_back(ContentFlat);
    } else {
      Stack.push_back(SepBreak);
      Stack.push_back(ContentBreak);
    }
  }

  /// Whether Next (a stack: last element first) printed from the current
  /// column fits before the limit, together with what follows it on the
  /// line (the printer's own stack, up to its next line break).
  bool fits(std::vector<Cmd> Next, bool UseRest = true) {
    unsigned Col = column();
    bool SuffixPending = !Suffixes.empty();
    size_t RestIdx = UseRest ? Stack.size() : 0;
    while (true) {
      if (Col > Limit)
        return false;
      if (Next.empty()) {
        if (RestIdx == 0)
          return true;
        Next.push_back(Stack[--RestIdx]);
      }
      Cmd C = Next.back();
      Next.pop_back();
      const DocArena::Node &N = node(C.D);
      switch (N.K) {
      case Kind::Text: {
        unsigned W = displayWidth(N.Str);
        if (W && SuffixPending && !N.Added)
          return false;
        Col += W;
        break;
      }
      case Kind::Verbatim:
        if (C.M == Mode::Flat || SuffixPending)
          return false;
        Col += displayWidth(llvm::StringRef(N.Str).split('\n').first);
        return Col <= Limit;
      case Kind::Concat:
        for (auto I = N.Kids.rbegin(), E = N.Kids.rend(); I != E; ++I)
          Next.push_back({C.Indent, C.M, *I, 0});
        break;
      case Kind::Fill:
        for (size_t I = N.Kids.size(); I-- > C.FillStart;)
          Next.push_back({C.Indent, C.M, N.Kids[I], 0});
        break;
      case Kind::Nest:
        Next.push_back({C.Indent + N.N, C.M, N.Kids[0], 0});
        break;
      case Kind::Group:
        Next.push_back({C.Indent, N.Broken ? Mode::Break : C.M, N.Kids[0], 0});
        break;
      case Kind::IfBreak:
        Next.push_back({C.Indent, C.M, N.Kids[C.M == Mode::Break ? 0 : 1], 0});
        break;
      case Kind::Line:
      case Kind::SoftLine:
      case Kind::AlignLine:
        if (C.M == Mode::Break)
          return true;
        if (SuffixPending)
          return false;
        if (N.K == Kind::Line)
          Col += 1;
        else if (N.K == Kind::AlignLine)
          Col = std::max(Col + 1, static_cast<unsigned>(N.N));
        break;
      case Kind::HardLine:
      case Kind::LineStart:
        return true;
      case Kind::LineSuffix:
        SuffixPending = true;
        break;
      case Kind::BreakParent:
        break;
      }
    }
  }

  DocArena &A;
  unsigned Limit;
  std::vector<Cmd> Stack;
  std::vector<DocArena::OutputLine> Lines{1};
  std::vector<std::string> Suffixes;
  bool HasContent = false;
  int PendingIndent = 0;
};

} // namespace arecipe::format

std::vector<DocArena::OutputLine> DocArena::print(Doc D, unsigned ColumnLimit) {
  return Printer(*this, ColumnLimit).run(D);
}
