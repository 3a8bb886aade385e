"""The HTML report as a browser shows it: headless Chromium (Debian's chromium and
chromium-driver, installed by `make test-tools`) opens a real report from the file system,
and the test fails on a broken image, a broken link, a resource fetched from the network or
a console error. A screenshot is saved to build/test-artifacts/report.png."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
from click.testing import CliRunner

from dcsim.cli import main

REPO = Path(__file__).resolve().parents[2]
SCREENSHOT = REPO / "build" / "test-artifacts" / "report.png"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")


@pytest.fixture(scope="module")
def report_dir(readme_workdir: Path) -> Path:
    """The report a new user gets from the README's first command (every experiment, quick
    scale), rebuilt by `dcsim report` as a user would."""
    out = readme_workdir / "dcsim-results"
    result = CliRunner().invoke(main, ["report", str(out)])
    assert result.exit_code == 0, result.output
    return out


def _claims(out: Path) -> dict[str, list[dict]]:
    return {p.parent.name: json.loads(p.read_text())["claims"] for p in out.glob("*/summary.json")}


def failing_experiments(out: Path) -> list[str]:
    """The experiments with a claim that does not hold, from their summary.json files."""
    return sorted(e for e, claims in _claims(out).items() if any(c["holds"] is not True for c in claims))


def failing_claims(out: Path) -> int:
    return sum(c["holds"] is not True for claims in _claims(out).values() for c in claims)


@pytest.fixture(scope="module")
def browser():
    if not (CHROMIUM and CHROMEDRIVER):
        pytest.fail("chromium and chromedriver are needed: run `make test-tools`")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1800"):
        options.add_argument(arg)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def test_report_renders_with_no_broken_image_link_or_console_error(report_dir: Path, browser):
    index = report_dir / "index.html"
    browser.get(index.as_uri())
    assert browser.execute_script("return document.readyState") == "complete"
    assert browser.title == "dcsim reproduction report"

    images = browser.execute_script("return Array.from(document.images).map(i => [i.src, i.complete && i.naturalWidth > 0])")
    assert len(images) >= 2, "the experiments' plots are missing"
    broken = [src for src, ok in images if not ok]
    assert not broken, f"broken images: {broken}"
    # A plot of panels side by side gets the page's width, not the 34rem (544 px) of one plot.
    wide = browser.execute_script(
        "return Array.from(document.images).filter(i => i.naturalWidth > 1.6 * i.naturalHeight)"
        ".map(i => [i.src, i.clientWidth, i.naturalWidth])"
    )
    assert wide, "the quick suite has multi-panel plots"
    for src, shown, natural in wide:
        assert shown >= min(natural, 1000), f"{src}: {shown} px wide of its {natural}"

    hrefs = browser.execute_script("return Array.from(document.querySelectorAll('a[href]')).map(a => a.href)")
    assert hrefs
    for href in hrefs:
        url = urlparse(href)
        assert url.scheme == "file", f"the report links off the file system: {href}"
        target = Path(unquote(url.path))
        assert target.is_file(), f"broken link: {href}"
        if url.fragment:
            found = browser.execute_script("return document.getElementById(arguments[0]) !== null", unquote(url.fragment))
            assert found, f"broken anchor: {href}"

    # Self-contained: every resource the page loaded came from the results directory.
    resources = browser.execute_script("return performance.getEntriesByType('resource').map(r => r.name)")
    external = [r for r in resources if not r.startswith("file://")]
    assert not external, f"fetched from the network: {external}"

    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not errors, f"console errors: {errors}"

    # What a reader sees first: the per-paper tally, then one line per claim that does not
    # hold, naming its experiment (the summaries say which).
    body = browser.find_element("tag name", "body").text
    assert "claims hold" in body
    listed = browser.execute_script("return Array.from(document.querySelectorAll('ul.failing > li > a')).map(a => a.textContent)")
    assert listed == sorted(listed, key=listed.index)  # grouped by experiment
    assert sorted(set(listed)) == failing_experiments(report_dir)
    assert len(listed) == failing_claims(report_dir)

    SCREENSHOT.parent.mkdir(parents=True, exist_ok=True)
    height = browser.execute_script("return document.body.scrollHeight")
    browser.set_window_size(1400, min(int(height) + 100, 12000))
    assert browser.save_screenshot(str(SCREENSHOT))
    assert SCREENSHOT.stat().st_size > 10_000


def test_a_missing_plot_is_caught(report_dir: Path, tmp_path: Path, browser):
    # The check above must be able to fail: the same report with one plot deleted.
    copy = tmp_path / "copy"
    shutil.copytree(report_dir, copy)
    next(copy.glob("*/*.png")).unlink()
    browser.get((copy / "index.html").as_uri())
    images = browser.execute_script("return Array.from(document.images).map(i => i.complete && i.naturalWidth > 0)")
    assert images.count(False) == 1
