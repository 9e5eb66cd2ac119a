#!/usr/bin/env python3
"""The studio in a real browser: Debian's chromium, headless, driven through chromedriver by
Selenium. It opens `pushliquid studio` on a copy of the bundled workspace and checks what a
person would see: texts, each platform's truncation, the recipient that aborts (with its
position), the one over the payload cap, the capture form's validation and actions, a match
game played to a win, and the page redrawing by itself when a campaign, content block, profile
or offline answer is saved. The static export is opened from disk too.

    scripts/studio-browser-test.py PUSHLIQUID_BINARY ARTIFACTS_DIR

Screenshots of each state go to ARTIFACTS_DIR; the figures (seconds from saving a file to the
page showing it) are printed. Exit 1 on the first check that fails.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

ROOT = Path(__file__).resolve().parent.parent
BINARY = Path(sys.argv[1]).resolve()
ARTIFACTS = Path(sys.argv[2]).resolve()
ARTIFACTS.mkdir(parents=True, exist_ok=True)
for old in ARTIFACTS.glob("*.png"):
    old.unlink()

checks = 0


def check(condition, message):
    global checks
    checks += 1
    if not condition:
        print(f"studio-browser-test: FAILED: {message}", file=sys.stderr)
        try:
            shot("failure")
        except Exception:
            pass
        sys.exit(1)


def wait_for(predicate, timeout=10.0, what="the page"):
    """Polls `predicate` until it returns something truthy; the value, or a failure."""
    end = time.monotonic() + timeout
    last = None
    while time.monotonic() < end:
        try:
            last = predicate()
            if last:
                return last
        except Exception as e:  # an element redrawn under our feet: ask again
            last = e
        time.sleep(0.02)
    check(False, f"timed out waiting for {what} (last: {last!r})")


shots = 0


def shot(name):
    global shots
    shots += 1
    path = ARTIFACTS / f"{shots:02d}-{name}.png"
    driver.save_screenshot(str(path))
    return path


# A copy of the bundled workspace: the test edits its files.
work = Path(tempfile.mkdtemp(prefix="studio-test-"))
for folder in ["Templates", "Profiles", "Catalogs", "PromotionCodes"]:
    shutil.copytree(ROOT / folder, work / folder, ignore=shutil.ignore_patterns("*.used"))

server = subprocess.Popen([str(BINARY), "studio", str(work), "--port", "0"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
url = server.stdout.readline().strip()
if not url.startswith("http://127.0.0.1:"):
    print(f"studio-browser-test: the studio did not start: {url} {server.stderr.read()}", file=sys.stderr)
    sys.exit(1)

options = Options()
for a in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1700,1300",
          "--hide-scrollbars", "--lang=en-US"]:
    options.add_argument(a)
options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
driver = webdriver.Chrome(options=options, service=Service(shutil.which("chromedriver") or "/usr/bin/chromedriver"))
started = time.monotonic()
figures = {}

try:
    def q(css, root=None):
        return (root or driver).find_element(By.CSS_SELECTOR, css)

    def qa(css, root=None):
        return (root or driver).find_elements(By.CSS_SELECTOR, css)

    def platform(profile, name):
        return q(f'.profile[data-profile="{profile}"] .platform[data-platform="{name}"]')

    def open_campaign(name):
        driver.get(url + "?campaign=" + name)
        wait_for(lambda: driver.execute_script("return document.body.dataset.campaign") == name and len(qa(".profile")) == 5,
                 what=f"{name} with five profiles")
        # (Truncation is measured on the next frame.)
        wait_for(lambda: all(e.get_attribute("data-truncated") for e in qa(".notif .title")), what="truncation marks")

    # 1. The learning-progress campaign: texts, the content view, the recipient that aborts.
    open_campaign("learning-progress")
    ana_ios = platform("ana", "ios")
    check(q(".notif .title", ana_ios).text == "Ana, you're 66% through!", "ana's iOS title")
    check("Next up: Canvas Flows, due Jul 4." in q(".notif .body", ana_ios).text, "ana's iOS body")
    check(q(".progress-percent", ana_ios).text == "66%", "the progress card's percent")
    check("4 of 6 sessions" in q(".progress-summary", ana_ios).text, "the progress card's summary")
    chloe = platform("chloe-no-course", "ios")
    check(chloe.get_attribute("data-status") == "aborted", "chloe's message aborts")
    note = q(".abort", chloe).text
    check("Aborted in title: no course in progress" in note, f"the abort's reason: {note}")
    check("Templates/learning-progress.yml:3:" in q(".place", chloe).text, f"the abort's position: {q('.place', chloe).text}")
    check(q(".size-text", ana_ios).text.startswith("437 / 3,960 bytes"), f"ana's iOS payload size: {q('.size-text', ana_ios).text}")
    shot("learning-progress")

    # 2. information-capture: the profile over the payload cap is flagged; truncation per platform.
    open_campaign("information-capture")
    for name in ["ios", "android"]:
        over = platform("dmitri-oversized", name)
        check(over.get_attribute("data-status") == "over_cap", f"dmitri's {name} payload is flagged over the cap")
        check("Over the size cap" in q(".overcap", over).text, "the over-cap note")
        check(q(".size-text", over).get_attribute("data-over") == "true", "the size shows red")
    check(q(".overcap", platform("dmitri-oversized", "ios")).text.startswith("Over the size cap: 4,868 of 3,960 bytes"), "the over-cap figures")
    check(platform("ana", "ios").get_attribute("data-status") == "rendered", "ana renders")
    # iOS cuts the title at one line; Android cuts the body at one line while iOS shows four.
    check(q(".notif .title", platform("dmitri-oversized", "ios")).get_attribute("data-truncated") == "true", "dmitri's long iOS title is cut")
    check(q(".notif .title", platform("ana", "ios")).get_attribute("data-truncated") == "false", "ana's iOS title fits")
    check(q(".notif .body", platform("ana", "android")).get_attribute("data-truncated") == "true", "ana's Android body is cut at one line")
    check(q(".notif .body", platform("ana", "ios")).get_attribute("data-truncated") == "false", "ana's iOS body fits in four lines")
    check(q(".notif .body", platform("dmitri-oversized", "ios")).get_attribute("data-truncated") == "true", "dmitri's iOS body is cut at four lines")
    shot("information-capture")

    # 3. The capture form: a bad address, then a good one, then Register.
    bo = platform("bo-missing-attributes", "ios")
    field = q(".capture-input", bo)
    check(field.get_attribute("value") == "", "bo's form starts empty")
    field.send_keys("bo.example.com")
    wait_for(lambda: q(".capture-status", bo).get_attribute("data-valid") == "false" and "not a valid" in q(".capture-status", bo).text,
             what="the bad address refused")
    check(q('.action[data-action="REGISTER_ACTION"]', bo).get_attribute("disabled") is not None, "Register is off for a bad address")
    shot("capture-invalid")
    field.clear()
    field.send_keys("bo@example.com")
    wait_for(lambda: q(".capture-status", bo).get_attribute("data-valid") == "true", what="the good address accepted")
    register = q('.action[data-action="REGISTER_ACTION"]', bo)
    check(register.get_attribute("disabled") is None, "Register is on for a good address")
    shot("capture-valid")
    register.click()
    wait_for(lambda: q(".capture-confirmed", bo).text == "Saved: bo@example.com", what="the address saved")
    shot("capture-registered")

    # 4. The match game, played to a win (the cards' symbols are on the buttons).
    open_campaign("match-game")
    game = platform("ana", "ios")
    cards = qa(".card", game)
    check(len(cards) == 6, "three pairs")
    by_symbol = {}
    for card in cards:
        by_symbol.setdefault(card.get_attribute("data-symbol"), []).append(card.get_attribute("data-index"))
    check(sorted(len(v) for v in by_symbol.values()) == [2, 2, 2], f"each symbol twice: {by_symbol}")
    # A miss first (shown, then turned back), then every pair.
    symbols = list(by_symbol)
    q(f'.card[data-index="{by_symbol[symbols[0]][0]}"]', game).click()
    q(f'.card[data-index="{by_symbol[symbols[1]][0]}"]', game).click()
    check(q(".turns", game).text.startswith("Turn 1 of 8"), "a miss is a turn")
    shot("game-miss")
    for symbol in symbols:
        for index in by_symbol[symbol]:
            q(f'.card[data-index="{index}"]', game).click()
    wait_for(lambda: q(".game-status", game).get_attribute("data-status") == "won", what="the game won")
    check(q(".game-status", game).text == "You won! +75 points", f"the win: {q('.game-status', game).text}")
    check(all(c.get_attribute("data-matched") == "true" for c in qa(".card", game)), "every card matched")
    shot("game-won")

    # 5. Saving files redraws the open page by itself.
    def live(campaign, path, change, done, what):
        open_campaign(campaign)
        version = driver.execute_script("return document.body.dataset.version")
        file = work / path
        text = file.read_text(encoding="utf-8")
        saved = time.monotonic()
        file.write_text(change(text), encoding="utf-8")
        wait_for(lambda: driver.execute_script("return document.body.dataset.version") != version and done(), what=what)
        seconds = time.monotonic() - saved
        figures[what] = seconds
        return seconds

    live("learning-progress", "Templates/learning-progress.yml",
         lambda t: t.replace("you're {{", "you are now {{"),
         lambda: q(".notif .title", platform("ana", "ios")).text == "Ana, you are now 66% through!", "a campaign saved")
    shot("live-campaign")
    live("learning-progress", "Templates/content_blocks/signature.liquid",
         lambda t: t.replace("Bons estudos!", "Bom trabalho!"),
         lambda: "Bom trabalho!" in q(".notif .body", platform("ana", "ios")).text, "a content block saved")
    live("learning-progress", "Profiles/ana.json",
         lambda t: t.replace('"first_name": "ana"', '"first_name": "anabela"'),
         lambda: q(".notif .title", platform("ana", "ios")).text.startswith("Anabela,"), "a profile saved")
    live("coffee-punch-card", "Templates/connected_content.json",
         lambda t: t.replace("Pastel de nata latte", "Bica"),
         lambda: "Today: Bica." in q(".notif .body", platform("ana", "ios")).text, "an offline answer saved")
    # A 150-character title: iOS shows one line and cuts it.
    long_title = "A very long title about your learning progress that no lock screen shows whole, " * 2
    live("match-game", "Templates/match-game.yml",
         lambda t: t.replace('title: "Match the pairs, ', f'title: "{long_title[:140]} '),
         lambda: q(".notif .title", platform("ana", "ios")).get_attribute("data-truncated") == "true", "a long title saved")
    shot("live-long-title")
    # A campaign saved broken shows its error, at its position; fixed, it renders again.
    broken = (work / "Templates/match-game.yml").read_text(encoding="utf-8")
    live("match-game", "Templates/match-game.yml", lambda t: t.replace("{{${first_name}", "{{${first_name", 1),
         lambda: len(qa("#campaign-error")) == 1, "a broken campaign saved")
    error_text = q("#campaign-error").text
    check("Templates/match-game.yml:" in error_text and "error" in error_text, f"the campaign's error with its position: {error_text}")
    shot("live-broken-campaign")
    (work / "Templates/match-game.yml").write_text(broken, encoding="utf-8")
    wait_for(lambda: len(qa("#campaign-error")) == 0 and len(qa(".profile")) == 5, what="the campaign fixed")

    # 6. The static export, opened from disk: the same page, with its snapshot inside.
    export = Path(tempfile.mkdtemp(prefix="studio-export-"))
    subprocess.run([str(BINARY), "studio", str(work), "--export", str(export)], check=True, capture_output=True)
    check(sorted(p.name for p in export.glob("*.html")) ==
          sorted([p.stem + ".html" for p in (work / "Templates").glob("*.yml")] + ["index.html"]), "a page per campaign and an index")
    driver.get((export / "information-capture.html").as_uri())
    wait_for(lambda: len(qa(".profile")) == 5, what="the exported page")
    check(driver.execute_script("return document.body.dataset.version") == "export", "the export carries its snapshot")
    check(platform("dmitri-oversized", "ios").get_attribute("data-status") == "over_cap", "the export flags the over-cap profile")
    field = q(".capture-input", platform("bo-missing-attributes", "ios"))
    field.send_keys("nope")
    wait_for(lambda: q(".capture-status", platform("bo-missing-attributes", "ios")).get_attribute("data-valid") == "false", what="export validation")
    shot("export")
finally:
    elapsed = time.monotonic() - started
    driver.quit()
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
    shutil.rmtree(work, ignore_errors=True)

print(f"studio-browser-test: {checks} checks passed in {elapsed:.1f} s; {shots} screenshots in {ARTIFACTS}")
for what, seconds in figures.items():
    print(f"studio-browser-test: {what}: page redrawn {seconds * 1000:.0f} ms after the save")
print("studio-browser-test: figures " + json.dumps({k: round(v * 1000) for k, v in figures.items()}))
