#!/usr/bin/env bash
# usage: run.sh BIN ARM OUTDIR [benchmarks]   ARM: bl (blobdb-large) | hy... (hybrid)
# env: KEEP=1 reuses the DB, EXTRA="flags" adds db_bench_ext flags, PERF=1 records a cpu-clock profile
set -e
bin=$1; arm=$2; out=$3; bm=${4:-ycsb_load,waitforcompaction}
db=/tmp/prof-db-$arm; [ -z "$KEEP" ] && rm -rf $db
common="--db=$db --benchmarks=$bm --key_size=24 --value_size_mix=MD --num=800000 --threads=1 --seed=1234 --ycsb_zipf=0.99 --statistics=1 --compression_type=none --bloom_bits=10 --cache_size=28900000 --use_direct_reads=1 --use_direct_io_for_flush_and_compaction=1 --level_compaction_dynamic_level_bytes=true --max_bytes_for_level_multiplier=4 --write_buffer_size=1048576 --target_file_size_base=1048576 --max_bytes_for_level_base=1048576 --blob_file_size=4194304 --max_background_jobs=2 --histogram=0 --use_blob_cache=1 --use_shared_block_and_blob_cache=1 --rate_limiter_bytes_per_sec=0 --enable_blob_files=true --min_blob_size=1000 --enable_blob_garbage_collection=true"
extra=""; case $arm in hy*) extra="--hybrid";; esac
mkdir -p $out
extra="$extra $EXTRA"
if [ -n "$PERF" ]; then
  perf record -q -e cpu-clock -F 999 -o $out/$arm.perf.data -- $bin $common $extra > $out/$arm.log 2>&1
else
  $bin $common $extra > $out/$arm.log 2>&1
fi
grep -E 'ops/sec|ext_summary' $out/$arm.log | cut -c1-400
