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
- `POST /graph/v1/paper/batch?fields=` with the JSON body `{"ids": [...]}`, at most 500 ids
  (400 beyond), answers a list in the order of the ids with `null` for an unknown id;
- 429 with `Retry-After` when a client goes too fast (`Faults.throttle`).
arXiv search queries may also OR parenthesized groups: `(abs:a AND abs:b) OR (abs:c)`
(user manual, "Boolean operators" and "grouping"); an unbalanced or empty group is 400.
OpenAlex (developers.openalex.org/api-reference/works, /api-reference/authentication):
- `GET /works` takes `search`, `filter` (`name:value` pairs joined by commas; here
  `publication_year:A-B`), `per_page` (1-200), `page`, `api_key`, `mailto`; unknown
  parameters or filters are 400 `{"error", "message"}`;
- answers `{"meta": {"count", "db_response_time_ms", "page", "per_page"}, "results": [...]}`;
  a work: `id` `https://openalex.org/W...`, `doi` `https://doi.org/...` or null,
  `display_name`, `title`, `publication_year`, `authorships[].author.display_name`,
  `primary_location.source.display_name`; `GET /works/doi:10...` one work or 404.
Crossref (api.crossref.org/swagger-ui, works; the rest-api-doc README):
- `GET /works` takes `query.bibliographic`, `rows` (at most 1000), `offset`, `filter`
  (`from-pub-date:Y,until-pub-date:Y`), `mailto`, `select`; otherwise 400
  `{"status": "failed", "message-type": "validation-failure", "message": [...]}`;
- answers `{"status": "ok", "message-type": "work-list", "message-version": "1.0.0",
  "message": {"total-results", "items-per-page", "items": [...]}}`; an item has `DOI`,
  `title` and `container-title` as lists, `author` [`given`, `family`], `issued.date-parts`.
DBLP (dblp.org/faq/How+to+use+the+dblp+search+API.html):
- `GET /search/publ/api` takes `q`, `format` (`xml`, `json`, `jsonp`), `h` (at most 1000),
  `f`, `c`; every word of `q` must occur in the record (a keyword AND search);
- answers `{"result": {"query", "status": {"@code": "200", "text": "OK"}, "time",
  "hits": {"@total", "@computed", "@sent", "@first", "hit": [...]}}}`, with no `hit` key
  when nothing matched; all numbers are strings; `info.authors.author` is a list, or one
  object for a single author; titles end with a period.
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
    malformed_under: str = ""
    """Only paths under this prefix answer malformed bodies (one source misbehaving)."""
    down_after: int | None = None
    """Answer this many requests, then 503 to every one (a run cut off midway)."""


