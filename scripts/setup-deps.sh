#!/usr/bin/env bash
# Installs HybridKV's build dependencies and fetches a RocksDB source from Debian.
#
#   scripts/setup-deps.sh [VERSION]      VERSION: 9.10.0 (default, the pinned one) or 9.11.2
#
# Idempotent: a second run installs nothing and downloads nothing.
# Prints the path of the verified RocksDB tarball as its last line.
#
# The source comes from Debian's source package (`apt-get source`), through a private apt state
# under the cache directory: its deb-src entry is derived from this machine's own apt
# configuration (/etc/apt/sources.list.d/debian.sources), so no mirror host is ever written into
# the repository, and the machine's apt configuration is left as it is.
set -euo pipefail

ROCKSDB_VERSION=${1:-9.10.0}
# Each known version: the Debian suite that ships it, its Debian version, and the sha256 of its
# .orig.tar.gz (checked after every download).
case "$ROCKSDB_VERSION" in
  9.10.0) SUITE=trixie ROCKSDB_DEB_VERSION=9.10.0-1
    ROCKSDB_SHA256=fdccab16133c9d927a183c2648bcea8d956fb41eb1df2aacaa73eb0b95e43724 ;;
  9.11.2) SUITE=forky ROCKSDB_DEB_VERSION=9.11.2-1
    ROCKSDB_SHA256=4005068f5099c54c39968f3466da216e0a7b97fc78e1c51c722e643763058a5c ;;
  *) echo "[setup] ERROR: no Debian source package known for RocksDB $ROCKSDB_VERSION" \
       "(known: 9.10.0, 9.11.2); pass a source tree or tarball with --rocksdb-src instead" >&2
     exit 2 ;;
esac
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
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get update"
  $SUDO apt-get update -qq || die "apt-get update failed; check the machine's apt configuration"
  log "installing: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" \
    || die "apt-get install failed for: ${missing[*]}"
fi

verify() { echo "$ROCKSDB_SHA256  $1" | sha256sum -c --status; }

# apt-get with a private state holding only the deb-src entry for $SUITE.
private_apt() {
  local apt_dir=$CACHE_DIR/apt/$SUITE
  mkdir -p "$apt_dir/lists/partial" "$apt_dir/archives/partial" "$apt_dir/sources.list.d"
  if [ ! -f "$apt_dir/sources.list.d/$SUITE-src.sources" ]; then
    local sources=/etc/apt/sources.list.d/debian.sources uri keyring
    [ -f "$sources" ] || die "cannot derive a deb-src entry: $sources does not exist"
    # The first stanza's URIs/Signed-By are the main archive (the security archive comes later).
    uri=$(awk '/^URIs:/ {print $2; exit}' "$sources")
    keyring=$(awk '/^Signed-By:/ {print $2; exit}' "$sources")
    [ -n "$uri" ] || die "cannot derive a deb-src entry: no 'URIs:' line in $sources"
    {
      echo "Types: deb-src"
      echo "URIs: $uri"
      echo "Suites: $SUITE"
      echo "Components: main"
      [ -n "$keyring" ] && echo "Signed-By: $keyring"
    } >"$apt_dir/sources.list.d/$SUITE-src.sources"
    : >"$apt_dir/sources.list"
  fi
  apt-get -o Dir::Etc::SourceList="$apt_dir/sources.list" \
    -o Dir::Etc::SourceParts="$apt_dir/sources.list.d" -o Dir::State::Lists="$apt_dir/lists" \
    -o Dir::Cache="$apt_dir" -o Debug::NoLocking=1 -o APT::Sandbox::User=root "$@"
}

if [ -f "$TARBALL" ] && verify "$TARBALL"; then
  log "RocksDB $ROCKSDB_VERSION source already present and verified"
else
  mkdir -p "$SRC_DIR"
  rm -f "$TARBALL"
  log "downloading Debian source package rocksdb=$ROCKSDB_DEB_VERSION ($SUITE)"
  private_apt update -qq || die "apt-get update of the $SUITE deb-src entry failed (in $CACHE_DIR/apt/$SUITE)"
  tmp=$(mktemp -d)
  (cd "$tmp" && private_apt source --download-only --tar-only "rocksdb=$ROCKSDB_DEB_VERSION" >&2) \
    || die "download failed: 'apt-get source rocksdb=$ROCKSDB_DEB_VERSION' from $SUITE did not fetch the tarball"
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
