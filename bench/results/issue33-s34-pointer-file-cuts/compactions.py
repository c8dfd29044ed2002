#!/usr/bin/env python3
"""Compactions by output level from a DB's info LOGs (EVENT_LOG compaction_finished):
count, MB written, largest and 90th percentile of one compaction's output."""
import glob, json, os, sys

def events(db):
    files = sorted(glob.glob(os.path.join(db, 'LOG.old.*'))) + [os.path.join(db, 'LOG')]
    for f in files:
        for line in open(f, errors='replace'):
            if '"event": "compaction_finished"' in line:
                yield os.path.basename(f), json.loads(line[line.index('{'):])

for db in sys.argv[1:]:
    per = {}
    for log, e in events(db):
        per.setdefault(e['output_level'], []).append(e['total_output_size'] / 1e6)
    print(f'== {db}')
    print('level\tcount\tMB\tmax MB\tp90 MB')
    for lvl in sorted(per):
        v = sorted(per[lvl])
        p90 = v[min(len(v) - 1, int(0.9 * len(v)))]
        print(f'L{lvl}\t{len(v)}\t{sum(v):.0f}\t{v[-1]:.1f}\t{p90:.1f}')
