"""A local HTTP server answering as OpenReview API v2, the arXiv API and the Semantic Scholar
Graph API do, over the papers of `corpus.py`. It is strict: a request outside the documented
shape gets 400, so a client that drifts from the APIs fails its tests.

OpenReview (docs.openreview.net/how-to-guides/data-retrieval-and-modification/how-to-get-all-
submissions; api2.openreview.net/notes reference):
- `GET /notes` takes `content.venueid` (a venue id such as `ICML.cc/2026/Conference`) or `id`;
  `limit` at most 1000, `offset` an integer; the answer is `{"notes": [...], "count": N}`;
- every `content` field is wrapped: `{"title": {"value": "..."}, "authors": {"value": [...]}}`.
arXiv (info.arxiv.org/help/api/user-manual.html):
- `GET /api/query` with `search_query` (`prefix:term` joined by ` AND `; prefixes ti, au, abs,
  co, jr, cat, rn, id, all) or `id_list`; `start`, `max_results` at most 2000;
- the answer is an Atom 1.0 feed (`application/atom+xml`); entries have `id`
  (`http://arxiv.org/abs/<id>v<n>`), `title`, `summary`, `published`, `author/name`;
- a malformed query answers 400 with one entry whose id is `http://arxiv.org/api/errors#...`.
Semantic Scholar (api.semanticscholar.org/api-docs/graph):
- `GET /graph/v1/paper/search/match?query=&fields=` answers `{"data": [paper + matchScore]}`
  for the closest title, or 404 `{"error": "Title match not found"}`;
- `GET /graph/v1/paper/search?query=&fields=&limit=&offset=&year=`: `limit` at most 100,
  answers `{"total", "offset", "next" (only when more), "data": [...]}`;
- `GET /graph/v1/paper/{paper_id}` with `ARXIV:<id>`, `DOI:<doi>` or a paperId; 404 if unknown;
- without `fields` a paper has only `paperId` and `title`;
- 429 with `Retry-After` when a client goes too fast (`Faults.throttle`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit
from xml.sax.saxutils import escape

from rapidfuzz import fuzz

from bib.resolve.text import normalize
from tests.resolve.corpus import Paper

VENUE_ID = "ICML.cc/2026/Conference"
ARXIV_PREFIXES = {"ti", "au", "abs", "co", "jr", "cat", "rn", "id", "all"}


@dataclass
class Faults:
    """Misbehaviour to show: `throttle` 429s first, then `malformed` bodies, `down` 503s."""

    throttle: int = 0
    retry_after: str = "1"
    malformed: bool = False
    down: bool = False


@dataclass
class State:
    papers: list[Paper]
    faults: Faults = field(default_factory=Faults)
    requests: list[str] = field(default_factory=list)


def arxiv_id(paper: Paper) -> str:
    return paper.arxiv_id


def note(paper: Paper) -> dict[str, Any]:
    return {
        "id": paper.ident,
        "number": int("".join(c for c in paper.ident if c.isdigit()) or 0),
        "content": {
            "title": {"value": paper.title},
            "abstract": {"value": paper.abstract},
            "authors": {"value": list(paper.authors)},
            "venueid": {"value": VENUE_ID},
            "venue": {"value": "ICML 2026 Poster"},
        },
    }


def atom_entry(paper: Paper) -> str:
    authors = "".join(f"<author><name>{escape(a)}</name></author>" for a in paper.authors)
    return (
        f"<entry><id>http://arxiv.org/abs/{arxiv_id(paper)}v1</id>"
        f"<published>{paper.year}-05-01T00:00:00Z</published>"
        f"<title>{escape(paper.title)}</title><summary>{escape(paper.abstract)}</summary>"
        f"{authors}</entry>"
    )


def atom_feed(entries: list[str], total: int) -> str:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom">'
        f"<opensearch:totalResults>{total}</opensearch:totalResults>" + "".join(entries) + "</feed>"
    )


def s2_paper(paper: Paper, fields: str) -> dict[str, Any]:
    data: dict[str, Any] = {"paperId": f"s2{paper.ident}", "title": paper.title}
    if not fields:
        return data
    wanted = set(fields.split(","))
    full = {
        "abstract": paper.abstract,
        "authors": [{"authorId": str(n), "name": a} for n, a in enumerate(paper.authors)],
        "year": paper.year,
        "venue": "ICML" if paper.on_openreview else "arXiv.org",
        "externalIds": {"ArXiv": arxiv_id(paper)},
        "url": f"https://www.semanticscholar.org/paper/s2{paper.ident}",
    }
    data.update({k: v for k, v in full.items() if k in wanted})
    return data


class Handler(BaseHTTPRequestHandler):
    state: State

    def log_message(self, format: str, *args: Any) -> None:
        return

    def _send(self, status: int, body: str, kind: str = "application/json", **headers: str) -> None:
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers.items():
            self.send_header(name.replace("_", "-"), value)
        self.end_headers()
        self.wfile.write(data)

    def _json(self, status: int, value: Any) -> None:
        self._send(status, json.dumps(value))

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        self.state.requests.append(self.path)
        faults = self.state.faults
        if faults.down:
            return self._send(503, "down", "text/plain")
        if faults.throttle > 0:
            faults.throttle -= 1
            return self._send(
                429, "Too Many Requests", "text/plain", Retry_After=faults.retry_after
            )
        if faults.malformed:
            return self._send(200, "<html>maintenance</html>", "text/html")
        if url.path == "/openreview/notes":
            return self.openreview(query)
        if url.path == "/arxiv/api/query":
            return self.arxiv(query)
        if url.path.startswith("/s2/graph/v1/paper/"):
            return self.semanticscholar(url.path.removeprefix("/s2/graph/v1/paper/"), query)
        return self._json(404, {"error": f"no route {url.path}"})

    def openreview(self, query: dict[str, str]) -> None:
        allowed = {"content.venueid", "id", "limit", "offset"}
        if set(query) - allowed or not ({"content.venueid", "id"} & set(query)):
            return self._json(400, {"name": "ValidationError", "message": "bad parameters"})
        limit, offset = int(query.get("limit", "1000")), int(query.get("offset", "0"))
        if limit > 1000:
            return self._json(400, {"name": "ValidationError", "message": "limit must be <= 1000"})
        listed = [p for p in self.state.papers if p.on_openreview]
        if "id" in query:
            listed = [p for p in listed if p.ident == query["id"]]
        elif query["content.venueid"] != VENUE_ID:
            listed = []
        page = listed[offset : offset + limit]
        return self._json(200, {"notes": [note(p) for p in page], "count": len(listed)})

    def arxiv(self, query: dict[str, str]) -> None:
        if set(query) - {"search_query", "id_list", "start", "max_results", "sortBy", "sortOrder"}:
            return self._send(400, atom_feed([], 0), "application/atom+xml")
        count = int(query.get("max_results", "10"))
        if count > 2000:
            return self._send(400, atom_feed([], 0), "application/atom+xml")
        listed = [p for p in self.state.papers if p.on_arxiv]
        if "id_list" in query:
            wanted = set(query["id_list"].split(","))
            hits = [p for p in listed if arxiv_id(p) in wanted]
        else:
            terms = []
            for part in query.get("search_query", "").split(" AND "):
                prefix, _, term = part.partition(":")
                if prefix not in ARXIV_PREFIXES or not term:
                    error = "<entry><id>http://arxiv.org/api/errors#incorrect_query</id></entry>"
                    return self._send(400, atom_feed([error], 1), "application/atom+xml")
                terms.append((prefix, normalize(term.strip('"'))))
            hits = [p for p in listed if all(_arxiv_has(p, pre, t) for pre, t in terms)]
        start = int(query.get("start", "0"))
        entries = [atom_entry(p) for p in hits[start : start + count]]
        return self._send(200, atom_feed(entries, len(hits)), "application/atom+xml")

    def semanticscholar(self, rest: str, query: dict[str, str]) -> None:
        fields = query.get("fields", "")
        if rest == "search/match":
            scored = sorted(
                (
                    (fuzz.ratio(normalize(query.get("query", "")), normalize(p.title)), p)
                    for p in self.state.papers
                ),
                key=lambda pair: -pair[0],
            )
            if not scored or scored[0][0] < 80:
                return self._json(404, {"error": "Title match not found"})
            best = {**s2_paper(scored[0][1], fields), "matchScore": scored[0][0]}
            return self._json(200, {"data": [best]})
        if rest == "search":
            limit = int(query.get("limit", "100"))
            if limit > 100:
                return self._json(400, {"error": "limit must be <= 100"})
            terms = set(normalize(query.get("query", "")).split())
            ranked = sorted(
                self.state.papers,
                key=lambda p: -len(terms & set(normalize(p.title + " " + p.abstract).split())),
            )
            offset = int(query.get("offset", "0"))
            page = ranked[offset : offset + limit]
            answer: dict[str, Any] = {"total": len(ranked), "offset": offset}
            if offset + limit < len(ranked):
                answer["next"] = offset + limit
            answer["data"] = [s2_paper(p, fields) for p in page]
            return self._json(200, answer)
        for paper in self.state.papers:
            if rest in (f"ARXIV:{arxiv_id(paper)}", f"s2{paper.ident}"):
                return self._json(200, s2_paper(paper, fields))
        return self._json(404, {"error": "Paper not found"})


def _arxiv_has(paper: Paper, prefix: str, term: str) -> bool:
    text = {"ti": paper.title, "abs": paper.abstract, "au": " ".join(paper.authors)}.get(
        prefix, f"{paper.title} {paper.abstract}"
    )
    return f" {term} " in f" {normalize(text)} "


def serve(papers: list[Paper]) -> Iterator[tuple[str, State]]:
    """A running server and its state, until the generator is closed."""
    state = State(papers)
    handler = type("BoundHandler", (Handler,), {"state": state})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", state
    finally:
        server.shutdown()
        server.server_close()
