#!/bin/bash
# runa.sh PHASE OPS ROUNDS arm... : run PHASE on a fresh copy of the loaded DB of each arm, alternating
phase=$1; ops=$2; rounds=$3; shift 3
for r in $(seq 1 $rounds); do
  for arm in "$@"; do
    case $arm in bl) a=bl_a.args;; *) a=hy_a.args;; esac
    base=${arm%%.*}   # arm may be hy.variant
    rm -rf /tmp/s15/run; cp -a /tmp/s15/db/$base /tmp/s15/run
    args=$(sed "s#--db=.*#--db=/tmp/s15/run#; s/--benchmarks=.*/--benchmarks=$phase/; s/--ycsb_ops=.*/--ycsb_ops=$ops/" /tmp/s15/$a)
    [ $base = hy2 ] && args="$args --hybrid_merge_level=-2"
    bin=${BIN:-/tmp/s15/dbx.head}
    log=/tmp/s15/$phase.$arm.r$r.log
    $PERF $bin $args $EXTRA > $log 2>&1
    cp /tmp/s15/run/LOG /tmp/s15/$phase.$arm.r$r.LOG
    echo "r$r $phase $arm $(grep -oE '[0-9]+ ops/sec' $log | tail -1) $(grep -oE '(cpu_us_per_op|dev_read_reqs_per_op)=[0-9.]+' $log | tr '\n' ' ') compcpu=$(grep -oE 'compaction.total.time.cpu_micros COUNT : [0-9]+' $log | awk '{print $NF}') ncomp=$(grep -c '"event": "compaction_finished"' /tmp/s15/run/LOG)"
  done
done
