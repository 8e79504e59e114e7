#!/bin/sh
# Writes one A2A-Lite message, ready to send; a thin wrapper over `a2a-lite format`.
# Usage: format_message.sh TYPE [key=value ...] [--body TEXT | --body -] [--attach NAME ...]
# Exit codes are those of a2a-lite (3: the message breaks its type's rules); 127 when
# a2a-lite is not installed.

if ! command -v a2a-lite >/dev/null 2>&1; then
  echo "format_message.sh: a2a-lite is not on PATH; install it with: npm install -g a2a-lite" >&2
  exit 127
fi
exec a2a-lite format "$@"
