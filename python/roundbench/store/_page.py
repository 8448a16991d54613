"""What the store's two pages share: a page is written as STEM.md,
STEM.html (self-contained) and STEM-<id>.png beside them, older pictures
removed first, and each missing library said on the page instead."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Callable

EXTRA = "pip install 'roundbench[report]'"


def write(out_dir, stem: str, draw: Callable, html: Callable, md: Callable, notes: list) -> list:
    """draw(out_dir) -> (figures, notes) raises ImportError without
    matplotlib; html(figures, notes) raises it without jinja2 or
    markdown-it; md(figures, notes) always writes. Returns the page's
    paths, the Markdown first."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    mine = re.compile(re.escape(stem) + r"-[a-z0-9-]+\.png")
    for old in out_dir.glob(f"{stem}-*.png"):
        if mine.fullmatch(old.name):
            old.unlink()  # an older picture would contradict this page
    figures: list = []
    try:
        figures, left = draw(out_dir)
        notes += left
    except ImportError as e:
        notes.append(f"no pictures: {e.name} is not installed ({EXTRA})")
    md_path, html_path = out_dir / f"{stem}.md", out_dir / f"{stem}.html"
    paths = [md_path]
    try:
        html_path.write_text(html(figures, notes), encoding="utf-8")
        paths.append(html_path)
    except ImportError as e:
        html_path.unlink(missing_ok=True)  # an older page would contradict this one
        notes.append(f"no {stem}.html: {e.name} is not installed ({EXTRA})")
    md_path.write_text(md(figures, notes), encoding="utf-8")
    return paths + [Path(f.path) for f in figures]
