#!/bin/bash
# usage: run.sh PHASE ROUNDS : Run PHASE on copies of the pristine DBs, variants alternated
R=/work/main/bench/results/issue12-run-e-costs/run.sh
ph=$1; rounds=${2:-2}; ops=${OPS:-200000}
for r in $(seq $rounds); do
  for v in cbaa6d5 u1024 u512 bl; do
    arm=hy; [ $v = bl ] && arm=bl
    bin=/tmp/s12/bin/db_bench_ext.$v; [ $v = bl ] && bin=/tmp/s12/bin/db_bench_ext.cbaa6d5
    rm -rf /tmp/prof-db-$arm; cp -a /tmp/s12/unit/pristine-$arm /tmp/prof-db-$arm
    echo "== round $r $v"
    KEEP=1 EXTRA="--use_existing_db=1 --ycsb_ops=$ops" bash $R $bin $arm /tmp/s12/unit/$ph.r$r.$v $ph | grep -o 'ycsb_[a-z] *: .* ops/sec\|cpu_us_per_op=[^ ]*\|read_reqs_per_op=[^ ]*' | tr '\n' ' '; echo
  done
done
