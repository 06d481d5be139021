"""Tag quality against hand-written labels of the 57 seed abstracts, beside YAKE.

Usage: PYTHONPATH=. python benchmarks/tags_quality.py [--json] [--no-yake] [--keybert] [-v]
       [--no-author-keywords]

Gold: tests/data/seed-labels.json (method, datasets, models, 3-6 topics, code URL per
abstract, written before the tagger) and tests/data/seed-contributions.json (contribution
kinds, labelled from the abstracts before looking at the tagger's). The records come
through the real pipeline (`bib.convert.load`, so method names and code URLs are the
readers' extractors' output).

Author keywords (labels nobody on this project wrote): tests/data/author-keywords.json,
626 ICLR 2020 papers with the keywords their authors gave on OpenReview, scored by
`benchmarks/tags_author_keywords.py` (recall, exact and lenient, and tags per paper) beside
YAKE and, with `--keybert`, KeyBERT in the same run. Each figure says which label set it
comes from.

Held out: tests/tags/heldout-abstracts.json, abstracts from areas the seeds do not cover,
labelled (topics, contribution kinds) before the tagger was run on them. Its figures say
whether what was tuned on the seeds carries over.

Scoring, per kind, micro-averaged over all abstracts:
- method: exact match of `Record.method` with the gold name or one of its aliases
  (an abstract that names nothing must get nothing);
- code: the record's code/project links against the gold URL;
- topic: tag values (slugs) against the gold slugs;
- contribution: tag values (method, benchmark, system, theory, analysis) against the gold kinds;
- dataset, model: names compared after mapping aliases to the curated canonical name
  (AIME24 = AIME 24 = AIME 2024) and ignoring case, spaces and hyphens.

YAKE (top 10 keyphrases, n-grams up to 3) has no vocabulary, so its keyphrases are compared
to the gold labels' words: a keyphrase matches a gold topic when it equals, after the same
folding our matcher uses (case, hyphens, plural, British/American), the topic's label, one
of its synonyms or abbreviations; it matches a gold dataset or model when it equals its name.
`lenient` also accepts a keyphrase that contains such a phrase as whole words or is
contained in it. YAKE precision = matching keyphrases / keyphrases; recall = gold items
matched by at least one keyphrase.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bib import convert as engine  # noqa: E402
from bib.extract.vocabulary import Vocabulary, phrase_variants, shipped  # noqa: E402
from bib.record import LinkRole, Record, TagKind  # noqa: E402

LABELS = ROOT / "tests" / "data" / "seed-labels.json"
CONTRIBUTIONS = ROOT / "tests" / "data" / "seed-contributions.json"
HELDOUT = ROOT / "tests" / "tags" / "heldout-abstracts.json"
SEEDS = ROOT / "seeds"
KINDS = ("method", "code", "topic", "topic-tree", "dataset", "model", "contribution")
HELDOUT_KINDS = ("topic", "topic-tree", "contribution")


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    misses: list[str] = field(default_factory=list)
    extras: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def add(self, predicted: set[str], gold: set[str], where: str) -> None:
        self.tp += len(predicted & gold)
        self.fp += len(predicted - gold)
        self.fn += len(gold - predicted)
        self.misses += [f"{where}: {x}" for x in sorted(gold - predicted)]
        self.extras += [f"{where}: {x}" for x in sorted(predicted - gold)]

    def add_tree(
        self, predicted: set[str], gold: set[str], vocabulary: Vocabulary, where: str
    ) -> None:
        """Topics scored as `bib list --tag` finds them: a gold topic is found when a tag is
        it or lies below it; a tag is right when it is a gold topic or lies below one (a
        broader tag than the label is wrong)."""
        right = {t for t in predicted if t in gold or not gold.isdisjoint(_above(t, vocabulary))}
        found = {g for g in gold if any(t == g or g in _above(t, vocabulary) for t in predicted)}
        self.tp += len(found)
        self.fn += len(gold - found)
        self.fp += len(predicted - right)
        self.misses += [f"{where}: {x}" for x in sorted(gold - found)]
        self.extras += [f"{where}: {x}" for x in sorted(predicted - right)]


def _above(slug: str, vocabulary: Vocabulary) -> tuple[str, ...]:
    return vocabulary.ancestors(slug) if slug in vocabulary.topics else ()


def load_gold(path: Path = LABELS, contributions: Path = CONTRIBUTIONS) -> list[dict]:
    """The seed labels, each with its `contributions` from the separate fixture."""
    records = json.loads(path.read_text(encoding="utf-8"))["records"]
    kinds = {
        (r["file"], r["start"]): r["contributions"]
        for r in json.loads(contributions.read_text(encoding="utf-8"))["records"]
    }
    return [{**r, "contributions": kinds[(r["file"], r["start"])]} for r in records]


def load_records(inputs: Sequence[Path] = (SEEDS,)) -> list[Record]:
    return engine.load(list(inputs))


def pair(records: Iterable[Record], gold: list[dict]) -> list[tuple[dict, Record]]:
    """Gold entries with their records, by file name and the first 80 characters."""
    index = {}
    for record in records:
        for source in record.sources:
            index[(Path(source.path).name, record.abstract[:80])] = record
    pairs = []
    for entry in gold:
        record = index.get((entry["file"], entry["start"]))
        if record is None:
            raise SystemExit(f"no record for {entry['file']}: {entry['start']!r}")
        pairs.append((entry, record))
    return pairs


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9*+]", "", name.lower())


def canonical(vocabulary: Vocabulary) -> dict[str, str]:
    """Normalised alias -> normalised canonical name, for datasets and models."""
    table: dict[str, str] = {}
    for entity in (*vocabulary.datasets, *vocabulary.models):
        for name in entity.names:
            table.setdefault(_key(name), _key(entity.name))
    return table


def _names(values: Iterable[str], table: dict[str, str]) -> set[str]:
    return {table.get(_key(v), _key(v)) for v in values}


def score_tagger(pairs: list[tuple[dict, Record]], vocabulary: Vocabulary) -> dict[str, Score]:
    table = canonical(vocabulary)
    scores = {kind: Score() for kind in KINDS}
    for index, (gold, record) in enumerate(pairs):
        where = f"[{index}] {gold['file'][:3]}"
        accepted = {gold["method"], *gold["method_aliases"]} if gold["method"] else {""}
        ok = record.method in accepted
        scores["method"].add(
            {gold["method"] or "-"} if ok else {record.method or "-"},
            {gold["method"] or "-"},
            where,
        )
        links = {
            link.url for link in record.links if link.role in (LinkRole.CODE, LinkRole.PROJECT)
        }
        scores["code"].add(links, {gold["code"]} if gold["code"] else set(), where)
        topics = {t.value for t in record.tags if t.kind is TagKind.TOPIC}
        scores["topic"].add(topics, set(gold["topics"]), where)
        scores["topic-tree"].add_tree(topics, set(gold["topics"]), vocabulary, where)
        for kind, key in ((TagKind.DATASET, "datasets"), (TagKind.MODEL, "models")):
            predicted = _names((t.value for t in record.tags if t.kind is kind), table)
            scores[kind.value].add(predicted, _names(gold[key], table), where)
        _score_contributions(scores["contribution"], record, gold, where)
    return scores


def _score_contributions(score: Score, record: Record, gold: dict, where: str) -> None:
    found = {t.value for t in record.tags if t.kind is TagKind.CONTRIBUTION}
    score.add(found, set(gold["contributions"]), where)


def load_heldout(path: Path = HELDOUT) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["abstracts"]


def score_heldout(cases: list[dict], vocabulary: Vocabulary) -> dict[str, Score]:
    """Topics and contribution kinds of the held-out abstracts against their labels."""
    from bib.extract.tags import tag_records

    records = [Record(id=c["name"], abstract=c["abstract"], method=c["method"]) for c in cases]
    scores = {kind: Score() for kind in HELDOUT_KINDS}
    for case, record in zip(cases, tag_records(records, vocabulary=vocabulary), strict=True):
        topics = {t.value for t in record.tags if t.kind is TagKind.TOPIC}
        scores["topic"].add(topics, set(case["topics"]), case["name"])
        scores["topic-tree"].add_tree(topics, set(case["topics"]), vocabulary, case["name"])
        _score_contributions(scores["contribution"], record, case, case["name"])
    return scores


def _phrase_keys(phrase: str) -> set[str]:
    return {" ".join(v.split()) for v in phrase_variants(phrase)}


def _contains(haystack: str, needle: str) -> bool:
    return re.search(rf"(?<![a-z0-9]){re.escape(needle)}(?![a-z0-9])", haystack) is not None


def _matches(variants: set[str], forms: set[str], lenient: bool) -> bool:
    if variants & forms:
        return True
    return lenient and any(_contains(v, f) or _contains(f, v) for v in variants for f in forms)


def score_yake(pairs: list[tuple[dict, Record]], vocabulary: Vocabulary) -> dict:
    """YAKE's keyphrases against the same gold labels (see the module docstring)."""
    import yake

    extractor = yake.KeywordExtractor(lan="en", n=3, top=10)
    result: dict[str, dict[str, Score]] = {"strict": {}, "lenient": {}}
    for mode in result:
        result[mode] = {kind: Score() for kind in ("topic", "dataset", "model", "any")}
    started = time.perf_counter()
    for gold, record in pairs:
        phrases = [p for p, _ in extractor.extract_keywords(record.abstract)]
        keys = [{" ".join(v.split()) for v in phrase_variants(p)} | {p.lower()} for p in phrases]
        items: dict[str, list[tuple[str, set[str]]]] = {"topic": [], "dataset": [], "model": []}
        for slug in gold["topics"]:
            topic = vocabulary.topics[slug]
            forms: set[str] = set()
            for phrase in (topic.label, *topic.synonyms, *topic.abbreviations):
                forms |= _phrase_keys(phrase)
            items["topic"].append((slug, forms))
        for kind, key in (("dataset", "datasets"), ("model", "models")):
            for name in gold[key]:
                items[kind].append((name, _phrase_keys(name) | {name.lower()}))
        for mode, scores in result.items():
            matched_phrases: set[int] = set()
            for kind, wanted in items.items():
                found = 0
                for _, forms in wanted:
                    hit = [i for i, v in enumerate(keys) if _matches(v, forms, mode == "lenient")]
                    if hit:
                        found += 1
                        matched_phrases.update(hit)
                scores[kind].tp += found
                scores[kind].fn += len(wanted) - found
            scores["any"].tp += len(matched_phrases)
            scores["any"].fp += len(phrases) - len(matched_phrases)
    seconds = time.perf_counter() - started
    return {"scores": result, "seconds": seconds, "abstracts": len(pairs)}


