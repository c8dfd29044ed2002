#!/bin/bash
# Run E, initial window 2 / 8 / 16 (cap 16), on the kept full hybrid-m2 DB, alternating
cd /tmp/s12
for r in 1 2 3; do
  for v in w2 w8 w16; do
    cmd=$(head -1 ab-full-m2/logs/run_e.hybrid-m2.log | sed 's/^perf stat[^-]*-- //' | sed "s|^[^ ]*db_bench_ext|/tmp/s12/bin/db_bench_ext.$v|; s/--ycsb_ops=[0-9]*/--ycsb_ops=6000/")
    $cmd > window/m2.r$r.$v.log 2>&1
    echo "m2 r$r $v $(grep -o 'ycsb_e *: .* ops/sec' window/m2.r$r.$v.log | awk '{print $5, "ops/s"}') $(grep -o 'cpu_us_per_op=[^ ]*\|dev_read_reqs_per_op=[^ ]*' window/m2.r$r.$v.log | tr '\n' ' ')"
  done
done
