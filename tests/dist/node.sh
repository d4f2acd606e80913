#!/bin/sh
# The npm packages as a user installs them: tests/dist/node.sh [DIST] checks
# what the tarballs hold (no tests, no Rust sources, no install script; the
# platform package's addon stripped, at most 12 MB as shipped, 18 MB as
# `make test` builds it: mk/dist.mk's DIST_PROFILE); then, in a folder
# outside the tree with no cargo, rustc or protoc on the PATH, installs both
# with `npm install`, runs `npx tinystore --help`, imports every documented
# name in ESM, and plays the page's scene across two processes through the
# packaged `tinystore serve` (`npx tinystore serve DIR`). Last, the
# TypeScript recipes of docs/testing.md run on the installed tarballs
# (tests/recipes/node.sh), with no cargo, rustc or protoc on the PATH.
here=$(cd "$(dirname "$0")" && pwd)
dist=$(cd "${1:-$here/../../dist}" && pwd)
. "$here/common.sh"

main=$dist/tinystore-0.1.0.tgz
native=$dist/tinystore-linux-x64-gnu-0.1.0.tgz
[ -f "$main" ] && [ -f "$native" ] || fail "no npm tarballs in $dist: $(ls "$dist")"
cp "$main" "$native" "$here/worker.mjs" "$here/esm.mjs" "$work/"
cd "$work"

# What the tarballs hold.
tar -tzf "$main" | sort >"$work/main.txt"
# (lib/testing.js and testing.d.ts are the test kit, tinystore/testing.)
if grep -E '\.(rs|ts)$|/test/|\.test\.|Cargo|scripts/' "$work/main.txt" | grep -v 'd\.ts$'; then fail "the tinystore tarball holds tests or sources"; fi
for file in package/README.md package/LICENSE package/index.d.ts package/lib/index.js package/bin/tinystore.js \
  package/testing.d.ts package/lib/testing.js; do
  grep -qx "$file" "$work/main.txt" || fail "the tinystore tarball has no $file"
done
tar -xzf "$main" -C "$work" package/package.json
grep -q '"install"' "$work/package/package.json" && fail "the tinystore package has an install script"
grep -q '"@tinystore/linux-x64-gnu": "0.1.0"' "$work/package/package.json" || fail "tinystore names no platform package in optionalDependencies"
rm -rf "$work/package"
tar -xzf "$native" -C "$work"
addon=$work/package/tinystore.linux-x64-gnu.node
size=$(wc -c <"$addon")
# Without whole-program LTO (DIST_PROFILE=test) the same code comes out
# about 1.35 times larger (the wheel's module: 14.5 MB against 10.8).
limit=12000000
[ "${TINYSTORE_DIST_PROFILE:-ship}" = test ] && limit=18000000
[ "$size" -le "$limit" ] || fail "the addon is $size bytes, over $limit (DIST_PROFILE=${TINYSTORE_DIST_PROFILE:-ship})"
if objdump -h "$addon" | grep -q '\.debug_'; then fail "the addon carries debug info"; fi
for field in '"os": \[' '"cpu": \[' '"libc": \['; do
  grep -q "$field" "$work/package/package.json" || fail "the platform package.json has no $field"
done
rm -rf "$work/package"
echo "tarballs: tinystore $(wc -c <"$main") bytes ($(wc -l <"$work/main.txt") files), @tinystore/linux-x64-gnu $(wc -c <"$native") bytes (addon $size bytes, stripped)"

# The PATH of the recipes' run below: this machine's, but no folder with
# cargo, rustc or protoc (better-sqlite3, which npm builds from source
# when it has no prebuilt binary to fetch, needs python3 and a compiler).
recipe_path=
saved_ifs=$IFS
IFS=:
for dir in $PATH; do
  if [ -x "$dir/cargo" ] || [ -x "$dir/rustc" ] || [ -x "$dir/protoc" ]; then continue; fi
  recipe_path=${recipe_path:+$recipe_path:}$dir
done
IFS=$saved_ifs
recipes=$here/../recipes/node.sh
page=$here/../../docs/testing.md

isolate node npm npx sqlite3
echo '{ "name": "dist-test", "private": true }' >package.json
npm install --no-audit --no-fund --loglevel=error "./$(basename "$main")" "./$(basename "$native")"
[ -f node_modules/@tinystore/linux-x64-gnu/tinystore.linux-x64-gnu.node ] || fail "npm did not install the platform package"
[ ! -e node_modules/tinystore/tinystore.node ] || fail "something built an addon inside the package"
echo "npm installed tinystore and @tinystore/linux-x64-gnu"

npx --no-install tinystore --help >"$work/help.txt" || fail "npx tinystore --help exited with $?"
grep -q "serve" "$work/help.txt" || fail "npx tinystore --help names no serve: $(cat "$work/help.txt")"
echo "npx tinystore --help: $(head -n 1 "$work/help.txt")"

node esm.mjs

serve "$work/node_modules/.bin/tinystore"
scene node "$work/worker.mjs" "$work"
stop_server

# The recipes of docs/testing.md (tinystore/testing, the guard on
# better-sqlite3) in a project of their own outside the tree, on the
# tarballs as installed above.
for tool in cargo rustc protoc; do
  if (PATH=$recipe_path && command -v "$tool" >/dev/null 2>&1); then fail "$tool is on the recipes' PATH"; fi
done
PATH=$recipe_path sh "$recipes" "$page" "$work/$(basename "$main")" "$work/$(basename "$native")" ||
  fail "the TypeScript recipes of docs/testing.md failed on the installed package"
echo "node: the npm packages work outside the tree"
