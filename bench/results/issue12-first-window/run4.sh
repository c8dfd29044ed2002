#!/bin/bash
# Run E: first window 2 (before), fixed 16, learned (ScanLengthHint); cap 16. Full -1, full -2, small; alternating
R=/work/main/bench/results/issue12-run-e-costs/run.sh
cd /tmp/s12
for r in 1 2 3; do
  for db in full-m1 full-m2 small; do
    for v in w2 w16 hint; do
      bin=/tmp/s12/bin/db_bench_ext.$v
      if [ $db = small ]; then
        rm -rf /tmp/prof-db-hy; cp -a /tmp/s12/unit/pristine-hy /tmp/prof-db-hy
        KEEP=1 EXTRA="--use_existing_db=1 --ycsb_ops=8000" bash $R $bin hy /tmp/s12/window/h.r$r.$db.$v ycsb_e > /dev/null
        log=/tmp/s12/window/h.r$r.$db.$v/hy.log
      else
        arm=hybrid; [ $db = full-m2 ] && arm=hybrid-m2
        cmd=$(head -1 ab-full-m2/logs/run_e.$arm.log | sed 's/^perf stat[^-]*-- //' | sed "s|^[^ ]*db_bench_ext|$bin|; s/--ycsb_ops=[0-9]*/--ycsb_ops=6000/")
        log=window/h.r$r.$db.$v.log
        $cmd > $log 2>&1
      fi
      echo "r$r $db $v $(grep -o 'ycsb_e *: .* ops/sec' $log | awk '{print $5, "ops/s"}') $(grep -o 'cpu_us_per_op=[^ ]*\|dev_read_reqs_per_op=[^ ]*' $log | tr '\n' ' ')"
    done
  done
done
