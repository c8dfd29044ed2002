#!/bin/bash
# usage: var.sh DB OPS ROUNDS "label:ENV..." ... ; runs dbx.new under env settings, and dbx.head as "head"
db=$1; ops=$2; rounds=$3; shift 3
base=$(cat /tmp/s14/hy_e.cmd | sed "s#--db=[^ ]*#--db=$db#; s/--ycsb_ops=[0-9]*/--ycsb_ops=$ops/")
for r in $(seq 1 $rounds); do
  for v in "$@"; do
    label=${v%%:*}; envs=${v#*:}
    if [ $label = head ]; then bin=/tmp/s14/dbx.head; else bin=/tmp/s14/dbx.new; fi
    log=/tmp/s14/var.$(basename $db).$label.r$r.log
    env $envs $bin $base $EXTRA > $log 2>&1
    echo "r$r $label $(grep -oE '[0-9]+ ops/sec' $log | tail -1) $(grep -oE '(cpu_us_per_op|user_us_per_op|sys_us_per_op|dev_read_reqs_per_op)=[0-9.]+' $log | tr '\n' ' ') $(tail -1 /tmp/s14/disk_latency.log | cut -d' ' -f1,6,7)"
  done
done
