#!/bin/bash
# Run E on the kept full MD hybrid DB: before (cbaa6d5), arena, simple (one aligned buffer per read), alternating
cd /tmp/s12
for r in 1 2 3 4 5; do
  for v in cbaa6d5 buffers simple; do
    cmd=$(head -1 ab-full-m2/logs/run_e.hybrid.log | sed 's/^perf stat[^-]*-- //' | sed "s|^[^ ]*db_bench_ext|/tmp/s12/bin/db_bench_ext.$v|; s/--ycsb_ops=[0-9]*/--ycsb_ops=6000/")
    $cmd > buffers/rune3.r$r.$v.log 2>&1
    echo "r$r $v $(grep -o 'ycsb_e *: .* ops/sec' buffers/rune3.r$r.$v.log | awk '{print $5, "ops/s"}') $(grep -o 'cpu_us_per_op=[^ ]*\|user_us_per_op=[^ ]*\|sys_us_per_op=[^ ]*' buffers/rune3.r$r.$v.log | tr '\n' ' ')"
  done
done
