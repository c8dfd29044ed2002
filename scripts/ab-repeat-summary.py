#!/usr/bin/env python3
"""Summarizes repeated scripts/ab runs (scripts/ab --repeat N): per phase and arm, the median
and range over the runs of each ratio against blobdb-large and inplace.

usage: ab-repeat-summary.py COMMAND RESULTS_TSV...
"""
import csv
import statistics
import sys

PHASES = {"load_a": "Load A", "run_a": "Run A", "run_b": "Run B", "run_c": "Run C",
          "run_d": "Run D", "load_e": "Load E", "run_e": "Run E"}


def load(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def ratios(rows):
    """{(phase, arm): {metric: value}} for one run; CPU, writes, settled throughput and device
    reads against blobdb-large (settled against inplace too)."""
    by_key = {(r["phase"], r["arm"]): r for r in rows}

    def against(r, base, column):
        mine, theirs = number(r.get(column)), base and number(base.get(column))
        return mine / theirs if mine and theirs else None

    out = {}
    for (phase, arm), r in by_key.items():
        bl = by_key.get((phase, "blobdb-large"))
        inpl = by_key.get((phase, "inplace"))
        out[(phase, arm)] = {
            "tput_bl": number(r["tput_vs_blobdb_large"]),
            "tput_inpl": number(r["tput_vs_inplace"]),
            "settled_bl": against(r, bl, "settled_ops_per_sec") if phase.startswith("load")
            else None,
            "settled_inpl": against(r, inpl, "settled_ops_per_sec")
            if phase.startswith("load") else None,
            "cpu_bl": against(r, bl, "cpu_us_per_op"),
            "write_bl": number(r["write_io_vs_blobdb_large"]),
            "dev_reads_bl": against(r, bl, "dev_read_reqs_per_op")
            if not phase.startswith("load") else None,
        }
    return out


def cell(values):
    values = [v for v in values if v is not None]
    if not values:
        return "n/a"
    if len(values) == 1:
        return f"{values[0]:.2f}"
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    command, paths = sys.argv[1], sys.argv[2:]
    runs = [load(p) for p in paths]
    per_run = [ratios(rows) for rows in runs]
    keys = []  # every phase and arm of any run, in the order they ran
    for rows in runs:
        keys += [(r["phase"], r["arm"]) for r in rows if (r["phase"], r["arm"]) not in keys]
    print(f"# HybridKV A/B repeated {len(runs)} times\n")
    print(f"- command: `{command}`; runs: {', '.join(paths)}")
    print("- each cell: median over the runs (lowest-highest); ratios are taken within each run, "
          "then summarized\n")
    print("- settled: a load's operations over the load plus the wait for its compactions; "
          "device reads: read requests per op over the whole device (/proc/diskstats)\n")
    metrics = ("tput_bl", "tput_inpl", "settled_bl", "settled_inpl", "cpu_bl", "write_bl",
               "dev_reads_bl")
    print("| phase | arm | throughput ×bl-L | throughput ×inpl | settled ×bl-L | settled ×inpl "
          "| CPU ×bl-L | write I/O ×bl-L | device reads ×bl-L |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for phase, arm in keys:
        got = [run.get((phase, arm), {}) for run in per_run]
        print(f"| {PHASES.get(phase, phase)} | {arm} | "
              + " | ".join(cell([g.get(m) for g in got])
                           for m in metrics)
              + " |")


if __name__ == "__main__":
    main()
