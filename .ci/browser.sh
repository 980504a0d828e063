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
exec bash "$(dirname "$0")/apt-tool.sh" chromium chromium browser.sh "or set CHROMIUM_PATH"
