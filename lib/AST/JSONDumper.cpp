//===- JSONDumper.cpp - `arecipec --emit ast` ----------------------------===//
//
// Keys are written in a fixed order by construction (the writer streams; it
// never sorts or hashes), so output is byte-for-byte stable. The writer is
// our own because llvm/Support/JSON.h does not compile as C++20 with clang
// 14 and libstdc++ 12 (std::vector of an incomplete json::Value).
//
//===----------------------------------------------------------------------===//

#include "arecipe/AST/JSONDumper.h"

#include "arecipe/AST/Decl.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/raw_ostream.h"

using namespace arecipe;
using namespace arecipe::ast;
using llvm::SMRange;

namespace {

/// A streaming, pretty-printing JSON writer with the shape of
/// llvm::json::OStream (two-space indent, `[]`/`{}` when empty).
class JSONWriter {
public:
  using Block = llvm::function_ref<void()>;

  explicit JSONWriter(llvm::raw_ostream &OS) : OS(OS) {}

  void object(Block Contents) { container('{', '}', Contents); }
  void array(Block Contents) { container('[', ']', Contents); }

  void attributeBegin(llvm::StringRef Key) {
    separate();
    string(Key);
    OS << ": ";
    AfterKey = true;
  }
  void attributeEnd() {}

  void value(llvm::StringRef S) {
    beforeValue();
    string(S);
  }
  void value(int64_t V) {
    beforeValue();
    OS << V;
  }
  void value(bool B) {
    beforeValue();
    OS << (B ? "true" : "false");
  }

  void attribute(llvm::StringRef Key, llvm::StringRef S) {
    attributeBegin(Key);
    value(S);
  }
  void attribute(llvm::StringRef Key, const std::string &S) {
    attribute(Key, llvm::StringRef(S));
  }
  void attribute(llvm::StringRef Key, const char *S) {
    attribute(Key, llvm::StringRef(S));
  }
  void attribute(llvm::StringRef Key, int64_t V) {
    attributeBegin(Key);
    value(V);
  }
  void attribute(llvm::StringRef Key, bool B) {
    attributeBegin(Key);
    value(B);
  }
  void attributeObject(llvm::StringRef Key, Block Contents) {
    attributeBegin(Key);
    object(Contents);
  }
  void attributeArray(llvm::StringRef Key, Block Contents) {
    attributeBegin(Key);
    array(Contents);
  }

private:
  void newline() {
    OS << '\n';
    OS.indent(2 * Counts.size());
  }
  /// Starts the next member of the enclosing container.
  void separate() {
    if (Counts.empty())
      return;
    if (Counts.back()++)
      OS << ',';
    newline();
  }
  void beforeValue() {
    if (AfterKey)
      AfterKey = false;
    else
      separate();
  }
  void container(char Open, char Close, Block Contents) {
    beforeValue();
    OS << Open;
    Counts.push_back(0);
    Contents();
    bool Empty = Counts.back() == 0;
    Counts.pop_back();
    if (!Empty)
      newline();
    OS << Close;
  }
  void string(llvm::StringRef S) {
    OS << '"';
    for (unsigned char C : S) {
      switch (C) {
      case '"': OS << "\\\""; break;
      case '\\': OS << "\\\\"; break;
      case '\n': OS << "\\n"; break;
      case '\t': OS << "\\t"; break;
      case '\r': OS << "\\r"; break;
      default:
        if (C < 0x20)
          OS << llvm::format("\\u%04x", C);
        else
          OS << C;
      }
    }
    OS << '"';
  }

  llvm::raw_ostream &OS;
  std::vector<unsigned> Counts; ///< Members written, per open container.
  bool AfterKey = false;
};

class Dumper {
public:
  Dumper(const llvm::SourceMgr &SM, llvm::raw_ostream &OS,
         const DumpOptions &Opts)
      : SM(SM), J(OS), Opts(Opts) {}

  void file(const File &F) {
    J.object([&] {
      header(F);
      J.attribute("file", F.getName());
      J.attributeArray("imports", [&] {
        for (const ImportDecl *I : F.getImports())
          decl(*I);
      });
      J.attributeArray("decls", [&] {
        for (const Decl *D : F.getDecls())
          decl(*D);
      });
    });
  }

private:
  std::string loc(llvm::SMLoc L) {
    if (!L.isValid() || !Opts.Locations)
      return "";
    auto [Line, Col] = SM.getLineAndColumn(L);
    return std::to_string(Line) + ":" + std::to_string(Col);
  }

