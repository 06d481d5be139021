"""Datasets and models: curated names, patterns, and the precision guards."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bib.extract.entities import _curated_hits, _pattern_datasets, compiled_entities, match_entities
from bib.extract.vocabulary import shipped, word_view

VOCABULARY = shipped()


def datasets(text: str, vocabulary, method: str = "") -> list[str]:
    return [m.value for m in match_entities(text, vocabulary, method=method)[0]]


def models(text: str, vocabulary, method: str = "") -> list[str]:
    return [m.value for m in match_entities(text, vocabulary, method=method)[1]]


def test_curated_dataset_spellings_map_to_one_name(vocabulary) -> None:
    text = "Gains on AIME 24, on AIME24 and on AIME-24 are the same benchmark."
    (match,) = match_entities(text, vocabulary)[0]
    assert match.value == "AIME 2024" and len(match.evidence) == 3


def test_dataset_evidence_is_the_name_as_written(vocabulary) -> None:
    text = "We report pass@1 on MATH500 and GSM8K."
    found = match_entities(text, vocabulary)[0]
    assert [text[s:e] for m in found for s, e in m.evidence] == ["MATH500", "GSM8K"]


def test_bench_suffix_names_a_benchmark(vocabulary) -> None:
    text = "We evaluate on FooBench and on Bar-Bench, two new suites."
    assert datasets(text, vocabulary) == ["FooBench", "Bar-Bench"]


def test_name_like_word_before_dataset_is_a_dataset(vocabulary) -> None:
    assert datasets("Accuracy rises by 7% on the ComplexLP dataset.", vocabulary) == ["ComplexLP"]


def test_list_before_benchmarks_is_a_list_of_datasets(vocabulary) -> None:
    text = "It improves accuracy across the Sudoku, Countdown, and Zebra benchmarks."
    assert datasets(text, vocabulary) == ["Sudoku", "Countdown", "Zebra"]


def test_names_in_parentheses_after_benchmarks_are_datasets(vocabulary) -> None:
    text = "Across three benchmarks (LongMemEval, Realtalk, and LoCoMo), it is best."
    assert datasets(text, vocabulary) == ["LongMemEval", "Realtalk", "LoCoMo"]


def test_category_word_after_a_number_is_not_a_dataset(vocabulary) -> None:
    assert datasets("We test on three LongConvQA benchmarks.", vocabulary) == []


def test_ordinary_capitalised_words_are_not_datasets(vocabulary) -> None:
    text = "Experiments show that Our Method works. Public benchmarks agree. Table 3 shows it."
    assert datasets(text, vocabulary) == []


def test_ordinary_word_dataset_needs_a_cue(vocabulary) -> None:
    assert datasets("The Countdown to the release was long.", vocabulary) == []


def test_method_name_is_neither_dataset_nor_model(vocabulary) -> None:
    text = "We introduce ProtoBench, and ProtoBench-7B outperforms others on ProtoBench."
    assert datasets(text, vocabulary, method="ProtoBench") == []
    assert "ProtoBench" not in models(text, vocabulary, method="ProtoBench")


def test_model_family_with_version_and_size(vocabulary) -> None:
    text = "We fine-tune Qwen2.5-7B-Instruct, Llama-3.1-8B and LLaDA-8B-Instruct."
    assert models(text, vocabulary) == ["Qwen2.5-7B-Instruct", "Llama-3.1-8B", "LLaDA-8B-Instruct"]


def test_model_family_alone_is_a_model(vocabulary) -> None:
    text = "Across Qwen, Llama, and Mistral models, the effect holds."
    assert models(text, vocabulary) == ["Qwen", "Llama", "Mistral"]


def test_unknown_name_with_parameter_count_is_a_model(vocabulary) -> None:
    assert models("Zephyrine-13B-Chat follows instructions.", vocabulary) == ["Zephyrine-13B-Chat"]


def test_ambiguous_model_name_needs_a_cue(vocabulary) -> None:
    assert models("Phi was a letter before it was a constant.", vocabulary) == []
    assert models("We distil into the Phi model family.", vocabulary) == ["Phi"]


def test_ambiguous_model_name_counts_beside_another_model(vocabulary) -> None:
    assert models("Systems such as Gemini and ChatGPT changed chat.", vocabulary) == [
        "Gemini",
        "ChatGPT",
    ]


def test_model_label_is_the_family(vocabulary) -> None:
    (match,) = match_entities("Qwen3-8B solves it.", vocabulary)[1]
    assert (match.value, match.label) == ("Qwen3-8B", "Qwen")


def test_curated_family_with_an_unlisted_version_is_a_model(vocabulary) -> None:
    assert models("We also run Qwen4-14B-Instruct and Gemma5.", vocabulary) == [
        "Qwen4-14B-Instruct",
        "Gemma5",
    ]


NAME_PIECES = st.sampled_from(
    [
        *("Bench", "bench", "BENCH", "MathBench", "Bar-Bench", "SWE-bench", "X.Bench", "Foo+bench"),
        *("benchmark", "Benchmarks", "datasets", "dataset", "corpus", "corpora", "Dataset"),
        *("GSM8K", "MATH500", "Foo Bar", "and", "or", "such as", "including", "our", "two"),
        *("_bench", "\u00e9bench", "benchmar\u212a", "the", "We", "on", "e.g.", "Qwen2.5-7B"),
    ]
)
NAME_GLUE = st.sampled_from([" ", ", ", " (", ") ", ": ", "-", ". ", "", "\n", "_", "*"])


@given(st.lists(NAME_PIECES, min_size=1, max_size=14), st.lists(NAME_GLUE, max_size=14))
def test_patterns_tried_at_the_marked_hits_find_what_trying_everywhere_finds(
    pieces: list[str], glue: list[str]
) -> None:
    text = "".join(p + g for p, g in zip(pieces, glue + [" "] * len(pieces), strict=False))
    names = compiled_entities(VOCABULARY).automaton.iter(word_view(text))
    _, _, benches, cues = _curated_hits(text, names)
    everywhere = list(range(len(text)))
    assert _pattern_datasets(text, benches, cues) == _pattern_datasets(text, everywhere, everywhere)
