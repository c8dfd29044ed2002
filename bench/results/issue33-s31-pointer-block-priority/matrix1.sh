#!/usr/bin/env bash
export BIN=/work/explore/s31/db_bench_ext.hp
for r in 1 2; do
  ./runac.sh blobdb-large bl0-$r 400000 400000
  ./runac.sh hybrid hy0-$r 400000 400000
  ./runac.sh blobdb-large bl5-$r 400000 400000 --cache_high_pri_pool_ratio=0.5
  ./runac.sh hybrid hy5-$r 400000 400000 --cache_high_pri_pool_ratio=0.5
  ./runac.sh hybrid hyp5-$r 400000 400000 --cache_high_pri_pool_ratio=0.5 --hybrid_cache_pointer_blocks_with_high_priority=1
done
