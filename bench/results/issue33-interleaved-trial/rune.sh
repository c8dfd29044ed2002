#!/usr/bin/env bash
# rune.sh ARM OPS TAG [extra flags...]: one Run E on the kept explore DB, cloud caps.
set -euo pipefail
arm=$1 ops=$2 tag=$3; shift 3
source /work/main/scripts/device-cap.sh
trap device_teardown EXIT
device_setup /work/explore/db ${CAPBPS:-$((125*1048576))} ${CAPIOPS:-3000} >/dev/null
BIN=${BIN:-/root/.cache/hybridkv/build/rocksdb-9.10.0-release-bb7782b6eb/hybridkv/db_bench_ext/db_bench_ext}
common=(--db=/work/explore/db/$arm --benchmarks=ycsb_e --key_size=24 --value_size_mix=MD --num=6000000 --threads=1 --seed=1234 --ycsb_zipf=0.99 --statistics=1 --compression_type=none --bloom_bits=10 --cache_size=216750000 --use_direct_reads=1 --use_direct_io_for_flush_and_compaction=1 --level_compaction_dynamic_level_bytes=true --max_bytes_for_level_multiplier=10 --write_buffer_size=8388608 --target_file_size_base=8388608 --max_bytes_for_level_base=8388608 --blob_file_size=33554432 --max_background_jobs=2 --histogram=0 --use_blob_cache=1 --use_shared_block_and_blob_cache=1 --blob_compaction_readahead_size=2097152 --rate_limiter_bytes_per_sec=0 --enable_blob_files=true --min_blob_size=1000 --enable_blob_garbage_collection=true --use_existing_db=1 --ycsb_ops=$ops)
case $arm in hybrid) common+=(--hybrid);; hybrid-m2) common+=(--hybrid --hybrid_merge_level=-2);; esac
log=/work/explore/e/$tag.log
device_sample_begin
device_run $BIN "${common[@]}" "$@" > $log 2>&1
s=$(device_sample_end e $tag)
echo "$tag $(grep '^ycsb_e ' $log | awk '{print $5}') ops/s | $(grep '^ext_reads' $log) | $(grep -o 'dev_read_reqs_per_op=[0-9.]*' $log) | dev: $s"
