"""bib.writers.bibtex: field mapping, names, notes, links, and independent re-parsing."""

from __future__ import annotations

import pytest

from bib.errors import BibError
from bib.latex import decode, to_text
from bib.record import Author, EntryType, Link, LinkRole, Tag, TagKind
from bib.writers import DERIVED_TITLE_NOTE, render
from bib.writers.bibtex import dumps, entry, stream


def test_inproceedings_has_the_agreed_bibtex_fields(record) -> None:
    fields = entry(record, dialect="bibtex")
    assert fields["ENTRYTYPE"] == "inproceedings"
    assert fields["ID"] == "usmoe2026"
    assert fields["title"] == "{USMoE}: Unified Sparse Mixture of Experts"
    assert fields["booktitle"] == record.container_title
    assert fields["publisher"] == "PMLR"
    assert fields["year"] == "2026"
    assert fields["doi"] == "10.5555/usmoe"
    assert fields["eprint"] == "2601.01234"
    assert fields["archivePrefix"] == "arXiv"
    assert fields["url"] == "https://openreview.net/forum?id=abc"
    assert fields["abstract"].endswith(r"6$\times$ faster.")
    assert "date" not in fields and "eventtitle" not in fields


def test_biblatex_uses_date_eventtitle_and_eprinttype(record) -> None:
    fields = entry(record, dialect="biblatex")
    assert fields["date"] == "2026"
    assert fields["eventtitle"] == record.event_title
    assert fields["eprinttype"] == "arxiv"
    assert "year" not in fields and "archivePrefix" not in fields


def test_biblatex_eventtitle_falls_back_to_venue(make_record) -> None:
    assert entry(make_record(event_title=""), dialect="biblatex")["eventtitle"] == "ICML"


@pytest.mark.parametrize(
    ("kind", "bibtex_type", "biblatex_type", "bibtex_container", "biblatex_container"),
    [
        (EntryType.ARTICLE, "article", "article", "journal", "journaltitle"),
        (EntryType.PREPRINT, "misc", "online", "howpublished", "howpublished"),
        (EntryType.INCOLLECTION, "incollection", "incollection", "booktitle", "booktitle"),
        (EntryType.BOOK, "book", "book", "booktitle", "booktitle"),
        (EntryType.MANUAL, "manual", "manual", "howpublished", "howpublished"),
        (EntryType.ONLINE, "misc", "online", "howpublished", "howpublished"),
        (EntryType.INBOOK, "incollection", "inbook", "booktitle", "booktitle"),
    ],
)
def test_entry_types_use_their_container_field(
    make_record, kind, bibtex_type, biblatex_type, bibtex_container, biblatex_container
) -> None:
    record = make_record(entry_type=kind)
    classic = entry(record, dialect="bibtex")
    modern = entry(record, dialect="biblatex")
    assert (classic["ENTRYTYPE"], modern["ENTRYTYPE"]) == (bibtex_type, biblatex_type)
    assert classic[bibtex_container] == modern[biblatex_container] == record.container_title


def test_thesis_publisher_is_school_or_institution(make_record) -> None:
    record = make_record(entry_type=EntryType.THESIS, publisher="MIT")
    assert entry(record, dialect="bibtex")["school"] == "MIT"
    assert entry(record, dialect="biblatex")["institution"] == "MIT"


def test_authors_are_family_comma_given_joined_with_and(record) -> None:
    assert entry(record)["author"] == "Müller, Jürgen and Nguyen, Thi Minh"


def test_names_containing_and_or_commas_are_braced(make_record) -> None:
    record = make_record(
        authors=(Author("Smith and Sons", "Ann"), Author("Doe, Jr.", "John"), Author("Lee", "A, B"))
    )
    assert entry(record)["author"] == "{Smith and Sons}, Ann and {Doe, Jr.}, John and Lee, {A, B}"


def test_literal_names_are_braced(make_record) -> None:
    record = make_record(authors=(Author(literal="The LLM Team & Friends"),))
    assert entry(record)["author"] == r"{The LLM Team \& Friends}"


