#!/usr/bin/env python3
"""Runs page workloads (Benchmarks/workloads/gen_workloads.py) on every engine and prints tables:
this engine (`pushliquid bench --page`), Ruby Liquid, Ruby with --yjit, and liquid-c (Shopify's C
extension), each figure the median of RUNS runs of the engines taking turns (so that a slow
minute of this VM hits every engine).

    python3 Benchmarks/compare_pages.py PUSHLIQUID WORKLOADS_DIR [RUNS] [--filters]
"""
import json
import os
import statistics
import subprocess
import sys

pushliquid, workdir = sys.argv[1], sys.argv[2]
runs = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3].isdigit() else 3
with_filters = "--filters" in sys.argv
here = os.path.dirname(os.path.abspath(__file__))
ruby_page = os.path.join(here, "reference", "render_page.rb")
ENGINES = [
    ("pushliquid", lambda spec, n: [pushliquid, "bench", "--page", spec, "--iterations", str(n)]),
    ("ruby", lambda spec, n: ["ruby", ruby_page, spec, str(n)]),
    ("ruby --yjit", lambda spec, n: ["ruby", "--yjit", ruby_page, spec, str(n)]),
    ("liquid-c", lambda spec, n: ["ruby", ruby_page, spec, str(n), "liquid-c"]),
]


def seconds_per_page(cmd):
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"compare: {' '.join(cmd)} failed: {run.stderr.strip()[-300:]}")
    fields = dict(kv.split("=") for kv in run.stdout.split()[-3:])
    return float(fields["page_seconds"]) / int(fields["pages"])


def measure(spec, iterations):
    times = {name: [] for name, _ in ENGINES}
    for _ in range(runs):
        for name, cmd in ENGINES:
            times[name].append(seconds_per_page(cmd(spec, iterations[name])))
    return {name: statistics.median(t) for name, t in times.items()}


def fmt(seconds):
    us = seconds * 1e6
    return f"{us:,.1f} µs" if us < 10_000 else f"{us / 1000:,.1f} ms"


pages = [("W2 (100 products, truncate: 15)", "w2-products.json"), ("W2 without truncate", "w2-no-truncate.json"),
         ("10 KB page", "page-10k.json")]
print("| workload | pushliquid | ruby | ruby --yjit | liquid-c | × ruby | × yjit | × liquid-c |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for title, file in pages:
    r = measure(os.path.join(workdir, file), {"pushliquid": 2000, "ruby": 100, "ruby --yjit": 200, "liquid-c": 200})
    p = r["pushliquid"]
    print(f"| {title} | {fmt(p)} | {fmt(r['ruby'])} | {fmt(r['ruby --yjit'])} | {fmt(r['liquid-c'])} | "
          f"{r['ruby'] / p:.1f} | {r['ruby --yjit'] / p:.1f} | {r['liquid-c'] / p:.1f} |", flush=True)

if with_filters:
    print()
    print("Per filter call, ns (a `for` over 100 copies of the input; the loop's own cost included):")
    print()
    print("| filter | input | pushliquid | ruby | ruby --yjit | liquid-c | × liquid-c |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    fdir = os.path.join(workdir, "filters")
    for file in sorted(os.listdir(fdir)):
        spec = json.load(open(os.path.join(fdir, file)))
        r = measure(os.path.join(fdir, file), {"pushliquid": 500, "ruby": 20, "ruby --yjit": 40, "liquid-c": 40})
        ns = {k: v / 100 * 1e9 for k, v in r.items()}
        print(f"| `{spec['filter']}` | {spec['input']} | {ns['pushliquid']:,.0f} | {ns['ruby']:,.0f} | "
              f"{ns['ruby --yjit']:,.0f} | {ns['liquid-c']:,.0f} | {ns['liquid-c'] / ns['pushliquid']:.1f} |", flush=True)

    print()
    print("The Braze dialect's string filters (this engine only: Ruby Liquid has none of them), ns per call:")
    print()
    print("| filter | short | 1 KB ASCII | 1 KB UTF-8 |")
    print("| --- | --- | --- | --- |")
    bdir = os.path.join(workdir, "filters-braze")
    names = sorted({f.split("--")[0] for f in os.listdir(bdir)})
    for name in names:
        cells = []
        for label in ("short", "ascii-1k", "utf8-1k"):
            path = os.path.join(bdir, f"{name}--{label}.json")
            t = statistics.median(seconds_per_page(ENGINES[0][1](path, 500)) for _ in range(runs))
            cells.append(f"{t / 100 * 1e9:,.0f}")
        spec = json.load(open(os.path.join(bdir, f"{name}--short.json")))
        print(f"| `{spec['filter']}` | " + " | ".join(cells) + " |", flush=True)
