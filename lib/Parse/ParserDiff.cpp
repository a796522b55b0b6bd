//===- ParserDiff.cpp - The fast and reference parsers side by side ------===//

#include "arecipe/Parse/ParserDiff.h"

#include "arecipe/AST/ASTContext.h"
#include "arecipe/AST/Decl.h"
#include "arecipe/AST/JSONDumper.h"
#include "arecipe/Basic/Diagnostic.h"
#include "arecipe/Basic/TextDiagnosticPrinter.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace arecipe;
using namespace arecipe::ast;
using namespace arecipe::parse;

namespace {

/// The ranges `--emit ast` leaves out, as byte offsets in source order of
/// the walk: every binary operator's and every string part's.
class ExtraRanges {
public:
  explicit ExtraRanges(const char *Base) : Base(Base) {}

  void file(const File &F) {
    for (const ImportDecl *I : F.getImports())
      expr(I->getTarget());
    for (const Decl *D : F.getDecls()) {
      if (const auto *E = llvm::dyn_cast<EntityDecl>(D))
        block(E->getBody());
      else if (const auto *L = llvm::dyn_cast<LetDecl>(D))
        expr(L->getValue());
      else if (const auto *T = llvm::dyn_cast<TuneDecl>(D))
        tune(T->getItems());
    }
  }

  void expr(const Expr *E) {
    if (!E)
      return;
    if (const auto *B = llvm::dyn_cast<BinaryExpr>(E)) {
      range(B->getOpRange());
      expr(B->getLHS());
      expr(B->getRHS());
    } else if (const auto *S = llvm::dyn_cast<StringLiteral>(E)) {
      for (const StringPart &P : S->getParts()) {
        range(P.Range);
        expr(P.Interpolation);
      }
    } else if (const auto *L = llvm::dyn_cast<ListExpr>(E)) {
      for (const Expr *X : L->getElements())
        expr(X);
    } else if (const auto *C = llvm::dyn_cast<ComprehensionExpr>(E)) {
      expr(C->getElement());
      expr(C->getSource());
      expr(C->getCondition());
    } else if (const auto *M = llvm::dyn_cast<MapExpr>(E)) {
      for (const MapEntry &X : M->getEntries()) {
        expr(X.Key);
        expr(X.Value);
      }
    } else if (const auto *U = llvm::dyn_cast<UnaryExpr>(E)) {
      expr(U->getOperand());
    } else if (const auto *R = llvm::dyn_cast<RangeExpr>(E)) {
      expr(R->getLo());
      expr(R->getHi());
      expr(R->getStep());
    } else if (const auto *C = llvm::dyn_cast<ConditionalExpr>(E)) {
      expr(C->getThen());
      expr(C->getCond());
      expr(C->getElse());
    } else if (const auto *C = llvm::dyn_cast<CallExpr>(E)) {
      expr(C->getCallee());
      for (const Argument &A : C->getArgs())
        expr(A.Value);
    } else if (const auto *I = llvm::dyn_cast<IndexExpr>(E)) {
      expr(I->getBase());
      expr(I->getIndex());
    } else if (const auto *M = llvm::dyn_cast<MemberExpr>(E)) {
      expr(M->getBase());
    } else if (const auto *C = llvm::dyn_cast<ConvertExpr>(E)) {
      expr(C->getOperand());
    }
  }

  std::string take() { return std::move(Out); }

private:
  void range(llvm::SMRange R) {
    Out += std::to_string(R.Start.getPointer() - Base) + "-" +
           std::to_string(R.End.getPointer() - Base) + " ";
  }

  void tune(llvm::ArrayRef<TuneItem> Items) {
    for (const TuneItem &I : Items) {
      for (const Expr *E : I.Concs)
        expr(E);
      expr(I.Value);
      tune(I.Items);
    }
  }

  void block(const Block &B) {
    for (const Stmt *S : B.Stmts) {
      if (const auto *A = llvm::dyn_cast<AssignStmt>(S)) {
        expr(A->getValue());
      } else if (const auto *L = llvm::dyn_cast<LetStmt>(S)) {
        expr(L->getValue());
      } else if (const auto *X = llvm::dyn_cast<BlockStmt>(S)) {
        block(X->getBody());
      } else if (const auto *X = llvm::dyn_cast<BandStmt>(S)) {
        expr(X->getCondition());
        block(X->getBody());
      } else if (const auto *X = llvm::dyn_cast<AtConcStmt>(S)) {
        for (const Expr *E : X->getConcs())
          expr(E);
        block(X->getBody());
      } else if (const auto *X = llvm::dyn_cast<ArmStmt>(S)) {
        block(X->getBody());
      } else if (const auto *X = llvm::dyn_cast<CheckStmt>(S)) {
        expr(X->getCondition());
        expr(X->getMessage());
      } else if (const auto *X = llvm::dyn_cast<PreflightStmt>(S)) {
        for (const Argument &A : X->getArgs())
          expr(A.Value);
      } else if (const auto *X = llvm::dyn_cast<KnobStmt>(S)) {
        expr(X->getDefault());
        expr(X->getConstraint());
        for (const RenderClause &R : X->getRenders()) {
          expr(R.Target);
          expr(R.Key);
          expr(R.Negative);
          expr(R.Cond);
        }
      } else if (const auto *X = llvm::dyn_cast<EmitStmt>(S)) {
        expr(X->getCondition());
        block(X->getBody());
      } else if (const auto *X = llvm::dyn_cast<FlagStmt>(S)) {
        expr(X->getFlag());
        expr(X->getValue());
      } else if (const auto *X = llvm::dyn_cast<SwitchStmt>(S)) {
        expr(X->getFlag());
        expr(X->getNegative());
        expr(X->getValue());
      } else if (const auto *X = llvm::dyn_cast<ArgsStmt>(S)) {
        expr(X->getValue());
      } else if (const auto *X = llvm::dyn_cast<FileStmt>(S)) {
        expr(X->getName());
        expr(X->getValue());
      }
    }
  }

