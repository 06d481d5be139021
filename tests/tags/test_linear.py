"""Every extractor is linear in its text (issue: one paragraph repeating `we propose` took
51 s at 4 MB in the methods stage and never finished at 20 MB).

A 20 MB paragraph that never ends a sentence and repeats every shape that once made an
extractor quadratic (a trigger, a claim, coined names, acronyms, model and dataset names,
URLs) runs through every stage; its time is compared with that of the same paragraph at
2 MB in the same run, never with a clock: linear work takes about ten times as long,
quadratic work a hundred.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bib.extract.entities import Taken
from bib.extract.methods import tag_methods
from bib.extract.tags import tag_stream
from bib.extract.titles import derive_titles
from bib.extract.topics import Intervals, _original, _squeeze, _to_view
from bib.extract.urls import tag_urls
from bib.record import Record, Span

_BLOCK = (
    "we propose the model and we also show that we introduce a benchmark dataset "
    "we propose FooNet{n}, We study the effect of large language models on reasoning "
    "reinforcement learning (RL) with Mixture of Experts (MoE) "
    "see https://github.com/a/b{n} and GPT-4 and Llama 3 on ImageNet and MMLU compared to "
)
_STAGES: dict[str, Callable[[Iterable[Record]], Iterator[Record]]] = {
    "methods": tag_methods,
    "urls": tag_urls,
    "titles": derive_titles,
    "tags": tag_stream,
}
_REFERENCE = 2_000_000
_LARGE = 20_000_000
_LINEAR_BOUND = 50
"""Ten times the text may take up to fifty times as long: linear work takes about ten, and a
loaded machine (the suite runs in parallel with itself) stretches a short run more than a
long one; quadratic work would take a hundred."""


def paragraph(size: int) -> str:
    """One sentence of about `size` characters, each block naming a new contribution."""
    blocks: list[str] = []
    length = n = 0
    while length < size:
        block = _BLOCK.format(n=n)
        blocks.append(block)
        length += len(block)
        n += 1
    return "".join(blocks)


def _seconds(stage: Callable[[Iterable[Record]], Iterator[Record]], text: str) -> float:
    record = Record(id="linear", abstract=text)
    start = time.perf_counter()
    for _ in stage([record]):
        pass
    return time.perf_counter() - start


@pytest.mark.slow
@pytest.mark.parametrize("name", list(_STAGES))
def test_stage_is_linear_on_a_20_mb_paragraph(name: str) -> None:
    stage = _STAGES[name]
    small = paragraph(_REFERENCE)
    reference = min(_seconds(stage, small) for _ in range(3))
    text = paragraph(_LARGE)
    large = _seconds(stage, text)  # once: load only makes it slower, and the bound has room
    assert large < _LINEAR_BOUND * max(reference, 0.01), (name, reference, large)


_spans = st.lists(
    st.tuples(st.integers(0, 300), st.integers(0, 40)).map(lambda s: (s[0], s[0] + s[1])),
    max_size=80,
)


@given(_spans, st.integers(-5, 350))
def test_intervals_answer_as_a_walk_over_every_span(spans: list[Span], position: int) -> None:
    walked = any(low <= position < high for low, high in spans)
    assert (position in Intervals(spans)) == walked


@given(_spans, _spans)
def test_taken_spans_answer_as_a_walk_over_every_span(spans: list[Span], asked: list[Span]) -> None:
    taken = Taken()
    for span in spans:
        taken.add(span)
    for low, high in asked:
        walked = any(low < end and start < high for start, end in spans)
        assert taken.overlaps((low, high)) == walked


@given(st.text(alphabet=" \n\tab", max_size=200), st.data())
def test_view_offsets_are_those_of_the_squeezed_text(text: str, data: st.DataObject) -> None:
    squeezed, marks, shifts = _squeeze(text)
    position = data.draw(st.integers(0, max(len(squeezed) - 1, 0)))
    original = _original(position, marks, shifts)
    assert _to_view(original, marks, shifts) == position
