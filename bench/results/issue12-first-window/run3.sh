#!/bin/bash
# Run E, small MD shape (800k records), initial window 2 / 16 (cap 16), alternating, blobdb-large for reference
R=/work/main/bench/results/issue12-run-e-costs/run.sh
for r in 1 2 3; do
  for v in bl w2 w16; do
    arm=hy; [ $v = bl ] && arm=bl
    bin=/tmp/s12/bin/db_bench_ext.$v; [ $v = bl ] && bin=/tmp/s12/bin/db_bench_ext.w2
    rm -rf /tmp/prof-db-$arm; cp -a /tmp/s12/unit/pristine-$arm /tmp/prof-db-$arm
    echo "small r$r $v $(KEEP=1 EXTRA="--use_existing_db=1 --ycsb_ops=8000" bash $R $bin $arm /tmp/s12/window/small.r$r.$v ycsb_e | grep -o 'ycsb_e *: .* ops/sec\|cpu_us_per_op=[^ ]*\|dev_read_reqs_per_op=[^ ]*' | awk '{printf "%s ", ($1=="ycsb_e" ? $5" ops/s" : $0)}')"
  done
done
