//===- ASTContext.h - The arena that owns syntax trees ---------*- C++ -*-===//
//
// Owns every node, string and child array of the trees parsed with it, in
// one bump allocator freed all at once: nodes are trivially destructible and
// never freed one by one. One context may hold the trees of several files
// (a recipe and its imports). It knows nothing about parsing or meaning.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_AST_ASTCONTEXT_H
#define ARECIPE_AST_ASTCONTEXT_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Allocator.h"

#include <algorithm>
#include <memory>
#include <type_traits>
#include <utility>

namespace arecipe::ast {

class ASTContext {
public:
  ASTContext() = default;
  ASTContext(const ASTContext &) = delete;
  ASTContext &operator=(const ASTContext &) = delete;

  template <typename T, typename... Args> T *create(Args &&...A) {
    static_assert(std::is_trivially_destructible_v<T>,
                  "arena nodes are never destroyed");
    return new (Alloc.Allocate<T>()) T(std::forward<Args>(A)...);
  }

  /// Copies S into the arena.
  llvm::StringRef copyString(llvm::StringRef S) {
    if (S.empty())
      return {};
    char *Mem = Alloc.Allocate<char>(S.size());
    std::copy(S.begin(), S.end(), Mem);
    return {Mem, S.size()};
  }

  /// Copies the elements into the arena.
  template <typename T> llvm::ArrayRef<T> copyArray(llvm::ArrayRef<T> Elts) {
    static_assert(std::is_trivially_destructible_v<T>,
                  "arena arrays are never destroyed");
    if (Elts.empty())
      return {};
    T *Mem = Alloc.Allocate<T>(Elts.size());
    std::uninitialized_copy(Elts.begin(), Elts.end(), Mem);
    return {Mem, Elts.size()};
  }

  /// Bytes held, for benchmarks and sanity checks.
  size_t getBytesAllocated() const { return Alloc.getBytesAllocated(); }

private:
  llvm::BumpPtrAllocator Alloc;
};

} // namespace arecipe::ast

#endif // ARECIPE_AST_ASTCONTEXT_H
