//===- Placeholders.h - Run-time values in a plan's words -------*- C++ -*-===//
//
// A plan names values only the run knows as placeholders in argv words,
// environment values and generated file contents (docs/plan-schema.md):
//
//   {node_addr:K}   the address of node K of the cell's allocation
//   {node_host:K}   the host name of node K of the cell's allocation
//   {file:NAME}     the path of the cell's generated file NAME
//   {capture:NAME}  the trimmed standard output of the cell's capture step NAME
//   {dir:logs}      the directory the cell's processes write their own files
//                   into (a launcher's per-node config dump)
//
// This is the one place that knows their syntax: the loader checks a plan's
// placeholders with checkPlaceholders() (an unknown kind, a node the cell
// does not have, a file or capture step the cell does not define), and the
// runtime substitutes them with substitutePlaceholders() once their values
// are known. A placeholder is `{`, a kind in lower-case letters and '_', `:`,
// and a name of letters, digits, '.', '_' and '-', then `}`; anything else
// with braces (JSON, a YAML flow mapping, a chat template) is plain text.
//
//===----------------------------------------------------------------------===//

#ifndef ARECIPE_RUNTIME_PLACEHOLDERS_H
#define ARECIPE_RUNTIME_PLACEHOLDERS_H

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace arecipe::runtime {

/// Under --simulate, the free ports chosen for a cell's fixed ports: by
/// (node rank, the plan's port), the port used instead.
using PortRemap = std::map<std::pair<int, int>, int>;

/// What the placeholders stand for in one cell on this run.
struct PlaceholderValues {
  /// By node rank. With none known, node 0 is this machine: 127.0.0.1,
  /// and the host name DefaultHost.
  std::vector<std::string> NodeAddrs;
  std::vector<std::string> NodeHosts;
  std::string DefaultHost;
  std::map<std::string, std::string> Files;    ///< name -> path
  std::map<std::string, std::string> Captures; ///< name -> value
  std::string LogDir;                          ///< `{dir:logs}`
  /// Empty unless the run remaps the plan's fixed ports (remapPorts).
  PortRemap Ports;
};

/// Text with every placeholder whose value is known replaced by it; the
/// others are left as written (the loader has refused unknown ones).
std::string substitutePlaceholders(std::string_view Text, const PlaceholderValues &Values);

/// What one field of a plan may refer to.
struct PlaceholderScope {
  int Nodes = 1;
  const std::set<std::string> *Files = nullptr;
  /// The capture steps whose value exists when the field is used.
  const std::set<std::string> *Captures = nullptr;
  /// Why a capture missing from Captures cannot be used here ("no capture
  /// step 'X' in this cell" when empty).
  std::string CaptureContext;
};

/// Empty when every placeholder of Text is one Scope knows; otherwise why
/// the first one that is not cannot be substituted.
std::string checkPlaceholders(std::string_view Text, const PlaceholderScope &Scope);

/// The plan's Text with every mention of a remapped port replaced, before
/// its placeholders are substituted. A mention is a number that is the
/// whole text after a port option (Key, the previous argv word or the
/// environment variable's name, ends in `port` or is `-p`); follows
/// `KEY=` or `KEY: ` or `"KEY": ` where KEY ends in `port`; or follows
/// `HOST:` (a URL or an address), where HOST `{node_addr:K}` or
/// `{node_host:K}` makes it node K's port, and anything else the port of
/// OwnRank, the node the text is used on. Other numbers are left alone.
std::string remapPorts(std::string_view Text, const PortRemap &Ports, int OwnRank,
                       std::string_view Key);

/// True when Text has a `{capture:…}` placeholder.
bool usesCapture(std::string_view Text);

/// True when Text has the `{dir:logs}` placeholder.
bool usesLogDir(std::string_view Text);

/// This machine's host name ("localhost" when it has none).
std::string localHostName();

} // namespace arecipe::runtime

#endif // ARECIPE_RUNTIME_PLACEHOLDERS_H
