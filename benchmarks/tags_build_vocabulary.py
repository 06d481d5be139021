"""Rebuild bib/data/topics-imported.json from the Papers with Code task hierarchy.

Usage: PYTHONPATH=. python benchmarks/tags_build_vocabulary.py --fetch [--pwc DIR]
       [--min-datasets 3] [-o bib/data/topics-imported.json]
       PYTHONPATH=. python benchmarks/tags_build_vocabulary.py --pwc DIR   (files already here)

`--fetch` downloads the four files (network) from the archive at the commit the shipped file
was built from, checks each against its SHA-256 below and refuses a file that differs, then
builds. Rebuilt from that commit, the output is byte-identical to the shipped file.

Source: the task hierarchy of Papers with Code (data licensed CC BY-SA 4.0 by Papers with
Code), as the archive github.com/World-Snapshot/papers-with-code keeps it after the site
closed in July 2025: `results/hierarchical/{nlp,cv,audio,other}_hierarchy.csv`, one row per
task with its name, parent task, level and number of datasets. DIR holds those four files.

What is taken, and how:
- tasks with at least `--min-datasets` datasets (a task nobody benchmarks is no topic people
  search by), whose name is two words or more (one-word tasks such as `Classification` or
  `Retrieval` name nothing specific) and holds no `and`/`&`/`/` (topics are atomic);
- a task whose name is already a curated topic's label or synonym (bib/data/topics.json)
  is not imported again: its children go below the curated topic;
- a task's parent is its Papers with Code parent when that is kept (or curated), else the
  curated topic whose name is the longest run of its words (`Personalized Federated
  Learning` is below `federated-learning`), else the curated root of its area
  (`natural-language-processing`, `speech-and-audio`;
  `computer-vision` only when the name says so (image, video, 3D, pose ...): the archive
  files tasks such as `Mortality Prediction` under vision; `medical-imaging` or
  `healthcare` for medical names (tomography, MRI, lesion, patient ...); `machine-learning`
  otherwise);
- language-pair tasks (`Translation hun-deu`) and the names in `EVERYDAY` are left out;
- a parenthesised acronym in a name becomes an abbreviation (`Out of Distribution (OOD)
  Detection`: label `Out of Distribution Detection`, abbreviation `OOD`);
- each topic records its source (`pwc:<area>:<task name>`).
Curated topics always win: `bib.extract.vocabulary.shipped` loads this file after
topics.json and skips any slug or phrase the curated file has.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import re
import sys
import tempfile
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bib.atomic import write_atomic  # noqa: E402
from bib.extract.vocabulary import phrase_variants  # noqa: E402

COMMIT = "8d2360f0ef84aea21a70b79f0a069914da68cb07"
"""The archive's commit the shipped topics-imported.json was built from."""
ARCHIVE = (
    f"https://raw.githubusercontent.com/World-Snapshot/papers-with-code/{COMMIT}"
    "/results/hierarchical/"
)
DIGESTS = {
    "audio": "10def26183d0321dadf2701deaaf508a61f96d0fe1310aeab4053fdc36684b53",
    "cv": "7a3cad41d12a0a31df84aaa1b3b474597dbcc3d761c0e552f6b87044089032ad",
    "nlp": "f465e9c60ef367543613e7e54354edd4217ebb0963484d40e042a863b46acc74",
    "other": "b1e4c9fea16b1f4e7e6eaad5fad63057b59bbf43923232b7234f2c0734b9b0e6",
}
"""SHA-256 of each area's `<area>_hierarchy.csv` at that commit."""

