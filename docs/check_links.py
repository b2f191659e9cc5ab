"""Check every internal link of the built documentation site: the page exists and so does the anchor.

    python docs/check_links.py docs/_build/html

Every ``href`` and ``src`` of every HTML page is resolved against the page; a link to another site
(``http:``, ``https:``, ``mailto:``...) is left alone (the build machine may have no network). A link to a
missing file, or to an anchor (``#id``) that its target page does not define, is printed as
``page: link: problem``; the exit status is 1 when there is any. Sphinx's ``-W`` build already fails on a
broken cross-reference in the sources; this checks what was actually written, theme and generated pages
included.
"""

from __future__ import annotations

import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class _Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value is None:
                continue
            if name == "id" or (name == "name" and tag == "a"):
                self.ids.add(value)
            elif name in ("href", "src") and not (tag == "link" and name == "href" and value.startswith("http")):
                self.links.append(value)


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8", errors="replace"))
    return page


def check(site: Path) -> list[str]:
    """Broken internal links of the site under ``site``, one line each."""
    site = site.resolve()
    pages = {p.resolve(): _parse(p) for p in sorted(site.rglob("*.html"))}
    problems = []
    for path, page in pages.items():
        where = path.relative_to(site).as_posix()
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith("//"):
                continue  # another site, data:, mailto:, javascript:
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            if target.is_dir():
                target = target / "index.html"
            if not target.is_file():
                problems.append(f"{where}: {link}: no such file")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = pages[target].ids if target in pages else _parse(target).ids
                if unquote(parts.fragment) not in ids:
                    problems.append(f"{where}: {link}: no anchor #{parts.fragment} in {target.name}")
    return problems


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    site = Path(args[0] if args else "docs/_build/html")
    if not (site / "index.html").is_file():
        print(f"{site}: no index.html: build the site first (python -m sphinx -W -b html docs {site})")
        return 1
    problems = check(site)
    for line in problems:
        print(line)
    count = sum(1 for _ in site.rglob("*.html"))
    print(f"{site}: {count} pages, {len(problems)} broken internal link(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
