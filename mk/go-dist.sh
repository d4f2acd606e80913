#!/usr/bin/env bash
# Packages the Go module for `make dist-go`:
#
#   go-dist.sh SRC VERSION OUT GOOS-GOARCH=LIB...
#
# SRC is bindings-go/, VERSION the module's version (v0.1.0), and each
# GOOS-GOARCH=LIB a platform's stripped static library (linux-amd64=...,
# linux-arm64=...). Writes
#   OUT/go/        the module tree: the Go sources without tests, the header,
#                  build/GOOS-GOARCH/libtinystore_capi.a for each platform
#                  (internal/native/link_GOOS_GOARCH.go links it), README.md,
#                  LICENSE
#   OUT/goproxy/   the same module as a Go module proxy serves it
#                  (tinystore.dev/go/@v/{list,VERSION.info,.mod,.zip}), for
#                  GOPROXY=file://OUT/goproxy and `go get tinystore.dev/go@VERSION`.
set -euo pipefail
usage="usage: go-dist.sh SRC VERSION OUT GOOS-GOARCH=LIB..."
src=${1:?$usage}
version=${2:?$usage}
out=${3:?$usage}
shift 3
(($# > 0)) || { echo "$usage" >&2; exit 2; }
module=$(sed -n 's/^module //p' "$src/go.mod")

tree=$out/go
rm -rf "$tree" "$out/goproxy"
mkdir -p "$tree"
# The Go sources (no tests: they need the repository's CLI and SQLite), the
# header, and the docs; not the guards that are modules of their own
# (s3guard, redisguard, dynamoguard, gcsguard, azureguard) nor tinystoreotel,
# whose clients this module must not need, nor their tests' shared module
# internal/oteltest and the lost_test.go files' internal/losingproxy and
# internal/superseded.
(cd "$src" && find . -path ./capi -prune -o -path ./build -prune -o -path ./s3guard -prune -o -path ./redisguard -prune -o \
	-path ./dynamoguard -prune -o -path ./gcsguard -prune -o -path ./azureguard -prune -o -path ./tinystoreotel -prune -o \
	-path ./internal/oteltest -prune -o -path ./internal/losingproxy -prune -o -path ./internal/superseded -prune -o \
	\( -name '*.go' ! -name '*_test.go' -o -name '*.h' -o -name go.mod -o -name README.md \) -type f -print) |
	while read -r f; do mkdir -p "$tree/$(dirname "$f")" && cp "$src/$f" "$tree/$f"; done
root=$(cd "$src/.." && pwd)
[[ -f $root/LICENSE ]] && cp "$root/LICENSE" "$tree/LICENSE"
for platform_lib in "$@"; do
	platform=${platform_lib%%=*}
	lib=${platform_lib#*=}
	[[ $platform =~ ^[a-z0-9]+-[a-z0-9]+$ && -f $lib ]] || { echo "go-dist.sh: $platform_lib is not GOOS-GOARCH=LIB" >&2; exit 2; }
	[[ -f $src/internal/native/link_${platform/-/_}.go ]] || { echo "go-dist.sh: no link_${platform/-/_}.go links $platform" >&2; exit 2; }
	mkdir -p "$tree/build/$platform"
	cp "$lib" "$tree/build/$platform/libtinystore_capi.a"
done
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