AREAS = {
    "nlp": "natural-language-processing",
    "cv": "computer-vision",
    "audio": "speech-and-audio",
    "other": "machine-learning",
}
_ACRONYM = re.compile(r"\s*\(([A-Za-z0-9][A-Za-z0-9.+-]*)\)\s*")
_DASHES = str.maketrans(dict.fromkeys("\u2010\u2011\u2012\u2013\u2014\u2212", "-"))
_COMPOUND = re.compile(r"\band\b|&|/", re.IGNORECASE)
EVERYDAY = frozenset(["decision making", "graph construction", "general knowledge", "fine tuning"])
"""Task names that abstracts use as everyday phrases, not as the task: left out (each was a
wrong tag on the seed abstracts)."""
_LANGUAGE_PAIR = re.compile(r"\b[a-z]{3}-[a-z]{3}\b")
_MEDICAL = re.compile(
    r"medical|clinical|tomography|\bmri\b|\bct\b|x-ray|radiolog|patholog|lesion|tumou?r|"
    r"cancer|disease|diagnos|patient|mortality|ecg|eeg|histolog|retina|brain",
    re.IGNORECASE,
)
_SCAN = re.compile(r"tomography|\bmri\b|\bct\b|x-ray|radiolog|histolog|retina", re.IGNORECASE)
_VISUAL = re.compile(
    r"image|video|visual|vision|3d|face|facial|pose|object|scene|depth|point cloud|"
    r"segmentation|optical|camera|photo|pixel|stereo|lidar|sketch|gaze",
    re.IGNORECASE,
)


def slug_of(name: str) -> str:
    return "-".join(re.findall(r"[a-z0-9]+", name.lower()))[:80].strip("-")


def _forms(phrase: str) -> set[str]:
    return {" ".join(v.split()) for v in phrase_variants(phrase)}


def curated_index(path: Path) -> tuple[set[str], dict[str, str]]:
    """The curated slugs, and every folded form of their labels and synonyms -> slug."""
    topics = json.loads(path.read_text(encoding="utf-8"))["topics"]
    forms: dict[str, str] = {}
    for topic in topics:
        for phrase in (topic["label"], *topic.get("synonyms", ())):
            for form in _forms(phrase):
                forms.setdefault(form, topic["slug"])
    return {t["slug"] for t in topics}, forms


