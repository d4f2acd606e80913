#!/usr/bin/env bash
# Packages the Go module for `make dist-go`:
#
#   go-dist.sh SRC LIB VERSION OUT
#
# SRC is bindings-go/, LIB the stripped static library for linux/amd64,
# VERSION the module's version (v0.1.0). Writes
#   OUT/go/        the module tree: the Go sources without tests, the header,
#                  build/linux-amd64/libtinystore_capi.a, README.md, LICENSE
#   OUT/goproxy/   the same module as a Go module proxy serves it
#                  (tinystore.dev/go/@v/{list,VERSION.info,.mod,.zip}), for
#                  GOPROXY=file://OUT/goproxy and `go get tinystore.dev/go@VERSION`.
set -euo pipefail
src=${1:?usage: go-dist.sh SRC LIB VERSION OUT}
lib=${2:?usage: go-dist.sh SRC LIB VERSION OUT}
version=${3:?usage: go-dist.sh SRC LIB VERSION OUT}
out=${4:?usage: go-dist.sh SRC LIB VERSION OUT}
module=$(sed -n 's/^module //p' "$src/go.mod")

tree=$out/go
rm -rf "$tree" "$out/goproxy"
mkdir -p "$tree/build/linux-amd64"
# The Go sources (no tests: they need the repository's CLI and SQLite), the
# header, and the docs.
(cd "$src" && find . -path ./capi -prune -o -path ./build -prune -o -path ./s3guard -prune -o \
	\( -name '*.go' ! -name '*_test.go' -o -name '*.h' -o -name go.mod -o -name README.md \) -type f -print) |
	while read -r f; do mkdir -p "$tree/$(dirname "$f")" && cp "$src/$f" "$tree/$f"; done
root=$(cd "$src/.." && pwd)
[[ -f $root/LICENSE ]] && cp "$root/LICENSE" "$tree/LICENSE"
cp "$lib" "$tree/build/linux-amd64/libtinystore_capi.a"
# Without the tests the module needs nothing but the standard library.
(cd "$tree" && GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local go mod tidy)

proxy=$out/goproxy/$module/@v
mkdir -p "$proxy"
echo "$version" >"$proxy/list"
printf '{"Version":"%s","Time":"%s"}\n' "$version" "$(date -u +%Y-%m-%dT%H:%M:%SZ)" >"$proxy/$version.info"
cp "$tree/go.mod" "$proxy/$version.mod"
python3 - "$tree" "$module@$version" "$proxy/$version.zip" <<'PY'
import os, sys, zipfile
tree, prefix, dest = sys.argv[1:]
with zipfile.ZipFile(dest, "w", zipfile.ZIP_DEFLATED) as z:
    for base, dirs, files in sorted(os.walk(tree)):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(base, name)
            rel = os.path.relpath(path, tree)
            info = zipfile.ZipInfo(f"{prefix}/{rel}", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            with open(path, "rb") as f:
                z.writestr(info, f.read())
PY
