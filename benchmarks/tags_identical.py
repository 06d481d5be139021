"""Every tag of about 10,700 texts, written one a line, so that a change to the tagging stage
can prove it kept each tag's value, label and evidence (`diff`), beyond the golden outputs.

Usage: PYTHONPATH=. python benchmarks/tags_identical.py OUT

    python benchmarks/tags_identical.py /tmp/tags-before    # before the change
    python benchmarks/tags_identical.py /tmp/tags-after     # after it
    diff /tmp/tags-before /tmp/tags-after                   # nothing: the same tags

The texts: the seed abstracts, the held-out and unseen abstracts of `tests/tags/`, the papers
of `tests/data/author-keywords.json` (with their titles, which the ranking reads), and the
10,000 abstracts of `bib convert`'s benchmark list (`convert.paper_list`). Each is tagged with
the default kinds, then again with `loose` (the topics a list's generic topics may leave out).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from convert import paper_list  # noqa: E402
from tags_speed import seed_abstracts  # noqa: E402

from bib.extract.tags import tag_stream  # noqa: E402
from bib.record import Record  # noqa: E402


def records() -> list[Record]:
    """The texts, each a record (a title where the source has one)."""
    out = [Record(id=f"seed-{i}", abstract=text) for i, text in enumerate(seed_abstracts())]
    for name in ("heldout-abstracts.json", "unseen-abstracts.json"):
        found = json.loads((ROOT / "tests" / "tags" / name).read_text(encoding="utf-8"))
        out += [
            Record(id=f"{name}-{a['name']}", abstract=a["abstract"]) for a in found["abstracts"]
        ]
    papers = json.loads((ROOT / "tests/data/author-keywords.json").read_text(encoding="utf-8"))
    out += [
        Record(id=f"keywords-{p['id']}", title=p.get("title", ""), abstract=p["abstract"])
        for p in papers["papers"]
    ]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "papers.txt"
        paper_list(10_000, path)
        paragraphs = path.read_text(encoding="utf-8").split("\n\n")[1:]
    out += [
        Record(id=f"list-{i}", abstract=p.strip()) for i, p in enumerate(paragraphs) if p.strip()
    ]
    return out


def lines(texts: list[Record]) -> Iterator[str]:
    for loose in (False, True):
        for record in tag_stream(texts, loose=loose):
            for tag in record.tags:
                fields = [tag.kind.value, tag.value, tag.label, tag.evidence, tag.loose]
                yield json.dumps([record.id, loose, *fields], ensure_ascii=False)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path, help="the file to write")
    args = parser.parse_args(argv)
    texts = records()
    with args.out.open("w", encoding="utf-8") as out:
        for line in lines(texts):
            out.write(line + "\n")
    print(f"{len(texts)} texts, tags in {args.out}")


if __name__ == "__main__":
    main()