def read_area(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _clean(name: str) -> tuple[str, list[str]]:
    """The label and abbreviations of a task name, in ASCII: dashes as hyphens, any other
    character outside ASCII dropped (`Math Word Problem SolvingΩ`). An ASCII vocabulary
    lets the matcher scan every abstract through its fast byte table."""
    name = name.translate(_DASHES).encode("ascii", "ignore").decode()
    abbreviations = _ACRONYM.findall(name)
    label = " ".join(_ACRONYM.sub(" ", name).split())
    return label, [a for a in abbreviations if any(c.isupper() for c in a)]


def build(directory: Path, curated: Path, min_datasets: int) -> list[dict]:
    slugs, forms = curated_index(curated)
    rows: list[tuple[str, dict[str, str]]] = []
    for area in AREAS:
        rows += [(area, row) for row in read_area(directory / f"{area}_hierarchy.csv")]
    chosen: dict[str, dict] = {}
    names: dict[str, str] = {}  # task name (folded) -> slug it is filed under
    for area, row in rows:
        name = row["Task Name"].strip()
        label, abbreviations = _clean(name)
        folded = " ".join(label.lower().split())
        existing = next((forms[f] for f in _forms(label) if f in forms), None)
        if existing is not None:
            names.setdefault(folded, existing)
            continue
        count = int(row.get("Dataset Count") or 0)
        words = re.findall(r"[A-Za-z0-9]+", label)
        if count < min_datasets or len(words) < 2 or _COMPOUND.search(label):
            continue
        if not label[0].isalpha() or _LANGUAGE_PAIR.search(label) or folded in EVERYDAY:
            continue
        slug = slug_of(label)
        if not slug or slug in slugs or slug in chosen:
            continue
        topic: dict = {"slug": slug, "label": label[0].upper() + label[1:]}
        if abbreviations:
            topic["abbreviations"] = abbreviations
        topic["source"] = f"pwc:{area}:{name}"
        chosen[slug] = {"topic": topic, "parent": row.get("Parent Task", "").strip(), "area": area}
        names.setdefault(folded, slug)
    out = []
    for entry in chosen.values():
        parent_name = " ".join(_clean(entry["parent"])[0].lower().split())
        parent = names.get(parent_name) if parent_name else None
        if parent is None or parent == entry["topic"]["slug"]:
            parent = _inner(entry["topic"]["label"], forms) or _root(
                entry["area"], entry["topic"]["label"]
            )
        out.append({**entry["topic"], "parents": [parent]})
    return [_ordered(t) for t in sorted(out, key=lambda t: t["slug"])]


def _inner(label: str, forms: dict[str, str]) -> str | None:
    """The curated topic whose name is the longest run of the label's words, two words at
    least (`Personalized Federated Learning` is below `federated-learning`)."""
    words = re.findall(r"[a-z0-9]+", label.lower())
    for size in range(len(words) - 1, 1, -1):
        for start in range(len(words) - size + 1):
            found = forms.get(" ".join(words[start : start + size]))
            if found is not None:
                return found
    return None


def _root(area: str, label: str) -> str:
    if _MEDICAL.search(label):
        return "medical-imaging" if _VISUAL.search(label) or _SCAN.search(label) else "healthcare"
    if area in ("cv", "other"):
        return "computer-vision" if _VISUAL.search(label) else "machine-learning"
    return AREAS[area]


def _ordered(topic: dict) -> dict:
    order = ("slug", "label", "parents", "abbreviations", "source")
    return {key: topic[key] for key in order if key in topic}


class FetchError(Exception):
    """A downloaded file is not the one the shipped vocabulary was built from."""


def checked(area: str, data: bytes) -> bytes:
    """`data` if it is the archive's file for `area`, else FetchError."""
    digest = hashlib.sha256(data).hexdigest()
    if digest != DIGESTS[area]:
        raise FetchError(f"{area}_hierarchy.csv: SHA-256 {digest}, expected {DIGESTS[area]}")
    return data


def fetch(directory: Path, client: httpx.Client) -> None:
    """Download the four hierarchy files into `directory`, each checked before it is kept."""
    directory.mkdir(parents=True, exist_ok=True)
    for area in DIGESTS:
        name = f"{area}_hierarchy.csv"
        response = client.get(ARCHIVE + name)
        response.raise_for_status()
        write_atomic(directory / name, checked(area, response.content))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pwc", type=Path, help="folder of the hierarchy CSVs")
    parser.add_argument(
        "--fetch", action="store_true", help="download the CSVs first (into --pwc, or a temp dir)"
    )
    parser.add_argument("--min-datasets", type=int, default=3)
    parser.add_argument("--curated", type=Path, default=ROOT / "bib/data/topics.json")
    parser.add_argument("-o", "--output", type=Path, default=ROOT / "bib/data/topics-imported.json")
    args = parser.parse_args()
    if args.pwc is None and not args.fetch:
        parser.error("give --pwc DIR, --fetch, or both")
    with tempfile.TemporaryDirectory() as scratch:
        folder = args.pwc or Path(scratch)
        if args.fetch:
            try:
                with httpx.Client(timeout=60, follow_redirects=True) as client:
                    fetch(folder, client)
            except (httpx.HTTPError, FetchError) as exc:
                sys.exit(f"tags_build_vocabulary: error: {exc}")
        topics = build(folder, args.curated, args.min_datasets)
    document = {
        "about": (
            "Topics imported from the Papers with Code task hierarchy (CC BY-SA 4.0, Papers "
            "with Code; as archived at github.com/World-Snapshot/papers-with-code, commit "
            f"{COMMIT[:7]}, results/hierarchical/*_hierarchy.csv) by "
            "benchmarks/tags_build_vocabulary.py, "
            f"tasks with at least {args.min_datasets} datasets. Each topic's `source` names "
            "its area and task. Do not edit by hand: rebuild, or override in a --vocab file."
        ),
        "version": 1,
        "topics": topics,
    }
    text = json.dumps(document, indent=1, ensure_ascii=False) + "\n"
    write_atomic(args.output, text)
    print(f"{len(topics)} topics -> {args.output}", file=sys.stderr)


if __name__ == "__main__":
    main()
