#!/bin/bash
# MultiGet grouped medium reads on (A: head minus tail estimate) and off (B), one loaded DB, copies.
set -e
B=/root/bins/s40
R=/root/runs/s40/mget
mkdir -p $R
mem=$((1<<20))
common=(--key_size=24 --value_size=400 --num=800000 --seed=1234 --statistics=1 --compression_type=none
  --bloom_bits=10 --cache_size=$((40<<20)) --use_direct_reads=1 --use_direct_io_for_flush_and_compaction=1
  --level_compaction_dynamic_level_bytes=true --max_bytes_for_level_multiplier=4
  --write_buffer_size=$mem --target_file_size_base=$mem --max_bytes_for_level_base=$mem
  --max_background_jobs=2 --hybrid --enable_blob_files=true --min_blob_size=1000)
[ -d $R/db ] || $B/db_bench_ext.A_notail --db=$R/db --benchmarks=fillrandom,waitforcompaction "${common[@]}" > $R/load.log 2>&1
for round in 3 4 5 6; do
  arms="A_notail B_nomget"; [ $((round % 2)) = 0 ] || arms="B_nomget A_notail"
  for arm in $arms; do
    rm -rf $R/db.$arm; cp -r $R/db $R/db.$arm; sync; echo 3 > /proc/sys/vm/drop_caches; sleep 2
    $B/db_bench_ext.$arm --db=$R/db.$arm --use_existing_db=1 --benchmarks=multireadrandom --batch_size=16 --reads=200000 "${common[@]}" > $R/mget.$arm.$round.log 2>&1
    echo "$round $arm $(grep -E '^multireadrandom' $R/mget.$arm.$round.log)"
    grep -E "rocksdb.hybridkv|hybridkv" $R/mget.$arm.$round.log | head -0
  done
done