def test_derived_title_is_marked_in_note(record) -> None:
    assert entry(record)["note"].startswith(DERIVED_TITLE_NOTE)


def test_published_title_has_no_marker(make_record) -> None:
    assert "note" not in entry(make_record(title_derived=False, links=()))


def test_existing_note_follows_the_marker(make_record) -> None:
    note = entry(make_record(note="Read *again*", links=()))["note"]
    assert note == DERIVED_TITLE_NOTE + r" Read \emph{again}"


def test_code_link_goes_to_note_in_bibtex_and_addendum_in_biblatex(record) -> None:
    assert entry(record, dialect="bibtex")["note"].endswith(
        r"Code: \url{https://github.com/lab/usmoe}"
    )
    modern = entry(record, dialect="biblatex")
    assert modern["addendum"] == r"Code: \url{https://github.com/lab/usmoe}"
    assert "Code" not in modern["note"]


def test_code_url_is_the_url_when_there_is_no_paper_url(make_record) -> None:
    record = make_record(links=(Link("https://github.com/lab/usmoe", LinkRole.CODE),))
    fields = entry(record)
    assert fields["url"] == "https://github.com/lab/usmoe"
    assert "Code:" not in fields["note"]


def test_keywords_come_from_selected_tag_kinds_deduplicated(make_record) -> None:
    record = make_record(
        tags=(
            Tag(TagKind.TOPIC, "mixture of experts"),
            Tag(TagKind.METHOD, "USMoE"),
            Tag(TagKind.TOPIC, "Mixture of Experts"),
            Tag(TagKind.DATASET, "C4_en, cleaned"),
            Tag(TagKind.CONTRIBUTION, "framework"),
        )
    )
    assert entry(record)["keywords"] == r"mixture of experts, USMoE, C4\_en cleaned"
    assert entry(record, tag_kinds=[TagKind.CONTRIBUTION])["keywords"] == "framework"


def test_extra_fields_are_written_safely(make_record) -> None:
    record = make_record(fields=(("volume", "267"), ("pages", "1--10"), ("annote", "50% {sure")))
    fields = entry(record)
    assert (fields["volume"], fields["pages"]) == ("267", "1--10")
    assert fields["annote"] == r"50\% \textbraceleft{}sure"


def test_extra_fields_never_override_record_attributes(make_record) -> None:
    assert entry(make_record(fields=(("title", "Other"),)))["title"].startswith("{USMoE}")


def test_extra_fields_are_renamed_for_biblatex(make_record) -> None:
    record = make_record(entry_type=EntryType.MISC, fields=(("journal", "J"), ("address", "Paris")))
    fields = entry(record, dialect="biblatex")
    assert (fields["journaltitle"], fields["location"]) == ("J", "Paris")


def test_invalid_field_name_is_an_error_naming_the_record(make_record) -> None:
    with pytest.raises(BibError, match="usmoe2026"):
        entry(make_record(fields=(("bad name", "x"),)))


def test_missing_key_is_an_error(make_record) -> None:
    with pytest.raises(BibError, match="no citation key"):
        entry(make_record(key=""))


def test_unsafe_key_is_an_error(make_record) -> None:
    with pytest.raises(BibError, match="not safe"):
        entry(make_record(key="a,b"))


def test_duplicate_keys_are_an_error(make_record) -> None:
    with pytest.raises(BibError, match="used by two records"):
        render([make_record(), make_record(id="other")], "bibtex")


def test_entries_are_ordered_by_key(make_record) -> None:
    text = render([make_record(key="zeta2026"), make_record(id="b", key="alpha2026")], "bibtex")
    assert text.index("@inproceedings{alpha2026") < text.index("@inproceedings{zeta2026")


def test_output_is_stable_and_ends_with_newline(record) -> None:
    first = render([record], "bibtex")
    assert first == render([record], "bibtex")
    assert first.endswith("}\n")


