"""The compiled vocabulary kept in the user cache directory between runs."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

from bib.extract import vocabulary as vocab
from bib.extract.topics import match_topics

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    directory = tmp_path / "cache" / "vocabulary"
    monkeypatch.setattr(vocab, "cache_dir", lambda: directory)
    return directory


def fresh() -> vocab.Vocabulary:
    """The shipped topics in a new Vocabulary, so that nothing compiled is remembered."""
    return vocab.Vocabulary(topics=dict(vocab.shipped().topics))


def abstracts() -> list[str]:
    texts = []
    for path in [*sorted((ROOT / "seeds").glob("*.txt")), ROOT / "tests/data/stress.txt"]:
        texts += [p.strip() for p in path.read_text(encoding="utf-8").split("\n\n")[1:]]
    return [text for text in texts if text]


def compile_fails(vocabulary: vocab.Vocabulary) -> vocab.CompiledTopics:
    raise AssertionError("compiled although cached")


def test_first_run_writes_the_compiled_vocabulary_to_the_cache(cache: Path) -> None:
    fresh().compiled  # noqa: B018
    (path,) = cache.glob("*.pickle")
    assert isinstance(pickle.loads(path.read_bytes()), vocab.CompiledTopics)


def test_next_run_reads_the_cache_instead_of_compiling(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh().compiled  # noqa: B018
    monkeypatch.setattr(vocab, "compile_topics", compile_fails)
    assert fresh().compiled.phrases > 1000


def test_cached_automaton_tags_every_test_abstract_as_a_fresh_compile(
    cache: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fresh().compiled  # noqa: B018
    cached = fresh()
    monkeypatch.setattr(vocab, "compile_topics", compile_fails)
    cached.compiled  # noqa: B018
    monkeypatch.undo()
    monkeypatch.setattr(vocab, "cache_dir", lambda: tmp_path / "empty")
    compiled = fresh()
    compiled.compiled  # noqa: B018
    for text in abstracts():
        assert match_topics(text, cached) == match_topics(text, compiled), text[:60]


def test_unreadable_cache_file_is_compiled_again_and_replaced(cache: Path) -> None:
    fresh().compiled  # noqa: B018
    (path,) = cache.glob("*.pickle")
    path.write_bytes(b"\x80\x05not a pickle")
    assert fresh().compiled.phrases > 1000
    assert isinstance(pickle.loads(path.read_bytes()), vocab.CompiledTopics)


def test_cache_that_cannot_be_written_is_done_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory", encoding="utf-8")
    monkeypatch.setattr(vocab, "cache_dir", lambda: blocker / "vocabulary")
    assert [t.slug for t in match_topics("We study mixture of experts.", fresh())] == [
        "mixture-of-experts"
    ]


def test_changed_topics_are_compiled_and_cached_apart(cache: Path, vocab_file) -> None:
    fresh().compiled  # noqa: B018
    document = {"topics": [{"slug": "quokka", "label": "quokka husbandry"}]}
    extended = vocab.extend(fresh(), document, "user.json")
    found = match_topics("We study quokka husbandry in the wild. Quokka husbandry.", extended)
    assert [t.slug for t in found] == ["quokka"]
    assert len(list(cache.glob("*.pickle"))) == 2


def test_a_file_of_another_code_version_is_kept_when_one_is_written(cache: Path) -> None:
    # another install of bib sharing the cache: removing its file made each install
    # recompile after the other had run
    cache.mkdir(parents=True)
    other = cache / "0000000000000000-0123456789abcdef0123456789abcdef.pickle"
    other.write_bytes(b"another install's")
    fresh().compiled  # noqa: B018
    assert other.exists() and len(list(cache.glob("*.pickle"))) == 2


def test_a_file_of_another_code_version_ages_out_as_newer_ones_are_written(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vocab, "CACHED_VOCABULARIES", 1)
    cache.mkdir(parents=True)
    stale = cache / "0000000000000000-0123456789abcdef0123456789abcdef.pickle"
    stale.write_bytes(b"old")
    os.utime(stale, ns=(1, 1))  # used long ago
    fresh().compiled  # noqa: B018
    assert not stale.exists() and len(list(cache.glob("*.pickle"))) == 1


def test_only_the_vocabularies_used_last_are_kept(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vocab, "CACHED_VOCABULARIES", 2)

    def small(slug: str) -> vocab.Vocabulary:
        return vocab.Vocabulary(topics={slug: vocab.Topic(slug, f"{slug} learning")})

    written: set[Path] = set()
    for when, slug in enumerate(("first", "second"), start=1):
        small(slug).compiled  # noqa: B018
        (path,) = set(cache.glob("*.pickle")) - written
        os.utime(path, ns=(when, when))  # used long ago, the first before the second
        written.add(path)
    small("first").compiled  # noqa: B018 -- read from the cache: used last now
    small("third").compiled  # noqa: B018
    assert len(list(cache.glob("*.pickle"))) == 2
    monkeypatch.setattr(vocab, "compile_topics", compile_fails)
    small("first").compiled  # noqa: B018
    small("third").compiled  # noqa: B018


def test_the_cache_directory_follows_bib_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("BIB_CACHE_DIR", str(tmp_path))
    assert vocab.cache_dir() == tmp_path / "vocabulary"
