"""Tag precision judged blind: bib's tags and YAKE's keyphrases, mixed, judged by a reader who
does not know which tool proposed which.

Usage: PYTHONPATH=. python benchmarks/tags_blind.py sheet [--papers N] [--out FILE]
       PYTHONPATH=. python benchmarks/tags_blind.py score JUDGEMENTS.json [JUDGEMENTS.json ...]

`sheet` samples N papers (seeded) of tests/data/author-keywords.json and writes, for each, its
title, abstract and one shuffled list of candidate tags: bib's scored tags (topics by label,
method, datasets, models, key phrases) and YAKE's top 10, merged where both propose the same
words. Nothing on the sheet says where a candidate came from, and the authors' keywords are
left off (they are a reference of their own: `tags_author_keywords.py`). A judge marks each
candidate `1` (a tag a researcher would file or search this paper under: right for this
paper and specific enough to narrow a search) or `0`, in a file `{"judge": ..., "marks":
{candidate id: 0 or 1}}`.

`score` runs both tools again on the sheet's papers and gives each tool's precision over its
candidates that were judged (per tag kind for bib), with the share judged: a change to the
tagger shows as unjudged candidates, never as silently rescored ones. With two or more judges
it gives their agreement (Cohen's kappa) and the precision under each judge.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.tags_author_keywords import DEFAULT, SCORED_KINDS, load, run_tagger  # noqa: E402
from bib.extract.vocabulary import shipped  # noqa: E402
from bib.record import Record  # noqa: E402

SHEET = ROOT / "tests" / "data" / "blind-judgements" / "sheet.json"
SEED = 2026
YAKE_TOP = 10
CRITERION = (
    "Mark 1 when the candidate is a tag a researcher would file or search this paper under: "
    "it is right for this paper (the paper is about it, uses it, or evaluates on it) and "
    "specific enough to narrow a search. Mark 0 when it is wrong for the paper, a generic "
    "phrase (e.g. 'proposed method', 'extensive experiments'), a fragment that is not a "
    "concept, or too broad to help."
)


def phrase_key(phrase: str) -> str:
    """Candidates from both tools merge when they are the same words, case aside."""
    return " ".join(phrase.lower().split())


def shown(phrase: str) -> str:
    """One case style for both tools (bib's labels are sentence case, YAKE's keyphrases as the
    text has them): lower case, except a word with a capital after its first letter (`SSGD`,
    `ImageNet`), which the reader needs to recognise a name."""
    return " ".join(w if any(c.isupper() for c in w[1:]) else w.lower() for w in phrase.split())


def bib_candidates(record: Record) -> list[tuple[str, str]]:
    """(kind, phrase as a user sees it) of each scored tag of bib's."""
    return [
        (tag.kind.value, tag.label or tag.value) for tag in record.tags if tag.kind in SCORED_KINDS
    ]


def yake_candidates(papers: list[dict]) -> list[list[str]]:
    import yake

    extractor = yake.KeywordExtractor(lan="en", n=3, top=YAKE_TOP)
    return [[p for p, _ in extractor.extract_keywords(paper["abstract"])] for paper in papers]


def sample(papers: list[dict], count: int) -> list[dict]:
    return random.Random(SEED).sample(papers, min(count, len(papers)))


def make_sheet(count: int) -> dict:
    _, papers = load(DEFAULT)
    chosen = sample(papers, count)
    tagged, _ = run_tagger(chosen, shipped())
    yaked = yake_candidates(chosen)
    shuffle = random.Random(SEED + 1)
    out = []
    for number, (paper, record, phrases) in enumerate(zip(chosen, tagged, yaked, strict=True)):
        seen: dict[str, str] = {}
        for _, phrase in bib_candidates(record):
            seen.setdefault(phrase_key(phrase), phrase)
        for phrase in phrases:
            seen.setdefault(phrase_key(phrase), phrase)
        phrases_shown = [shown(phrase) for phrase in seen.values()]
        shuffle.shuffle(phrases_shown)
        out.append(
            {
                "paper": str(paper["id"]),
                "title": paper.get("title", ""),
                "abstract": paper["abstract"],
                "candidates": [
                    {"id": f"p{number}c{i}", "phrase": phrase}
                    for i, phrase in enumerate(phrases_shown)
                ],
            }
        )
    return {"criterion": CRITERION, "source": str(DEFAULT.relative_to(ROOT)), "papers": out}


