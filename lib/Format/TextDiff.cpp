//===- TextDiff.cpp - Line differences between two texts -----------------===//
//
// Myers' O((N+M)D) shortest edit script on lines, after the common prefix
// and suffix are set aside (a format usually changes a few places, so D is
// small). The forward pass keeps each round's frontier for the walk back.
//
//===----------------------------------------------------------------------===//

#include "arecipe/Format/TextDiff.h"

#include "llvm/ADT/SmallVector.h"

#include <algorithm>

using namespace arecipe::format;

namespace {

struct Line {
  llvm::StringRef Text; ///< Without its '\n'.
  bool HasNewline;

  bool operator==(const Line &O) const {
    return Text == O.Text && HasNewline == O.HasNewline;
  }
};

std::vector<Line> splitLines(llvm::StringRef S) {
  std::vector<Line> Lines;
  while (!S.empty()) {
    size_t NL = S.find('\n');
    if (NL == llvm::StringRef::npos) {
      Lines.push_back({S, false});
      break;
    }
    Lines.push_back({S.substr(0, NL), true});
    S = S.substr(NL + 1);
  }
  return Lines;
}

enum class Op : uint8_t { Keep, Delete, Insert };

/// The edit script from A to B, one Op per line kept, deleted or inserted.
std::vector<Op> editScript(const std::vector<Line> &A,
                           const std::vector<Line> &B) {
  size_t Pre = 0;
  while (Pre < A.size() && Pre < B.size() && A[Pre] == B[Pre])
    ++Pre;
  size_t Suf = 0;
  while (Suf < A.size() - Pre && Suf < B.size() - Pre &&
         A[A.size() - 1 - Suf] == B[B.size() - 1 - Suf])
    ++Suf;
  long N = static_cast<long>(A.size() - Pre - Suf);
  long M = static_cast<long>(B.size() - Pre - Suf);
  auto Eq = [&](long X, long Y) { return A[Pre + X] == B[Pre + Y]; };

  // V[k + Off] is the furthest x on diagonal k = x - y. Trace[d] keeps
  // diagonals -d-1 .. d+1 of V as it was before round d, for the walk back.
  // Past MaxD rounds (texts that share almost nothing) the script is
  // "delete the middle, insert the new one": correct, if not minimal.
  const long MaxD = 4096;
  long Max = N + M, Off = Max + 1;
  std::vector<long> V(2 * Max + 3, 0);
  std::vector<std::vector<long>> Trace;
  long D = 0;
  bool Found = false;
  for (; D <= Max && D <= MaxD; ++D) {
    Trace.emplace_back(V.begin() + (Off - D - 1), V.begin() + (Off + D + 2));
    for (long K = -D; K <= D; K += 2) {
      long X = (K == -D || (K != D && V[K - 1 + Off] < V[K + 1 + Off]))
                   ? V[K + 1 + Off]
                   : V[K - 1 + Off] + 1;
      long Y = X - K;
      while (X < N && Y < M && Eq(X, Y)) {
        ++X;
        ++Y;
      }
      V[K + Off] = X;
      if (X >= N && Y >= M) {
        Found = true;
        break;
      }
    }
    if (Found)
      break;
  }
  if (!Found) {
    std::vector<Op> Script(Pre, Op::Keep);
    Script.insert(Script.end(), N, Op::Delete);
    Script.insert(Script.end(), M, Op::Insert);
    Script.insert(Script.end(), Suf, Op::Keep);
    return Script;
  }

  std::vector<Op> Middle;
  long X = N, Y = M;
  for (; D > 0; --D) {
    const std::vector<long> &P = Trace[D];
    auto At = [&](long Diag) { return P[Diag + D + 1]; };
    long K = X - Y;
    long PrevK = (K == -D || (K != D && At(K - 1) < At(K + 1))) ? K + 1 : K - 1;
    long PrevX = At(PrevK), PrevY = PrevX - PrevK;
    while (X > PrevX && Y > PrevY) {
      Middle.push_back(Op::Keep);
      --X;
      --Y;
    }
    Middle.push_back(X == PrevX ? Op::Insert : Op::Delete);
    X = PrevX;
    Y = PrevY;
  }
  while (X > 0 && Y > 0) {
    Middle.push_back(Op::Keep);
    --X;
    --Y;
  }
  std::vector<Op> Script(Pre, Op::Keep);
  Script.insert(Script.end(), Middle.rbegin(), Middle.rend());
  Script.insert(Script.end(), Suf, Op::Keep);
  return Script;
}

} // namespace

