#!/bin/bash
# usage: ra.sh PHASE OPS ROUNDS variant... ; variant = bl | head | new | warm (new with HYBRIDKV_WARM_MEDIUM=1)
phase=$1; ops=$2; rounds=$3; shift 3
D=/tmp/hybridkv-ab-db-uik8FE
for r in $(seq 1 $rounds); do
  for v in "$@"; do
    case $v in
      bl) bin=/tmp/s14/dbx.head; args=$(sed "s#--db=.*#--db=$D/blobdb-large#" /tmp/s14/bl_a.args); envs="";;
      head) bin=/tmp/s14/dbx.head; args=$(sed "s#--db=.*#--db=$D/hybrid#" /tmp/s14/hy_a.args); envs="";;
      new) bin=/tmp/s14/dbx.new; args=$(sed "s#--db=.*#--db=$D/hybrid#" /tmp/s14/hy_a.args); envs="";;
      blpp) bin=/tmp/s14/dbx.head; args="$(sed "s#--db=.*#--db=$D/blobdb-large#" /tmp/s14/bl_a.args) --prepopulate_block_cache=1"; envs="";;
      newpp) bin=/tmp/s14/dbx.new; args="$(sed "s#--db=.*#--db=$D/hybrid#" /tmp/s14/hy_a.args) --prepopulate_block_cache=1"; envs="";;
      warm) bin=/tmp/s14/dbx.new; args=$(sed "s#--db=.*#--db=$D/hybrid#" /tmp/s14/hy_a.args); envs="HYBRIDKV_WARM_MEDIUM=1";;
    esac
    args=$(echo $args | sed "s/--benchmarks=[a-z_]*/--benchmarks=$phase/; s/--ycsb_ops=[0-9]*/--ycsb_ops=$ops/")
    log=/tmp/s14/ra.$phase.$v.r$r.log
    env $envs $bin $args > $log 2>&1
    echo "r$r $phase $v $(grep -oE '[0-9]+ ops/sec' $log | tail -1) $(grep -oE '(cpu_us_per_op|dev_read_reqs_per_op)=[0-9.]+' $log | tr '\n' ' ') $(grep -oE 'medium: [0-9]+ values, [0-9]+ bytes resolved by reads \([0-9]+ bytes read\)' $log) $(tail -1 /tmp/s14/disk_latency.log | cut -d' ' -f1,6,7)"
  done
done
