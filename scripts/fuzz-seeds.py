#!/usr/bin/env python3
"""Writes a fuzz target's seed corpus (one file per input) into a folder.

Usage: fuzz-seeds.py TARGET OUTDIR SHARED_DIR

Seeds come from the Golden Liquid and liquid-spec suites in SHARED_DIR/conformance (templates
and their data), the bundled campaigns (Templates/) and profiles (Profiles/), and the benchmark
contexts generator (SHARED_DIR/bench). Each input is written in the target's format:
  fuzz-template    a mode byte (0 lax, 1 strict, 2 warn, 3 Braze lax, 4 Braze strict), the
                   template, a NUL byte, the data as JSON
  fuzz-json        a JSON document
  fuzz-campaign    a campaign file (YAML)
  fuzz-batch-line  one NDJSON line of `pushliquid batch` (the target also reads the input whole as
                   `--numbered` input: a few seeds are numbered lines)
"""
import base64
import hashlib
import json
import os
import pathlib
import subprocess
import sys

target, out, shared = sys.argv[1], pathlib.Path(sys.argv[2]), pathlib.Path(sys.argv[3])
root = pathlib.Path(__file__).resolve().parent.parent
out.mkdir(parents=True, exist_ok=True)


def write(data: bytes) -> None:
    (out / hashlib.sha1(data).hexdigest()).write_bytes(data)


def cases():
    for suite in ["golden-liquid/golden_liquid.json", "liquid-spec/liquid_spec.json", "liquid-spec/liquid_spec_strict2.json"]:
        path = shared / "conformance" / suite
        if not path.exists():
            sys.exit(f"fuzz-seeds: {path} is missing (the conformance suites seed the corpus)")
        for case in json.loads(path.read_text())["tests"]:
            yield case


profiles = [json.loads(p.read_text()) for p in sorted((root / "Profiles").glob("*.json"))]
campaigns = sorted((root / "Templates").glob("*.yml"))
contexts = subprocess.run([sys.executable, str(shared / "bench" / "gen_contexts.py"), "200", "7"],
                          check=True, capture_output=True, text=True).stdout.splitlines()

if target == "fuzz-template":
    for case in cases():
        mode = 1 if "strict" in case.get("tags", []) or "strict2" in case.get("tags", []) else 0
        data = json.dumps(case.get("data", {})).encode()
        write(bytes([mode]) + case["template"].encode() + b"\0" + data)
    # The campaigns' fields, in the Braze dialect, with each profile as data.
    import re
    for c in campaigns:
        for field in re.findall(r'^\s*\w+:\s*"(.*)"\s*$', c.read_text(), re.M):
            for p in profiles[:2]:
                write(bytes([3]) + field.encode().decode("unicode_escape").encode() + b"\0" + json.dumps({"profile": p}).encode())
    # The Braze tags and attributes the fuzz dialect (Fuzz/Sources/FuzzSupport) carries data for.
    device_profile = next((p for p in profiles if "devices" in p), profiles[0])
    for t in ["{% catalog_items games 1 2 3 :rerender %}{{ items[0].title }} {{ items[1].pitch }} {{ items.size }}",
              "{% catalog_items {{ 'games' }} {{ 1 | plus: 1 }} :rerender %}{{ items[0].pitch }}",
              "{% promotion('spring') %} {% promotion('spring') %} {% promotion('autumn') %}",
              "{% message_extras :key a :value {{${first_name}}} %}{% message_extras :key a :value b %}{% message_extras :value x %}",
              "{{targeted_device.${model}}} {{most_recently_used_device.${platform}}} {{${most_recent_location}.latitude}} {{subscribed_state.${email_global}}}",
              "{{ 'now' | time_zone: -0500 | date: '%H %z' }} {{ 'now' | time_zone: '+05:30' }} {{ 'now' | time_zone: 'Eastern Time (US & Canada)' }}",
              "{% random %} {% random 10 %} {{content_blocks.${nested}}}"]:
        write(bytes([3]) + t.encode() + b"\0" + json.dumps({"profile": device_profile}).encode())
elif target == "fuzz-json":
    for case in cases():
        write(json.dumps(case.get("data", {})).encode())
    for p in profiles:
        write(json.dumps(p).encode())
    for line in contexts:
        write(line.encode())
    # Catalogs, code lists and credentials (read by the same target).
    for f in sorted((root / "Catalogs").glob("*")) + sorted((root / "PromotionCodes").glob("*.csv")):
        write(f.read_bytes())
    write(b'{"shop": {"username": "u", "password": "p"}, "api": {"headers": {"A": "b"}, "allowed_domains": ["x.com"]}}')
elif target == "fuzz-campaign":
    for c in campaigns:
        write(c.read_bytes())
elif target == "fuzz-batch-line":
    for p in profiles:
        write(json.dumps({"profile": p, "api_trigger_properties": {"next_session_name": "Flows"}}).encode())
    for line in contexts:
        write(line.encode())
    # Numbered input, as the Spark job feeds a partition: numbers, blank documents, base64 ones.
    numbered = [f"{n}\t{line}" for n, line in enumerate(contexts[:3], start=41)]
    write("\n".join(numbered).encode())
    write(b"7\t\n8\t   \r\n9\tbase64:" + base64.b64encode(b'{"profile": {"first_name": "a\xffb"}}') + b"\n10\tbase64:@@\n")
    write(b"123456789012345678\t{}\n1\t" + b"x" * 60 + b"\n2\tbase64:" + base64.b64encode(b" " * 60))
else:
    sys.exit(f"fuzz-seeds: unknown target {target}")
print(f"fuzz-seeds: {len(os.listdir(out))} seeds for {target} in {out}", file=sys.stderr)
