"""What the store's two pages share: a page is written as STEM.md,
STEM.html (self-contained) and STEM-<id>.png beside them, older pictures
removed first, and each missing library said on the page instead."""

from __future__ import annotations

import base64
import re
from pathlib import Path
from typing import Callable, Sequence

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


_HTML = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{ title }}</title>
<style>
body { font-family: system-ui, -apple-system, "Segoe UI", "DejaVu Sans", sans-serif; margin: 0; color: #1d1d1d;
  line-height: 1.45; }
main { max-width: 1200px; margin: 0 auto; padding: 1em 1.5em 4em; }
h1 { font-size: 1.5em; }
h2 { border-bottom: 1px solid #d8dde5; padding-bottom: 0.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.6em 0 1em; font-size: 0.88em; display: block; overflow-x: auto; }
th, td { border: 1px solid #d8dde5; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
th { background: #f3f5f8; }
.note { color: #6a3d00; font-style: italic; }
figure { margin: 1em 0 1.5em; }
figure img { max-width: 100%; height: auto; border: 1px solid #e1e4e8; }
figcaption { font-size: 0.88em; color: #444; }
code { background: #f3f5f8; padding: 0 0.2em; }
</style>
</head>
<body>
<main>
<h1>{{ heading }}</h1>
{% for head, text in sections %}
{% if head %}<h2>{{ head }}</h2>{% endif %}
{{ text | md }}
{% endfor %}
{% if notes %}<h2>Notes</h2>
<ul class="note">{% for n in notes %}<li>{{ n | mdi }}</li>{% endfor %}</ul>{% endif %}
{% if figures or no_pictures %}<h2>Pictures</h2>{% endif %}
{% for f in figures %}<figure id="{{ f.id }}"><img src="{{ f.path | datauri }}" alt="{{ f.title }}">
<figcaption>{{ f.caption }}</figcaption></figure>
{% else %}{% if no_pictures %}<p>{{ no_pictures }}</p>{% endif %}
{% endfor %}
</main>
</body>
</html>
"""


def html(
    title: str, heading: str, sections: list, figures: Sequence = (), notes: Sequence = (), no_pictures: str = ""
) -> str:
    """One self-contained page: sections are (heading, Markdown) pairs, the
    pictures inline as data URIs. Raises ImportError without jinja2 or
    markdown-it-py."""
    # optional, for the HTML pages only
    import jinja2
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": False}).enable("table")
    env = jinja2.Environment(autoescape=True, undefined=jinja2.StrictUndefined)
    env.filters["md"] = lambda text: jinja2.utils.markupsafe.Markup(md.render(text))
    env.filters["mdi"] = lambda text: jinja2.utils.markupsafe.Markup(md.renderInline(text))
    env.filters["datauri"] = lambda path: "data:image/png;base64," + base64.b64encode(Path(path).read_bytes()).decode()
    return env.from_string(_HTML).render(
        title=title,
        heading=heading,
        sections=list(sections),
        figures=list(figures),
        notes=list(notes),
        no_pictures=no_pictures,
    )
