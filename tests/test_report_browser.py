"""report.html in a real browser: Debian's headless Chromium, driven through
the DevTools protocol over a pipe (--remote-debugging-pipe: no port, no
websocket). The page must load without a console error, every picture must
decode, the headline findings must be on screen above the first round's
tables, and a screenshot must not be blank."""

from __future__ import annotations

import base64
import io
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from test_report import suite_text

from roundbench.results import benchfmt
from roundbench.report import document

BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser")
LIMIT_S = 60


def _browser() -> str | None:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


class DevTools:
    """A DevTools protocol session over the browser's pipe: messages are JSON
    texts ended by a NUL byte, written to its fd 3 and read from its fd 4."""

    def __init__(self, binary: str, profile: Path):
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()
        # The browser reads fd 3 and writes fd 4; the pipe ends are moved
        # there in the child (high copies first, so neither is overwritten).
        hi_r = os.dup(to_browser_r) if to_browser_r in (3, 4) else to_browser_r
        hi_w = os.dup(from_browser_w) if from_browser_w in (3, 4) else from_browser_w

        def place() -> None:
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        args = [
            binary,
            "--headless=new" if not binary.endswith("headless-shell") else "--headless",
            "--remote-debugging-pipe",
            "--disable-gpu",
            "--no-first-run",
            "--no-default-browser-check",
            "--window-size=1280,1000",
            f"--user-data-dir={profile}",
            "about:blank",
        ]
        if os.geteuid() == 0:
            args.insert(1, "--no-sandbox")  # Chromium refuses to run as root with its sandbox
        self.proc = subprocess.Popen(
            args,
            pass_fds=(3, 4),
            preexec_fn=place,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for fd in {to_browser_r, from_browser_w, hi_r, hi_w}:
            os.close(fd)
        self._buf = b""
        self._id = 0
        self.events: list = []
        self.session = None

    def _read_one(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the browser did not answer in time")
            ready, _, _ = select.select([self._from_browser], [], [], left)
            if ready:
                chunk = os.read(self._from_browser, 1 << 16)
                if not chunk:
                    err = self.proc.stderr.read().decode(errors="replace")[-2000:] if self.proc.stderr else ""
                    raise RuntimeError(f"the browser closed its pipe: {err}")
                self._buf += chunk
        msg, _, self._buf = self._buf.partition(b"\0")
        return json.loads(msg)

    def call(self, method: str, params: dict | None = None, session: bool = True) -> dict:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session and self.session:
            msg["sessionId"] = self.session
        os.write(self._to_browser, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + LIMIT_S
        while True:
            m = self._read_one(deadline)
            if m.get("id") == self._id:
                if "error" in m:
                    raise RuntimeError(f"{method}: {m['error']}")
                return m.get("result", {})
            self.events.append(m)

    def wait_for(self, method: str) -> dict:
        deadline = time.monotonic() + LIMIT_S
        for m in self.events:
            if m.get("method") == method:
                return m
        while True:
            m = self._read_one(deadline)
            self.events.append(m)
            if m.get("method") == method:
                return m

    def evaluate(self, expression: str):
        got = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in got:
            raise AssertionError(f"{expression}: {got['exceptionDetails']}")
        return got["result"].get("value")

    def close(self) -> None:
        try:
            self.call("Browser.close", session=False)
        except (RuntimeError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self._to_browser)
        os.close(self._from_browser)


def _console_errors(events: list) -> list:
    out = []
    for m in events:
        p = m.get("params", {})
        if m.get("method") == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert"):
            out.append(" ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", [])))
        elif m.get("method") == "Runtime.exceptionThrown":
            details = p.get("exceptionDetails", {})
            out.append(f"{details.get('text', '')} {details.get('exception', {}).get('description', '')}".strip())
        elif m.get("method") == "Log.entryAdded" and p.get("entry", {}).get("level") == "error":
            out.append(p["entry"].get("text", "error"))
    return out


def open_page(binary: str, html: Path, profile: Path) -> tuple:
    """(DevTools session on the loaded page, the events so far)."""
    dt = DevTools(binary, profile)
    try:
        target = dt.call("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        dt.session = dt.call("Target.attachToTarget", {"targetId": target, "flatten": True}, session=False)["sessionId"]
        for domain in ("Page", "Runtime", "Log"):
            dt.call(f"{domain}.enable")
        dt.call("Page.navigate", {"url": html.resolve().as_uri()})
        dt.wait_for("Page.loadEventFired")
    except BaseException:
        dt.close()
        raise
    return dt


@pytest.fixture(scope="module")
def browser() -> str:
    binary = _browser()
    if binary is None:
        pytest.skip(
            "no Chromium here (Debian's chromium-headless-shell or chromium; make setup installs it): "
            "report.html was not opened in a browser"
        )
    return binary


def test_report_html_in_a_browser(browser, tmp_path):
    (tmp_path / "results.txt").write_text(suite_text())
    document.write_report(tmp_path)
    html = tmp_path / "report.html"
    doc = document.build(benchfmt.read_dir(tmp_path), "x")
    dt = open_page(browser, html, tmp_path / "profile")
    try:
        # every picture decodes, at its own size
        decoded = dt.evaluate(
            "Promise.all(Array.from(document.images).map(i => i.decode().then("
            "() => [i.naturalWidth, i.naturalHeight], () => null)))"
        )
        assert decoded and len(decoded) == len(list(tmp_path.glob("report-*.png")))
        assert all(d and d[0] > 100 and d[1] > 100 for d in decoded), decoded
        # the findings are on screen (rendered, not hidden, with their text),
        # and above the first round's tables, after the verdict and the score
        shown = dt.evaluate(
            "Array.from(document.querySelectorAll('#findings li')).map(li => {"
            " const r = li.getBoundingClientRect(), s = getComputedStyle(li);"
            " return [r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none',"
            " li.innerText]; })"
        )
        assert len(shown) == len(doc.findings) >= 5
        for (visible, text), f in zip(shown, doc.findings):
            assert visible, text
            # the level first, then the sentence
            assert text.startswith(f"{f.level_title}: " + f.text.replace("`", "")[:40]), (text, f.text)
        tops = dt.evaluate(
            "['verdict', 'score', 'findings', 'claims', 'round-loop'].map("
            "id => document.getElementById(id).getBoundingClientRect().top + window.scrollY)"
        )
        assert tops == sorted(tops), tops
        assert dt.evaluate("document.querySelector('nav.toc').innerText").count("\n") >= 8
        # a screenshot with something on it
        shot = base64.b64decode(dt.call("Page.captureScreenshot", {"format": "png"})["data"])
        import matplotlib.image

        px = matplotlib.image.imread(io.BytesIO(shot), format="png")
        assert px.shape[0] >= 500 and px.shape[1] >= 800, px.shape
        assert px[..., :3].std() > 0.05, "the screenshot is blank"
        assert (px[..., :3].reshape(-1, 3) < 0.3).all(axis=1).mean() > 0.002, "no dark text on the screenshot"
        # no console error, no failed load, no exception
        assert _console_errors(dt.events) == []
    finally:
        dt.close()


def test_the_browser_test_sees_a_broken_page(browser, tmp_path):
    """The checks above can fail: a picture that does not decode and a
    script error are both seen."""
    page = tmp_path / "broken.html"
    page.write_text(
        "<!doctype html><html><body><p id='x'>x</p>"
        "<img src='data:image/png;base64,bm90IGEgcG5n'><script>undefined_function()</script></body></html>"
    )
    dt = open_page(browser, page, tmp_path / "profile")
    try:
        assert dt.evaluate(
            "Promise.all(Array.from(document.images).map(i => i.decode().then(() => true, () => false)))"
        ) == [False]
        errors = _console_errors(dt.events)
        assert any("undefined_function" in e or "ReferenceError" in e for e in errors), errors
    finally:
        dt.close()
