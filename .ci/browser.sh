#!/usr/bin/env bash
# Makes sure the console's browser tests have a browser: Debian's chromium,
# driven by playwright-core (nothing is ever downloaded from a browser CDN).
# CHROMIUM_PATH names another Chromium; otherwise `chromium` on the PATH, which
# this installs with apt-get when missing (as root). Fails with one clear line.
set -euo pipefail

if [ -n "${CHROMIUM_PATH:-}" ]; then
  [ -x "$CHROMIUM_PATH" ] || { echo "browser.sh: CHROMIUM_PATH=$CHROMIUM_PATH is not an executable" >&2; exit 1; }
  exit 0
fi
command -v chromium >/dev/null && exit 0

[ "$(id -u)" = 0 ] || { echo "browser.sh: chromium is missing: run 'apt-get install chromium' as root, or set CHROMIUM_PATH" >&2; exit 1; }
command -v apt-get >/dev/null || { echo "browser.sh: chromium is missing and apt-get is not here: install Chromium, and set CHROMIUM_PATH" >&2; exit 1; }
echo "browser.sh: apt-get install chromium" >&2
log=$(mktemp)
if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } >"$log" 2>&1; then
  tail -n 15 "$log" | sed 's/^/  apt: /' >&2
  echo "browser.sh: apt-get install chromium failed (log: $log)" >&2
  exit 1
fi
command -v chromium >/dev/null || { echo "browser.sh: chromium is still not on the PATH after apt-get" >&2; exit 1; }
