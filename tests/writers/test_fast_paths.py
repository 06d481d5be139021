"""The writers' fast paths say exactly what their plain definitions say, for any text.

bib.latex and the writers skip work when a cheap check proves it unneeded (a
bytes.translate instead of a regex scan, no escaping or ligature pass over text nodes that
cannot need one, emphasis paired without the delimiter stack, a quoted JSON string without
the encoder) or remember, for one run, what they made (`writers.RunMemo`: math text, the
compiled CSL-JSON schema). Each property below compares one of them with the straightforward
definition it replaces.
"""

from __future__ import annotations

import json
import re

from hypothesis import given
from hypothesis import strategies as st

from bib.latex import markup, tables, tolatex, totext
from bib.record import EntryType, Record, TagKind
from bib.writers import common, csljson, writer

PIECES = [
    *"{}\\$%&#_^~*`[]()<>|@,=\"'!?-. \n\t\r\x00\x07\x0b\x1f\x7f\x85\xa0\u2028\u3000",
    "--",
    "''",
    "``",
    "!`",
    "  ",
    "\\-",
    "\\`",
    "\\textasciigrave{}",
    "\\'e",
    "\\textbf{",
    "\\emph{x}",
    "\\url{http://a.b/c}",
    "$\\times$",
    "$x$",
    "**",
    "_a_",
    "](http://x)",
    "[t](http://x--y)",
    "<http://x>",
    "`c`",
    "USMoE",
    "dLLMs",
    "Ünï",
]

texts = st.lists(
    st.one_of(
        st.sampled_from(PIECES),
        st.characters(blacklist_categories=("Cs",)),
        st.text(alphabet="aZ -'`", max_size=4),
    ),
    max_size=40,
).map("".join)

# Few pieces, so that they meet: `-` beside `\-`, `'` beside `'`, `*` around them ...
dense = st.lists(
    st.sampled_from(["-", "\\-", "'", "`", "\\textasciigrave{}", "\\", "a", " ", "*", "$x$", "%"]),
    max_size=12,
).map("".join)
texts = st.one_of(texts, dense)

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")
_SPECIAL = re.compile(r"[\\{}$%&#_~^<>|]|(?<![`!?])`(?!`)")
"""A LaTeX special, or a backtick that is no TeX ligature (TeX would print a quote)."""
_WORD = re.compile(r"[^\W_]+")
_BRACE_TOKEN = re.compile(r"\\.|[{}]", re.S)


def reference_clean(text: str) -> str:
    return re.sub(r"\s+", " ", _CONTROL.sub("", text)).strip()


def reference_escape(text: str) -> str:
    return _SPECIAL.sub(lambda m: _ESCAPES[m.group()], text)


_ESCAPES = tables._LATEX_ESCAPES | {"`": "\\textasciigrave{}"}


def reference_protect(text: str) -> str:
    out, pos = [], 0
    for m in _WORD.finditer(text):
        tail = m.group()[1:]
        if tail and tail.lower() != tail:
            out += [reference_escape(text[pos : m.start()]), "{" + m.group() + "}"]
            pos = m.end()
    return "".join([*out, reference_escape(text[pos:])])


def reference_parse(text: str) -> list:
    """The parser itself: no remembered nodes, no shortcut for simple emphasis."""
    return markup._parse(markup._Source(text), 0, len(text), 0)


def reference_to_latex(text: str, protect: bool) -> str:
    """Always parse, escape every text node (then to_latex's last steps: citations, accent
    macros for combining accents)."""
    out: list[str] = []
    tolatex._render_latex(reference_parse(markup.clean(text)), protect, out)
    return tolatex._finish(tolatex._CITATION.sub(tolatex._cite, "".join(out)), False)


def reference_to_text(text: str) -> str:
    """Always parse, typeset every text node."""
    return markup.clean(totext._plain(reference_parse(markup.clean(text)), typeset=True))