@dataclass
class State:
    papers: list[Paper]
    faults: Faults = field(default_factory=Faults)
    requests: list[str] = field(default_factory=list)
    words: dict[str, set[str]] = field(default_factory=dict)
    index: dict[str, set[str]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        """Word sets and an inverted index, so a 3,000-record run is answered quickly."""
        for paper in self.papers:
            self.words[paper.ident] = set(normalize(f"{paper.title} {paper.abstract}").split())
            for word in set(normalize(paper.abstract).split()):
                self.index.setdefault(word, set()).add(paper.ident)

    def published(self, where: str) -> list[Paper]:
        return [p for p in self.papers if p.published and where in p.published.where]


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

    def do_POST(self) -> None:
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        length = int(self.headers.get("Content-Length", "0"))
        body = self.rfile.read(length).decode("utf-8")
        self.state.requests.append(f"POST {self.path}")
        if self._faulty():
            return None
        if url.path != "/s2/graph/v1/paper/batch":
            return self._json(404, {"error": f"no route {url.path}"})
        try:
            ids = json.loads(body)["ids"]
        except (ValueError, KeyError, TypeError):
            return self._json(400, {"error": "Body must be a JSON object with an 'ids' list"})
        if not isinstance(ids, list) or not all(isinstance(i, str) for i in ids):
            return self._json(400, {"error": "ids must be a list of strings"})
        if len(ids) > 500:
            return self._json(400, {"error": "Cannot process more than 500 ids"})
        known = {f"ARXIV:{p.arxiv_id}": p for p in self.state.papers if p.on_arxiv}
        known |= {f"s2{p.ident}": p for p in self.state.papers}
        fields = query.get("fields", "")
        answer = [s2_paper(known[i], fields) if i in known else None for i in ids]
        return self._json(200, answer)

    def _faulty(self) -> bool:
        faults = self.state.faults
        if faults.down_after is not None:
            faults.down = faults.down or len(self.state.requests) > faults.down_after
        if faults.down:
            self._send(503, "down", "text/plain")
            return True
        if faults.throttle > 0:
            faults.throttle -= 1
            self._send(429, "Too Many Requests", "text/plain", Retry_After=faults.retry_after)
            return True
        under = faults.malformed_under
        if faults.malformed or (under and self.path.startswith(under)):
            self._send(200, "<html>maintenance</html>", "text/html")
            return True
        return False

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = {k: v[-1] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        self.state.requests.append(self.path)
        if self._faulty():
            return None
        if url.path == "/openalex/works" or url.path.startswith("/openalex/works/"):
            return self.openalex(url.path.removeprefix("/openalex/works"), query)
        if url.path == "/crossref/works" or url.path.startswith("/crossref/works/"):
            return self.crossref(url.path.removeprefix("/crossref/works"), query)
        if url.path == "/dblp/search/publ/api":
            return self.dblp(query)
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
            groups = arxiv_groups(query.get("search_query", ""))
            if groups is None:
                error = "<entry><id>http://arxiv.org/api/errors#incorrect_query</id></entry>"
                return self._send(400, atom_feed([error], 1), "application/atom+xml")
            matched = set().union(*(self._arxiv_group(g) for g in groups))
            hits = [p for p in listed if p.ident in matched]
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
                self.state.papers, key=lambda p: -len(terms & self.state.words[p.ident])
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

    def _arxiv_group(self, group: list[tuple[str, str]]) -> set[str]:
        """The papers with every term of the group (a term of several words: all of them);
        `abs` searches the abstract, `all` the title too."""
        found: set[str] | None = None
        for prefix, term in group:
            if prefix == "all":
                hits = self._arxiv_group([("abs", term)]) | self._arxiv_group([("ti", term)])
            elif prefix in ("ti", "au"):
                field_of = {"ti": lambda p: p.title, "au": lambda p: " ".join(p.authors)}[prefix]
                hits = {
                    p.ident
                    for p in self.state.papers
                    if f" {term} " in f" {normalize(field_of(p))} "
                }
            else:
                parts = [self.state.index.get(w, set()) for w in term.split()]
                hits = set.intersection(*parts) if parts else set()
            found = hits if found is None else found & hits
        return found or set()

    def openalex(self, rest: str, query: dict[str, str]) -> None:
        listed = self.state.published("openalex")
        preprints = [
            p
            for p in self.state.papers
            if p.published and "openalex" in p.published.where and p.on_arxiv
        ]
        if rest.startswith("/doi:"):
            doi = rest.removeprefix("/doi:")
            found = [w for w in map(openalex_work, listed) if w["doi"] == f"https://doi.org/{doi}"]
            return self._json(200, found[0]) if found else self._json(404, {"error": "Not found"})
        if rest:
            return self._json(404, {"error": "Not found"})
        allowed = {"search", "filter", "per_page", "page", "api_key", "mailto", "select", "sort"}
        if set(query) - allowed:
            return self._json(400, {"error": "Invalid query parameters", "message": "unknown"})
        per_page = int(query.get("per_page", "25"))
        if not 1 <= per_page <= 200:
            return self._json(400, {"error": "Invalid per_page", "message": "1 to 200"})
        years = range(0, 10000)
        for clause in filter(None, query.get("filter", "").split(",")):
            name, _, value = clause.partition(":")
            low, _, high = value.partition("-")
            if name != "publication_year" or not low.isdigit() or not (high or low).isdigit():
                return self._json(400, {"error": "Invalid filter", "message": clause})
            years = range(int(low), int(high or low) + 1)
        works = [openalex_work(p) for p in listed] + [openalex_preprint(p) for p in preprints]
        terms = set(normalize(query.get("search", "")).split())
        hits = [
            w
            for w in works
            if w["publication_year"] in years and terms & set(normalize(w["display_name"]).split())
        ]
        hits.sort(key=lambda w: -len(terms & set(normalize(w["display_name"]).split())))
        meta = {"count": len(hits), "db_response_time_ms": 1, "page": 1, "per_page": per_page}
        return self._json(200, {"meta": meta, "results": hits[:per_page], "group_by": []})

    def crossref(self, rest: str, query: dict[str, str]) -> None:
        listed = self.state.published("crossref")
        if rest:
            doi = rest.removeprefix("/")
            found = [p for p in listed if p.published and p.published.doi == doi]
            if not found:
                return self._send(404, "Resource not found.", "text/plain")
            return self._json(
                200,
                {
                    "status": "ok",
                    "message-type": "work",
                    "message-version": "1.0.0",
                    "message": crossref_item(found[0]),
                },
            )
        allowed = {"query.bibliographic", "rows", "offset", "filter", "mailto", "select"}
        rows = query.get("rows", "20")
        failure = None
        if set(query) - allowed:
            failure = "unknown parameter"
        elif not rows.isdigit() or int(rows) > 1000:
            failure = "rows must be an integer at most 1000"
        years = range(0, 10000)
        low = high = None
        for clause in filter(None, query.get("filter", "").split(",")):
            name, _, value = clause.partition(":")
            if name == "from-pub-date" and value[:4].isdigit():
                low = int(value[:4])
            elif name == "until-pub-date" and value[:4].isdigit():
                high = int(value[:4])
            else:
                failure = f"unknown filter {name}"
        if failure:
            message = [{"type": "validation", "value": "", "message": failure}]
            return self._json(
                400, {"status": "failed", "message-type": "validation-failure", "message": message}
            )
        years = range(low or 0, (high or 9999) + 1)
        terms = set(normalize(query.get("query.bibliographic", "")).split())
        scored = [
            (len(terms & set(normalize(p.title).split())), p) for p in listed if p.year in years
        ]
        hits = [p for score, p in sorted(scored, key=lambda pair: -pair[0]) if score]
        message = {
            "facets": {},
            "total-results": len(hits),
            "items": [crossref_item(p) for p in hits[: int(rows)]],
            "items-per-page": int(rows),
            "query": {"start-index": 0, "search-terms": query.get("query.bibliographic")},
        }
        return self._json(
            200,
            {
                "status": "ok",
                "message-type": "work-list",
                "message-version": "1.0.0",
                "message": message,
            },
        )

    def dblp(self, query: dict[str, str]) -> None:
        if set(query) - {"q", "format", "h", "f", "c"} or query.get("format", "xml") not in (
            "xml",
            "json",
            "jsonp",
        ):
            return self._send(400, "bad request", "text/plain")
        if query.get("format") != "json":
            return self._send(400, "this test server answers JSON only", "text/plain")
        count = int(query.get("h", "30"))
        if count > 1000:
            return self._send(400, "h at most 1000", "text/plain")
        terms = normalize(query.get("q", "")).split()
        listed = self.state.published("dblp")
        hits = [p for p in listed if all(t in set(normalize(p.title).split()) for t in terms)]
        sent = hits[:count]
        found: dict[str, Any] = {
            "@total": str(len(hits)),
            "@computed": str(len(hits)),
            "@sent": str(len(sent)),
            "@first": query.get("f", "0"),
        }
        if sent:
            found["hit"] = [dblp_hit(p, n) for n, p in enumerate(sent)]
        result = {
            "query": query.get("q", ""),
            "status": {"@code": "200", "text": "OK"},
            "time": {"@unit": "msecs", "text": "0.42"},
            "hits": found,
        }
        return self._json(200, {"result": result})


def arxiv_groups(text: str) -> list[list[tuple[str, str]]] | None:
    """The query as OR-ed groups of AND-ed `(prefix, term)`, or None when malformed."""
    parts = text.split(" OR ")
    groups = []
    for part in parts:
        if " OR " in text and not (part.startswith("(") and part.endswith(")")):
            return None
        inner = part[1:-1] if part.startswith("(") else part
        if "(" in inner or ")" in inner:
            return None
        terms = []
        for piece in inner.split(" AND "):
            prefix, _, term = piece.partition(":")
            if prefix not in ARXIV_PREFIXES or not term:
                return None
            terms.append((prefix, normalize(term.strip('"'))))
        groups.append(terms)
    return groups


def openalex_work(paper: Paper) -> dict[str, Any]:
    assert paper.published is not None
    return {
        "id": f"https://openalex.org/W{abs(hash(paper.ident)) % 10**9}",
        "doi": f"https://doi.org/{paper.published.doi}" if paper.published.doi else None,
        "title": paper.title,
        "display_name": paper.title,
        "publication_year": paper.year,
        "type": "article",
        "authorships": [
            {"author_position": "first", "author": {"id": None, "display_name": a}}
            for a in paper.authors
        ],
        "primary_location": {"source": {"display_name": paper.published.venue, "type": "journal"}},
    }


def openalex_preprint(paper: Paper) -> dict[str, Any]:
    """The arXiv version of a paper, as OpenAlex lists it beside the published one."""
    work = openalex_work(paper)
    work["id"] = f"https://openalex.org/W{paper.arxiv_id.replace('.', '')}"
    work["doi"] = f"https://doi.org/10.48550/arxiv.{paper.arxiv_id}"
    work["primary_location"] = {
        "source": {"display_name": "arXiv (Cornell University)", "type": "repository"}
    }
    return work


def crossref_item(paper: Paper) -> dict[str, Any]:
    assert paper.published is not None
    return {
        "DOI": paper.published.doi,
        "title": [paper.title],
        "container-title": [paper.published.venue],
        "author": [
            {"given": a.split()[0], "family": a.split()[-1], "sequence": "first", "affiliation": []}
            for a in paper.authors
        ],
        "issued": {"date-parts": [[paper.year, 2]]},
        "type": "proceedings-article",
        "URL": f"https://doi.org/{paper.published.doi}",
        "score": 40.0,
    }


def dblp_hit(paper: Paper, number: int) -> dict[str, Any]:
    assert paper.published is not None
    authors = [{"@pid": f"00/{n}", "text": a} for n, a in enumerate(paper.authors)]
    info: dict[str, Any] = {
        "authors": {"author": authors[0] if len(authors) == 1 else authors},
        "title": f"{paper.title}.",
        "venue": paper.published.venue,
        "year": str(paper.year),
        "type": "Journal Articles",
        "key": f"journals/tmlr/{paper.ident}",
        "url": f"https://dblp.org/rec/journals/tmlr/{paper.ident}",
    }
    if paper.published.doi:
        info["doi"] = paper.published.doi
    return {"@score": "5", "@id": str(number), "info": info, "url": f"URL#{number}"}


def serve(papers: list[Paper], state: State | None = None) -> Iterator[tuple[str, State]]:
    """A running server and its state (or `state`, shared with other servers: one host per
    source over one corpus), until the generator is closed."""
    state = state or State(papers)
    handler = type("BoundHandler", (Handler,), {"state": state})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", state
    finally:
        server.shutdown()
        server.server_close()
