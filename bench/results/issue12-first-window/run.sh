#!/bin/bash
# Run E on the kept full MD DBs: initial window (binary) x cap (flag), alternating, with blobdb-large
cd /tmp/s12
for r in 1 2 3; do
  for v in bl w2:16 w8:16 w16:16 w16:32 w16:64; do
    arm=hybrid; extra=""; bin=/tmp/s12/bin/db_bench_ext.w2
    if [ $v = bl ]; then arm=blobdb-large; else bin=/tmp/s12/bin/db_bench_ext.${v%%:*}; extra="--hybrid_scan_prefetch_max=${v##*:}"; fi
    cmd=$(head -1 ab-full-m2/logs/run_e.$arm.log | sed 's/^perf stat[^-]*-- //' | sed "s|^[^ ]*db_bench_ext|$bin|; s/--ycsb_ops=[0-9]*/--ycsb_ops=6000/")
    $cmd $extra > window/r$r.${v/:/-}.log 2>&1
    echo "r$r $v $(grep -o 'ycsb_e *: .* ops/sec' window/r$r.${v/:/-}.log | awk '{print $5, "ops/s"}') $(grep -o 'cpu_us_per_op=[^ ]*\|dev_read_reqs_per_op=[^ ]*' window/r$r.${v/:/-}.log | tr '\n' ' ')"
  done
done