# Whitespace and control characters, ASCII and not, side by side
spaces = st.lists(
    st.sampled_from(
        ["a", "é", " ", "\xa0", "\t", "\n", "\x0b", "\x1c", "\x00", "\x85", "\u2028", "\ud800"]
    ),
    max_size=10,
).map("".join)


# Long enough for the paths taken for abstracts, with the pieces at both ends
long_texts = st.tuples(st.one_of(texts, spaces), st.one_of(texts, spaces)).map(
    lambda ends: ends[0] + "x" * markup._LONG + ends[1]
)


@given(st.one_of(texts, spaces, long_texts))
def test_clean_is_the_regex_definition(text: str) -> None:
    assert markup.clean(text) == reference_clean(text)


@given(st.one_of(texts, spaces, long_texts))
def test_printable_is_what_isprintable_says(text: str) -> None:
    assert markup._printable(text) == text.isprintable()


@given(texts)
def test_escape_is_one_macro_per_special_character(text: str) -> None:
    assert markup._escape(text) == reference_escape(text)


@given(st.one_of(texts, spaces), st.booleans())
def test_clean_text_is_escaped_as_escape_does_without_cleaning_it(text: str, ascii: bool) -> None:
    text = markup.clean(text)
    assert tolatex.escape_clean(text, ascii=ascii) == tolatex.escape(text, ascii=ascii)


@given(texts)
def test_protect_braces_the_same_words_as_the_word_loop(text: str) -> None:
    text = markup.clean(text)
    assert tolatex._protect(text) == reference_protect(text)


@given(st.one_of(texts, long_texts), st.booleans())
def test_to_latex_is_the_parsed_text_with_every_node_escaped(text: str, protect: bool) -> None:
    assert tolatex.to_latex(text, protect=protect) == reference_to_latex(text, protect)


@given(st.one_of(texts, long_texts))
def test_to_text_is_the_parsed_text_with_every_node_typeset(text: str) -> None:
    assert totext.to_text(text) == reference_to_text(text)


@given(texts)
def test_plain_text_ligatures_are_the_regex_definition(text: str) -> None:
    assert totext._typeset(text) == tables._LIGATURE.sub(totext._ligature, text)


@given(texts)
def test_brace_pairs_are_those_of_the_token_scan(text: str) -> None:
    pairs: dict[int, int] = {}
    stack: list[int] = []
    for m in _BRACE_TOKEN.finditer(text):
        if m.group() == "{":
            stack.append(m.start())
        elif m.group() == "}" and stack:
            pairs[stack.pop()] = m.start()
    assert markup._brace_pairs(text) == pairs


json_values = st.one_of(
    st.text(),
    st.text(min_size=csljson._LONG),
    st.text(alphabet="ab ", min_size=csljson._LONG),  # long, nothing to escape
    st.integers(),
    st.integers(0, 3000).map(lambda year: {"date-parts": [[year]]}),
    st.lists(st.dictionaries(st.sampled_from(["family", "given", "literal"]), st.text())),
)


@given(st.lists(st.dictionaries(st.text(), json_values), max_size=4))
def test_items_are_written_as_json_dumps_writes_them(items: list[dict]) -> None:
    """One run's year-date table (`RunMemo.year_dates`) is shared by every item, as in a run."""
    year_dates: dict[int, str] = {}
    for item in items:
        expected = json.dumps([item], ensure_ascii=False, indent=2)[len("[\n  ") : -len("\n]")]
        assert csljson._pretty_item(item, year_dates) == expected


venues = st.builds(
    Record,
    id=st.just("a"),
    key=st.sampled_from(["a2026", "b2026"]),
    title=st.sampled_from(["T", "T $x$"]),
    container_title=st.sampled_from(["", "Proc. ICML", "J. {\\TeX} & Co", "NeurIPS"]),
    venue=st.sampled_from(["", "ICML 2026", "50% of {CVPR}"]),
    series=st.sampled_from(["", "PMLR", "LNCS_1"]),
    publisher=st.sampled_from(["", "ACM", "S & P", "ETH Zürich"]),
    year=st.one_of(st.none(), st.integers(1990, 2030)),
    entry_type=st.sampled_from(list(EntryType)),
)


