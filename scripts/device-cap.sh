# Sourced by scripts/ab: runs commands on a capped device and samples the device's utilisation.
#
#   device_setup DIR BPS IOPS   caps (bytes/s, requests/s, each way; 0 = no cap) the disk that
#                               holds DIR for every later device_run; 0 0 caps nothing
#   device_teardown             removes the cgroup (the caller's EXIT trap calls it)
#   device_run CMD...           runs CMD in the capped cgroup (or as is, uncapped)
#   device_describe             one line for a results header
#   device_tsv_header, device_sample_begin, device_sample_end PHASE ARM
#                               a device.tsv row per run: seconds, busy %, requests/s, MB/s,
#                               bytes read and written
#
# The caps are the kernel's block throttling (cgroup v1 blkio.throttle.*, or v2 io.max), applied
# to the whole disk: they hold for direct I/O (reads, flush and compaction in scripts/ab). Under
# v1, buffered writeback is issued outside the cgroup and not throttled; under v2 it is where the
# memory controller attributes it to the cgroup. Utilisation comes from
# /proc/diskstats (io_ticks: milliseconds the disk had requests in flight).

device_dev=""        # the disk's name in /proc/diskstats, e.g. vda
device_majmin=""     # its MAJ:MIN
device_cgroup=""     # the cgroup directory commands run in; empty when uncapped
device_caps="uncapped"

device_setup() {  # dir bps iops
  local dir=$1 bps=$2 iops=$3 src part
  src=$(findmnt -no SOURCE -T "$dir" | head -n 1)
  part=$(basename "$(readlink -f "$src")")
  # The whole disk: throttling applies to disks, not to partitions.
  device_dev=$(lsblk -no PKNAME "/dev/$part" 2>/dev/null | head -n 1)
  [ -n "$device_dev" ] || device_dev=$part
  device_majmin=$(lsblk -dno MAJ:MIN "/dev/$device_dev" 2>/dev/null | tr -d ' ')
  if [ "$bps" = 0 ] && [ "$iops" = 0 ]; then
    return 0
  fi
  if [ -z "$device_majmin" ]; then
    echo "--device: cannot find the disk under $dir ($src): no caps can be set on it" >&2
    return 1
  fi
  if [ "$(id -u)" != 0 ]; then
    echo "--device: capping a disk needs root (cgroup block throttling); run as root, or use --device local" >&2
    return 1
  fi
  local name=hybridkv-ab-$$ how
  if [ -f /sys/fs/cgroup/blkio/blkio.throttle.read_bps_device ]; then
    device_cgroup=/sys/fs/cgroup/blkio/$name
    mkdir -p "$device_cgroup" || { device_fail "cannot create $device_cgroup"; return 1; }
    local f v
    for f in read_bps write_bps read_iops write_iops; do
      case $f in *bps) v=$bps ;; *) v=$iops ;; esac
      [ "$v" = 0 ] && continue
      # The kernel refuses a partition or an unknown device here: check, and read it back.
      if ! echo "$device_majmin $v" > "$device_cgroup/blkio.throttle.${f}_device" ||
         ! grep -qx "$device_majmin $v" "$device_cgroup/blkio.throttle.${f}_device"; then
        device_fail "the kernel did not take blkio.throttle.${f}_device=$device_majmin $v"
        return 1
      fi
    done
    how="cgroup v1 blkio.throttle, $device_cgroup; buffered writeback (the WAL) is not throttled"
  elif grep -qw io /sys/fs/cgroup/cgroup.controllers 2>/dev/null; then
    if ! grep -qw io /sys/fs/cgroup/cgroup.subtree_control; then
      echo +io > /sys/fs/cgroup/cgroup.subtree_control ||
        { device_fail "cannot enable the io controller for child cgroups"; return 1; }
    fi
    device_cgroup=/sys/fs/cgroup/$name
    mkdir -p "$device_cgroup" || { device_fail "cannot create $device_cgroup"; return 1; }
    local max="$device_majmin"
    [ "$bps" = 0 ] || max="$max rbps=$bps wbps=$bps"
    [ "$iops" = 0 ] || max="$max riops=$iops wiops=$iops"
    if ! echo "$max" > "$device_cgroup/io.max" || ! grep -q "^$device_majmin " "$device_cgroup/io.max"; then
      device_fail "the kernel did not take io.max=$max"
      return 1
    fi
    how="cgroup v2 io.max, $device_cgroup; writeback is throttled only where the memory controller attributes it to the cgroup"
  else
    echo "--device: no block I/O controller (neither cgroup v1 blkio nor v2 io) on this machine; use --device local" >&2
    return 1
  fi
  device_caps="capped at $(device_rate "$bps") and $iops IOPS each way (0 = no cap), $how"
}

# "125 MiB/s" for whole MiB, bytes/s otherwise.
device_rate() {
  if [ $(($1 % 1048576)) = 0 ]; then echo "$(($1 / 1048576)) MiB/s"; else echo "$1 B/s"; fi
}

device_fail() {
  echo "--device: $1 (disk $device_dev, $device_majmin); nothing was capped" >&2
  device_teardown
  device_cgroup=""
}

device_teardown() {
  if [ -n "$device_cgroup" ] && [ -d "$device_cgroup" ] && ! rmdir "$device_cgroup" 2>/dev/null; then
    echo "--device: $device_cgroup still holds processes; remove it with rmdir once they end" >&2
  fi
  true
}

device_run() {
  if [ -z "$device_cgroup" ]; then
    "$@"
  else
    sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$device_cgroup" "$@"
  fi
}

device_describe() {
  echo "disk ${device_dev:-unknown} (${device_majmin:-?}), $device_caps"
}

device_tsv_header() {
  printf 'phase\tarm\tseconds\tbusy_pct\treads_per_s\twrites_per_s\tread_mib_s\twrite_mib_s\tread_bytes\twrite_bytes\n'
}

# /proc/diskstats fields for the disk: reads, sectors read, writes, sectors written, io_ticks.
device_stat() {
  awk -v d="$device_dev" '$3 == d { print $4, $6, $8, $10, $13 }' /proc/diskstats
}

device_sample_begin() {
  device_t0=$(date +%s.%N)
  device_s0=$(device_stat)
}

device_sample_end() {  # phase arm
  local t1 s1
  t1=$(date +%s.%N)
  s1=$(device_stat)
  awk -v p="$1" -v a="$2" -v t0="$device_t0" -v t1="$t1" -v s0="$device_s0" -v s1="$s1" 'BEGIN {
    split(s0, x, " "); split(s1, y, " "); dt = t1 - t0; if (dt <= 0) dt = 1e-9
    if (s0 == "" || s1 == "") { printf "%s\t%s\t%.1f\tn/a\tn/a\tn/a\tn/a\tn/a\tn/a\tn/a\n", p, a, dt; exit }
    printf "%s\t%s\t%.1f\t%.0f\t%.0f\t%.0f\t%.1f\t%.1f\t%.0f\t%.0f\n", p, a, dt,
      100 * (y[5] - x[5]) / (1000 * dt), (y[1] - x[1]) / dt, (y[3] - x[3]) / dt,
      (y[2] - x[2]) * 512 / 1048576 / dt, (y[4] - x[4]) * 512 / 1048576 / dt,
      (y[2] - x[2]) * 512, (y[4] - x[4]) * 512 }'
}
