#!/usr/bin/env bash
# Installs HybridKV's build dependencies and fetches the pinned RocksDB source.
#
# Idempotent: a second run installs nothing and downloads nothing.
# Prints the path of the verified RocksDB tarball as its last line.
#
# The deb-src entry for Debian's `trixie` suite is derived from this machine's
# own apt configuration (/etc/apt/sources.list.d/debian.sources), so that no
# mirror host is ever written into the repository.
set -euo pipefail

ROCKSDB_VERSION=9.10.0
ROCKSDB_DEB_VERSION=9.10.0-1
ROCKSDB_SHA256=fdccab16133c9d927a183c2648bcea8d956fb41eb1df2aacaa73eb0b95e43724
CACHE_DIR=${HYBRIDKV_CACHE:-$HOME/.cache/hybridkv}
SRC_DIR=$CACHE_DIR/src
TARBALL=$SRC_DIR/rocksdb_${ROCKSDB_VERSION}.orig.tar.gz

PACKAGES=(g++ cmake ninja-build ccache make python3 libgflags-dev libsnappy-dev
  liblz4-dev libzstd-dev libbz2-dev zlib1g-dev liburing-dev libgtest-dev
  libgmock-dev dpkg-dev patch gnuplot-nox)

log() { echo "[setup] $*" >&2; }
die() { echo "[setup] ERROR: $*" >&2; exit 1; }

SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

# A deb-src entry for trixie, pointing at whatever Debian archive this machine already uses.
SRC_LIST=/etc/apt/sources.list.d/hybridkv-trixie-src.sources
need_update=0
if [ ! -f "$SRC_LIST" ]; then
  sources=/etc/apt/sources.list.d/debian.sources
  [ -f "$sources" ] || die "cannot derive a deb-src entry: $sources does not exist"
  # The first stanza's URIs/Signed-By are the main archive (the security archive comes later).
  uri=$(awk '/^URIs:/ {print $2; exit}' "$sources")
  keyring=$(awk '/^Signed-By:/ {print $2; exit}' "$sources")
  [ -n "$uri" ] || die "cannot derive a deb-src entry: no 'URIs:' line in $sources"
  log "adding deb-src entry for trixie (derived from $sources)"
  {
    echo "Types: deb-src"
    echo "URIs: $uri"
    echo "Suites: trixie"
    echo "Components: main"
    [ -n "$keyring" ] && echo "Signed-By: $keyring"
  } | $SUDO tee "$SRC_LIST" >/dev/null
  need_update=1
fi

if [ ${#missing[@]} -gt 0 ] || { [ ! -f "$TARBALL" ] && [ $need_update -eq 1 ]; }; then
  log "apt-get update"
  $SUDO apt-get update -qq || die "apt-get update failed; check the machine's apt configuration"
fi
if [ ${#missing[@]} -gt 0 ]; then
  log "installing: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    || die "apt-get install failed for: ${missing[*]}"
fi

verify() { echo "$ROCKSDB_SHA256  $1" | sha256sum -c --status; }

if [ -f "$TARBALL" ] && verify "$TARBALL"; then
  log "RocksDB $ROCKSDB_VERSION source already present and verified"
else
  mkdir -p "$SRC_DIR"
  rm -f "$TARBALL"
  log "downloading Debian source package rocksdb=$ROCKSDB_DEB_VERSION"
  tmp=$(mktemp -d)
  if ! (cd "$tmp" && apt-get source --download-only --tar-only "rocksdb=$ROCKSDB_DEB_VERSION" >&2); then
    $SUDO apt-get update -qq || true
    (cd "$tmp" && apt-get source --download-only --tar-only "rocksdb=$ROCKSDB_DEB_VERSION" >&2) \
      || die "download failed: 'apt-get source rocksdb=$ROCKSDB_DEB_VERSION' did not fetch the tarball (is the trixie deb-src entry in $SRC_LIST reachable?)"
  fi
  [ -f "$tmp/rocksdb_${ROCKSDB_VERSION}.orig.tar.gz" ] \
    || die "download failed: apt-get source produced no rocksdb_${ROCKSDB_VERSION}.orig.tar.gz"
  if ! verify "$tmp/rocksdb_${ROCKSDB_VERSION}.orig.tar.gz"; then
    got=$(sha256sum "$tmp/rocksdb_${ROCKSDB_VERSION}.orig.tar.gz" | cut -d' ' -f1)
    die "checksum mismatch for rocksdb_${ROCKSDB_VERSION}.orig.tar.gz: expected $ROCKSDB_SHA256, got $got"
  fi
  mv "$tmp/rocksdb_${ROCKSDB_VERSION}.orig.tar.gz" "$TARBALL"
  rm -rf "$tmp"
  log "RocksDB source verified: $TARBALL"
fi
echo "$TARBALL"
