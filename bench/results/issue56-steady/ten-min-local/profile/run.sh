#!/bin/bash
# Compaction-thread profile of Steady U: per arm, load 6M MD records, then 90 s of 100% updates under perf.
set -e
BIN=${BIN:-/root/.cache/hybridkv/build/rocksdb-9.10.0-release-bb7782b6eb/hybridkv/db_bench_ext/db_bench_ext}
OUT=${OUT:-/root/runs/s41/prof}
COMMON="--key_size=24 --value_size_mix=MD --num=6000000 --threads=1 --seed=1234 --ycsb_zipf=0.99 --statistics=1 --compression_type=none --bloom_bits=10 --cache_size=216750000 --use_direct_reads=1 --use_direct_io_for_flush_and_compaction=1 --level_compaction_dynamic_level_bytes=true --max_bytes_for_level_multiplier=10 --write_buffer_size=8388608 --target_file_size_base=8388608 --max_bytes_for_level_base=8388608 --blob_file_size=33554432 --max_background_jobs=2 --use_blob_cache=1 --use_shared_block_and_blob_cache=1 --blob_compaction_readahead_size=2097152 --rate_limiter_bytes_per_sec=0 --enable_blob_files=true --min_blob_size=1000 --enable_blob_garbage_collection=true"
for arm in ${ARMS:-blobdb-large hybrid}; do
  extra=""; [ $arm != blobdb-large ] && extra="--hybrid"
  db=$OUT/db-$arm; rm -rf $db
  $BIN --db=$db --benchmarks=ycsb_load,waitforcompaction $COMMON $extra > $OUT/load.$arm.log 2>&1
  perf record -q -e cpu-clock -F 999 -o $OUT/u.$arm.perf.data -- $BIN --db=$db --benchmarks=ycsb_u --use_existing_db=1 --duration=${SECS:-90} $COMMON $extra > $OUT/u.$arm.log 2>&1
  perf report -i $OUT/u.$arm.perf.data --comm rocksdb:low --no-children --sort sym --stdio 2>/dev/null | grep -v "^#" | grep "%" | head -40 > $OUT/u.$arm.compaction.txt
  perf report -i $OUT/u.$arm.perf.data --no-children --sort comm --stdio 2>/dev/null | grep "%" | head > $OUT/u.$arm.threads.txt
done
