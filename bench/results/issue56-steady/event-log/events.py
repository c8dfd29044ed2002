#!/usr/bin/env python3
"""Summarise a RocksDB LOG between two wall-clock times: write stalls/stops, and every
compaction that ran (start, end, levels, input/output bytes, seconds), with HybridKV's
merge-read lines. Usage: events.py LOG START END   (times as HH:MM:SS)"""
import json, re, sys
from datetime import datetime

log, start, end = sys.argv[1], sys.argv[2], sys.argv[3]
def t(line):
    m = re.match(r'(\d{4}/\d\d/\d\d-\d\d:\d\d:\d\d\.\d+)', line)
    return datetime.strptime(m.group(1), '%Y/%m/%d-%H:%M:%S.%f') if m else None
day = None
stalls, jobs, merge = [], {}, []
for line in open(log, errors='replace'):
    ts = t(line)
    if ts is None: continue
    hms = ts.strftime('%H:%M:%S')
    if hms < start or hms > end: continue
    if 'Stopping writes' in line or 'Stalling writes' in line:
        stalls.append((hms, line.split('] ', 3)[-1].strip()[:110]))
    if 'EVENT_LOG_v1' in line:
        ev = json.loads(line[line.index('{'):])
        if ev.get('event') == 'compaction_started':
            lv = {k: len(v) for k, v in ev.items() if k.startswith('files_L')}
            jobs[ev['job']] = dict(start=hms, reason=ev.get('compaction_reason'), inputs=lv,
                                   in_mb=ev.get('input_data_size', 0) / 1e6)
        elif ev.get('event') == 'compaction_finished' and ev['job'] in jobs:
            j = jobs[ev['job']]
            j.update(end=hms, out_level=ev.get('output_level'),
                     secs=ev.get('compaction_time_micros', 0) / 1e6,
                     out_mb=ev.get('total_output_size', 0) / 1e6,
                     read_mb=ev.get('total_input_bytes', 0) / 1e6 if 'total_input_bytes' in ev else None)
    if '[HybridKV]' in line and 'written back inline' in line:
        merge.append((hms, line.split('[HybridKV] ', 1)[1].strip()[:140]))
print(f'stall/stop lines: {len(stalls)}')
kinds = {}
for hms, s in stalls:
    k = re.sub(r'\d+', 'N', s)[:80]; kinds[k] = kinds.get(k, 0) + 1
for k, n in sorted(kinds.items(), key=lambda x: -x[1]): print(f'  {n:5d} {k}')
print(f'compactions: {len(jobs)}')
tot = {}
for j in jobs.values():
    key = (tuple(sorted(j['inputs'])), j.get('out_level'))
    a = tot.setdefault(key, [0, 0.0, 0.0, 0.0]); a[0] += 1; a[1] += j.get('secs', 0); a[2] += j['in_mb']; a[3] += j.get('out_mb', 0)
for key, (n, s, i, o) in sorted(tot.items(), key=lambda x: -x[1][1]):
    print(f'  {str(key[0]):40s} -> L{key[1]}: {n:4d} jobs, {s:8.1f} s, in {i:9.1f} MB, out {o:9.1f} MB')
print('longest compactions:')
for j in sorted(jobs.values(), key=lambda j: -j.get('secs', 0))[:8]:
    print('  ', j)
tr = 0; tb = 0
for hms, s in merge:
    m = re.search(r'(\d+) bytes read in (\d+) reads', s)
    if m: tb += int(m.group(1)); tr += int(m.group(2))
print(f'merge inline lines: {len(merge)}; medium bytes read {tb/1e6:.1f} MB in {tr} reads')
print('stall/stop timeline (first 30):')
for hms, s in stalls[:30]: print('  ', hms, s[:100])
