#!/bin/sh
# mk/if-changed.sh NAME PATH... -- COMMAND [ARG...]
#
# Runs COMMAND unless the files under the PATHs (tracked and untracked,
# not ignored by git) are byte for byte those of COMMAND's last passing
# run, and COMMAND is the same; records them when it passes. `make check`
# runs each of its suites through it, so that a suite none of whose files
# changed is not run again. The record: $CARGO_TARGET_DIR/check-stamps/NAME
# (removed with target/, or by hand to force a run).
set -eu
name=$1
shift
paths=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  paths="$paths $1"
  shift
done
if [ $# -eq 0 ]; then
  echo "mk/if-changed.sh: no '-- COMMAND' after the paths of $name" >&2
  exit 2
fi
shift
dir=${CARGO_TARGET_DIR:-target}/check-stamps
mkdir -p "$dir"
# A file deleted but still tracked drops out of the sums: the key changes.
# shellcheck disable=SC2086
key=$( { git ls-files -co --exclude-standard -z -- $paths | xargs -0 sha1sum 2>/dev/null || true
         printf '%s\n' "$*"; } | sha1sum | cut -d' ' -f1)
if [ -f "$dir/$name" ] && [ "$(cat "$dir/$name")" = "$key" ]; then
  echo "$name: unchanged since it last passed, not run again (rm $dir/$name to run it)"
  exit 0
fi
rm -f "$dir/$name"
"$@"
echo "$key" >"$dir/$name"
