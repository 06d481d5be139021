"""Code, project and paper URLs in abstracts, cleaned of the markup around them.

Abstracts write links as bare URLs, markdown links `[text](url)`, `\\url{...}` or
`\\href{url}{text}`, usually followed by sentence punctuation. The URL itself is what a
reader needs: the markup and the trailing `.` or `)` are not part of it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from urllib.parse import urlsplit

from bib.record import Link, LinkRole, Record, Span, Tag, TagKind, evolve

_URL = re.compile(
    r"\\(?:url|href)\s*\{(?P<tex>[^{}\s]+)\}"
    r"|\]\((?P<md>[^()\s]+(?:\([^()\s]*\)[^()\s]*)*)\)"
    r"|(?P<bare>(?:https?://|www\.|(?:github|gitlab)\.com/|huggingface\.co/)[^\s<>{}\[\]\"'`\\]+)",
    re.IGNORECASE,
)
_SLASH_HINTS = ("://", ".com/", ".co/", ".COM/")
"""With `www.` and `WWW.`: an abstract has a URL only if it has one of these (`/`, rare in
abstracts, is looked for first: a one-character test costs a tenth of a word's)."""
_STARTS = ("\\url", "\\href", "](", "http", "www.", "github.com/", "gitlab.com/", "huggingface.co/")
"""Where a `_URL` match can start, in lower case (the bare URLs need no word boundary)."""
_TRAILING = ".,;:!?'\"*_"
_CODE_HOSTS = ("github.com", "gitlab.com", "bitbucket.org", "huggingface.co", "hf.co",
               "codeberg.org", "sourceforge.net", "anonymous.4open.science")  # fmt: skip
_PAPER_HOSTS = ("arxiv.org", "doi.org", "dx.doi.org", "openreview.net", "aclanthology.org",
                "proceedings.mlr.press", "papers.nips.cc", "proceedings.neurips.cc",
                "openaccess.thecvf.com", "dl.acm.org", "ieeexplore.ieee.org")  # fmt: skip


@dataclass(frozen=True, slots=True)
class FoundURL:
    url: str
    role: LinkRole
    evidence: Span


_SCHEME = re.compile(r"https?://", re.IGNORECASE)


def clean(url: str) -> str:
    """A URL without trailing punctuation or unbalanced closing brackets; scheme added."""
    while url:
        if (
            url[-1] in _TRAILING
            or (url[-1] == ")" and url.count("(") < url.count(")"))
            or (url[-1] == "]" and url.count("[") < url.count("]"))
        ):
            url = url[:-1]
        else:
            break
    if not _SCHEME.match(url):
        url = "https://" + url
    return url


def _host(url: str) -> str:
    try:
        host = urlsplit(url).hostname or ""
    except ValueError:  # an unbalanced `[` reads as a broken IPv6 host: no known host then
        return ""
    return host.lower().removeprefix("www.")


def role(url: str) -> LinkRole:
    host = _host(url)
    if any(host == h or host.endswith("." + h) for h in _CODE_HOSTS):
        return LinkRole.CODE
    if any(host == h or host.endswith("." + h) for h in _PAPER_HOSTS) or url.lower().endswith(
        ".pdf"
    ):
        return LinkRole.PAPER
    return LinkRole.PROJECT


def find_urls(abstract: str) -> list[FoundURL]:
    """Every URL in the abstract once, in order of appearance."""
    if not (
        ("/" in abstract and any(hint in abstract for hint in _SLASH_HINTS))
        or "www." in abstract
        or "WWW." in abstract
    ):
        return []
    found: dict[str, FoundURL] = {}
    for match in _matches(abstract):
        group = "tex" if match.group("tex") else "md" if match.group("md") else "bare"
        url = clean(match.group(group))
        if url not in found:
            start = match.start(group)
            found[url] = FoundURL(
                url, role(url), (start, start + len(match.group(group).rstrip(_TRAILING)))
            )
    return list(found.values())


def _matches(abstract: str) -> list[re.Match[str]]:
    """`_URL.finditer`, trying the pattern only where a match can start: a regex scan
    without a literal prefix costs 10 ns a character, `str.find` for each start a tenth."""
    lowered = abstract.lower()
    if not abstract.isascii() and (
        len(lowered) != len(abstract) or "\u0131" in abstract or "\u017f" in abstract
    ):  # dotless i and long s match `i` and `s` case-insensitively: `find` would miss them
        return list(_URL.finditer(abstract))
    starts: list[int] = []
    for anchor in _STARTS:
        pos = lowered.find(anchor)
        while pos >= 0:
            starts.append(pos)
            pos = lowered.find(anchor, pos + 1)
    matches = []
    last_end = 0
    for start in sorted(starts):
        if start >= last_end:
            match = _URL.match(abstract, start)
            if match is not None:
                matches.append(match)
                last_end = match.end()
    return matches


def tag_urls(records: Iterable[Record]) -> Iterator[Record]:
    """Pipeline stage: add links (with roles) and CODE tags pointing at the URL's words."""
    for record in records:
        found = find_urls(record.abstract) if record.abstract else []
        if not found:
            yield record
            continue
        known = {link.url for link in record.links}
        links = tuple(Link(f.url, f.role) for f in found if f.url not in known)
        tags = tuple(
            Tag(TagKind.CODE, f.url, f.role.value, (f.evidence,))
            for f in found
            if f.role is LinkRole.CODE
        )
        yield evolve(record, links=(*record.links, *links), tags=(*record.tags, *tags))
