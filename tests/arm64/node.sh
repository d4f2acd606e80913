#!/bin/sh
# The npm packages in an arm64 Node, under qemu-user: tests/arm64/node.sh
# [DIST] checks that the tinystore tarball names @tinystore/linux-arm64-gnu
# in its optionalDependencies and that this platform package holds a
# stripped arm64 addon for cpu arm64, at most 10 MB as shipped, 16 MB as
# `make test` builds it without whole-program LTO (DIST_PROFILE=test,
# about 1.35 times larger); then, with no cargo,
# rustc or protoc on the PATH, installs both with npm run by an arm64 Node
# (TINYSTORE_ARM64_ROOT/node, made by mk/arm64-sysroot.sh), runs the
# package's bin with --help, imports every documented name in ESM, and plays
# the page's scene across two processes (tests/dist/worker.mjs) through the
# packaged `tinystore serve`, every Node process an arm64 one. (npm is given
# the arm64 platform package only: it refuses a package for another CPU
# named on its command line; the x64 one it skips as an optional dependency.)
here=$(cd "$(dirname "$0")" && pwd)
dist=$(cd "${1:-$here/../../dist}" && pwd)
. "$here/../dist/common.sh"
. "$here/qemu.sh"

main=$dist/tinystore-0.1.0.tgz
native=$dist/tinystore-linux-arm64-gnu-0.1.0.tgz
[ -f "$main" ] && [ -f "$native" ] || fail "no npm tarballs for arm64 in $dist: $(ls "$dist")"
cp "$main" "$native" "$here/../dist/worker.mjs" "$here/../dist/esm.mjs" "$work/"
cd "$work"

tar -xzf "$main" -C "$work" package/package.json
grep -q '"@tinystore/linux-arm64-gnu": "0.1.0"' "$work/package/package.json" ||
  fail "tinystore names no @tinystore/linux-arm64-gnu in optionalDependencies"
rm -rf "$work/package"
tar -xzf "$native" -C "$work"
addon=$work/package/tinystore.linux-arm64-gnu.node
is_arm64 "$addon"
size=$(wc -c <"$addon")
limit=10000000
[ "${TINYSTORE_DIST_PROFILE:-ship}" = test ] && limit=16000000
[ "$size" -le "$limit" ] || fail "the addon is $size bytes, over $limit (DIST_PROFILE=${TINYSTORE_DIST_PROFILE:-ship})"
if aarch64-linux-gnu-objdump -h "$addon" | grep -q '\.debug_'; then fail "the addon carries debug info"; fi
grep -q '"cpu": \[' "$work/package/package.json" && grep -A1 '"cpu": \[' "$work/package/package.json" | grep -q '"arm64"' ||
  fail "the platform package.json names no cpu arm64: $(cat "$work/package/package.json")"
rm -rf "$work/package"
echo "tarballs: tinystore $(wc -c <"$main") bytes, @tinystore/linux-arm64-gnu $(wc -c <"$native") bytes (arm64 addon $size bytes, stripped)"

node=$root/node/bin/node
npm_cli=$root/node/lib/node_modules/npm/bin/npm-cli.js
is_arm64 "$node"
isolate qemu-aarch64-static sqlite3
echo "arm64 Node $("$arm64" "$node" -p 'process.version + " on " + process.arch')"
[ "$("$arm64" "$node" -p process.arch)" = arm64 ] || fail "the arm64 Node does not say arm64"
echo '{ "name": "dist-test", "private": true }' >package.json
"$arm64" "$node" "$npm_cli" install --no-audit --no-fund --loglevel=error "./$(basename "$main")" "./$(basename "$native")" ||
  fail "npm install (arm64 Node) exited with $?"
[ -f node_modules/@tinystore/linux-arm64-gnu/tinystore.linux-arm64-gnu.node ] || fail "npm did not install the arm64 platform package"
[ ! -e node_modules/@tinystore/linux-x64-gnu ] || fail "npm installed the x64 platform package on arm64"
echo "npm (arm64 Node) installed tinystore and @tinystore/linux-arm64-gnu"

"$arm64" "$node" node_modules/tinystore/bin/tinystore.js --help >"$work/help.txt" || fail "tinystore --help exited with $?"
grep -q "serve" "$work/help.txt" || fail "tinystore --help names no serve: $(cat "$work/help.txt")"
echo "node_modules/tinystore/bin/tinystore.js --help: $(head -n 1 "$work/help.txt")"

"$arm64" "$node" esm.mjs

serve "$arm64" "$node" "$work/node_modules/tinystore/bin/tinystore.js"
scene "$arm64" "$node" "$work/worker.mjs" "$work"
stop_server
echo "arm64 node: the npm packages work in an arm64 Node under qemu"
