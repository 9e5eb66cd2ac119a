#!/usr/bin/env bash
# Runs each blow-up of the reliability issue (#14) against the release pushliquid and prints its
# outcome, wall time and peak memory (GNU time): inputs that once trapped, or took gigabytes or
# minutes, must now end quickly with a clear error (or their answer), in little memory.
#   Benchmarks/blowups.sh
# The Connected Content cases start a server on loopback port 80 that accepts connections and
# never answers (root, or sudo, is needed to bind it).
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/bootstrap.sh
if [ ! -x /usr/bin/time ]; then
    SUDO=""; [ "$(id -u)" != "0" ] && SUDO="sudo"
    $SUDO apt-get install -y -qq time >&2
fi
build_release
PL=$PWD/.build/release/pushliquid
WORK=$(mktemp -d)
trap 'kill $SERVER 2>/dev/null; rm -rf "$WORK"' EXIT
SERVER=""

# run LABEL COMMAND...: the command's last line of output (stdout or stderr), exit status, time, memory.
run() {
    local label=$1; shift
    local status=0
    /usr/bin/time -f "%e %M" -o "$WORK/time" "$@" > "$WORK/out" 2>&1 || status=$?
    read -r seconds kb < <(tail -1 "$WORK/time")
    printf "%-58s exit %-3s %7.2f s %8.1f MB  %s\n" "$label" "$status" "$seconds" "$(awk "BEGIN { print $kb / 1024 }")" \
        "$(tail -c 300 "$WORK/out" | tail -1 | cut -c1-110)"
}

liquid() {  # liquid LABEL TEMPLATE [DATA-JSON]
    printf '%s' "$2" > "$WORK/t.liquid"
    printf '%s' "${3:-{\}}" > "$WORK/d.json"
    run "$1" "$PL" liquid "$WORK/t.liquid" --data "$WORK/d.json"
}

echo "== traps from data"
liquid 'JSON "\ud800\u0041"' '{{ x }}' '{"x": "\ud800\u0041"}'
liquid 'date on a 20-digit string' "{{ x | date: '%Y' }}" '{"x": "99999999999999999999"}'
liquid 'date on Int64.max' "{{ x | date: '%Y-%m-%d' }}" '{"x": 9223372036854775807}'
liquid 'date on Int64.min' "{{ x | date: '%Y-%m-%d' }}" '{"x": -9223372036854775808}'
liquid '1e30 as a range bound' '{% for i in (1..x) %}{% endfor %}' '{"x": 1e30}'
liquid '1e30 as limit:' '{% for i in a limit: x %}{% endfor %}' '{"x": 1e30, "a": [1]}'
liquid '1e30 as an index' '[{{ a[x] }}]' '{"x": 1e30, "a": [1]}'
liquid '1e30 as round: places' '{{ 1.5 | round: x }}' '{"x": 1e30}'
liquid 'increment of Int64.max' '{% increment x %} {% increment x %}' '{"x": 9223372036854775807}'
echo "== traps from templates"
liquid '(1..99999999999999999999)' '{{ (1..99999999999999999999) }}'
liquid 'truncate: -9223372036854775808' "{{ 'abc' | truncate: -9223372036854775808 }}"
liquid 'offset: 9999999999999999999' '{% for i in a offset: 9999999999999999999 %}{% endfor %}' '{"a": [1]}'
liquid "date: '%99999999999999999999d'" "{{ 'now' | date: '%99999999999999999999d' }}"
liquid "date: '%99999999999d'" "{{ 'now' | date: '%99999999999d' }}"
liquid 'a dotted path of 100,000 segments' "{{ a$(python3 -c 'print(".b" * 100000, end="")') }}"
echo "== memory and time"
liquid 'doubling a string with append' "{% assign a = 'ab' %}{% for i in (1..64) %}{% assign a = a | append: a %}{% endfor %}{{ a | size }}"
liquid 'doubling an array with concat' "{% assign a = 'a,b' | split: ',' %}{% for i in (1..64) %}{% assign a = a | concat: a %}{% endfor %}{{ a | size }}"
liquid 'appending 50 bytes 200,000 times' "{% assign a = '' %}{% for i in (1..200000) %}{% assign a = a | append: '01234567890123456789012345678901234567890123456789' %}{% endfor %}{{ a | size }}"
liquid 'replace multiplying a string' "{% assign a = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' %}{% for i in (1..10) %}{% assign a = a | replace: 'a', 'aaaaaaaaaa' %}{% endfor %}{{ a | size }}"
liquid 'loops nested three deep, 10^9 iterations' '{% for a in (1..1000) %}{% for b in (1..1000) %}{% for c in (1..1000) %}{{ c }}{% endfor %}{% endfor %}{% endfor %}'
liquid "date: '%1000000000d'" "{{ 'now' | date: '%1000000000d' }}"
liquid 'replace of aaa...ab in aaa...a (1 MB)' "{% assign h = '' | prepend: 'a' %}{% for i in (1..19) %}{% assign h = h | append: h %}{% endfor %}{% assign n = h | slice: 0, 400000 | append: 'b' %}{{ h | replace: n, 'x' | size }}"

