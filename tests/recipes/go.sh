#!/usr/bin/env bash
# Runs the Go recipes of a docs page as a user's own module would:
#
#   tests/recipes/go.sh PAGE [MODULE]
#
# Writes PAGE's go recipes (tests/recipes/extract.py, exactly as the page
# shows them) into a new module in a temporary folder outside the tree,
# whose go.mod requires tinystore.dev/go and the SQLite driver the
# binding's own tests use (modernc.org/sqlite, at the version
# bindings-go/go.mod names), then runs `go mod tidy`, `go vet ./...` and
# `go test ./...`, and fails when any of them fails.
#
# MODULE is where tinystore.dev/go comes from:
#   a folder   a `replace` to it; by default this checkout's bindings-go,
#              with the library `make go-lib` puts in its build/ (as
#              mk/go.mk builds it for the tests);
#   @VERSION   that version from $GOPROXY, as tests/dist/go.sh serves the
#              packaged module.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
usage="usage: tests/recipes/go.sh PAGE [MODULE_DIR|@VERSION]"
say() { echo "recipes/go.sh: $*"; }
fail() {
	echo "recipes/go.sh: FAIL: $*" >&2
	exit 1
}

page=${1:?$usage}
module=${2:-$root/bindings-go}
[[ -f $page ]] || fail "no page $page"
page=$(cd "$(dirname "$page")" && pwd)/$(basename "$page")
sqlite=$(sed -n 's/^[[:space:]]*modernc\.org\/sqlite \(v[^ ]*\).*$/\1/p' "$root/bindings-go/go.mod" | head -1)
[[ -n $sqlite ]] || fail "bindings-go/go.mod names no modernc.org/sqlite"

case $module in
@v*)
	version=${module#@}
	replace=
	from="tinystore.dev/go@$version from GOPROXY=${GOPROXY:-$(go env GOPROXY)}"
	;;
*)
	[[ -f $module/go.mod ]] || fail "$module has no go.mod"
	module=$(cd "$module" && pwd)
	grep -qx 'module tinystore.dev/go' "$module/go.mod" || fail "$module is not the module tinystore.dev/go"
	lib=$module/build/$(go env GOOS)-$(go env GOARCH)/libtinystore_capi.a
	[[ -f $lib ]] || fail "$lib is missing: run make go-lib"
	version=v0.0.0
	replace="replace tinystore.dev/go => $module"
	from="$module (library $(du -h "$lib" | cut -f1))"
	# As mk/go.mk does: a new library is a new build for Go's build cache.
	export CGO_CFLAGS=${CGO_CFLAGS:-"-O2 -g -DTINYSTORE_LIB_ID=$(sha1sum "$lib" | cut -c1-16)"}
	;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/tinystore-recipes-go.XXXXXX")
cleanup() {
	chmod -R u+w "$work" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

files=$(python3 "$here/extract.py" "$page" go "$work/app") || fail "extract.py failed on $page (its message, if any, above; python3 is $(command -v python3))"
say "$(wc -l <<<"$files") files from $page: $(sed "s|^$work/app/||" <<<"$files" | tr '\n' ' ')"
say "tinystore.dev/go: $from"

cat >"$work/app/go.mod" <<EOF
module example.com/recipes

go 1.26.0

require (
	modernc.org/sqlite $sqlite
	tinystore.dev/go $version
)

$replace
EOF

cd "$work/app"
export GOTOOLCHAIN=local
go mod tidy || fail "go mod tidy"
go vet ./... || fail "go vet of $page's recipes"
go test -count=1 -v ./... || fail "go test of $page's recipes"
say "$page: the go recipes pass"