@given(st.lists(venues, max_size=6), st.sampled_from(["bibtex", "biblatex", "csl-json"]))
def test_a_runs_venue_table_writes_what_each_record_alone_writes(records, fmt) -> None:
    """`RunMemo.venues` is shared by the records of a run (and by its outputs, `--ascii`
    or not); each entry must be the one a fresh run (an empty table) writes for it."""
    chosen = writer(fmt)
    shared = common.RunMemo()
    for record in records:
        for ascii in (False, True) if fmt != "csl-json" else (False,):
            options = common.WriteOptions(ascii=ascii)
            alone = chosen.entry_text(common.prepare(record, options, common.RunMemo()))
            assert chosen.entry_text(common.prepare(record, options, shared)) == alone


@given(st.one_of(texts, spaces, long_texts))
def test_clean_text_and_its_marks_come_from_one_scan_as_from_two(text: str) -> None:
    cleaned = markup.clean(text)
    assert markup._clean_marks(text) == (cleaned, markup._marks(cleaned))


def test_keyword_text_asked_again_for_the_same_tags_is_that_of_the_kinds_asked(
    make_record,
) -> None:
    record = make_record()
    kinds = (TagKind.TOPIC, TagKind.METHOD)
    assert common.keyword_text(record, kinds) == "mixture of experts, USMoE"
    assert common.keyword_text(record, (TagKind.CONTRIBUTION,)) == "framework"
    assert common.keyword_text(record, kinds) == "mixture of experts, USMoE"


@given(st.lists(st.one_of(texts, spaces), min_size=2, max_size=4))
def test_long_texts_cleaned_in_turn_are_each_their_own_clean_text(parts: list[str]) -> None:
    longs = [part + " " + "x" * markup._LONG for part in parts]
    for text in [*longs, *longs[::-1]]:
        cleaned = markup.clean(text)
        assert markup._clean_marks(text) == (cleaned, markup._marks(cleaned))


# Emphasis runs of either character and their neighbours, dense enough to meet
emphasis = st.lists(
    st.one_of(
        st.sampled_from(["*", "**", "_", "a", " "]),
        st.sampled_from(["***", "__", "B", "1", ".", "(", ")", "é", "-"]),
    ),
    max_size=16,
).map(lambda pieces: markup.clean("".join(pieces)))


def typed(nodes: list) -> list:
    """Nodes with the class of each structure (tuples compare equal to their subclasses)."""
    out: list = []
    for node in nodes:
        if type(node) is str:
            out.append(node)
        elif isinstance(node, markup.Styled | markup.Link):
            out.append((type(node).__name__, node[0], typed(node[1])))
        else:
            out.append((type(node).__name__, *node))
    return out


@given(emphasis)
def test_simple_emphasis_is_what_the_delimiter_stack_gives(text: str) -> None:
    nodes = markup._simple_emphasis(text, markup._marks(text))
    if nodes is not None:
        assert typed(nodes) == typed(reference_parse(text))


def test_simple_emphasis_pairs_the_common_runs() -> None:
    text = "we introduce **Unified Sparse MoE (USMoE)**, a *novel* frame_work"
    assert typed(markup._simple_emphasis(text, markup._marks(text))) == [
        "we introduce ",
        ("Styled", "bold", ["Unified Sparse MoE (USMoE)"]),
        ", a ",
        ("Styled", "emph", ["novel"]),
        " frame_work",
    ]


@given(st.lists(texts, min_size=2, max_size=4))
def test_long_texts_parsed_in_turn_are_each_their_own_nodes(parts: list[str]) -> None:
    longs = [markup.clean(part + " " + "x" * markup._LONG) for part in parts]
    for text in [*longs, *longs[::-1]]:
        assert typed(markup.parse(text, markup._marks(text))) == typed(reference_parse(text))