  std::string range(SMRange R) {
    return Opts.Locations ? loc(R.Start) + "-" + loc(R.End) : "";
  }

  void header(const Node &N) {
    J.attribute("kind", getKindName(N.getKind()));
    J.attribute("range", range(N.getRange()));
  }

  void ident(llvm::StringRef Key, const Identifier &I) {
    if (I.empty())
      return;
    J.attributeObject(Key, [&] {
      J.attribute("name", I.Name);
      J.attribute("range", range(I.Range));
    });
  }

  void identList(llvm::StringRef Key, llvm::ArrayRef<Identifier> Ids) {
    J.attributeArray(Key, [&] {
      for (const Identifier &I : Ids)
        J.object([&] {
          J.attribute("name", I.Name);
          J.attribute("range", range(I.Range));
        });
    });
  }

  void tuneItems(llvm::ArrayRef<TuneItem> Items) {
    static const char *const Kinds[] = {"band", "at", "objective",
                                        "candidates", "constraint"};
    J.attributeArray("items", [&] {
      for (const TuneItem &I : Items)
        J.object([&] {
          J.attribute("item", Kinds[I.K]);
          J.attribute("range", range(I.Range));
          ident("name", I.Name);
          if (I.K == TuneItem::Objective)
            J.attribute("goal", I.Maximize ? "maximize" : "minimize");
          if (I.K == TuneItem::Constraint)
            J.attribute("op", getSpelling(I.Op));
          optExpr("value", I.Value);
          ident("unit", I.Unit);
          if (I.K == TuneItem::At)
            J.attributeArray("concs", [&] {
              for (const Expr *E : I.Concs)
                expr(*E);
            });
          if (I.K == TuneItem::Band || I.K == TuneItem::At)
            tuneItems(I.Items);
        });
    });
  }

  void optExpr(llvm::StringRef Key, const Expr *E) {
    if (!E)
      return;
    J.attributeBegin(Key);
    expr(*E);
    J.attributeEnd();
  }

  void block(llvm::StringRef Key, const Block &B) {
    J.attributeObject(Key, [&] {
      J.attribute("lbrace", loc(B.LBrace));
      J.attribute("rbrace", loc(B.RBrace));
      J.attributeArray("stmts", [&] {
        for (const Stmt *S : B.Stmts)
          stmt(*S);
      });
    });
  }

  void args(llvm::ArrayRef<Argument> Args) {
    J.attributeArray("args", [&] {
      for (const Argument &A : Args)
        J.object([&] {
          J.attribute("range", range(A.Range));
          ident("name", A.Name);
          J.attributeBegin("value");
          expr(*A.Value);
          J.attributeEnd();
        });
    });
  }

  void type(const TypeRef &T) {
    J.object([&] {
      J.attribute("range", range(T.Range));
      J.attribute("name", T.Name.Name);
      if (!T.Args.empty())
        J.attributeArray("args", [&] {
          for (const TypeRef *A : T.Args)
            type(*A);
        });
      J.attribute("optional", T.Optional);
    });
  }

  void decl(const Decl &D) {
    J.object([&] {
      header(D);
      switch (D.getKind()) {
      case NodeKind::ImportDecl: {
        const auto &I = llvm::cast<ImportDecl>(D);
        J.attributeBegin("target");
        expr(*I.getTarget());
        J.attributeEnd();
        ident("alias", I.getAlias());
        break;
      }
      case NodeKind::EntityDecl: {
        const auto &E = llvm::cast<EntityDecl>(D);
        J.attribute("entity", getSpelling(E.getEntityKind()));
        ident("name", E.getName());
        if (E.hasExtends())
          identList("extends", E.getExtends());
        block("body", E.getBody());
        break;
      }
      case NodeKind::EnumDecl: {
        const auto &E = llvm::cast<EnumDecl>(D);
        ident("name", E.getName());
        identList("members", E.getMembers());
        break;
      }
      case NodeKind::LetDecl: {
        const auto &L = llvm::cast<LetDecl>(D);
        ident("name", L.getName());
        optExpr("value", L.getValue());
        break;
      }
      case NodeKind::TuneDecl: {
        const auto &T = llvm::cast<TuneDecl>(D);
        ident("name", T.getName());
        ident("recipe", T.getRecipe());
        tuneItems(T.getItems());
        break;
      }
      default:
        llvm_unreachable("not a declaration");
      }
    });
  }

