"""Fetch author keywords of real papers into tests/data/author-keywords.json (network).

Usage: PYTHONPATH=. python benchmarks/fetch_author_keywords.py [--venue ICLR.cc/2024/Conference]
       [--limit 400] [-o tests/data/author-keywords.json]
       PYTHONPATH=. python benchmarks/fetch_author_keywords.py --from-crawl FILE... --source TEXT

Source: OpenReview's public API v2 (`/notes?content.venueid=VENUE`), where every submission
carries the `keywords` its authors typed, beside its title and abstract. The file records
the venue, the endpoint and the date fetched, so each figure of
`benchmarks/tags_author_keywords.py` can say where its labels come from. The labels are
the authors', not ours: the tagger never sees them.

`--from-crawl` reads instead the JSON files of a public scrape of OpenReview pages (a list
of objects with `title`, `Keywords:`, `Abstract:` and `forum_link`, as the repository
psk9211/openreview_crawling holds for the ICLR 2020 accepted papers). That scraper carries
a field over from the paper before when a page lacks it, so a paper whose keywords or
abstract equal the previous paper's is left out rather than given another paper's labels.
"""

from __future__ import annotations

import argparse
import datetime
import json
import sys
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
ENDPOINT = "https://api2.openreview.net/notes"
PAGE = 200


def _value(content: dict, name: str) -> object:
    field = content.get(name, {})
    return field.get("value") if isinstance(field, dict) else field


def fetch(venue: str, limit: int) -> list[dict]:
    papers: list[dict] = []
    with httpx.Client(timeout=30) as client:
        offset = 0
        while len(papers) < limit:
            response = client.get(
                ENDPOINT, params={"content.venueid": venue, "limit": PAGE, "offset": offset}
            )
            response.raise_for_status()
            notes = response.json().get("notes", [])
            if not notes:
                break
            for note in notes:
                content = note.get("content", {})
                keywords = _value(content, "keywords")
                abstract = _value(content, "abstract")
                if isinstance(keywords, list) and keywords and isinstance(abstract, str):
                    papers.append(
                        {
                            "id": note["id"],
                            "title": _value(content, "title") or "",
                            "abstract": abstract,
                            "keywords": [str(k) for k in keywords],
                        }
                    )
            offset += len(notes)
    return papers[:limit]


def from_crawl(paths: list[Path]) -> list[dict]:
    """Papers of scraped OpenReview pages (see the module docstring), carried-over fields
    left out."""
    papers: list[dict] = []
    for path in paths:
        previous: dict = {}
        for entry in json.loads(path.read_text(encoding="utf-8")):
            keywords = entry.get("Keywords:") or ""
            abstract = entry.get("Abstract:") or ""
            stale = keywords == previous.get("Keywords:") or abstract == previous.get("Abstract:")
            previous = entry
            words = [k.strip() for k in keywords.split(",") if k.strip()]
            if stale or not words or not abstract:
                continue
            papers.append(
                {
                    "id": entry.get("forum_link", "").rsplit("=", 1)[-1],
                    "title": entry.get("title", ""),
                    "abstract": abstract,
                    "keywords": words,
                }
            )
    return papers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--venue", default="ICLR.cc/2024/Conference")
    parser.add_argument("--limit", type=int, default=400)
    parser.add_argument("--from-crawl", nargs="+", type=Path, help="scraped OpenReview pages")
    parser.add_argument("--source", default="", help="with --from-crawl: where they come from")
    parser.add_argument(
        "-o", "--output", type=Path, default=ROOT / "tests/data/author-keywords.json"
    )
    args = parser.parse_args()
    if args.from_crawl:
        papers = from_crawl(args.from_crawl)
        source = {"files": [p.name for p in args.from_crawl], "note": args.source}
    else:
        try:
            papers = fetch(args.venue, args.limit)
        except httpx.HTTPError as exc:
            print(f"fetch_author_keywords: error: {exc}", file=sys.stderr)
            raise SystemExit(1) from None
        source = {"venue": args.venue, "endpoint": ENDPOINT}
    document = {
        "source": {
            **source,
            "fetched": datetime.date.today().isoformat(),
            "note": source.get("note") or "author keywords as submitted on OpenReview",
        },
        "papers": papers,
    }
    args.output.write_text(
        json.dumps(document, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    print(f"{len(papers)} papers -> {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
