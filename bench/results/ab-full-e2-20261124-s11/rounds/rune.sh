#!/bin/bash
# usage: rune.sh OUTDIR ROUNDS OPS [arms...]: Run E on the kept full-size DBs, arms alternating.
out=$1; rounds=$2; ops=$3; shift 3
mkdir -p $out
for r in $(seq 1 $rounds); do
  for a in "$@"; do
    cmd=$(head -1 /tmp/s11/ab-e4/logs/load_e.$a.log | sed 's/--benchmarks=ycsb_load,waitforcompaction/--benchmarks=ycsb_e/')
    $cmd --use_existing_db=1 --ycsb_ops=$ops > $out/r$r.$a.log 2>&1
    f=$out/r$r.$a.log
    echo "r$r $a $(grep -o 'ycsb_e.*ops/sec' $f | awk '{print $5}') $(grep -o 'cpu_us_per_op=[0-9.]*\|user_us_per_op=[0-9.]*\|sys_us_per_op=[0-9.]*\|read_reqs_per_op=[0-9.]*\|io_amp_read=[0-9.]*' $f | tr '\n' ' ') probe=$(python3 /tmp/iolat.py /usr/local/cuda-13.0/lib/libnccl.so.2 | grep -o '[0-9]* us')"
  done
done
