#!/usr/bin/env python3
"""Random Liquid templates for a differential comparison with the Ruby reference.

Writes a suite in the generator's input format ({"tests": [{name, template, data}]}) built from
a small grammar of outputs, filters, tags and values (seeded, so a run is reproducible):

    python3 scripts/reference/random-templates.py 2000 7 > /tmp/random.input.json
    LIQUID_LIB=.../liquid-5.13/lib ruby scripts/reference/generate-reference-cases.rb /tmp/random.input.json > /tmp/random.json
    pushliquid conformance /tmp/random.json --quiet      # "N passed, N failed": the differences
"""
import json
import random
import sys

count = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)

DATA = {
    "s": "Hello World", "e": "", "sp": "  ", "n": 42, "neg": -7, "f": 3.75, "z": 0, "big": 18446744073709551616,
    "t": True, "no": False, "nil": None, "arr": [3, 1, 2], "words": ["b", "a", "C"], "empty": [],
    "h": {"a": 1, "b": "two", "c": [1, 2]}, "people": [{"name": "Ana", "age": 30}, {"name": "bo", "age": 25}, {"name": "Cy"}],
    "date": "2024-03-05T10:20:30Z", "num_s": "12.5", "int_s": "7", "uni": "héllo wörld", "html": "<b>x</b> & y",
}
VARS = ["s", "e", "sp", "n", "neg", "f", "z", "big", "t", "no", "nil", "arr", "words", "empty", "h", "people", "date",
        "num_s", "int_s", "uni", "html", "missing", "h.a", "h.c", "people[0].name", "arr.first", "arr.last", "arr.size",
        "s.size", "people.size", "h['b']", "words[1]", "arr[-1]"]
LITERALS = ["1", "0", "-3", "2.5", "'abc'", "'a,b,c'", "''", "' '", "true", "false", "nil", "empty", "blank", "(1..3)", "'3'", "'2.0'"]
STRING_FILTERS = ["upcase", "downcase", "capitalize", "strip", "lstrip", "rstrip", "escape", "escape_once", "url_encode",
                  "strip_html", "strip_newlines", "newline_to_br", "size", "first", "last", "reverse", "sort", "sort_natural",
                  "uniq", "compact", "json", "url_decode", "base64_encode", "abs", "ceil", "floor", "round"]
ARG_FILTERS = {
    "append": ["'x'", "n", "nil"], "prepend": ["'x'", "f"], "plus": ["1", "2.5", "'3'", "n", "nil"], "minus": ["1", "f", "'x'"],
    "times": ["2", "0.5", "int_s"], "divided_by": ["2", "2.0", "3", "0"], "modulo": ["2", "2.5", "0"], "default": ["'d'", "0", "arr"],
    "split": ["','", "' '", "''"], "join": ["'-'", "', '"], "slice": ["1", "-2", "0, 2", "1, 100", "-1, 1"],
    "truncate": ["3", "5, '!'", "0", "20"], "truncatewords": ["1", "2, '~'", "0"], "replace": ["'l', 'L'", "'o', ''"],
    "replace_first": ["'l', 'L'"], "remove": ["'l'"], "remove_first": ["'o'"], "date": ["'%Y-%m-%d'", "'%b %e %H:%M'", "'%s'"],
    "at_least": ["5", "2.5"], "at_most": ["5", "'3'"], "round": ["1", "2"], "map": ["'name'", "'age'"], "where": ["'name'", "'age', 30"],
    "concat": ["arr", "words"], "sum": ["", "'age'"], "contains": [], "index": [],
}


def value():
    return rng.choice(VARS) if rng.random() < 0.7 else rng.choice(LITERALS)


def filtered(depth=0):
    out = value()
    for _ in range(rng.randint(0, 3)):
        if rng.random() < 0.5:
            out += " | " + rng.choice(STRING_FILTERS)
        else:
            name, args = rng.choice([(k, v) for k, v in ARG_FILTERS.items() if v])
            arg = rng.choice(args)
            out += f" | {name}" + (f": {arg}" if arg else "")
    return out


def condition():
    op = rng.choice(["==", "!=", "<", ">", "<=", ">=", "contains", None])
    c = value() if op is None else f"{value()} {op} {value()}"
    if rng.random() < 0.25:
        c += rng.choice([" and ", " or "]) + value()
    return c


def node(depth):
    r = rng.random()
    if depth > 2 or r < 0.35:
        return "{{ " + filtered() + " }}"
    if r < 0.45:
        return rng.choice(["x", " ", "-", "\n", "ü"])
    if r < 0.55:
        return "{% if " + condition() + " %}" + body(depth + 1) + ("{% else %}" + body(depth + 1) if rng.random() < 0.5 else "") + "{% endif %}"
    if r < 0.62:
        return "{% unless " + condition() + " %}" + body(depth + 1) + "{% endunless %}"
    if r < 0.72:
        coll = rng.choice(["arr", "words", "people", "h", "(1..4)", "s", "empty", "nil", "n"])
        params = rng.choice(["", " limit: 2", " offset: 1", " reversed", " reversed limit: 1", " limit: 2 offset: 1"])
        inner = body(depth + 1) + rng.choice(["", "{{ forloop.index }}", "{{ forloop.last }}", "{% break %}", "{% continue %}"])
        return "{% for i in " + coll + params + " %}{{ i }}" + inner + ("{% else %}E" if rng.random() < 0.3 else "") + "{% endfor %}"
    if r < 0.8:
        return "{% assign v = " + filtered() + " %}{{ v }}"
    if r < 0.85:
        return "{% capture c %}" + body(depth + 1) + "{% endcapture %}[{{ c }}]"
    if r < 0.9:
        return "{% case " + value() + " %}{% when " + value() + " %}W{% when " + value() + ", " + value() + " %}V{% else %}E{% endcase %}"
    if r < 0.94:
        return "{% cycle 'a', 'b', 'c' %}"
    if r < 0.97:
        return "{% increment k %}{% decrement k %}"
    return "{% tablerow i in " + rng.choice(["arr", "(1..3)", "words"]) + " cols: 2 %}{{ i }}{% endtablerow %}"


def body(depth):
    return "".join(node(depth) for _ in range(rng.randint(1, 3)))


tests = [{"name": f"random {i}", "template": body(0), "data": DATA} for i in range(count)]
print(json.dumps({"tests": tests}, indent=1, ensure_ascii=False))
