#!/bin/sh
# Runs the TypeScript recipes of a page as a user's project would:
# node.sh PAGE [PACKAGE_SOURCE...]. Extracts them (extract.py) into a new
# ESM project in a folder outside the tree, installs tinystore from
# PACKAGE_SOURCE... (npm install arguments: by default the tree's
# bindings-node, linked as `npm install <checkout>/bindings-node` does, its
# addon already built; or the tarballs of `make dist`) and better-sqlite3
# from npm, and runs `node --test` there, which fails when any test fails.
# tinystore's install script is not run: a linked tree's addon must be in
# place (`make node-deps`, or `node scripts/build.js` in bindings-node), and
# a tarball has none.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
caller=$(pwd)
root=$(cd "$here/../.." && pwd)
[ $# -ge 1 ] || { echo "usage: node.sh PAGE [PACKAGE_SOURCE...]" >&2; exit 2; }
page=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shift
[ $# -ge 1 ] || set -- "$root/bindings-node"
work=$(mktemp -d "${TMPDIR:-/tmp}/tinystore-recipes-node.XXXXXX")
trap 'rm -rf "$work"' EXIT INT TERM

python3 "$here/extract.py" "$page" node "$work" >/dev/null
cd "$work"
echo '{ "name": "reports", "version": "0.0.0", "private": true, "type": "module" }' >package.json
# A source given as a relative path is the caller's, not this folder's.
for source do
  shift
  case $source in
    /*) ;;
    *) if [ -e "$caller/$source" ]; then source=$caller/$source; fi ;;
  esac
  set -- "$@" "$source"
done
npm install --no-audit --no-fund --loglevel=error --ignore-scripts "$@" better-sqlite3
npm rebuild --loglevel=error better-sqlite3 >/dev/null
node --test --test-reporter=spec
echo "node: the recipes of $page pass ($(ls "$work"/*.mjs | wc -l | tr -d ' ') files)"
