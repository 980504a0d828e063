#!/usr/bin/env bash
# Makes sure the CLI's terminal tests have a terminal to drive: tmux (the key prompt is tested in a real
# pseudo-terminal, as a person sees it), installed with apt-get when missing (as root).
set -euo pipefail
exec bash "$(dirname "$0")/apt-tool.sh" tmux tmux terminal.sh
