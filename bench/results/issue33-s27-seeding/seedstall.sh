#!/usr/bin/env bash
# seedstall.sh build|run TAG BIN: a DB of thousands of small SSTs, reopened on the cloud caps and
# overwritten at once: does the first flush's seeding (reading every SST's properties) hold the
# other background jobs back? Prints ops/s, write stall micros and device figures.
set -euo pipefail
cmd=$1
src=/work/explore/db/manyssts
common=(--key_size=24 --value_size_mix=MD --num=1500000 --seed=1234 --compression_type=none
        --bloom_bits=10 --cache_size=67108864 --use_direct_reads=1
        --use_direct_io_for_flush_and_compaction=1 --level_compaction_dynamic_level_bytes=true
        --max_bytes_for_level_multiplier=10 --write_buffer_size=262144
        --target_file_size_base=32768 --max_bytes_for_level_base=1048576
        --blob_file_size=8388608 --max_background_jobs=8 --histogram=0 --statistics=1
        --enable_blob_files=true --min_blob_size=1000 --enable_blob_garbage_collection=true
        --hybrid)
if [ "$cmd" = build ]; then
  rm -rf $src
  $2 --db=$src "${common[@]}" --benchmarks=fillrandom,waitforcompaction 2>&1 | grep -E "^fillrandom|stall.micros COUNT"
  echo "SSTs: $(ls $src | grep -c '\.sst$'), medium files: $(ls $src | grep -c '\.medium$')"
  exit 0
fi
tag=$2 bin=$3
dst=/work/explore/db/w-$tag
rm -rf $dst; cp -a $src $dst
sync; echo 3 > /proc/sys/vm/drop_caches
source /work/main/scripts/device-cap.sh
trap 'device_teardown; rm -rf $dst' EXIT
device_setup /work/explore/db $((125*1048576)) 3000 >/dev/null
log=/work/explore/e/seed-$tag.log
device_sample_begin; t0=$(date +%s.%N)
device_run $bin --db=$dst "${common[@]}" --use_existing_db=1 --benchmarks=overwrite --writes=300000 > $log 2>&1
t1=$(date +%s.%N); s=$(device_sample_end overwrite $tag)
echo "$tag wall $(echo "$t1 - $t0" | bc)s $(grep '^overwrite ' $log | awk '{print $5, "ops/s", $3, "us/op"}') | $(grep -o 'rocksdb.stall.micros COUNT : [0-9]*' $log) | $(grep -o 'rocksdb.db.write.stall P50.*' $log | cut -c1-120) | dev: $s"
