#!/usr/bin/env bash
# Builds everything (installing dependencies with apt-get when missing) and runs the tests.
#
#   scripts/test.sh [--sanitize] [ctest args...]      e.g. scripts/test.sh -R Options
#
# --sanitize builds and runs everything under AddressSanitizer and UndefinedBehaviorSanitizer
# (its own build tree; the first build takes about as long as the normal one).
# The default set is fast. Longer runs sit behind environment variables, documented in README.md.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
build_args=()
if [ "${1:-}" = "--sanitize" ]; then
  build_args=(--sanitize)
  shift
  # Leaks in RocksDB's own static singletons are not ours to report; everything else is.
  export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
  export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
fi
build=$("$REPO/scripts/build.sh" "${build_args[@]}" | tail -n 1)
cd "$build"
ctest --output-on-failure --timeout 900 -j "$(nproc)" "$@"
