"""The spool: records wait on disk between the steps that need all of them."""

from __future__ import annotations

import errno
import io
import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bib import convert as engine
from bib import parallel
from bib.record import (
    Author,
    EntryType,
    FieldLatex,
    LatexSource,
    Link,
    LinkRole,
    Record,
    Source,
    StringDef,
    Tag,
    TagKind,
)
from bib.spool import Spool, write_items

text = st.text(max_size=30)
authors = st.builds(Author, text, text, text)
links = st.builds(Link, text, st.sampled_from(LinkRole))
spans = st.tuples(st.integers(0, 10_000), st.integers(0, 10_000))
tags = st.builds(Tag, st.sampled_from(TagKind), text, text, st.tuples(spans, spans))
latex = st.builds(
    LatexSource,
    st.lists(st.builds(FieldLatex, text, text, text, text), max_size=3).map(tuple),
    st.lists(st.builds(StringDef, text, text), max_size=2).map(tuple),
    st.lists(text, max_size=2).map(tuple),
)
records = st.builds(
    Record,
    id=text,
    abstract=text,
    key=text,
    entry_type=st.sampled_from(EntryType),
    title=text,
    title_derived=st.booleans(),
    authors=st.lists(authors, max_size=3).map(tuple),
    year=st.none() | st.integers(1000, 2999),
    links=st.lists(links, max_size=3).map(tuple),
    tags=st.lists(tags, max_size=3).map(tuple),
    fields=st.lists(st.tuples(text, text), max_size=3).map(tuple),
    sources=st.lists(st.builds(Source, text, st.none() | st.integers(1)), max_size=2).map(tuple),
    latex=st.none() | latex,
)


@given(st.lists(records, min_size=1, max_size=5))
def test_every_record_reads_back_equal_in_any_order(written: list[Record]) -> None:
    spool = Spool()
    try:
        for record in written:
            spool.add(record)
        for index in reversed(range(len(written))):
            assert spool.get(index) == written[index]
    finally:
        spool.close()


def test_a_record_reads_back_with_the_key_asked_for() -> None:
    spool = Spool()
    spool.add(Record(id="abs:1", key="old"))
    assert spool.get(0, "usmoe2026") == Record(id="abs:1", key="usmoe2026")
    spool.close()


def test_read_back_records_keep_their_enum_members() -> None:
    spool = Spool()
    spool.add(
        Record(
            id="abs:1",
            entry_type=EntryType.ARTICLE,
            links=(Link("https://github.com/a/b", LinkRole.CODE),),
            tags=(Tag(TagKind.TOPIC, "llm", "LLMs", ((0, 3),)),),
        )
    )
    record = spool.get(0)
    spool.close()
    assert record.entry_type is EntryType.ARTICLE
    assert record.links[0].role is LinkRole.CODE
    assert record.tags[0].kind is TagKind.TOPIC


def test_a_record_added_after_one_was_read_back_reads_back_too() -> None:
    spool = Spool()
    spool.add(Record(id="abs:1"))
    assert spool.get(0) == Record(id="abs:1")
    spool.add(Record(id="abs:2"))
    assert [spool.get(1), spool.get(0)] == [Record(id="abs:2"), Record(id="abs:1")]
    spool.close()


steps = st.lists(
    st.tuples(st.sampled_from(["add", "file", "read"]), st.lists(st.binary(max_size=20))),
    max_size=8,
)


@given(steps)
def test_items_another_process_wrote_read_back_as_if_added_here(tmp_path_factory, done) -> None:
    """`add_file` of what `write_items` wrote, between adds and reads, is `add_all`."""
    handoff = tmp_path_factory.mktemp("handoff")
    spool, added = Spool(), []
    try:
        for step, items in done:
            if step == "add":
                spool.add_all(items)
            elif step == "file":
                spool.add_file(write_items(str(handoff), items))
            if step != "read":
                added.extend(items)
            assert [spool.get_bytes(i) for i in reversed(range(len(added)))] == added[::-1]
    finally:
        spool.close()
    assert not list(handoff.iterdir())  # every file taken in is removed