@given(st.one_of(texts, long_texts), st.booleans())
def test_a_text_prepared_once_renders_in_every_writer_as_parsed_afresh(
    text: str, protect: bool
) -> None:
    """A `Text` is shared by every writer of a record (plain text first for CSL-JSON, then
    LaTeX for BibTeX): what it gives is what a fresh parse gives, in either order."""
    prepared = markup.Text.of(text)
    assert totext.to_text(prepared) == reference_to_text(text)
    assert tolatex.to_latex(prepared, protect=protect) == reference_to_latex(text, protect)
    assert totext.to_text(prepared) == reference_to_text(text)


def test_records_prepared_in_turn_are_each_their_own_latex(make_record) -> None:
    """Regression: the last abstract was remembered by identity across calls; each
    `Prepared` record now holds its own rendering."""
    first, second = "Wörds *here* " + "x" * markup._LONG, "Other $x$ " + "y" * markup._LONG
    for text, ascii in [(first, False), (first, True), (second, False), (first, False)]:
        prepared = common.prepare(make_record(abstract=text), common.WriteOptions(ascii=ascii))
        assert prepared.latex_abstract() == tolatex.to_latex(text, ascii=ascii)


math_bodies = st.sampled_from(["x", "k", "\\times", "\\alpha", "O(n^2)", "\\mathcal{O}(n)", "a_b"])
texts_with_math = st.lists(
    st.one_of(texts, math_bodies.map(lambda body: f" ${body}$ ")), min_size=1, max_size=6
).map("".join)


@given(st.lists(st.one_of(texts_with_math, long_texts), min_size=1, max_size=6))
def test_math_text_remembered_for_a_run_is_the_text_of_each_alone(run: list[str]) -> None:
    """One `MathTexts` shared by a run's texts gives each text what it gives alone."""
    memo = totext.MathTexts()
    for text in [*run, *run[::-1]]:
        assert totext.to_text(text, memo) == totext.to_text(text)
        assert totext.to_text(text) == reference_to_text(text)


def test_math_texts_stay_few_and_right_when_many_bodies_come(monkeypatch) -> None:
    monkeypatch.setattr(totext.MathTexts, "LIMIT", 8)
    memo = totext.MathTexts()
    for i in range(40):
        assert memo[f"x_{i}"] == totext._math_text(f"x_{i}")
        assert len(memo) <= 8


csl_values = st.one_of(
    st.text(max_size=3),
    st.integers(-2, 3000),
    st.booleans(),
    st.none(),
    st.lists(st.integers(0, 3000), max_size=3).map(lambda date: {"date-parts": [date]}),
    st.lists(st.dictionaries(st.sampled_from(["family", "given", "x"]), st.text(max_size=2))),
)
csl_items = st.dictionaries(
    st.sampled_from(["id", "type", "title", "issued", "author", "volume", "note", "x-y"]),
    csl_values,
).map(lambda item: {"id": "a", "type": "book", **item})


@given(st.lists(csl_items, min_size=1, max_size=8))
def test_items_checked_with_a_runs_compiled_schema_get_the_schemas_verdict_on_each(
    items: list[dict],
) -> None:
    """`_validate` with a run's compiled schema refuses exactly the items the official
    schema refuses, with jsonschema's first complaint, whatever was checked before them."""
    memo = common.RunMemo()
    schema_check = csljson.validator()
    for item in items:
        complaint = None
        try:
            csljson._validate(item, csljson.run_check(memo), ValueError)
        except ValueError as refused:
            complaint = str(refused)
        first = next(iter(schema_check.iter_errors(item)), None)
        assert (complaint is None) == (first is None)
        assert first is None or (complaint is not None and first.message in complaint)


