#!/bin/sh
# Reads a chat message as A2A-Lite JSON; a thin wrapper over `a2a-lite parse`.
# Usage: parse_message.sh [TEXT] [--all]    (reads stdin when TEXT is absent)
# Exit codes are those of a2a-lite; 127 when a2a-lite is not installed.

if ! command -v a2a-lite >/dev/null 2>&1; then
  echo "parse_message.sh: a2a-lite is not on PATH; install it with: npm install -g a2a-lite" >&2
  exit 127
fi
exec a2a-lite parse "$@"