mkdir -p "$WORK/ws/Templates/content_blocks"
python3 - "$WORK/ws/Templates/laughs.yml" <<'PY'
import sys
y = "name: laughs\ntitle: t\nbody: b\npreview:\n  api_trigger_properties:\n    a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n"
for i in range(1, 10):
    y += f"    a{i}: &a{i} [" + ", ".join([f"*a{i-1}"] * 10) + "]\n"
open(sys.argv[1], "w").write(y)
PY
run "a $(wc -c < "$WORK/ws/Templates/laughs.yml")-byte campaign of YAML aliases" "$PL" render "$WORK/ws/Templates/laughs.yml" --templates "$WORK/ws/Templates"
# Nine levels of four blocks each: Braze expands two levels (a block in a block), so 4 + 16 block
# renders, and the 64 references a level deeper are removed, each with a warning.
for i in 0 1 2 3 4 5 6 7 8; do
    printf '{{content_blocks.${b%d}}}{{content_blocks.${b%d}}}{{content_blocks.${b%d}}}{{content_blocks.${b%d}}}' $((i + 1)) $((i + 1)) $((i + 1)) $((i + 1)) > "$WORK/ws/Templates/content_blocks/b$i.liquid"
done
echo x > "$WORK/ws/Templates/content_blocks/b9.liquid"
printf 'name: tree\ntitle: t\nbody: "{{content_blocks.${b0}}}"\n' > "$WORK/ws/Templates/tree.yml"
run 'a tree of content blocks nine levels deep' "$PL" render "$WORK/ws/Templates/tree.yml" --templates "$WORK/ws/Templates"

# A server on loopback port 80 that accepts connections and never answers.
python3 - <<'PY' &
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", 80)); s.listen(128)
conns = []
while True:
    c, _ = s.accept(); conns.append(c)
PY
SERVER=$!
sleep 0.5
python3 - "$WORK/ws/Templates/silent.yml" "$WORK/ws/Templates/retry.yml" <<'PY'
import sys
tags = "".join(f"{{% connected_content http://127.0.0.1/{i} :no_cache %}}" for i in range(15))
open(sys.argv[1], "w").write(f'name: silent\ntitle: t\nbody: "{tags}"\n')
open(sys.argv[2], "w").write('name: retry\ntitle: t\nbody: "{% connected_content http://127.0.0.1/r :retry %}"\n')
PY
run '15 connected_content tags, a server that never answers' "$PL" render "$WORK/ws/Templates/silent.yml" --templates "$WORK/ws/Templates" --online
run ':retry against it' "$PL" render "$WORK/ws/Templates/retry.yml" --templates "$WORK/ws/Templates" --online
kill $SERVER 2>/dev/null

echo "== a 200,000-line batch of a bundled campaign with one hostile recipient"
python3 - "$WORK/batch.ndjson" <<'PY'
import json, sys
with open(sys.argv[1], "w") as f:
    for i in range(200000):
        ca = {"completed_session_count": 2, "total_session_count": 5}
        trigger = {"next_session_name": f"S{i}", "next_session_complete_date": "2026-01-02"}
        if i == 148842:
            trigger["next_session_complete_date"] = 9223372036854775807
        f.write(json.dumps({"profile": {"external_id": f"u{i}", "first_name": "ana", "custom_attributes": ca}, "api_trigger_properties": trigger}) + "\n")
PY
run 'batch: 200,000 lines, line 148,843 hostile' "$PL" batch learning-progress --output "$WORK/out.ndjson"  < "$WORK/batch.ndjson"
echo "   results: $(wc -l < "$WORK/out.ndjson") lines; line 148843: $(sed -n 148843p "$WORK/out.ndjson" | cut -c1-140)"