  const char *Base;
  std::string Out;
};

/// What one parser produced from one text.
struct Outcome {
  bool HasTree = false;
  unsigned Errors = 0;
  std::string Dump;
  std::string Extras;
  std::string Diagnostics;
};

/// Parses Text with Choice; a file, or a `--set` value when AsExpr.
Outcome run(llvm::StringRef Name, llvm::StringRef Text, bool AsExpr,
            const ParseLimits &Limits, ParserChoice Choice) {
  Outcome O;
  llvm::SourceMgr SM;
  unsigned ID = SM.AddNewSourceBuffer(
      llvm::MemoryBuffer::getMemBufferCopy(Text, Name), llvm::SMLoc());
  const llvm::MemoryBuffer *Buffer = SM.getMemoryBuffer(ID);
  llvm::raw_string_ostream DiagOS(O.Diagnostics);
  TextDiagnosticPrinter Printer(DiagOS);
  DiagnosticEngine Diags(SM, &Printer);
  Diags.setErrorLimit(0);
  ASTContext Ctx;
  File *F = nullptr;
  if (AsExpr) {
    if (Expr *E =
            parseExpr(SM, Buffer->getBuffer(), Diags, Ctx, Limits, Choice)) {
      // A file of one `let`, so the dumper shows the expression.
      Identifier V{"v", E->getRange()};
      Decl *Let = Ctx.create<LetDecl>(E->getRange(), V, E);
      F = Ctx.create<File>(E->getRange(), Name, llvm::ArrayRef<ImportDecl *>(),
                           Ctx.copyArray(llvm::ArrayRef<Decl *>(Let)));
    }
  } else {
    F = parseFile(SM, ID, Diags, Ctx, Limits, Choice);
  }
  Diags.flush();
  O.Errors = Diags.errorCount();
  if (F) {
    O.HasTree = true;
    llvm::raw_string_ostream OS(O.Dump);
    dumpJSON(*F, SM, OS);
    ExtraRanges Extras(Buffer->getBufferStart());
    Extras.file(*F);
    O.Extras = Extras.take();
  }
  return O;
}

std::string differ(llvm::StringRef What, const Outcome &A, const Outcome &B,
                   llvm::StringRef NameA, llvm::StringRef NameB) {
  auto Field = [&](const Outcome &O) -> const std::string & {
    if (What == "tree")
      return O.Dump;
    if (What == "ranges")
      return O.Extras;
    return O.Diagnostics;
  };
  if (A.HasTree != B.HasTree)
    return (NameA + (A.HasTree ? " built a tree, " : " built no tree, ") +
            NameB + (B.HasTree ? " did" : " did not"))
        .str();
  if (Field(A) == Field(B))
    return "";
  return (What + " differs:\n--- " + NameA + "\n" + Field(A) + "\n--- " +
          NameB + "\n" + Field(B))
      .str();
}

ParserComparison compare(llvm::StringRef Name, llvm::StringRef Text,
                         bool AsExpr, const ParseLimits &Limits) {
  ParserComparison C;
  Outcome Ref = run(Name, Text, AsExpr, Limits, ParserChoice::ReferenceOnly);
  Outcome Fast = run(Name, Text, AsExpr, Limits, ParserChoice::FastOnly);
  Outcome Default = run(Name, Text, AsExpr, Limits, ParserChoice::Default);
  C.ReferenceClean = Ref.HasTree && Ref.Errors == 0;
  C.FastAccepted = Fast.HasTree;
  for (llvm::StringRef What : {"tree", "ranges", "diagnostics"}) {
    // The default path must give exactly what the reference gives.
    if (std::string D = differ(What, Ref, Default, "reference", "default");
        !D.empty()) {
      C.Difference = D;
      return C;
    }
    // A tree from the fast parser must be the reference's, clean.
    if (Fast.HasTree) {
      if (!C.ReferenceClean) {
        C.Difference =
            "the fast parser accepted what the reference rejects:\n" +
            Ref.Diagnostics;
        return C;
      }
      if (std::string D = differ(What, Ref, Fast, "reference", "fast");
          !D.empty()) {
        C.Difference = D;
        return C;
      }
    }
  }
  // Giving up reports nothing: every diagnostic comes from the reference.
  if (!Fast.HasTree && C.ReferenceClean && !Fast.Diagnostics.empty())
    C.Difference = "the fast parser gave up on clean text and reported:\n" +
                   Fast.Diagnostics;
  return C;
}

} // namespace

ParserComparison
arecipe::parse::compareParsersOnFile(llvm::StringRef Name, llvm::StringRef Text,
                                     const ParseLimits &Limits) {
  return compare(Name, Text, /*AsExpr=*/false, Limits);
}

ParserComparison
arecipe::parse::compareParsersOnExpr(llvm::StringRef Text,
                                     const ParseLimits &Limits) {
  return compare("<command line>", Text, /*AsExpr=*/true, Limits);
}
