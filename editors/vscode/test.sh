#!/usr/bin/env bash
# Installs the pinned dependencies, compiles the extension and runs its tests:
# the TextMate grammar's assertions and snapshot, and the client's unit tests.
# Needs Node.js 20 or later with npm, and the npm registry; not VS Code, not a display.
set -euo pipefail
cd "$(dirname "$0")"

if ! command -v npm >/dev/null 2>&1; then
  echo "npm not found: install Node.js 20 or later" >&2
  exit 2
fi

npm ci --no-audit --no-fund
npm run compile
npm test
