"""A corpus of papers and look-alikes built from the real ICML 2026 abstracts in `seeds/`.

Each seed paper gets a title and, by its position, a place:
- papers 0-39 are in the OpenReview ICML 2026 listing with their exact abstract;
- papers 40-49 are only on arXiv, with a reworded abstract (words swapped for synonyms,
  the last sentence dropped), as arXiv versions of accepted papers usually are;
- papers 50-56 are nowhere: their records must stay unresolved (or ambiguous).
Every paper also has look-alikes, wrong answers that a careless matcher takes:
- an earlier paper (2023) with the same title and the same abstract opening on arXiv;
- a paper on the same topic: the same first two sentences, then another paper's last two;
- a paper with a near-identical title (one word changed) and an abstract made of halves of
  two other papers' abstracts.
The arXiv-only papers were published later; the enriching sources know the final versions:
- papers 40-43 in OpenAlex (a journal and a DOI; OpenAlex also lists the arXiv version),
- papers 44-46 in Crossref (proceedings and a DOI), papers 47-48 in DBLP (a venue, no DOI),
- paper 49 nowhere but arXiv;
and every enricher also lists the look-alikes' published versions (the 2023 paper with the
same title, the near-identical title), which must never lend their DOI or venue.
"""

from __future__ import annotations

import dataclasses
import random
import re
from dataclasses import dataclass
from pathlib import Path

from bib.readers import paperlist
from bib.record import Record
from bib.resolve.text import distinctive

SEEDS = Path(__file__).resolve().parents[2] / "seeds"
ON_OPENREVIEW = range(40)
ON_ARXIV_ONLY = range(40, 50)
IN_OPENALEX = range(40, 44)
IN_CROSSREF = range(44, 47)
IN_DBLP = range(47, 49)
SYNONYMS = {
    "propose": "present",
    "novel": "new",
    "demonstrate": "show",
    "significantly": "substantially",
    "existing": "prior",
    "approach": "method",
    "framework": "framework design",
    "performance": "accuracy",
    "however": "yet",
    "introduce": "present",
    "experiments": "empirical studies",
}
_SENTENCE = re.compile(r"(?<=[.!?])\s+")


@dataclass(frozen=True, slots=True)
class Published:
    """A paper's final version, as the enriching sources in `where` list it."""

    venue: str
    doi: str
    where: frozenset[str]


@dataclass(frozen=True, slots=True)
class Paper:
    """One paper a test server knows: `truth` names the seed record it is, or None."""

    ident: str
    title: str
    abstract: str
    authors: tuple[str, ...]
    year: int
    truth: int | None
    on_openreview: bool = False
    on_arxiv: bool = False
    arxiv_id: str = ""
    published: Published | None = None


def final_version(i: int) -> Published | None:
    """Where paper `i` (an arXiv-only paper) was published, if anywhere the enrichers know."""
    if i in IN_OPENALEX:
        return Published(
            "Journal of Machine Learning Research", f"10.5555/jmlr.{i}", frozenset({"openalex"})
        )
    if i in IN_CROSSREF:
        return Published(
            "Proceedings of the AAAI Conference", f"10.1609/aaai.v40i{i}", frozenset({"crossref"})
        )
    if i in IN_DBLP:
        return Published("Trans. Mach. Learn. Res.", "", frozenset({"dblp"}))
    return None


EVERY_ENRICHER = frozenset({"openalex", "crossref", "dblp"})


def seed_records() -> list[Record]:
    records: list[Record] = []
    for path in sorted(SEEDS.glob("*.txt")):
        records.extend(paperlist.read(path, str(path)))
    return records


def sentences(text: str) -> list[str]:
    return [s for s in _SENTENCE.split(" ".join(text.split())) if s]


def synonyms(text: str) -> str:
    return " ".join(SYNONYMS.get(w, w) if w.islower() else w for w in text.split(" "))


def reword(abstract: str) -> str:
    """An arXiv-style version of an abstract: synonyms, and the last sentence dropped."""
    parts = sentences(abstract)
    return synonyms(" ".join(parts[:-1] if len(parts) > 3 else parts))


def title_of(abstract: str) -> str:
    return " ".join(w.capitalize() for w in distinctive(abstract, 6))


SEED_COUNT = 57
"""Places repeat every 57 records (the seed list's length), so a longer synthetic list keeps
the seed corpus's shares: 40 in the listing, 10 only on arXiv, 7 nowhere."""


def place(i: int) -> int:
    return i % SEED_COUNT


def synthetic_records(count: int) -> list[Record]:
    """`count` distinct paper-list records for a scale run: each abstract is six sentences
    drawn (with a fixed seed) from the pool of every seed abstract's sentences, so two of them
    share a sentence now and then, as papers on one topic do, and rarely more."""
    pool = [s for r in seed_records() for s in sentences(r.abstract)]
    draw = random.Random(12)
    records = []
    for n in range(count):
        abstract = " ".join(draw.sample(pool, 6))
        records.append(
            Record(
                id=f"abs:synthetic{n:05d}",
                abstract=abstract,
                title=title_of(abstract),
                title_derived=True,
                venue="ICML",
                year=2026,
            )
        )
    return records


def papers(records: list[Record] | None = None) -> list[Paper]:
    """The corpus over `records` (default: the seed list), placed by `place(i)`."""
    records = seed_records() if records is None else records
    count = len(records)
    found: list[Paper] = []
    for i, record in enumerate(records):
        title = title_of(record.abstract)
        authors = (f"Author{i} Alpha", f"Author{i} Beta")
        other = records[(i + 7) % count].abstract
        third = sentences(records[(i + 13) % count].abstract)
        halves = sentences(other)[: len(sentences(other)) // 2] + third[len(third) // 2 :]
        where = place(i)
        if where in ON_OPENREVIEW:
            found.append(Paper(f"or{i:03d}", title, record.abstract, authors, 2026, i, True, True))
        elif where in ON_ARXIV_ONLY:
            found.append(
                Paper(
                    f"ax{i:03d}",
                    title,
                    reword(record.abstract),
                    authors,
                    2026,
                    i,
                    False,
                    True,
                    published=final_version(where),
                )
            )
        opening = sentences(record.abstract)[:2]
        found.append(
            Paper(
                f"old{i:03d}",
                title,
                " ".join(opening + sentences(other)[-2:]),
                (f"Other{i} Gamma",),
                2023,
                None,
                on_arxiv=True,
                published=Published("Old Workshop", f"10.1000/old.{i}", EVERY_ENRICHER),
            )
        )
        found.append(
            Paper(
                f"topic{i:03d}",
                title_of(" ".join(opening)) + " Revisited",
                " ".join(opening + sentences(other)[-2:]),
                (f"Other{i} Delta",),
                2026,
                None,
                on_openreview=i % 2 == 0,
                on_arxiv=True,
            )
        )
        words = title.split()
        near = " ".join([*words[:-1], "Networks"])
        found.append(
            Paper(
                f"near{i:03d}",
                near,
                " ".join(halves),
                (f"Other{i} Epsilon",),
                2026,
                None,
                on_openreview=i % 3 == 0,
                on_arxiv=True,
                published=Published("Near Conference", f"10.1000/near.{i}", EVERY_ENRICHER),
            )
        )
    return [
        dataclasses.replace(p, arxiv_id=f"{p.year % 100:02d}05.{n + 10000:05d}")
        for n, p in enumerate(found)
    ]
