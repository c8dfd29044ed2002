#!/bin/bash
# runx.sh BIN ARM DB BENCH [extra flags...]: db_bench_ext with scripts/ab's --full flags.
bin=$1 arm=$2 db=$3 bench=$4; shift 4
common="--key_size=24 --value_size_mix=MD --num=6000000 --threads=1 --seed=1234 --ycsb_zipf=0.99 --statistics=1 --compression_type=none --bloom_bits=10 --cache_size=216750000 --use_direct_reads=1 --use_direct_io_for_flush_and_compaction=1 --level_compaction_dynamic_level_bytes=true --max_bytes_for_level_multiplier=10 --write_buffer_size=8388608 --target_file_size_base=8388608 --max_bytes_for_level_base=8388608 --blob_file_size=33554432 --max_background_jobs=2 --histogram=0 --use_blob_cache=1 --use_shared_block_and_blob_cache=1 --blob_compaction_readahead_size=2097152 --rate_limiter_bytes_per_sec=0"
case $arm in
  blobdb-large) flags="--enable_blob_files=true --min_blob_size=1000 --enable_blob_garbage_collection=true" ;;
  hybrid) flags="--hybrid --enable_blob_files=true --min_blob_size=1000 --enable_blob_garbage_collection=true" ;;
esac
exec $bin --db=$db --benchmarks=$bench $common $flags "$@"
