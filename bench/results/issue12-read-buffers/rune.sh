#!/bin/bash
# Run E on the kept full MD DBs: hybrid before (cbaa6d5) / after (read buffers), blobdb-large, alternating
cd /tmp/s12
for r in 7 8 9 10; do
  for v in before after; do
    arm=hybrid; bin=/tmp/s12/bin/db_bench_ext.buffers
    [ $v = before ] && bin=/tmp/s12/bin/db_bench_ext.cbaa6d5
    [ $v = bl ] && arm=blobdb-large
    cmd=$(head -1 ab-full-m2/logs/run_e.$arm.log | sed 's/^perf stat[^-]*-- //' | sed "s|^[^ ]*db_bench_ext|$bin|; s/--ycsb_ops=[0-9]*/--ycsb_ops=6000/")
    $cmd > buffers/rune.r$r.$v.log 2>&1
    echo "r$r $v $(grep -o 'ycsb_e *: .* ops/sec' buffers/rune.r$r.$v.log) $(grep -o 'cpu_us_per_op=[^ ]*\|user_us_per_op=[^ ]*\|sys_us_per_op=[^ ]*\|dev_read_reqs_per_op=[^ ]*' buffers/rune.r$r.$v.log | tr '\n' ' ')"
  done
done
