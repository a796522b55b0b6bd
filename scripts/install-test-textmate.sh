#!/usr/bin/env bash
# Installs the TextMate tokenizer VS Code uses (vscode-textmate on the
# Oniguruma regex engine, pinned versions from npm) for the test that
# tokenizes a recipe with editors/vscode's grammar (test/Lsp/grammar.test).
# Idempotent: an installation of the same versions is kept.
#
#   scripts/install-test-textmate.sh [DIR]
#
# DIR defaults to $ARECIPE_TEST_TEXTMATE or /usr/local/share/arecipe/textmate;
# the test reads the same variable with the same default and needs no
# network once this has run.
set -euo pipefail

DIR=${1:-${ARECIPE_TEST_TEXTMATE:-/usr/local/share/arecipe/textmate}}
PACKAGES=(vscode-textmate@9.3.2 vscode-oniguruma@2.0.1)

if ! command -v npm >/dev/null; then
  echo "install-test-textmate: npm is required (it comes with nodejs; else the Debian package 'npm')" >&2
  exit 1
fi
stamp="$DIR/.installed"
if [[ -f $stamp && $(cat "$stamp") == "${PACKAGES[*]}" ]]; then
  exit 0
fi
mkdir -p "$DIR"
echo "install-test-textmate: ${PACKAGES[*]} -> $DIR"
npm install --silent --no-audit --no-fund --prefix "$DIR" "${PACKAGES[@]}"
echo "${PACKAGES[*]}" > "$stamp"