def _chained_fields(record: Record, out: dict) -> dict:
    """`csljson._put_fields` as one chain of branches over the fields sorted `issue` last:
    the straightforward definition its name table (`_plain_fields`) replaces."""
    from bib import dates, types, variables

    custom: dict = {}
    in_series = {EntryType.BOOK, EntryType.INCOLLECTION}

    def field(name: str) -> str:
        return next((v for f, v in record.fields if f.lower() == name), "")

    for raw_name, raw_value in sorted(record.fields, key=lambda p: p[0].lower() == "issue"):
        name = raw_name.strip().lower()
        value = markup.clean(raw_value)
        if not value or name in csljson.PART_FIELDS:
            continue
        if name == types.SUBTYPE_FIELD and types.subtype_is_type(record.entry_type, value):
            continue
        if name == "type":
            value = types.genre(value)
            if not value:
                continue
        if name in csljson._DATE_FIELDS:
            csljson._put_date(out, csljson._DATE_FIELDS[name], value)
            continue
        if name == "month":
            csljson._put_month(out, value)
            continue
        if name == "year":
            out.setdefault("issued", {"literal": value})
            continue
        if name == "number":
            variable = types.row(record.entry_type).number
            if record.series and record.entry_type in in_series:
                variable = "collection-number"
            if variable == "collection-number" and field(variable):
                variable = "number"
        elif name in csljson._NAME_FIELDS:
            variable = csljson._NAME_FIELDS[name]
            if variable not in out and (names := csljson._parse_names(value)):
                out[variable] = names
            continue
        elif name == "howpublished":
            variable = "container-title" if not types.row(record.entry_type).container else ""
        elif name == "organization" and (
            "publisher" in out or field("school") or field("institution")
        ):
            variable = "authority"
        else:
            variable = csljson.FIELD_VARIABLES.get(name, "") or variables.by_field().get(name, "")
            kind = variables.kinds().get(variable, "text")
            if kind == "date":
                out.setdefault(variable, dates.to_csl(value))
                continue
            if kind == "name":
                if variable not in out and (names := csljson._parse_names(value)):
                    out[variable] = names
                continue
        if variable == "page":
            value = value.replace("\u2013", "-")
        if variable == "issue" and "issue" in out:
            out["issue"] = f"{out['issue']}, {value}"
        elif variable and variable not in out:
            out[variable] = value
        elif not variable and name not in custom:
            custom[name] = value
    return custom


def _field_names() -> list[str]:
    from bib import variables

    names = {*csljson.FIELD_VARIABLES, *variables.by_field(), *csljson._ASKING}
    return sorted(names | csljson.PART_FIELDS | {"issue", "ranking", "bibsource"})


field_lists = st.lists(
    st.tuples(
        st.one_of(
            st.sampled_from(["number", "issue", "howpublished", "organization", "type"]),
            st.sampled_from(sorted(csljson._ASKING | {"pages", "subtitle", "school", "x"})),
            st.sampled_from(_field_names()),
            st.sampled_from(_field_names()).map(lambda name: f" {name.upper()}"),
            st.text(alphabet="abxyz-", min_size=1, max_size=6),
        ),
        st.sampled_from(
            ["", " ", "12", "7", "3\u20134", "2026-05-01", "May", "Smith, J. and Doe", "A  b"]
        ),
    ),
    max_size=10,
)


@given(
    field_lists,
    st.one_of(
        st.sampled_from(
            [EntryType.ARTICLE, EntryType.MISC, EntryType.BOOK, EntryType.INCOLLECTION]
        ),
        st.sampled_from(list(EntryType)),
    ),
    st.sampled_from(["", "LNCS"]),
    st.sampled_from([{}, {"publisher": "ACM"}, {"issued": {"date-parts": [[2026]]}}]),
)
def test_fields_routed_by_name_go_where_the_branch_chain_puts_them(
    fields: list[tuple[str, str]], entry_type: EntryType, series: str, start: dict
) -> None:
    record = Record(id="a", title="T", entry_type=entry_type, series=series, fields=tuple(fields))
    ours, theirs = json.loads(json.dumps(start)), json.loads(json.dumps(start))
    assert csljson._put_fields(record, ours) == _chained_fields(record, theirs)
    assert ours == theirs