def test_items_another_process_wrote_are_taken_in_where_the_kernel_cannot_copy_them(
    tmp_path, monkeypatch
) -> None:
    """Another file system (or an old kernel) refuses `copy_file_range`: read and written."""

    def refused(*args: object) -> int:
        raise OSError(errno.EXDEV, "Invalid cross-device link")

    monkeypatch.setattr(os, "copy_file_range", refused)
    spool = Spool()
    try:
        spool.add_bytes(b"here")
        spool.add_file(write_items(str(tmp_path), [b"one", b"", b"three"]))
        spool.add_bytes(b"after")
        assert [spool.get_bytes(i) for i in range(5)] == [b"here", b"one", b"", b"three", b"after"]
    finally:
        spool.close()


ABSTRACT = "We propose FairJudge, an adaptive judge for LLM evaluation."


def test_a_paper_on_standard_input_and_in_a_file_is_one_record(tmp_path) -> None:
    listed = tmp_path / "a.txt"
    listed.write_text(f"ICML 2026\n\n{ABSTRACT}\n", encoding="utf-8")
    stdin = io.BytesIO(f"ICML 2026\n\nOther paper.\n\n{ABSTRACT}\n".encode())
    messages: list[str] = []
    result = engine.run(["-", listed], engine.ConvertOptions(stdin=stdin, report=messages.append))
    assert (result.stats.records, result.stats.merged) == (2, 1)
    assert messages == [f"merged: <stdin>:5 = {listed}:3 ({result.records[0].id})"]


def test_merged_copies_are_extracted_once_as_one_record(tmp_path) -> None:
    (tmp_path / "a.txt").write_text(f"ICML 2026\n\n{ABSTRACT}\n", encoding="utf-8")
    (tmp_path / "b.md").write_text(f"ICML 2026\n\n{ABSTRACT}\n\nOther.\n", encoding="utf-8")
    result = engine.run([tmp_path / "a.txt", tmp_path / "b.md"])
    assert [r.method for r in result.records] == ["FairJudge", ""]
    assert result.stats.titles_derived == 2


def test_an_extraction_stage_that_drops_records_is_refused(tmp_path) -> None:
    (tmp_path / "a.txt").write_text(f"ICML 2026\n\n{ABSTRACT}\n\nOther.\n", encoding="utf-8")

    def all_but_the_first(records):
        for index, record in enumerate(records):
            if index:
                yield record

    with pytest.raises(RuntimeError, match="fewer"):
        engine.run([tmp_path / "a.txt"], engine.ConvertOptions(stages=[all_but_the_first]))


def test_the_spool_keeps_what_encode_makes_of_each_record(tmp_path) -> None:
    (tmp_path / "a.txt").write_text(f"ICML 2026\n\n{ABSTRACT}\n\nOther.\n", encoding="utf-8")
    with engine.spool([tmp_path / "a.txt"], encode=lambda r: r.method.encode()) as spooled:
        assert list(spooled.items(range(2))) == [b"FairJudge", b""]


def test_records_pass_every_stage_in_their_order_across_batches(tmp_path) -> None:
    count = 2 * parallel.BATCH + 3
    paragraphs = "".join(f"Paper number {i} studies topic {i}.\n\n" for i in range(count))
    (tmp_path / "a.txt").write_text(f"ICML 2026\n\n{paragraphs}", encoding="utf-8")
    seen: list[int] = []

    def numbered(records):
        for record in records:
            seen.append(record.sources[0].line)
            yield record

    encode = lambda r: str(r.sources[0].line).encode()  # noqa: E731
    with engine.spool(
        [tmp_path / "a.txt"], engine.ConvertOptions(stages=[numbered]), encode
    ) as spooled:
        lines = [int(item) for item in spooled.items(range(count))]
    assert lines == seen == [3 + 2 * i for i in range(count)]
