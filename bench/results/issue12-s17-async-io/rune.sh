#!/bin/bash
# usage: BIN=db_bench_ext rune.sh ARM OUT [extra flags]   (ARM: bl, hy or ip)
# 20000 Run E scans on /tmp/prof-db-ARM, a DB loaded in the small MD shape of
# ../issue12-run-e-costs/run.sh (ip: the same load with --enable_blob_files=false).
arm=$1 out=$2; shift 2
db=/tmp/prof-db-$arm
common="--db=$db --benchmarks=ycsb_e --key_size=24 --value_size_mix=MD --num=800000 --threads=1 --seed=1234 --ycsb_zipf=0.99 --statistics=1 --compression_type=none --bloom_bits=10 --cache_size=28900000 --use_direct_reads=1 --use_direct_io_for_flush_and_compaction=1 --level_compaction_dynamic_level_bytes=true --max_bytes_for_level_multiplier=4 --write_buffer_size=1048576 --target_file_size_base=1048576 --max_bytes_for_level_base=1048576 --blob_file_size=4194304 --max_background_jobs=2 --histogram=0 --use_blob_cache=1 --use_shared_block_and_blob_cache=1 --rate_limiter_bytes_per_sec=0 --use_existing_db=1 --ycsb_ops=20000"
case $arm in
  bl) f="--enable_blob_files=true --min_blob_size=1000 --enable_blob_garbage_collection=true" ;;
  hy) f="--hybrid --enable_blob_files=true --min_blob_size=1000 --enable_blob_garbage_collection=true" ;;
  ip) f="--enable_blob_files=false" ;;
esac
"$BIN" $common $f "$@" > "$out.log" 2>&1
echo "$(basename "$out") $(grep -o '[0-9]* ops/sec' "$out.log" | tail -1) $(grep ext_summary "$out.log" | tr ' ' '\n' | grep -E '^(cpu_us_per_op|user_us_per_op|sys_us_per_op|dev_read_reqs_per_op)=' | tr '\n' ' ')"
