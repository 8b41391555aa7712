#!/usr/bin/env bash
# setup-chromium.sh: make sure headless Chromium and its matching chromedriver are
# installed (Debian/Ubuntu, via apt-get), then print their paths on stdout:
#   line 1: chromedriver binary, line 2: chromium binary.
# Idempotent: when both are already present it only prints the paths.
# CI-safe (no TTY needed). If it cannot install (not root, no apt-get, apt-get fails)
# it prints one line to stderr and exits 3.
set -euo pipefail

fail() { echo "setup-chromium: $*" >&2; exit 3; }

find_chromium() { command -v chromium || command -v chromium-browser || true; }

apt_install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
    chromium chromium-driver >>"$log" 2>&1
}

if ! command -v chromedriver >/dev/null 2>&1 || [ -z "$(find_chromium)" ]; then
  [ "$(id -u)" -eq 0 ] || fail "chromium/chromedriver missing and not root (run: sudo $0)"
  command -v apt-get >/dev/null 2>&1 || fail "chromium/chromedriver missing and apt-get not available"
  log="$(mktemp "${TMPDIR:-/tmp}/setup-chromium.XXXXXX.log")"
  # Try without `apt-get update` first: it is slow and usually unnecessary in CI images.
  apt_install || { apt-get update >>"$log" 2>&1 && apt_install; } \
    || fail "apt-get install chromium chromium-driver failed (see $log)"
  rm -f "$log"
fi

driver="$(command -v chromedriver || true)"
browser="$(find_chromium)"
[ -n "$driver" ] && [ -n "$browser" ] || fail "chromedriver/chromium still not on PATH after install"
echo "$driver"
echo "$browser"
