#!/usr/bin/env bash
# Installs Debian's Chromium for the report's browser tests (test/Report,
# REQUIRES: chromium). Idempotent: when the package is present, apt is not
# touched. The tests drive it headless over the DevTools protocol with
# python3's standard library, so nothing else is needed; no browser is ever
# downloaded from anywhere but the Debian archive.
set -euo pipefail

PACKAGES=(chromium fonts-dejavu-core)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  echo "browser-test-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "browser-test-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
SUDO=""
if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "browser-test-deps: done"
