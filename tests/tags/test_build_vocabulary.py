"""benchmarks/tags_build_vocabulary.py on a small task hierarchy in the archive's CSV layout
(columns as in World-Snapshot/papers-with-code results/hierarchical/*_hierarchy.csv)."""

from __future__ import annotations

import csv
import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "tags_build_vocabulary.py"
COLUMNS = ["Task Name", "Parent Task", "Level", "Dataset Count", "Description", "Benchmarks",
           "Metrics", "Children Count"]  # fmt: skip


@pytest.fixture(scope="module")
def builder():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("tags_build_vocabulary", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _area(folder: Path, name: str, rows: list[tuple[str, str, int]]) -> None:
    with (folder / f"{name}_hierarchy.csv").open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for task, parent, count in rows:
            writer.writerow([task, parent, 1 if parent else 0, count, "", "", "", 0])


@pytest.fixture
def topics(builder, tmp_path: Path) -> dict[str, dict]:
    _area(tmp_path, "nlp", [
        ("Question Answering", "", 400),  # curated already
        ("Biomedical Question Answering", "Question Answering", 30),
        ("Aspect-Based Sentiment Analysis (ABSA)", "", 20),
        ("Classification", "", 200),  # one word
        ("Rare Task Nobody Benchmarks", "", 1),
        ("Translation hun-deu", "", 9),
        ("Grammar and Style Checking", "", 9),  # compound
    ])  # fmt: skip
    _area(tmp_path, "cv", [("Mortality Prediction", "", 5), ("Video Inpainting", "", 8)])
    _area(tmp_path, "audio", [])
    _area(tmp_path, "other", [("Personalized Federated Learning", "", 4)])
    built = builder.build(tmp_path, ROOT / "bib" / "data" / "topics.json", 3)
    return {t["slug"]: t for t in built}


def test_a_task_the_curated_vocabulary_has_is_not_imported_again(topics) -> None:
    assert "question-answering" not in topics


def test_a_child_of_a_curated_task_goes_below_the_curated_topic(topics) -> None:
    assert topics["biomedical-question-answering"]["parents"] == ["question-answering"]


def test_one_word_rare_compound_and_language_pair_tasks_are_left_out(topics) -> None:
    assert set(topics) == {
        "biomedical-question-answering",
        "aspect-based-sentiment-analysis",
        "mortality-prediction",
        "video-inpainting",
        "personalized-federated-learning",
    }


def test_a_parenthesised_acronym_becomes_an_abbreviation(topics) -> None:
    topic = topics["aspect-based-sentiment-analysis"]
    assert topic["label"] == "Aspect-Based Sentiment Analysis"
    assert topic["abbreviations"] == ["ABSA"]


def test_a_parentless_task_goes_below_the_curated_topic_its_name_contains(topics) -> None:
    assert topics["personalized-federated-learning"]["parents"] == ["federated-learning"]


def test_a_vision_file_task_without_a_vision_word_is_not_put_under_vision(topics) -> None:
    assert topics["mortality-prediction"]["parents"] == ["healthcare"]
    assert topics["video-inpainting"]["parents"] == ["computer-vision"]


def test_every_imported_topic_names_its_source(topics) -> None:
    assert topics["video-inpainting"]["source"] == "pwc:cv:Video Inpainting"


def _serving(files: dict[str, bytes], asked: list[str]):  # type: ignore[no-untyped-def]
    import httpx

    def handler(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        return httpx.Response(200, content=files[request.url.path.rsplit("/", 1)[1]])

    return httpx.Client(transport=httpx.MockTransport(handler))


def test_fetch_asks_for_the_archive_at_the_commit_the_shipped_file_was_built_from(
    builder, tmp_path: Path
) -> None:
    asked: list[str] = []
    files = {f"{area}_hierarchy.csv": b"not the archive's file" for area in builder.DIGESTS}
    with pytest.raises(builder.FetchError), _serving(files, asked) as client:
        builder.fetch(tmp_path, client)
    assert asked == [
        "https://raw.githubusercontent.com/World-Snapshot/papers-with-code/"
        "8d2360f0ef84aea21a70b79f0a069914da68cb07/results/hierarchical/audio_hierarchy.csv"
    ]


def test_fetch_keeps_no_file_whose_digest_differs(builder, tmp_path: Path) -> None:
    files = {f"{area}_hierarchy.csv": b"Task Name\n" for area in builder.DIGESTS}
    refused = pytest.raises(builder.FetchError, match=r"audio_hierarchy\.csv: SHA-256")
    with refused, _serving(files, []) as client:
        builder.fetch(tmp_path, client)
    assert list(tmp_path.iterdir()) == []
