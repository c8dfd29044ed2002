#!/bin/bash
# usage: alt.sh DBDIR OPS ROUNDS EXTRA... ; alternates dbx.head and dbx.new on Run E
db=$1; ops=$2; rounds=$3; shift 3; extra="$*"
base=$(cat ./hy_e.cmd | sed "s#--db=[^ ]*#--db=$db#; s/--ycsb_ops=[0-9]*/--ycsb_ops=$ops/")
for r in $(seq 1 $rounds); do
  for b in head new; do
    ./dbx.$b $base $extra > ./alt.$(basename $db).$b.r$r.log 2>&1
    echo "r$r $b $(grep -oE '[0-9]+ ops/sec' ./alt.$(basename $db).$b.r$r.log) $(grep -oE '(cpu_us_per_op|user_us_per_op|sys_us_per_op|dev_read_reqs_per_op)=[0-9.]+' ./alt.$(basename $db).$b.r$r.log | tr '\n' ' ') $(tail -1 ./disk_latency.log | cut -d' ' -f1,6,7)"
  done
done
