#!/usr/bin/env python3
"""Sizes of the SSTs a DB created, from the EVENT_LOG lines of its LOG.

usage: sst_sizes.py LOG [limit_bytes]
Prints how many SSTs were created, how many exceed the limit (default 16 MiB,
twice the full shape's 8 MiB target), the five largest, and for the largest
its data, filter and index bytes and the rest of its tail.
"""
import gzip
import json
import sys

path = sys.argv[1]
limit = int(sys.argv[2]) if len(sys.argv) > 2 else 16 << 20
opener = gzip.open if path.endswith(".gz") else open
tables = []
with opener(path, "rt") as log:
    for line in log:
        if '"event": "table_file_creation"' not in line:
            continue
        event = json.loads(line[line.index("{"):])
        tables.append((event["file_size"], event["file_number"],
                       event.get("table_properties", {})))
tables.sort(key=lambda t: t[0], reverse=True)
over = [t for t in tables if t[0] > limit]
print(f"{len(tables)} SSTs created; {len(over)} larger than {limit} bytes")
print("largest:", ", ".join(str(t[0]) for t in tables[:5]))
if tables:
    size, number, p = tables[0]
    data, filt, index = p.get("data_size", 0), p.get("filter_size", 0), p.get("index_size", 0)
    print(f"#{number}: {size} bytes = data {data} + filter {filt} + index {index}"
          f" + rest {size - data - filt - index}; {p.get('num_entries')} entries")
