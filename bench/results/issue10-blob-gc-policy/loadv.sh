#!/bin/bash
# loadv.sh TAG ARM EXTRA... : Load A (full MD shape) into /tmp/s15/dbv/TAG; prints the summary
tag=$1; arm=$2; shift 2
case $arm in bl) a=bl_a.args;; *) a=hy_a.args;; esac
rm -rf /tmp/s15/dbv/$tag /tmp/s15/dbv/$tag.ycsb-live; mkdir -p /tmp/s15/dbv
args=$(sed "s#--db=.*#--db=/tmp/s15/dbv/$tag#; s/--benchmarks=.*/--benchmarks=ycsb_load,waitforcompaction/; /--use_existing_db/d; /--ycsb_ops/d" /tmp/s15/$a)
[ $arm = hy2 ] && args="$args --hybrid_merge_level=-2"
${BIN:-/tmp/s15/dbx.head} $args "$@" > /tmp/s15/loadv.$tag.log 2>&1
echo "$tag $(grep -oE '[0-9]+ ops/sec' /tmp/s15/loadv.$tag.log | tail -1) $(grep -oE '(cpu_us_per_op|io_amp_write|io_amp_read|space_amp|settled_ops_per_sec)=[0-9.]+' /tmp/s15/loadv.$tag.log | tr '\n' ' ')"