@dataclass
class Tally:
    right: int = 0
    judged: int = 0
    proposed: int = 0

    def add(self, mark: int | None) -> None:
        self.proposed += 1
        if mark is not None:
            self.judged += 1
            self.right += mark

    def figure(self) -> dict:
        return {
            "precision": round(self.right / self.judged, 3) if self.judged else None,
            "right": self.right,
            "judged": self.judged,
            "proposed": self.proposed,
        }


@dataclass
class Scores:
    bib: Tally = field(default_factory=Tally)
    yake: Tally = field(default_factory=Tally)
    kinds: dict[str, Tally] = field(default_factory=dict)


def score(sheet: dict, marks: dict[str, int]) -> Scores:
    """Each tool's precision over its candidates on this sheet, as the tagger runs today."""
    _, papers = load(DEFAULT)
    by_id = {str(p["id"]): p for p in papers}
    chosen = [by_id[entry["paper"]] for entry in sheet["papers"]]
    tagged, _ = run_tagger(chosen, shipped())
    yaked = yake_candidates(chosen)
    out = Scores()
    for entry, record, phrases in zip(sheet["papers"], tagged, yaked, strict=True):
        mark_of = {phrase_key(c["phrase"]): marks.get(c["id"]) for c in entry["candidates"]}
        for kind, phrase in bib_candidates(record):
            mark = mark_of.get(phrase_key(phrase))
            out.bib.add(mark)
            out.kinds.setdefault(kind, Tally()).add(mark)
        for phrase in phrases:
            out.yake.add(mark_of.get(phrase_key(phrase)))
    return out


def kappa(first: dict[str, int], second: dict[str, int]) -> float | None:
    """Cohen's kappa of two judges over the candidates both marked."""
    both = sorted(first.keys() & second.keys())
    if not both:
        return None
    agree = sum(first[k] == second[k] for k in both) / len(both)
    p1 = sum(first[k] for k in both) / len(both)
    p2 = sum(second[k] for k in both) / len(both)
    chance = p1 * p2 + (1 - p1) * (1 - p2)
    return round((agree - chance) / (1 - chance), 3) if chance < 1 else None


def read_marks(path: Path) -> tuple[str, dict[str, int]]:
    document = json.loads(path.read_text(encoding="utf-8"))
    marks = {str(k): int(v) for k, v in document["marks"].items() if v in (0, 1)}
    return str(document.get("judge", path.stem)), marks


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    make = commands.add_parser("sheet", help="write the blind sheet")
    make.add_argument("--papers", type=int, default=30)
    make.add_argument("--out", type=Path, default=SHEET)
    judge = commands.add_parser("score", help="score judgements of the sheet")
    judge.add_argument("judgements", type=Path, nargs="+")
    judge.add_argument("--sheet", type=Path, default=SHEET)
    args = parser.parse_args(argv)
    if args.command == "sheet":
        args.out.parent.mkdir(parents=True, exist_ok=True)
        sheet = make_sheet(args.papers)
        args.out.write_text(json.dumps(sheet, indent=1, ensure_ascii=False) + "\n", "utf-8")
        count = sum(len(p["candidates"]) for p in sheet["papers"])
        print(f"{args.out}: {len(sheet['papers'])} papers, {count} candidates", file=sys.stderr)
        return
    sheet = json.loads(args.sheet.read_text(encoding="utf-8"))
    judges = [read_marks(path) for path in args.judgements]
    result: dict = {"sheet": str(args.sheet), "judges": {}}
    for name, marks in judges:
        scores = score(sheet, marks)
        result["judges"][name] = {
            "bib": scores.bib.figure(),
            "yake_top10": scores.yake.figure(),
            "bib_by_kind": {k: t.figure() for k, t in sorted(scores.kinds.items())},
        }
    if len(judges) >= 2:
        result["kappa"] = kappa(judges[0][1], judges[1][1])
        agreed = {
            k: v for k, v in judges[0][1].items() if all(m.get(k) == v for _, m in judges[1:])
        }
        scores = score(sheet, agreed)
        result["where_the_judges_agree"] = {
            "bib": scores.bib.figure(),
            "yake_top10": scores.yake.figure(),
        }
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
