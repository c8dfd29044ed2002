#!/usr/bin/env bash
# Run E on the kept small DBs (/tmp/prof-db-{bl,hy}), alternating variants. Usage: sweep.sh OUT ROUNDS OPS
out=$1; rounds=${2:-2}; ops=${3:-6000}
cd "$(dirname "$0")"
for r in $(seq $rounds); do
  for v in bl t8 t2 t1 t0 nopf; do
    arm=hy; t=8; E=""; bin=${BIN:?set BIN to the db_bench_ext built with read_threads_env.patch}
    case $v in bl) arm=bl;; t*) t=${v#t};; nopf) E="--hybrid_scan_prefetch=false";; esac
    line=$(HYBRIDKV_READ_THREADS=$t KEEP=1 EXTRA="--use_existing_db=1 --ycsb_ops=$ops $E" ./run.sh $bin $arm $out/$v.$r ycsb_e | grep -o 'ycsb_e.*ops/sec\|cpu_us_per_op=[0-9.]* user_us_per_op=[0-9.]* sys_us_per_op=[0-9.]* read_reqs_per_op=[0-9.]*' | tr '\n' ' ')
    echo "round $r $v: $line"
  done
done
