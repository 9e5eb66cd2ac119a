#!/usr/bin/env python3
"""Writes the page workloads that Benchmarks/compare-reference.sh measures, as page specs
({"name", "template", "data"}: one standard Liquid template and its render data):

  w2-products.json   W2, the shape of Fluid's product benchmark: 100 products (a name, a float
                     price, a 445-character description cut with `truncate: 15`) in a `for` loop
  w2-no-truncate.json  the same page without `truncate`
  page-10k.json      a ~10 KB collection page: loops, conditions, case, capture, and filters
  filters/*.json     the per-filter table: `{% for s in strings %}{{ s | FILTER }}{% endfor %}`
                     over 100 copies of a short string, a 1 KB ASCII one and a 1 KB UTF-8 one

    python3 Benchmarks/workloads/gen_workloads.py OUTDIR
Deterministic (a fixed seed).
"""
import json
import os
import random
import sys

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
rng = random.Random(1701)
os.makedirs(os.path.join(out, "filters"), exist_ok=True)

WORDS = ("lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore et "
         "dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ex ea "
         "commodo consequat duis aute irure in reprehenderit voluptate velit esse cillum fugiat nulla pariatur").split()


def text(length):
    s = ""
    while len(s) < length:
        s += rng.choice(WORDS) + " "
    return s[:length].rstrip() + "."


def write(name, spec):
    with open(os.path.join(out, name), "w") as f:
        json.dump(spec, f, ensure_ascii=False)


products = [{"name": f"Product {i} " + rng.choice(WORDS).capitalize(), "price": round(rng.uniform(1, 500), 2),
             "description": text(444)} for i in range(100)]
W2 = """<ul id="products">
  {% for product in products %}
    <li>
      <h2>{{ product.name }}</h2>
      Only {{ product.price }}
      {{ product.description | truncate: 15 }}
    </li>
  {% endfor %}
</ul>
"""
write("w2-products.json", {"name": "w2-products", "template": W2, "data": {"products": products}})
write("w2-no-truncate.json", {"name": "w2-no-truncate", "template": W2.replace(" | truncate: 15", ""),
                               "data": {"products": products}})

collection = {
    "title": "Summer Collection", "handle": "summer", "description": text(300),
    "products": [{
        "title": f"{rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} {i}", "handle": f"item-{i}",
        "price": rng.randint(500, 50000), "compare_at_price": rng.choice([None, rng.randint(50000, 90000)]),
        "available": rng.random() > 0.2, "vendor": rng.choice(["Acme", "Globex", "Initech", "Umbrella"]),
        "tags": rng.sample(WORDS, 4), "type": rng.choice(["shirt", "hat", "shoe", "bag"]),
        "variants": [{"title": rng.choice(["S", "M", "L", "XL"]), "price": rng.randint(500, 50000),
                      "available": rng.random() > 0.3} for _ in range(rng.randint(1, 4))],
        "description": text(rng.randint(100, 400)), "rating": round(rng.uniform(1, 5), 1)} for i in range(24)],
    "filters": ["Acme", "Globex", "Initech", "Umbrella"],
}
PAGE = """<!doctype html>
<html><head><title>{{ collection.title | escape }} – Shop</title></head>
<body>
{% assign on_sale = 0 %}{% assign sold_out = 0 %}
<header><h1>{{ collection.title | upcase }}</h1>
<p class="intro">{{ collection.description | strip_html | truncatewords: 30 }}</p>
<nav>{% for vendor in collection.filters %}<a href="/collections/{{ collection.handle }}?vendor={{ vendor | url_encode }}"{% if forloop.first %} class="first"{% endif %}>{{ vendor }}</a>{% unless forloop.last %} | {% endunless %}{% endfor %}</nav>
</header>
<main class="grid">
{% for product in collection.products %}
  {% capture price %}{{ product.price | divided_by: 100.0 | round: 2 }}{% endcapture %}
  <article class="card {% cycle 'odd', 'even' %}{% if product.available == false %} sold-out{% endif %}" id="{{ product.handle }}">
    <h2><a href="/products/{{ product.handle }}">{{ product.title | capitalize }}</a></h2>
    <p class="vendor">{{ product.vendor | default: 'Unknown' }} · {{ product.type | capitalize }}</p>
    {% if product.compare_at_price and product.compare_at_price > product.price %}{% assign on_sale = on_sale | plus: 1 %}
      <p class="price sale"><s>{{ product.compare_at_price | divided_by: 100.0 | round: 2 }}</s> {{ price }}</p>
    {% else %}
      <p class="price">{{ price }}</p>
    {% endif %}
    {% case product.type %}{% when 'shirt', 'hat' %}<span class="badge">apparel</span>{% when 'shoe' %}<span class="badge">footwear</span>{% else %}<span class="badge">accessory</span>{% endcase %}
    <p class="desc">{{ product.description | truncate: 120 | escape }}</p>
    <ul class="tags">{% for tag in product.tags limit: 3 %}<li>{{ tag | prepend: '#' | downcase }}</li>{% endfor %}</ul>
    <select name="variant">{% for variant in product.variants %}<option{% unless variant.available %} disabled{% endunless %}>{{ variant.title }} – {{ variant.price | divided_by: 100.0 | round: 2 }}</option>{% endfor %}</select>
    <p class="rating">{% assign stars = product.rating | round %}{% for i in (1..5) %}{% if i <= stars %}★{% else %}☆{% endif %}{% endfor %} ({{ product.rating }})</p>
    {% unless product.available %}{% assign sold_out = sold_out | plus: 1 %}<p class="note">Sold out</p>{% endunless %}
  </article>
{% endfor %}
</main>
<footer><p>{{ collection.products.size }} products, {{ on_sale }} on sale, {{ sold_out }} sold out. {{ collection.products | map: 'vendor' | uniq | sort | join: ', ' }}</p></footer>
</body></html>
"""
write("page-10k.json", {"name": "page-10k", "template": PAGE, "data": {"collection": collection}})

