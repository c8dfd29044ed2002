#!/bin/bash
# runa.sh ARM TAG: copies db7/ARM, drops the page cache, runs deep Run A (400k ops) with the arm's own binary and flags.
arm=$1 tag=$2
cd /work/explore/s34
rm -rf ra-db ra-db.ycsb-live
cp -a db7/$arm ra-db; cp -a db7/$arm.ycsb-live ra-db.ycsb-live
cmd=$(head -1 deep-cuts/logs/run_a.$arm.log)
bin=${cmd%% *}; args=${cmd#* }
args=$(echo "$args" | sed "s#--db=[^ ]*#--db=/work/explore/s34/ra-db#; s# --clock_excludes_pauses##")
sync; echo 3 > /proc/sys/vm/drop_caches
$bin $args > ra.$tag.log 2>&1
echo "$tag $(grep -E '^ycsb_a' ra.$tag.log | awk '{print $5}') ops/s; $(grep -E '^ext_reads' ra.$tag.log)"
