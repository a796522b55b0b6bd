//===- ReadMemo.h - Results kept by the values they read --------*- C++ -*-===//
//
// Private to lib/Sema. Much of what Sema evaluates in each cell after its
// values are resolved -- an engine's render and `emit` conditions, knob
// `where` constraints and `check`s that held, pre-flight actions -- reads a
// few of the cell's values and nothing else of the cell. Between cells
// those values are often the same (a band's `draft = 3` in each of its
// cells), so within one compilation the result of an earlier cell of the
// recipe is kept with the values it read, and a later cell takes it
// instead of evaluating again when every one of them is
// indistinguishable (Value::isIndistinguishableFrom, and the same level of
// origin, so that a `--set` value is still recognised). This is the one
// mechanism for all of them (docs/sema.md, "Levels and evaluation order").
//
// What the callers guarantee, since only they know it: a result is kept
// only when its evaluation reported nothing (a later cell taking it would
// not report either), read nothing of the cell's layout or of a process,
// and read only values the cell had resolved; the lookup compares only
// values the cell has already resolved, so taking a result skips no
// resolution that evaluating would have done.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_LIB_SEMA_READMEMO_H
#define ARECIPE_LIB_SEMA_READMEMO_H

#include "arecipe/Sema/Cell.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>
#include <utility>
#include <vector>

namespace arecipe::sema {

/// Results of type T by key (an expression, a statement) with the values
/// each read; a few per key, since a recipe's cells take a few distinct
/// values of what one condition reads.
template <typename KeyT, typename T> class ReadMemo {
public:
  /// A cell's resolved value of a name (without a role), or null when the
  /// cell has none yet or the name is no value of the cell (`conc`).
  using ValueReadFn =
      llvm::function_ref<const ResolvedValue *(llvm::StringRef)>;

  /// The result kept for Key whose every value read is indistinguishable
  /// from the cell's (ValueRead); null when there is none.
  const T *find(const KeyT &Key, ValueReadFn ValueRead) const {
    auto It = Entries.find(Key);
    if (It == Entries.end())
      return nullptr;
    for (const Entry &E : It->second) {
      bool Same = true;
      for (size_t N = 0; Same && N < E.Deps.size(); ++N) {
        const ResolvedValue *RV = ValueRead(E.Deps[N]);
        Same = RV && RV->L == E.Read[N].second &&
               RV->V.isIndistinguishableFrom(E.Read[N].first);
      }
      if (Same)
        return &E.Result;
    }
    return nullptr;
  }

  /// Keeps Result for Key with the cell's values of Deps (the names its
  /// evaluation read). Nothing is kept when one of them has no value in the
  /// cell (it could not be compared) or Key already has MaxPerKey results.
  void add(const KeyT &Key, std::vector<std::string> Deps,
           ValueReadFn ValueRead, T Result) {
    std::vector<Entry> &List = Entries[Key];
    if (List.size() >= MaxPerKey)
      return;
    Entry E;
    E.Read.reserve(Deps.size());
    for (const std::string &Dep : Deps) {
      const ResolvedValue *RV = ValueRead(Dep);
      if (!RV)
        return;
      E.Read.emplace_back(RV->V, RV->L);
    }
    E.Deps = std::move(Deps);
    E.Result = std::move(Result);
    List.push_back(std::move(E));
  }

  /// More values than this of one key are not worth comparing against.
  static constexpr size_t MaxPerKey = 8;

private:
  struct Entry {
    std::vector<std::string> Deps;
    std::vector<std::pair<Value, Level>> Read; ///< Per Deps entry.
    T Result;
  };
  llvm::DenseMap<KeyT, std::vector<Entry>> Entries;
};

} // namespace arecipe::sema

#endif // ARECIPE_LIB_SEMA_READMEMO_H
