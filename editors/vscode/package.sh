#!/usr/bin/env bash
# Packages the VS Code extension as editors/vscode/arecipe-<version>.vsix
# (docs/editors.md): installs its one dependency (vscode-languageclient)
# with npm and runs @vscode/vsce from the npm registry. Needs node and npm,
# and the registry once.
set -euo pipefail
cd "$(dirname "$0")"
npm install --no-audit --no-fund --omit=dev
npx --yes @vscode/vsce@3 package --allow-missing-repository --skip-license \
  --out "arecipe-$(node -p 'require("./package.json").version').vsix"