ascii_1k = text(1023)
utf8_1k = ("Größe Ärger ñandú café – 東京 ☕ crème brûlée " * 40)
utf8_1k = utf8_1k.encode()[:1024].decode("utf-8", "ignore")
inputs = {"short": "Hello, World", "ascii-1k": ascii_1k, "utf8-1k": utf8_1k}
FILTERS = [
    "upcase", "downcase", "capitalize", "strip", "lstrip", "rstrip", "strip_html", "strip_newlines", "newline_to_br",
    "escape", "escape_once", "url_encode", "url_decode", "base64_encode", "size", "first", "last", "reverse",
    "append: 'x'", "prepend: 'x'", "remove: 'a'", "remove_first: 'a'", "remove_last: 'a'", "replace: 'o', '0'",
    "replace_first: 'o', '0'", "replace_last: 'o', '0'", "slice: 10, 20", "truncate: 15", "truncatewords: 5",
    "split: ' '", "squish", "default: 'x'", "base64_decode", "base64_url_safe_encode",
]
import base64
for fname in FILTERS:
    key = fname.split(":")[0]
    for label, s in inputs.items():
        if key == "base64_decode" and label == "utf8-1k":
            continue  # liquid-c refuses to output the decoded bytes (binary encoding)
        if key in ("base64_decode", "url_decode"):
            # Inputs they take: the encoded form of the same text.
            import urllib.parse
            s = base64.b64encode(s.encode()).decode() if key == "base64_decode" else urllib.parse.quote_plus(s)
        write(f"filters/{key}--{label}.json", {"name": f"{key} {label}", "filter": fname, "input": label,
                                              "template": "{% for s in strings %}{{ s | " + fname + " }}{% endfor %}",
                                              "data": {"strings": [s] * 100}})
# The Braze dialect's string filters: this engine only (Ruby Liquid has none of them).
os.makedirs(os.path.join(out, "filters-braze"), exist_ok=True)
BRAZE = ["url_escape", "url_param_escape", "json_escape", "md5", "sha1", "sha2", "hmac_sha256: 'key'", "hmac_sha1_base64: 'key'",
         "number_with_delimiter", "money", "as_json_string"]
for fname in BRAZE:
    key = fname.split(":")[0]
    for label, s in inputs.items():
        write(f"filters-braze/{key}--{label}.json", {"name": f"{key} {label}", "filter": fname, "input": label, "dialect": "braze",
                                                    "template": "{% for s in strings %}{{ s | " + fname + " }}{% endfor %}",
                                                    "data": {"strings": [s] * 100}})
print(f"wrote workloads to {out}")
