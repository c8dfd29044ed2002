#!/bin/bash
# One Load A (ycsb_load,waitforcompaction) in scripts/ab's full LSM shape; prints the ext_summary
# figures and keeps the db_bench output (and the DB's LOG) in OUT.
# usage: load.sh BIN inplace|bl|hybrid N OUT [extra db_bench_ext flags]
# env: MIX=M (default) or MD; PERF=1 records a cpu-clock profile (OUT/ARM.perf.data)
BIN=$1 ARM=$2 N=$3 OUT=$4; shift 4
MIX=${MIX:-M}
# The block cache of the runs recorded here: scripts/ab --deep's for M, --full's for MD.
[ "$MIX" = MD ] && cache=216750000 || cache=384000000
mkdir -p "$OUT"; rm -rf "/tmp/exp-db-$ARM"
common="--benchmarks=ycsb_load,waitforcompaction --key_size=24 --value_size_mix=$MIX --num=$N --threads=1 --seed=1234 --ycsb_zipf=0.99 --statistics=1 --compression_type=none --bloom_bits=10 --cache_size=$cache --use_direct_reads=1 --use_direct_io_for_flush_and_compaction=1 --level_compaction_dynamic_level_bytes=true --max_bytes_for_level_multiplier=4 --write_buffer_size=8388608 --target_file_size_base=8388608 --max_bytes_for_level_base=8388608 --blob_file_size=33554432 --max_background_jobs=2 --histogram=0 --use_blob_cache=1 --use_shared_block_and_blob_cache=1 --rate_limiter_bytes_per_sec=0"
case $ARM in
  inplace) f="--enable_blob_files=false" ;;
  bl) f="--enable_blob_files=true --min_blob_size=1000 --enable_blob_garbage_collection=true" ;;
  hybrid*) f="--hybrid --hybrid_merge_level=-1 --enable_blob_files=true --min_blob_size=1000 --enable_blob_garbage_collection=true" ;;
esac
P=""
[ -n "$PERF" ] && P="perf record -q -e cpu-clock -F 499 -o $OUT/$ARM.perf.data --"
$P "$BIN" --db="/tmp/exp-db-$ARM" $common $f "$@" > "$OUT/$ARM.log" 2>&1
grep ext_summary "$OUT/$ARM.log" | tr ' ' '\n' | grep -E "cpu_us|user_us|sys_us|io_amp_write|space_amp"
cp "/tmp/exp-db-$ARM/LOG" "$OUT/$ARM.LOG"; rm -rf "/tmp/exp-db-$ARM"