def test_ascii_output_is_pure_ascii(nasty_records) -> None:
    assert render(nasty_records, "bibtex", ascii=True).isascii()


@pytest.mark.parametrize("fmt", ["bibtex", "biblatex"])
def test_output_parses_strictly_with_pybtex_into_the_records_written(
    nasty_records, strict, fmt
) -> None:
    data = strict(render(nasty_records, fmt))
    assert sorted(data.entries) == sorted(r.key for r in nasty_records)


@pytest.mark.parametrize("fmt", ["bibtex", "biblatex"])
def test_bibtexparser_reads_back_exactly_the_values_written(
    nasty_records, bibtexparser_entries, fmt
) -> None:
    written = {r.key: entry(r, dialect=fmt) for r in nasty_records}
    read = {e["ID"]: e for e in bibtexparser_entries(render(nasty_records, fmt))}
    assert read.keys() == written.keys()
    for key, fields in written.items():
        expected = {k if k in ("ENTRYTYPE", "ID") else k.lower(): v for k, v in fields.items()}
        assert read[key] == expected


def test_pybtex_values_decode_back_to_the_source_text(nasty_records, strict) -> None:
    data = strict(render(nasty_records, "bibtex"))
    for record in nasty_records:
        fields = data.entries[record.key].fields
        assert decode(fields["title"]) == to_text(record.title)
        assert decode(fields["abstract"]) == to_text(record.abstract)


def test_names_parse_back_into_family_and_given(make_record, strict) -> None:
    record = make_record(authors=(Author("Müller", "Jürgen"), Author("Smith and Sons", "Ann")))
    persons = strict(render([record], "bibtex")).entries[record.key].persons["author"]
    assert [(p.last_names, p.first_names) for p in persons] == [
        (["Müller"], ["Jürgen"]),
        (["{Smith and Sons}"], ["Ann"]),
    ]


def test_injection_attempt_yields_one_entry(make_record, strict) -> None:
    record = make_record(title="x}, title = {PWNED}} @misc{evil,", abstract="}} @misc{evil2, x={")
    data = strict(render([record], "bibtex"))
    assert list(data.entries) == ["usmoe2026"]
    assert "PWNED" in decode(data.entries["usmoe2026"].fields["title"])


def test_authorless_bibtex_entry_is_labelled_by_its_method_name(make_record) -> None:
    record = make_record(authors=(), method="US-MoE & Co")
    assert entry(record, dialect="bibtex")["key"] == r"US-MoE \& Co"
    assert "key" not in entry(record, dialect="biblatex")


def test_authorless_entry_without_method_is_labelled_by_its_first_title_words(make_record):
    record = make_record(authors=(), method="", title="Learning *to* Route Experts: a study")
    assert entry(record, dialect="bibtex")["key"] == "Learning to Route"


def test_entry_with_authors_has_no_key_field(make_record) -> None:
    record = make_record(authors=(Author("Doe", "Jane"),))
    assert "key" not in entry(record, dialect="bibtex")


@pytest.mark.parametrize("dialect", ["bibtex", "biblatex"])
@pytest.mark.parametrize("ascii", [False, True])
def test_streamed_entries_are_what_bibtexparsers_writer_writes(
    make_record, nasty_records, dialect, ascii
) -> None:
    """`stream` formats entries itself (fields in DISPLAY_ORDER without sorting when the
    record has no extra fields); bibtexparser's BibTexWriter is the reference."""
    records = [
        make_record(id=f"r{i}", key=f"r{i}{kind.value}", entry_type=kind, fields=fields)
        for i, fields in enumerate([(), (("volume", "3"), ("zeta", "z"), ("address", "Paris"))])
        for kind in EntryType
    ]
    records += [make_record(id="anon", key="anon2026", authors=(), event_title="")]
    records = sorted(records + nasty_records, key=lambda r: r.key.lower())
    entries = [entry(r, dialect=dialect, ascii=ascii) for r in records]
    streamed = "".join(stream(records, dialect=dialect, ascii=ascii))
    assert streamed == dumps(entries)
