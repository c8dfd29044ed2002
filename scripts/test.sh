#!/usr/bin/env bash
# Builds everything (installing dependencies with apt-get when missing) and runs the tests.
#
#   scripts/test.sh [--sanitize] [--long] [--rocksdb-src DIR|TARBALL|VERSION] [ctest args...]
#                                                   e.g. scripts/test.sh -R Options
#
# --sanitize builds and runs everything under AddressSanitizer and UndefinedBehaviorSanitizer
# (its own build tree; the first build takes about as long as the normal one). ASan errors abort
# the test that hits them. UBSan reports go to per-process logs, and the run fails if any is
# not the known false positive below.
# The default set is fast. Longer runs sit behind environment variables, documented in README.md.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
# --long runs the model-based and crash tests in their long modes (HYBRIDKV_LONG=1), for
# HYBRIDKV_LONG_SECONDS each (default 600); scripts/stress has the db_stress runs.
sanitize=0
rocksdb_src=()
while [ $# -gt 0 ]; do
  case "$1" in
    --sanitize) sanitize=1 ;;
    --rocksdb-src) rocksdb_src=(--rocksdb-src "${2:?--rocksdb-src needs a directory, tarball or version}"); shift ;;
    --long) export HYBRIDKV_LONG=1 ;;
    *) break ;;
  esac
  shift
done
build_args=()
[ $sanitize -eq 0 ] || build_args=(--sanitize)
build=$("$REPO/scripts/build.sh" "${build_args[@]}" "${rocksdb_src[@]}" | tail -n 1)
cd "$build"
if [ $sanitize -eq 0 ]; then
  timeout=900
  [ -z "${HYBRIDKV_LONG:-}" ] || timeout=$((${HYBRIDKV_LONG_SECONDS:-600} * 2 + 300))
  exec ctest --output-on-failure --timeout "$timeout" -j "$(nproc)" "$@"
fi

# Leaks in RocksDB's process-lifetime singletons are not ours to report.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=0}
# UBSan reports go to each test's stderr, which CTest keeps only for failing tests: run it
# verbose into a log, then read every report from there.
log=$build/sanitize-test.log
status=0
ctest --verbose --timeout 1500 -j "$(nproc)" "$@" >"$log" 2>&1 || status=$?
grep -E "tests passed|tests failed|Total Test time|\*\*\*Failed|Subprocess aborted" "$log" || true
[ $status -eq 0 ] || echo "Failing tests' output: $log"
# GCC's -fsanitize=null reports reads of RocksDB's thread_local `perf_level` as "load of null
# pointer of type 'PerfLevel'" (every DB::Open and compaction trips it). A thread-local's
# address is never null; every other report fails the run.
# The same holds for the thread-local `perf_context` ("member access within null pointer of
# type 'struct PerfContext'", e.g. db_impl.cc in MultiGet).
known="load of null pointer of type 'PerfLevel'|member access within null pointer of type 'struct PerfContext'"
total=$(grep -c "runtime error:" "$log" || true)
real=$(grep "runtime error:" "$log" | grep -vEc "$known" || true)
echo "UBSan: $total reports, $real other than the known PerfLevel/PerfContext false positives"
if [ "$real" -gt 0 ]; then
  grep "runtime error:" "$log" | grep -vE "$known" | sed 's/^[0-9]*: //' | sort | uniq -c | head -n 20
  status=1
fi
exit $status
