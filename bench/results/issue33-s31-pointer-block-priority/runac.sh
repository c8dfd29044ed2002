#!/usr/bin/env bash
# runac.sh ARM TAG AOPS COPS [extra flags]: copy the saved full-MD DB of ARM (hybrid|blobdb-large),
# run ycsb_a AOPS then ycsb_c COPS at the cloud caps (125 MiB/s, 3,000 IOPS); print ops/s, device
# reads per op, medium reads. BIN= picks the binary. (After issue33-read-heat/runac.sh.)
set -euo pipefail
arm=$1 tag=$2 aops=$3 cops=$4; shift 4
src=/work/explore/s31/loaded/load_a.$arm; dst=/work/explore/s31/db/w-$tag
mkdir -p /work/explore/s31/db /work/explore/s31/e
rm -rf $dst $dst.ycsb-live; cp -a --sparse=always $src $dst; cp -a $src.ycsb-live $dst.ycsb-live 2>/dev/null || true
sync; echo 3 > /proc/sys/vm/drop_caches
source /work/main/scripts/device-cap.sh
trap device_teardown EXIT
device_setup /work/explore/s31/db $((125*1048576)) 3000 >/dev/null
BIN=${BIN:-/root/.cache/hybridkv/build/rocksdb-9.10.0-release-bb7782b6eb/hybridkv/db_bench_ext/db_bench_ext}
common=(--db=$dst --key_size=24 --value_size_mix=MD --num=6000000 --threads=1 --seed=1234 --ycsb_zipf=0.99 --statistics=1 --compression_type=none --bloom_bits=10 --cache_size=216750000 --use_direct_reads=1 --use_direct_io_for_flush_and_compaction=1 --level_compaction_dynamic_level_bytes=true --max_bytes_for_level_multiplier=10 --write_buffer_size=8388608 --target_file_size_base=8388608 --max_bytes_for_level_base=8388608 --blob_file_size=33554432 --max_background_jobs=2 --histogram=0 --use_blob_cache=1 --use_shared_block_and_blob_cache=1 --blob_compaction_readahead_size=2097152 --rate_limiter_bytes_per_sec=0 --enable_blob_files=true --min_blob_size=1000 --enable_blob_garbage_collection=true --use_existing_db=1)
case $arm in hybrid) common+=(--hybrid);; esac
for ph in a c; do
  ops=$aops; [ $ph = c ] && ops=$cops
  log=/work/explore/s31/e/$tag-$ph.log
  device_sample_begin
  device_run $BIN "${common[@]}" --benchmarks=ycsb_$ph --ycsb_ops=$ops "$@" > $log 2>&1
  s=$(device_sample_end $ph $tag)
  echo "$tag $ph $(grep "^ycsb_$ph " $log | awk '{print $5}') ops/s | $(grep -o 'dev_read_reqs_per_op=[0-9.]*' $log) | $(grep -o 'medium: [0-9]* values, [0-9]* bytes resolved by reads ([0-9]* bytes read in [0-9]* reads)' $log) | $(grep -o 'rocksdb.block.cache.data.miss COUNT : [0-9]*' $log) | dev: $s"
done
rm -rf $dst $dst.ycsb-live
