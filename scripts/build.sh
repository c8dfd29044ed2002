#!/usr/bin/env bash
# Builds RocksDB 9.10.0 in-tree with the HybridKV plugin, its stock tools, and our tests.
#
#   scripts/build.sh [--sanitize|--debug] [--rocksdb-src DIR|TARBALL|VERSION] [target ...]
#                                                     (default targets: see DEFAULT_TARGETS)
#
# --sanitize: AddressSanitizer and UndefinedBehaviorSanitizer. --debug: RocksDB's debug build
# (assertions, and the kill points db_crashtest.py's whitebox mode needs).
# --rocksdb-src: build against another RocksDB source (9.10 to 11.8): a source tree or a
# .tar.gz of one. It is copied into the cache (the given tree is never modified) and the build
# directory is keyed by its version and a hash of its files. A bare VERSION (9.11.2) fetches
# Debian's source package of that version (scripts/setup-deps.sh). Default: the pinned 9.10.0
# from Debian's source package.
#
# The build tree lives outside the repository, in $HYBRIDKV_CACHE (default ~/.cache/hybridkv),
# keyed by RocksDB version and build flags, and compiles through ccache, so a rebuild after a
# small change costs seconds. CMake is always pointed at the stable link $HYBRIDKV_CACHE/checkout,
# re-aimed at the checkout running this script: a fresh clone therefore reuses the warm tree.
# Prints the build directory as its last line.
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
CACHE_DIR=${HYBRIDKV_CACHE:-$HOME/.cache/hybridkv}
export HYBRIDKV_CACHE=$CACHE_DIR
ROCKSDB_VERSION=9.10.0
DEFAULT_TARGETS=(rocksdb db_bench db_bench_ext ldb sst_dump db_stress hybridkv_tests hybridkv_admin)

sanitize=0
debug=0
rocksdb_src=""
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --sanitize) sanitize=1 ;;
    --debug) debug=1 ;;
    --rocksdb-src) rocksdb_src=${2:?--rocksdb-src needs a directory or tarball}; shift ;;
    -*) echo "usage: $0 [--sanitize|--debug] [--rocksdb-src DIR|TARBALL|VERSION] [target ...]" >&2; exit 2 ;;
    *) targets+=("$1") ;;
  esac
  shift