std::vector<LineEdit> arecipe::format::diffLines(llvm::StringRef Old,
                                                 llvm::StringRef New) {
  std::vector<Line> A = splitLines(Old), B = splitLines(New);
  std::vector<Op> Script = editScript(A, B);
  std::vector<LineEdit> Edits;
  unsigned I = 0, J = 0;
  for (size_t S = 0; S < Script.size();) {
    if (Script[S] == Op::Keep) {
      ++I, ++J, ++S;
      continue;
    }
    LineEdit E{I, I, ""};
    while (S < Script.size() && Script[S] != Op::Keep) {
      if (Script[S] == Op::Delete) {
        ++I;
      } else {
        E.NewText += B[J].Text;
        if (B[J].HasNewline)
          E.NewText += '\n';
        ++J;
      }
      ++S;
    }
    E.EndLine = I;
    Edits.push_back(std::move(E));
  }
  return Edits;
}

std::string arecipe::format::unifiedDiff(llvm::StringRef Old,
                                         llvm::StringRef New,
                                         llvm::StringRef OldLabel,
                                         llvm::StringRef NewLabel,
                                         unsigned Context) {
  std::vector<Line> A = splitLines(Old), B = splitLines(New);
  std::vector<Op> Script = editScript(A, B);
  // Positions in A and B before each script step.
  std::vector<unsigned> PosA{0}, PosB{0};
  for (Op O : Script) {
    PosA.push_back(PosA.back() + (O != Op::Insert));
    PosB.push_back(PosB.back() + (O != Op::Delete));
  }
  std::string Out;
  size_t S = 0, E = Script.size();
  while (S < E) {
    if (Script[S] == Op::Keep) {
      ++S;
      continue;
    }
    // A hunk: from Context kept lines before this change to Context after
    // the last change that is at most 2*Context kept lines from the next.
    size_t Begin = S >= Context ? S - Context : 0;
    while (Begin < S && Script[Begin] != Op::Keep)
      ++Begin;
    size_t End = S;
    while (true) {
      while (End < E && Script[End] != Op::Keep)
        ++End;
      size_t Kept = End;
      while (Kept < E && Script[Kept] == Op::Keep &&
             Kept - End < 2 * Context + 1)
        ++Kept;
      if (Kept < E && Script[Kept] != Op::Keep && Kept - End <= 2 * Context) {
        End = Kept;
        continue;
      }
      End = std::min(E, End + Context);
      break;
    }
    if (Out.empty())
      Out = "--- " + OldLabel.str() + "\n+++ " + NewLabel.str() + "\n";
    unsigned LenA = PosA[End] - PosA[Begin], LenB = PosB[End] - PosB[Begin];
    auto Range = [](unsigned Start, unsigned Len) {
      // diff -u numbers lines from 1; an empty range names the line before.
      return std::to_string(Len ? Start + 1 : Start) +
             (Len == 1 ? "" : "," + std::to_string(Len));
    };
    Out += "@@ -" + Range(PosA[Begin], LenA) + " +" + Range(PosB[Begin], LenB) +
           " @@\n";
    for (size_t K = Begin; K < End; ++K) {
      const Line &L = Script[K] == Op::Insert ? B[PosB[K]] : A[PosA[K]];
      Out += Script[K] == Op::Keep ? ' ' : Script[K] == Op::Delete ? '-' : '+';
      Out += L.Text;
      Out += '\n';
      if (!L.HasNewline)
        Out += "\\ No newline at end of file\n";
    }
    S = End;
  }
  return Out;
}