  void stmt(const Stmt &S) {
    J.object([&] {
      header(S);
      switch (S.getKind()) {
      case NodeKind::AssignStmt: {
        const auto &A = llvm::cast<AssignStmt>(S);
        identList("path", A.getPath());
        optExpr("value", A.getValue());
        break;
      }
      case NodeKind::LetStmt: {
        const auto &L = llvm::cast<LetStmt>(S);
        ident("name", L.getName());
        optExpr("value", L.getValue());
        break;
      }
      case NodeKind::BlockStmt: {
        const auto &B = llvm::cast<BlockStmt>(S);
        ident("name", B.getName());
        block("body", B.getBody());
        break;
      }
      case NodeKind::BandStmt: {
        const auto &B = llvm::cast<BandStmt>(S);
        ident("name", B.getName());
        optExpr("condition", B.getCondition());
        block("body", B.getBody());
        break;
      }
      case NodeKind::AtConcStmt: {
        const auto &A = llvm::cast<AtConcStmt>(S);
        J.attributeArray("concs", [&] {
          for (const Expr *E : A.getConcs())
            expr(*E);
        });
        block("body", A.getBody());
        break;
      }
      case NodeKind::ArmStmt: {
        const auto &A = llvm::cast<ArmStmt>(S);
        ident("name", A.getName());
        block("body", A.getBody());
        break;
      }
      case NodeKind::CheckStmt: {
        const auto &C = llvm::cast<CheckStmt>(S);
        optExpr("condition", C.getCondition());
        optExpr("message", C.getMessage());
        break;
      }
      case NodeKind::PreflightStmt: {
        const auto &P = llvm::cast<PreflightStmt>(S);
        ident("action", P.getAction());
        args(P.getArgs());
        break;
      }
      case NodeKind::KnobStmt: {
        const auto &K = llvm::cast<KnobStmt>(S);
        ident("name", K.getName());
        J.attributeBegin("type");
        type(*K.getType());
        J.attributeEnd();
        optExpr("default", K.getDefault());
        optExpr("where", K.getConstraint());
        J.attributeArray("renders", [&] {
          for (const RenderClause &R : K.getRenders())
            J.object([&] {
              J.attribute("range", range(R.Range));
              J.attribute("render", getSpelling(R.Kind));
              optExpr("target", R.Target);
              optExpr("key", R.Key);
              optExpr("negative", R.Negative);
              if (R.Mode != ListMode::None)
                J.attribute("list", getSpelling(R.Mode));
              optExpr("if", R.Cond);
            });
        });
        break;
      }
      case NodeKind::EmitStmt: {
        const auto &E = llvm::cast<EmitStmt>(S);
        optExpr("condition", E.getCondition());
        block("body", E.getBody());
        break;
      }
      case NodeKind::FlagStmt: {
        const auto &F = llvm::cast<FlagStmt>(S);
        optExpr("flag", F.getFlag());
        if (F.getListMode() != ListMode::None)
          J.attribute("list", getSpelling(F.getListMode()));
        optExpr("value", F.getValue());
        break;
      }
      case NodeKind::SwitchStmt: {
        const auto &Sw = llvm::cast<SwitchStmt>(S);
        optExpr("flag", Sw.getFlag());
        optExpr("negative", Sw.getNegative());
        optExpr("value", Sw.getValue());
        break;
      }
      case NodeKind::ArgsStmt:
        optExpr("value", llvm::cast<ArgsStmt>(S).getValue());
        break;
      case NodeKind::FileStmt: {
        const auto &F = llvm::cast<FileStmt>(S);
        optExpr("name", F.getName());
        optExpr("value", F.getValue());
        break;
      }
      default:
        llvm_unreachable("not a statement");
      }
    });
  }

  void expr(const Expr &E) {
    J.object([&] {
      header(E);
      exprFields(E);
    });
  }

