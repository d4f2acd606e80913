#!/bin/sh
# The protobuf compiler behind PROTOC for this checkout (.cargo/config.toml):
# the etcd client's build (prost-build) runs it with protoc's arguments, and
# protox, a protobuf compiler written in Rust that takes the same arguments,
# does the work. protox is installed with cargo the first time it is needed
# (`make deps-rust` does it up front, where its progress shows), so building
# tinystore needs nothing but cargo.
set -e
version=0.10.0
root=${CARGO_HOME:-$HOME/.cargo}
protox=$root/bin/protox

if [ ! -x "$protox" ]; then
  echo "tinystore: installing protox $version (a protobuf compiler written in Rust) into $root/bin" >&2
  # From inside a build script: a clean environment, so that the outer
  # build's target dir, flags and jobserver do not leak into this one.
  lock=$root/.protox-install.lock
  mkdir -p "$root"
  env -i HOME="$HOME" PATH="$PATH" CARGO_HOME="$root" \
    ${RUSTUP_HOME:+RUSTUP_HOME="$RUSTUP_HOME"} ${RUSTUP_TOOLCHAIN:+RUSTUP_TOOLCHAIN="$RUSTUP_TOOLCHAIN"} \
    flock "$lock" sh -c '[ -x "$1" ] || "$2" install protox --version "$3" --locked --features bin --root "$4"' \
    sh "$protox" "${CARGO:-cargo}" "$version" "$root" >&2 || {
      echo "tinystore: could not install protox: run 'cargo install protox --version $version --locked --features bin', or set PROTOC to a protoc" >&2
      exit 1
    }
fi
exec "$protox" "$@"