done
[ ${#targets[@]} -gt 0 ] || targets=("${DEFAULT_TARGETS[@]}")

tarball=$("$REPO/scripts/setup-deps.sh" | tail -n 1)
if [[ "$rocksdb_src" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] && [ ! -e "$rocksdb_src" ]; then
  if [ "$rocksdb_src" = "$ROCKSDB_VERSION" ]; then
    rocksdb_src=""  # the pinned default
  else
    rocksdb_src=$("$REPO/scripts/setup-deps.sh" "$rocksdb_src" | tail -n 1)
  fi
fi
src_name=rocksdb-$ROCKSDB_VERSION
if [ -n "$rocksdb_src" ]; then
  rocksdb_src=$(cd "$(dirname "$rocksdb_src")" && pwd)/$(basename "$rocksdb_src")
  if [ -d "$rocksdb_src" ]; then
    version_h=$rocksdb_src/include/rocksdb/version.h
    [ -f "$version_h" ] || { echo "[build] ERROR: $rocksdb_src is not a RocksDB source tree (no include/rocksdb/version.h)" >&2; exit 1; }
    tree_hash=$(cd "$rocksdb_src" && find . -type f \( -name '*.cc' -o -name '*.h' -o -name '*.txt' -o -name '*.cmake' -o -name '*.mk' -o -name Makefile \) -not -path './plugin/hybridkv/*' -print0 | sort -z | xargs -0 sha256sum | sha256sum | cut -c1-10)
    version_text=$(cat "$version_h")
  elif [ -f "$rocksdb_src" ]; then
    tree_hash=$(sha256sum "$rocksdb_src" | cut -c1-10)
    version_text=$(tar -xzOf "$rocksdb_src" --wildcards '*/include/rocksdb/version.h' 2>/dev/null) \
      || { echo "[build] ERROR: $rocksdb_src is not a RocksDB source tarball" >&2; exit 1; }
  else
    echo "[build] ERROR: --rocksdb-src $rocksdb_src: no such directory or file" >&2; exit 1
  fi
  ROCKSDB_VERSION=$(awk '/define ROCKSDB_MAJOR/ {a=$3} /define ROCKSDB_MINOR/ {b=$3} /define ROCKSDB_PATCH/ {c=$3} END {print a "." b "." c}' <<<"$version_text")
  src_name=rocksdb-$ROCKSDB_VERSION-$tree_hash
fi

mkdir -p "$CACHE_DIR"
# The staged plugin links lead, through $CACHE_DIR/checkout, to one checkout at a time. Builds
# from that checkout share the lock (several flavors may build at once); re-aiming the link at
# another checkout needs it exclusively, so it waits for those builds to finish.
exec 9>"$CACHE_DIR/checkout.lock"
flock -s 9
if [ "$(readlink "$CACHE_DIR/checkout" 2>/dev/null)" != "$REPO" ]; then
  flock -u 9
  flock 9
  ln -sfn "$REPO" "$CACHE_DIR/checkout"
  flock -s 9
fi

src=$CACHE_DIR/src/$src_name
exec 7>"$CACHE_DIR/src.lock"
flock 7  # extract once
if [ ! -f "$src/.hybridkv-extracted" ]; then
  rm -rf "$src"
  mkdir -p "$src"
  if [ -z "$rocksdb_src" ]; then
    echo "[build] extracting $(basename "$tarball")" >&2
    tar -xzf "$tarball" -C "$src" --strip-components=1
  elif [ -d "$rocksdb_src" ]; then
    echo "[build] copying $rocksdb_src" >&2
    (cd "$rocksdb_src" && tar -cf - --exclude=./plugin/hybridkv --exclude=./.git .) | tar -xf - -C "$src"
  else
    echo "[build] extracting $(basename "$rocksdb_src")" >&2
    tar -xzf "$rocksdb_src" -C "$src" --strip-components=1
  fi
  [ -f "$src/include/rocksdb/version.h" ] || { echo "[build] ERROR: no RocksDB source tree in $src" >&2; exit 1; }
  touch "$src/.hybridkv-extracted"
fi
flock -u 7

build_type=Release  # NDEBUG and -fno-rtti, as RocksDB release builds
[ $debug -eq 0 ] || build_type=Debug  # assertions and RTTI, as RocksDB debug builds
cmake_args=(
  -G Ninja
  -DCMAKE_BUILD_TYPE=$build_type
  -DPORTABLE=1
  -DWITH_LIBURING=ON -DWITH_SNAPPY=ON -DWITH_LZ4=ON -DWITH_ZSTD=ON -DWITH_ZLIB=ON -DWITH_BZ2=ON
  -DWITH_GFLAGS=ON
  -DWITH_TESTS=OFF -DWITH_BENCHMARK_TOOLS=ON -DWITH_TOOLS=ON -DWITH_CORE_TOOLS=ON
  -DWITH_TRACE_TOOLS=OFF -DWITH_JNI=OFF
  -DFAIL_ON_WARNINGS=OFF
  -DROCKSDB_BUILD_SHARED=OFF  # tools link the static library, which contains the plugin
)
flavor=release
if [ $sanitize -eq 1 ]; then
  cmake_args+=(-DWITH_ASAN=ON -DWITH_UBSAN=ON)
  flavor=asan-ubsan
elif [ $debug -eq 1 ]; then
  flavor=debug
fi
key_parts=("$ROCKSDB_VERSION" "${cmake_args[@]}" "$(c++ --version | head -n 1)")
[ -z "$rocksdb_src" ] || key_parts+=("$tree_hash")  # the pinned default keeps its old key
key=$(printf '%s\n' "${key_parts[@]}" | sha256sum | cut -c1-10)
build=$CACHE_DIR/build/rocksdb-$ROCKSDB_VERSION-$flavor-$key

export CCACHE_DIR=${CCACHE_DIR:-$CACHE_DIR/ccache}
ccache --max-size=8G >/dev/null

mkdir -p "$build"
exec 8>"$build.lock"
flock 8  # one ninja per build directory
# Objects compiled from another checkout: the staged plugin paths are the same
# (through the checkout link), and ninja compares mtimes only, so an older
# checkout's files would look up to date next to a newer checkout's objects and
# a binary could mix both. Drop them; ccache makes the recompile cheap.
if [ "$(cat "$build/.hybridkv-checkout" 2>/dev/null)" != "$REPO" ]; then
  find "$build" \( -path '*/plugin/hybridkv/*' -o -path "$build/hybridkv/*" \) \
    -name '*.o' -delete 2>/dev/null || true
  echo "$REPO" > "$build/.hybridkv-checkout"
fi
# Re-configure when the checkout's source lists differ from the ones the tree
# was configured with: CMake notices edits by mtime only, and re-aiming the
# checkout link at an older checkout would otherwise build a stale list.
config_hash=$(cat "$REPO/plugin/hybridkv.mk" "$REPO/CMakeLists.txt" "$REPO"/*/CMakeLists.txt | sha256sum | cut -c1-16)
if [ ! -f "$build/build.ninja" ] || [ "$(cat "$build/.hybridkv-config" 2>/dev/null)" != "$config_hash" ]; then
  cmake -S "$CACHE_DIR/checkout" -B "$build" "${cmake_args[@]}" \
    -DROCKSDB_SOURCE_DIR="$src" >"$CACHE_DIR/cmake-$flavor.log" 2>&1 \
    || { tail -n 40 "$CACHE_DIR/cmake-$flavor.log" >&2; echo "[build] ERROR: cmake configure failed; full log: $CACHE_DIR/cmake-$flavor.log" >&2; exit 1; }
  echo "$config_hash" > "$build/.hybridkv-config"
fi
echo "[build] building ${targets[*]} in $build" >&2
ninja -C "$build" "${targets[@]}" >&2
echo "$build"