  void exprFields(const Expr &E) {
    switch (E.getKind()) {
    case NodeKind::IntegerLiteral: {
      const auto &I = llvm::cast<IntegerLiteral>(E);
      J.attribute("text", I.getText());
      J.attribute("value", static_cast<int64_t>(I.getValue()));
      return;
    }
    case NodeKind::FloatLiteral:
      J.attribute("text", llvm::cast<FloatLiteral>(E).getText());
      return;
    case NodeKind::QuantityLiteral: {
      const auto &Q = llvm::cast<QuantityLiteral>(E);
      J.attribute("text", Q.getText());
      J.attribute("number", Q.getNumberText());
      J.attribute("unit", getSymbol(Q.getUnit()));
      return;
    }
    case NodeKind::BoolLiteral:
      J.attribute("value", llvm::cast<BoolLiteral>(E).getValue());
      return;
    case NodeKind::NoneLiteral:
    case NodeKind::ConcExpr:
      return;
    case NodeKind::StringLiteral: {
      const auto &S = llvm::cast<StringLiteral>(E);
      J.attribute("raw", S.isRaw());
      J.attributeArray("parts", [&] {
        for (const StringPart &P : S.getParts()) {
          if (P.Interpolation)
            expr(*P.Interpolation);
          else
            J.value(P.Text);
        }
      });
      return;
    }
    case NodeKind::NameExpr:
      J.attribute("name", llvm::cast<NameExpr>(E).getName().Name);
      return;
    case NodeKind::ListExpr:
      J.attributeArray("elements", [&] {
        for (const Expr *El : llvm::cast<ListExpr>(E).getElements())
          expr(*El);
      });
      return;
    case NodeKind::ComprehensionExpr: {
      const auto &C = llvm::cast<ComprehensionExpr>(E);
      optExpr("element", C.getElement());
      ident("var", C.getVar());
      optExpr("source", C.getSource());
      optExpr("if", C.getCondition());
      return;
    }
    case NodeKind::MapExpr:
      J.attributeArray("entries", [&] {
        for (const MapEntry &M : llvm::cast<MapExpr>(E).getEntries())
          J.object([&] {
            J.attribute("range", range(M.Range));
            optExpr("key", M.Key);
            optExpr("value", M.Value);
          });
      });
      return;
    case NodeKind::UnaryExpr: {
      const auto &U = llvm::cast<UnaryExpr>(E);
      J.attribute("op", getSpelling(U.getOp()));
      optExpr("operand", U.getOperand());
      return;
    }
    case NodeKind::BinaryExpr: {
      const auto &B = llvm::cast<BinaryExpr>(E);
      J.attribute("op", getSpelling(B.getOp()));
      optExpr("lhs", B.getLHS());
      optExpr("rhs", B.getRHS());
      return;
    }
    case NodeKind::RangeExpr: {
      const auto &R = llvm::cast<RangeExpr>(E);
      optExpr("lo", R.getLo());
      optExpr("hi", R.getHi());
      optExpr("step", R.getStep());
      return;
    }
    case NodeKind::ConditionalExpr: {
      const auto &C = llvm::cast<ConditionalExpr>(E);
      optExpr("then", C.getThen());
      optExpr("cond", C.getCond());
      optExpr("else", C.getElse());
      return;
    }
    case NodeKind::CallExpr: {
      const auto &C = llvm::cast<CallExpr>(E);
      optExpr("callee", C.getCallee());
      args(C.getArgs());
      return;
    }
    case NodeKind::IndexExpr: {
      const auto &I = llvm::cast<IndexExpr>(E);
      optExpr("base", I.getBase());
      optExpr("index", I.getIndex());
      return;
    }
    case NodeKind::MemberExpr: {
      const auto &M = llvm::cast<MemberExpr>(E);
      optExpr("base", M.getBase());
      ident("member", M.getMember());
      return;
    }
    case NodeKind::ConvertExpr: {
      const auto &C = llvm::cast<ConvertExpr>(E);
      optExpr("operand", C.getOperand());
      ident("unit", C.getUnitName());
      J.attribute("rounding", getSpelling(C.getRounding()));
      return;
    }
    default:
      llvm_unreachable("not an expression");
    }
  }

  const llvm::SourceMgr &SM;
  JSONWriter J;
  const DumpOptions &Opts;
};

} // namespace

void arecipe::ast::dumpJSON(const File &F, const llvm::SourceMgr &SM,
                            llvm::raw_ostream &OS, const DumpOptions &Opts) {
  Dumper(SM, OS, Opts).file(F);
  OS << "\n";
}
