#!/usr/bin/env bash
# Usage: apt-tool.sh COMMAND PACKAGE WHO [HINT]
# Makes sure COMMAND is on the PATH: installs PACKAGE with apt-get when it is missing (as root).
# WHO names the caller in messages; HINT is another way out, said when it cannot install.
# Fails with one clear line.
set -euo pipefail
command=$1 package=$2 who=$3 hint=${4:-}

command -v "$command" >/dev/null && exit 0

[ "$(id -u)" = 0 ] || { echo "$who: $command is missing: run 'apt-get install $package' as root${hint:+, $hint}" >&2; exit 1; }
command -v apt-get >/dev/null || { echo "$who: $command is missing and apt-get is not here: install $package${hint:+, $hint}" >&2; exit 1; }
echo "$who: apt-get install $package" >&2
log=$(mktemp)
if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$package"; } >"$log" 2>&1; then
  tail -n 15 "$log" | sed 's/^/  apt: /' >&2
  echo "$who: apt-get install $package failed (log: $log)" >&2
  exit 1
fi
command -v "$command" >/dev/null || { echo "$who: $command is still not on the PATH after apt-get" >&2; exit 1; }