def _figures(scores: dict[str, Score]) -> dict:
    return {
        kind: {"precision": round(s.precision, 4), "recall": round(s.recall, 4)}
        for kind, s in scores.items()
    }


def figures(tagger: dict[str, Score], yake_result: dict | None, heldout: dict[str, Score]) -> dict:
    out: dict = {"tagger": _figures(tagger), "heldout": _figures(heldout)}
    method = tagger["method"]
    out["tagger"]["method"]["exact"] = round(method.tp / max(method.tp + method.fn, 1), 4)
    if yake_result:
        out["yake"] = {
            mode: {
                kind: {"precision": round(s.precision, 4), "recall": round(s.recall, 4)}
                for kind, s in scores.items()
            }
            for mode, scores in yake_result["scores"].items()
        }
    return out


def _print(
    tagger: dict[str, Score], yake_result: dict | None, heldout: dict[str, Score], verbose: bool
) -> None:
    print(f"bib tags on {tagger['method'].tp + tagger['method'].fn} seed abstracts")
    print(f"  {'kind':12} {'precision':>9} {'recall':>7}")
    for kind in KINDS:
        score = tagger[kind]
        print(f"  {kind:12} {score.precision:9.1%} {score.recall:7.1%}")
    method = tagger["method"]
    print(f"  method names exact: {method.tp}/{method.tp + method.fn}")
    print("held-out abstracts (tests/tags/heldout-abstracts.json)")
    for kind in HELDOUT_KINDS:
        score = heldout[kind]
        print(f"  {kind:12} {score.precision:9.1%} {score.recall:7.1%}")
    blind = score_heldout([c for c in load_heldout() if c.get("batch") == 2], shipped())
    print("  of which batch 2 (written after the vocabulary fixes that batch 1 prompted)")
    for kind in HELDOUT_KINDS:
        score = blind[kind]
        print(f"  {kind:12} {score.precision:9.1%} {score.recall:7.1%}")
    if yake_result:
        strict, lenient = yake_result["scores"]["strict"], yake_result["scores"]["lenient"]
        rate = yake_result["abstracts"] / yake_result["seconds"]
        print(f"YAKE, top 10 keyphrases (ran at {rate:.0f} abstracts/s)")
        print(f"  {'kind':10} {'recall':>7} {'lenient':>8}")
        for kind in ("topic", "dataset", "model"):
            print(f"  {kind:10} {strict[kind].recall:7.1%} {lenient[kind].recall:8.1%}")
        print(
            f"  precision (keyphrases matching any gold label): {strict['any'].precision:.1%}"
            f", lenient {lenient['any'].precision:.1%}"
        )
    if verbose:
        for name, scores in (("", tagger), ("held-out ", heldout)):
            for kind, score in scores.items():
                for line in score.misses:
                    print(f"  {name}miss  {kind:8} {line}")
                for line in score.extras:
                    print(f"  {name}extra {kind:8} {line}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--no-yake", action="store_true", help="skip the YAKE comparison")
    parser.add_argument(
        "--no-author-keywords", action="store_true", help="skip the author-keyword labels"
    )
    parser.add_argument("--keybert", action="store_true", help="run KeyBERT on them too")
    parser.add_argument("-v", "--verbose", action="store_true", help="list misses and extras")
    args = parser.parse_args(argv)
    vocabulary = shipped()
    pairs = pair(load_records(), load_gold())
    tagger = score_tagger(pairs, vocabulary)
    heldout = score_heldout(load_heldout(), vocabulary)
    yake_result = None if args.no_yake else score_yake(pairs, vocabulary)
    authors = None
    if not args.no_author_keywords:
        from benchmarks import tags_author_keywords as author_keywords

        source, papers = author_keywords.load(author_keywords.DEFAULT)
        authors = {"labels": source}
        authors.update(author_keywords.figures(papers, not args.no_yake, args.keybert))
    if args.json:
        out = {"seed_labels": figures(tagger, yake_result, heldout)}
        if authors:
            out["author_keywords"] = authors
        print(json.dumps(out, indent=2))
    else:
        _print(tagger, yake_result, heldout, args.verbose)
        if authors:
            _print_authors(authors)


def _print_authors(authors: dict) -> None:
    labels = authors["labels"]
    print(f"author keywords ({authors['papers']['count']} papers; {labels.get('note', '')})")
    print(f"  {'tagger':24} {'exact':>6} {'lenient':>8} {'tags/paper':>10}")
    for name, result in authors.items():
        if name in ("labels", "papers"):
            continue
        exact, lenient = result["exact"], result["lenient"]
        print(
            f"  {name:24} {exact['recall']:6.1%} {lenient['recall']:8.1%}"
            f" {exact['tags_per_paper']:10.2f}"
        )


if __name__ == "__main__":
    main()
