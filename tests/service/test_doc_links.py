"""Every relative link in README.md and docs/ leads somewhere: the file exists, and the
anchor (`page.md#a-heading`, or `#a-heading` in the same page) is one of its headings, as
GitHub makes them. Docs are moved and split (issue 37); a link left behind fails here.
No network: links with a scheme (https:, mailto:) are not followed."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
CODE = re.compile(r"`[^`\n]*`")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = FENCE.sub("", path.read_text())
    found, seen = set(), {}
    for heading in HEADING.findall(text):
        base = slug(heading)
        n = seen.get(base, 0)
        found.add(base if n == 0 else f"{base}-{n}")
        seen[base] = n + 1
    found |= set(re.findall(r'<a (?:name|id)="([^"]+)"', text))
    return found


def links(path: Path) -> list[str]:
    text = CODE.sub("", FENCE.sub("", path.read_text()))
    return LINK.findall(text)


def broken_links() -> list[str]:
    broken = []
    cache: dict[Path, set[str]] = {}
    for page in pages():
        for target in links(page):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                continue  # https:, mailto: ...: not checked here
            path_part, _, anchor = target.partition("#")
            dest = (page.parent / path_part).resolve() if path_part else page
            where = f"{page.relative_to(ROOT)}: ({target})"
            if not dest.exists():
                broken.append(f"{where}: no such file")
                continue
            if anchor and dest.suffix == ".md":
                if dest not in cache:
                    cache[dest] = anchors(dest)
                if anchor not in cache[dest]:
                    broken.append(f"{where}: no heading makes #{anchor}")
    return broken


def test_the_slug_of_a_heading_is_githubs():
    assert slug("The client's address") == "the-clients-address"
    assert slug("Several nodes: a standby, failover, routing") == (
        "several-nodes-a-standby-failover-routing"
    )
    assert slug("`manage.py simulate`") == "managepy-simulate"


def test_every_relative_link_and_anchor_in_the_docs_resolves():
    assert len(pages()) > 10
    assert sum(len(links(page)) for page in pages()) > 100, "the link pattern found no links"
    broken = broken_links()
    assert not broken, "links that lead nowhere:\n" + "\n".join(broken)
