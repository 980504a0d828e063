#!/usr/bin/env bash
# Makes sure the CLI's terminal tests have a terminal to drive: tmux (the key prompt is tested in a real
# pseudo-terminal, as a person sees it). Installs it with apt-get when missing (as root). Fails with one clear line.
set -euo pipefail

command -v tmux >/dev/null && exit 0

[ "$(id -u)" = 0 ] || { echo "terminal.sh: tmux is missing: run 'apt-get install tmux' as root" >&2; exit 1; }
command -v apt-get >/dev/null || { echo "terminal.sh: tmux is missing and apt-get is not here: install tmux" >&2; exit 1; }
echo "terminal.sh: apt-get install tmux" >&2
log=$(mktemp)
if ! { DEBIAN_FRONTEND=noninteractive apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux; } >"$log" 2>&1; then
  tail -n 15 "$log" | sed 's/^/  apt: /' >&2
  echo "terminal.sh: apt-get install tmux failed (log: $log)" >&2
  exit 1
fi
command -v tmux >/dev/null || { echo "terminal.sh: tmux is still not on the PATH after apt-get" >&2; exit 1; }
