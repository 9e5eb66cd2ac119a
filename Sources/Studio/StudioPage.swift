import Foundation
import Liquid

/// The studio's page: plain HTML, CSS and JavaScript, kept in the binary and served as one
/// file (no network access, no build step). Served live it reads `/api/snapshot` and redraws
/// on every server-sent change; exported it carries its snapshot inside.
enum StudioPage {
    /// The page; `snapshot` embedded for an export (with the other campaigns' files linked).
    static func html(snapshot: LiquidValue?, exportLinks: [String]?) -> String {
        var embedded = ""
        if let snapshot {
            // `<` written as \u003c: the JSON cannot end the script element it is in.
            let json = snapshot.jsonString.replacingOccurrences(of: "<", with: "\\u003c")
            embedded = "<script id=\"snapshot\" type=\"application/json\">\(json)</script>"
        }
        let links = exportLinks.map { " data-export=\"\(escapeAttribute($0.joined(separator: ",")))\"" } ?? ""
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>PushLiquid studio</title>
            <style>\(css)</style>
            </head>
            <body\(links)>
            <header id="top">
              <h1>PushLiquid studio</h1>
              <label>Campaign <select id="campaign"></select></label>
              <span id="file"></span>
              <span id="updated"></span>
            </header>
            <section id="problems"></section>
            <main id="profiles"></main>
            \(embedded)
            <script>\(script)</script>
            </body>
            </html>

            """
    }

    static func escapeAttribute(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "<", with: "&lt;")
    }

    static let css = #"""
    :root { --ios-width: 340px; --android-width: 340px; font-family: -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; }
    body { margin: 0; background: #eef0f3; color: #1c1c1e; }
    header { position: sticky; top: 0; z-index: 2; display: flex; gap: 16px; align-items: center; padding: 10px 16px; background: #1c1c1e; color: #fff; }
    header h1 { font-size: 16px; margin: 0; }
    header select { font-size: 14px; }
    #file { font-family: ui-monospace, Menlo, monospace; font-size: 12px; opacity: .8; }
    #updated { margin-left: auto; font-size: 12px; opacity: .8; }
    #problems { padding: 0 16px; }
    #problems:empty { display: none; }
    .problem { font-family: ui-monospace, Menlo, monospace; font-size: 12px; margin: 6px 0; padding: 6px 8px; border-radius: 6px; background: #fff7e0; white-space: pre-wrap; }
    .problem.error { background: #ffe5e5; }
    main { display: flex; gap: 16px; padding: 16px; overflow-x: auto; align-items: flex-start; }
    .profile { flex: 0 0 auto; width: 372px; background: #fff; border-radius: 12px; padding: 12px; box-shadow: 0 1px 3px rgba(0,0,0,.12); }
    .profile h2 { font-size: 15px; margin: 0 0 2px; }
    .profile .who { font-size: 12px; color: #6e6e73; margin-bottom: 8px; }
    .platform { margin: 10px 0 16px; }
    .platform h3 { font-size: 12px; text-transform: uppercase; letter-spacing: .05em; color: #6e6e73; margin: 0 0 6px; }
    .screen { padding: 10px 6px; border-radius: 14px; }
    .platform[data-platform="ios"] .screen { background: linear-gradient(160deg, #3a4f7a, #7a5c8e); }
    .platform[data-platform="android"] .screen { background: #dfe3e8; }
    .notif { position: relative; box-sizing: border-box; display: grid; grid-template-columns: 1fr auto; gap: 2px 10px; font-size: 15px; line-height: 20px; }
    .notif.ios { width: var(--ios-width); margin: 0 auto; padding: 10px 12px; border-radius: 18px; background: rgba(245,245,247,.92); }
    .notif.android { width: var(--android-width); margin: 0 auto; padding: 10px 14px; border-radius: 14px; background: #fff; font-size: 14px; }
    .notif .head { grid-column: 1 / -1; display: flex; align-items: center; gap: 6px; font-size: 12px; color: #6e6e73; }
    .app-icon { position: relative; width: 20px; height: 20px; border-radius: 5px; background: linear-gradient(135deg, #ff8a3d, #ff3d77); flex: none; }
    .badge { position: absolute; top: -7px; right: -9px; min-width: 16px; height: 16px; padding: 0 4px; box-sizing: border-box; border-radius: 8px; background: #ff3b30; color: #fff; font-size: 11px; line-height: 16px; text-align: center; font-weight: 600; }
    .notif .title { grid-column: 1; font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; min-width: 0; }
    .notif .subtitle { grid-column: 1; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; min-width: 0; }
    .notif .body { grid-column: 1; min-width: 0; overflow: hidden; white-space: pre-wrap; word-break: break-word; }
    .notif.ios .body { display: -webkit-box; -webkit-box-orient: vertical; -webkit-line-clamp: 4; }
    .notif.android .body { white-space: nowrap; text-overflow: ellipsis; }
    .thumb { grid-column: 2; grid-row: 2 / span 3; width: 40px; height: 40px; border-radius: 6px; background: repeating-linear-gradient(45deg, #c7c7cc, #c7c7cc 4px, #d9d9de 4px, #d9d9de 8px); align-self: center; }
    .expanded { margin-top: 8px; border-radius: 14px; background: #fff; padding: 10px 12px; box-shadow: inset 0 0 0 1px #e5e5ea; font-size: 14px; }
    .expanded .title { font-weight: 600; }
    .expanded .body { white-space: pre-wrap; word-break: break-word; }
    .expanded h4 { margin: 0 0 6px; font-size: 11px; text-transform: uppercase; color: #8e8e93; letter-spacing: .05em; }
    .hero { height: 90px; margin: 6px 0; border-radius: 8px; background: repeating-linear-gradient(45deg, #c7c7cc, #c7c7cc 6px, #d9d9de 6px, #d9d9de 12px); font-size: 11px; color: #3a3a3c; padding: 4px 6px; box-sizing: border-box; overflow: hidden; word-break: break-all; }
    .progress-bar { height: 10px; border-radius: 5px; background: #e5e5ea; overflow: hidden; margin: 6px 0; }
    .progress-bar > div { height: 100%; background: #34c759; }
    .capture input { width: 100%; box-sizing: border-box; font-size: 15px; padding: 6px 8px; border: 1px solid #c7c7cc; border-radius: 8px; }
    .capture-status { font-size: 13px; margin: 4px 0; min-height: 18px; }
    .capture-status[data-valid="true"] { color: #248a3d; }
    .capture-status[data-valid="false"] { color: #d70015; }
    .actions { display: flex; gap: 6px; flex-wrap: wrap; margin-top: 6px; }
    .actions button, .game button { font-size: 13px; }
    .actions button[disabled] { opacity: .4; }
    .capture-confirmed { color: #248a3d; font-weight: 600; margin-top: 6px; }
    .game .cards { display: grid; grid-template-columns: repeat(4, 1fr); gap: 6px; margin: 6px 0; }
    .game .card { height: 46px; font-size: 22px; border-radius: 8px; border: 1px solid #c7c7cc; background: #5856d6; color: #fff; cursor: pointer; }
    .game .card[data-face="up"] { background: #fff; color: #1c1c1e; }
    .game .card[data-matched="true"] { background: #d1f2d9; color: #1c1c1e; cursor: default; }
    .game-status[data-status="won"] { color: #248a3d; font-weight: 600; }
    .game-status[data-status="lost"] { color: #d70015; font-weight: 600; }
    dl.details { display: grid; grid-template-columns: auto 1fr; gap: 2px 8px; font-size: 12px; margin: 8px 0 0; }
    dl.details dt { color: #6e6e73; }
    dl.details dd { margin: 0; font-family: ui-monospace, Menlo, monospace; word-break: break-all; }
    .size { height: 6px; border-radius: 3px; background: #e5e5ea; overflow: hidden; margin-top: 3px; }
    .size > div { height: 100%; background: #0a84ff; }
    .size[data-over="true"] > div { background: #ff3b30; }
    .size-text[data-over="true"] { color: #d70015; font-weight: 600; }
    .status-note { border-radius: 8px; padding: 8px 10px; font-size: 13px; margin-bottom: 8px; white-space: pre-wrap; word-break: break-word; }
    .abort { background: #fff1d6; }
    .failure, .overcap, .error { background: #ffe5e5; }
    .place { font-family: ui-monospace, Menlo, monospace; font-size: 12px; display: block; margin-top: 4px; }
    .warnings { font-size: 12px; color: #9a5b00; margin: 6px 0 0; padding-left: 16px; }
    .error-page { margin: 16px; }
    """#

    static let script = #"""
    "use strict";
    const embedded = document.getElementById("snapshot");
    const exportLinks = document.body.dataset.export ? document.body.dataset.export.split(",") : null;
    let campaign = new URLSearchParams(location.search).get("campaign");
    let shownVersion = null;

    function el(tag, attrs, ...children) {
      const e = document.createElement(tag);
      for (const [k, v] of Object.entries(attrs || {})) {
        if (v === null || v === undefined || v === false) continue;
        if (k === "class") e.className = v;
        else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v === true ? "" : String(v));
      }
      for (const c of children.flat()) {
        if (c === null || c === undefined || c === false) continue;
        e.append(c instanceof Node ? c : document.createTextNode(String(c)));
      }
      return e;
    }
    const fmt = n => Number(n).toLocaleString("en-US");

    async function load() {
      const r = await fetch("/api/snapshot" + (campaign ? "?campaign=" + encodeURIComponent(campaign) : ""), {cache: "no-store"});
      draw(await r.json());
    }

    function draw(s) {
      campaign = s.campaign;
      const select = document.getElementById("campaign");
      select.replaceChildren(...(s.campaigns || []).map(n => el("option", {value: n, selected: n === s.campaign}, n)));
      document.getElementById("file").textContent = s.file || "";
      document.getElementById("updated").textContent = embedded ? "exported" : "updated " + new Date().toLocaleTimeString("en-GB");
      document.body.dataset.version = s.version === undefined ? "export" : s.version;
      document.body.dataset.campaign = s.campaign;
      const problems = document.getElementById("problems");
      problems.replaceChildren(
        ...(s.error ? [el("div", {class: "problem error", id: "campaign-error"}, s.error)] : []),
        ...(s.problems || []).map(p => el("div", {class: "problem " + p.severity}, p.text)),
        ...(s.profileErrors || []).map(p => el("div", {class: "problem error"}, p)));
      document.getElementById("profiles").replaceChildren(...(s.profiles || []).map(p => drawProfile(s, p)));
      requestAnimationFrame(markTruncation);
    }

    function drawProfile(s, p) {
      const column = el("article", {class: "profile", "data-profile": p.name},
        el("h2", {}, p.name), el("div", {class: "who"}, p.externalID ? "external_id " + p.externalID : "no external_id"));
      if (p.error) { column.append(el("div", {class: "status-note error"}, p.error)); return column; }
      for (const platform of ["ios", "android"]) column.append(drawPlatform(s, p, platform, p[platform]));
      return column;
    }

    function drawPlatform(s, p, platform, r) {
      const box = el("section", {class: "platform", "data-platform": platform, "data-status": r.status},
        el("h3", {}, platform === "ios" ? "iOS" : "Android"));
      if (r.status === "aborted") {
        box.append(el("div", {class: "status-note abort"}, "Aborted in " + r.field + ": " + r.reason + " — this recipient gets no message.",
          el("span", {class: "place"}, r.place)));
        return box;
      }
      if (r.status === "failed") box.append(el("div", {class: "status-note failure"}, r.error));
      if (r.status === "over_cap") box.append(el("div", {class: "status-note overcap"},
        "Over the size cap: " + fmt(r.bytes) + " of " + fmt(r.cap) + " bytes — not sent. Largest: " + (r.largest || []).join(", ")));
      const screen = el("div", {class: "screen"}, notification(platform, r));
      box.append(screen, expanded(s, p, platform, r), details(platform, r));
      if (r.warnings && r.warnings.length) box.append(el("ul", {class: "warnings"}, r.warnings.map(w => el("li", {}, w))));
      return box;
    }

    function notification(platform, r) {
      const icon = el("span", {class: "app-icon"}, r.badge ? el("span", {class: "badge"}, r.badge) : null);
      const head = platform === "ios"
        ? el("div", {class: "head"}, icon, el("span", {}, "APP"), el("span", {style: "margin-left:auto"}, "now"))
        : el("div", {class: "head"}, icon, el("span", {}, "App"), r.summary ? el("span", {class: "summary"}, "· " + r.summary) : null, el("span", {}, "· now"));
      return el("div", {class: "notif " + platform, "data-part": "collapsed"},
        head,
        el("div", {class: "title"}, r.title || ""),
        platform === "ios" && r.subtitle ? el("div", {class: "subtitle"}, r.subtitle) : null,
        el("div", {class: "body"}, r.body || ""),
        r.image ? el("div", {class: "thumb", title: r.image}) : null);
    }

    function expanded(s, p, platform, r) {
      const box = el("div", {class: "expanded", "data-part": "expanded"}, el("h4", {}, platform === "ios" && r.contentView ? "Expanded: content view" : "Expanded"));
      if (platform === "ios" && r.contentView) { box.append(contentView(s, p, platform, r.contentView)); return box; }
      box.append(el("div", {class: "title"}, r.title || ""));
      if (platform === "ios" && r.subtitle) box.append(el("div", {class: "subtitle"}, r.subtitle));
      box.append(el("div", {class: "body"}, r.body || ""));
      if (r.image) box.append(el("div", {class: "hero"}, r.image));
      return box;
    }

    function contentView(s, p, platform, v) {
      if (v.error) return el("div", {class: "status-note error"}, "Content view (" + v.kind + "): " + v.error);
      if (v.kind === "progress") return el("div", {class: "progress-card"},
        el("div", {class: "progress-bar", role: "progressbar", "aria-valuenow": v.percent}, el("div", {style: "width:" + Math.max(0, Math.min(100, v.percent)) + "%"})),
        el("div", {class: "progress-percent"}, v.percent + "%"), el("div", {class: "progress-summary"}, v.summary));
      if (v.kind === "capture") return captureView(s, p, platform, v);
      if (v.kind === "match_game") return gameView(v);
      return el("div", {}, v.kind);
    }

    function captureView(s, p, platform, v) {
      const status = el("div", {class: "capture-status"});
      const actions = el("div", {class: "actions"});
      const confirmed = el("div", {class: "capture-confirmed"});
      const input = el("input", {class: "capture-input", type: v.label === "E-mail" ? "email" : "tel", placeholder: v.placeholder, value: v.value || v.prefill || "", autocomplete: "off"});
      const localRegex = (() => { try { return new RegExp("^(?:" + v.pattern + ")$"); } catch (e) { return null; } })();
      function show(state) {
        const typed = input.value;
        status.dataset.valid = state.valid ? "true" : "false";
        status.textContent = typed === "" ? "" : state.valid ? "✓ looks right" : "✗ not a valid " + v.label.toLowerCase();
        const available = new Set((state.actions || []).map(a => a.id));
        actions.replaceChildren(...["REGISTER_ACTION", "CLOSE_ACTION", "OPEN_APP_ACTION"].map(id =>
          el("button", {class: "action", "data-action": id, disabled: !available.has(id), onclick: () => act(id)},
            {REGISTER_ACTION: "Register", CLOSE_ACTION: "Close", OPEN_APP_ACTION: "Open app"}[id])));
        if (state.state === "confirmed") confirmed.textContent = "Saved: " + state.value;
        else if (state.state === "dismissed") confirmed.textContent = "Dismissed (" + state.dismissal + ")";
        else confirmed.textContent = "";
        confirmed.dataset.state = state.state;
      }
      async function ask(action) {
        if (embedded) {
          const valid = !!localRegex && localRegex.test(input.value.trim());
          if (action === "REGISTER_ACTION" && valid) return {state: "confirmed", value: input.value.trim(), valid: true, actions: [{id: "CLOSE_ACTION"}, {id: "OPEN_APP_ACTION"}]};
          if (action) return {state: "dismissed", dismissal: action === "CLOSE_ACTION" ? "dismiss" : "dismissAndForward", actions: []};
          return {state: input.value ? "editing" : "prompting", valid, actions: valid ? [{id: "REGISTER_ACTION"}, {id: "CLOSE_ACTION"}, {id: "OPEN_APP_ACTION"}] : [{id: "CLOSE_ACTION"}, {id: "OPEN_APP_ACTION"}]};
        }
        const q = new URLSearchParams({campaign: s.campaign, profile: p.name, platform, value: input.value, action: action || ""});
        const r = await fetch("/api/capture?" + q.toString(), {cache: "no-store"});
        return r.json();
      }
      // Answers can come back out of order: only the latest question's answer is shown.
      let asked = 0;
      async function act(action) {
        const mine = ++asked;
        const state = await ask(action);
        if (mine === asked) show(state);
      }
      input.addEventListener("input", () => act(null));
      show(v);
      return el("div", {class: "capture"}, el("div", {class: "title"}, v.title), v.detail ? el("div", {class: "detail"}, v.detail) : null,
        el("label", {}, v.label, input), status, actions, confirmed);
    }

    // The match game, as the content extension's MatchGameModel plays it: flip two cards; a pair
    // stays matched, a miss turns back at the next flip; each pair of flips is a turn; all
    // matched wins, out of turns loses.
    function gameView(v) {
      const cards = v.cards.map(symbol => ({symbol, up: false, matched: false}));
      let turns = 0, pending = null, mismatch = null;
      const grid = el("div", {class: "cards"});
      const info = el("div", {class: "turns"});
      const status = el("div", {class: "game-status", "data-status": "playing"});
      const won = () => cards.every(c => c.matched);
      const state = () => won() ? "won" : turns >= v.maxTurns ? "lost" : "playing";
      function flip(i) {
        if (state() !== "playing" || cards[i].matched) return;
        if (mismatch) { cards[mismatch[0]].up = false; cards[mismatch[1]].up = false; mismatch = null; }
        if (cards[i].up) return render();
        cards[i].up = true;
        if (pending === null) { pending = i; return render(); }
        const first = pending; pending = null; turns += 1;
        if (cards[first].symbol === cards[i].symbol) { cards[first].matched = cards[i].matched = true; }
        else mismatch = [first, i];
        render();
      }
      function render() {
        grid.replaceChildren(...cards.map((c, i) => el("button", {class: "card", "data-index": i, "data-symbol": c.symbol,
          "data-face": c.up || c.matched ? "up" : "down", "data-matched": c.matched ? "true" : "false", onclick: () => flip(i)},
          c.up || c.matched ? c.symbol : "?")));
        info.textContent = "Turn " + turns + " of " + v.maxTurns + " · " + (cards.length / 2) + " pairs";
        const st = state();
        status.dataset.status = st;
        status.textContent = st === "won" ? "You won! +" + v.reward + " points" : st === "lost" ? "Out of turns" : "Find the pairs";
      }
      render();
      return el("div", {class: "game"}, info, grid, status);
    }

    function details(platform, r) {
      const over = r.bytes !== null && r.bytes !== undefined && r.bytes > r.cap;
      const pct = r.bytes ? Math.round(r.bytes * 100 / r.cap) : 0;
      const dl = el("dl", {class: "details"});
      const add = (k, v, attrs) => { if (v !== null && v !== undefined && v !== "") dl.append(el("dt", {}, k), el("dd", attrs || {}, v)); };
      add("Payload", r.bytes === null || r.bytes === undefined ? "—" :
        el("span", {}, el("span", {class: "size-text", "data-over": over ? "true" : "false"}, fmt(r.bytes) + " / " + fmt(r.cap) + " bytes (" + pct + "%)"),
          el("div", {class: "size", "data-over": over ? "true" : "false"}, el("div", {style: "width:" + Math.min(100, pct) + "%"}))));
      if (platform === "ios") { add("Badge", r.badge); add("Category", r.category); add("Sound", r.sound); }
      else { add("Channel", r.channel); add("Summary", r.summary); }
      add("Image", r.image, {class: "image-url"});
      add("Deep link", r.deepLink, {class: "deep-link"});
      for (const [k, v] of r.keyValues || []) add(k, v, {class: "kv", "data-key": k});
      for (const [k, v] of Object.entries(r.messageExtras || {})) add("extra " + k, v, {class: "extra", "data-key": k});
      return dl;
    }

    // What a person sees cut: a one-line title with an ellipsis, a body past its lines.
    function markTruncation() {
      for (const e of document.querySelectorAll(".notif .title, .notif .subtitle, .notif .body")) {
        const cut = e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1;
        e.dataset.truncated = cut ? "true" : "false";
        if (cut) e.title = e.textContent;
      }
    }

    document.getElementById("campaign").addEventListener("change", e => {
      const name = e.target.value;
      if (embedded) { location.href = encodeURIComponent(name) + ".html"; return; }
      campaign = name;
      history.replaceState(null, "", "?campaign=" + encodeURIComponent(name));
      load();
    });

    if (embedded) {
      draw(JSON.parse(embedded.textContent));
    } else {
      load();
      const events = new EventSource("/api/events");
      events.onmessage = e => { if (shownVersion !== null && e.data !== shownVersion) load(); shownVersion = e.data; };
    }
    """#
}
