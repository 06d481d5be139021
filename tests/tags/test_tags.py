"""The tagging stage: kinds, evidence, purity, code and method tags, contributions."""

from __future__ import annotations

import dataclasses
import pickle
from pathlib import Path

from bib.extract.tags import _tag, tag_record, tag_records, tag_stream
from bib.extract.vocabulary import shipped
from bib.parallel import BATCH
from bib.record import Link, LinkRole, Record, Tag, TagKind
from bib.writers import DEFAULT_TAG_KINDS
from tests.helpers import tags_of

DATA = Path(__file__).resolve().parents[1] / "data"

ABSTRACT = (
    "Sparse Mixture of Experts (SMoE) models scale capacity. We propose USMoE, a framework "
    "for SMoE routing, and evaluate USMoE on MMLU with Llama-3.1-8B. "
    "Code is at https://github.com/x/usmoe."
)


def tagged(record, **options):
    (out,) = tag_records([record], **options)
    return out


def test_every_tag_has_sorted_evidence_inside_the_abstract(record) -> None:
    link = Link("https://github.com/x/usmoe", LinkRole.CODE)
    out = tagged(record(ABSTRACT, method="USMoE", links=(link,)))
    for tag in out.tags:
        assert tag.evidence, tag
        assert list(tag.evidence) == sorted(tag.evidence)
        assert all(0 <= s < e <= len(ABSTRACT) for s, e in tag.evidence)


def test_tagging_returns_new_records_and_leaves_inputs_alone(record) -> None:
    original = record(ABSTRACT, method="USMoE")
    out = tagged(original)
    assert original.tags == () and out.tags
    assert dataclasses.replace(out, tags=()) == original


def test_tagging_twice_gives_the_same_tags(record) -> None:
    once = tagged(record(ABSTRACT, method="USMoE"))
    assert tagged(once).tags == once.tags


def test_method_tag_points_at_every_occurrence(record) -> None:
    out = tagged(record(ABSTRACT, method="USMoE"))
    (method,) = tags_of(out, TagKind.METHOD)
    assert [ABSTRACT[s:e] for s, e in method.evidence] == ["USMoE", "USMoE"]


def test_method_tag_keeps_the_long_form_label_from_the_method_stage(record) -> None:
    earlier = Tag(TagKind.METHOD, "USMoE", "Unified Sparse Mixture of Experts", ((51, 56),))
    out = tagged(record(ABSTRACT, method="USMoE", tags=(earlier,)))
    (method,) = tags_of(out, TagKind.METHOD)
    assert method.label == "Unified Sparse Mixture of Experts"


def test_code_tag_needs_a_code_link_and_points_at_the_url(record) -> None:
    assert tags_of(tagged(record(ABSTRACT)), TagKind.CODE) == []
    link = Link("https://github.com/x/usmoe", LinkRole.CODE)
    (code,) = tags_of(tagged(record(ABSTRACT, links=(link,))), TagKind.CODE)
    assert code.value == "code" and code.label == link.url
    assert [ABSTRACT[s:e] for s, e in code.evidence] == [link.url]


def test_project_page_counts_as_code(record) -> None:
    link = Link("https://usmoe.github.io/", LinkRole.PROJECT)
    assert tags_of(tagged(record("A page.", links=(link,))), TagKind.CODE)


def test_paper_link_is_not_code(record) -> None:
    link = Link("https://arxiv.org/abs/2601.00001", LinkRole.PAPER)
    assert tags_of(tagged(record("A paper.", links=(link,))), TagKind.CODE) == []


def test_topic_dataset_and_model_tags_are_found(record) -> None:
    out = tagged(record(ABSTRACT, method="USMoE"))
    assert "mixture-of-experts" in [t.value for t in tags_of(out, TagKind.TOPIC)]
    assert [t.value for t in tags_of(out, TagKind.DATASET)] == ["MMLU"]
    assert [t.value for t in tags_of(out, TagKind.MODEL)] == ["Llama-3.1-8B"]


def test_max_topics_is_passed_through(record) -> None:
    out = tagged(record(ABSTRACT, method="USMoE"), max_topics=0)
    assert tags_of(out, TagKind.TOPIC) == []


def test_tags_without_evidence_from_the_input_are_kept(record) -> None:
    keyword = Tag(TagKind.TOPIC, "my-reading-list")
    out = tagged(record(ABSTRACT, tags=(keyword,)))
    assert keyword in out.tags


def test_method_contribution_from_cue_phrase(record) -> None:
    out = tagged(record("We propose a new algorithm for sorting."))
    (tag,) = tags_of(out, TagKind.CONTRIBUTION)
    assert tag.value == "method"
    assert [out.abstract[s:e] for s, e in tag.evidence] == ["We propose a new algorithm"]


def test_method_contribution_from_a_proposed_name(record) -> None:
    out = tagged(record("We introduce DreamerLite, which learns a latent dynamics model."))
    assert [t.value for t in tags_of(out, TagKind.CONTRIBUTION)] == ["method"]


def test_proposing_a_benchmark_is_not_a_method(record) -> None:
    out = tagged(record("We propose a benchmark of 500 agent tasks."))
    assert [t.value for t in tags_of(out, TagKind.CONTRIBUTION)] == ["benchmark"]


def test_benchmark_contribution_also_tags_evaluation(record) -> None:
    out = tagged(record("We introduce a benchmark of 7,000 questions for temporal knowledge."))
    assert "benchmark" in [t.value for t in tags_of(out, TagKind.CONTRIBUTION)]
    assert "evaluation" in [t.value for t in tags_of(out, TagKind.TOPIC)]


def test_training_dataset_contribution_does_not_tag_evaluation(record) -> None:
    out = tagged(record("We construct a dataset of judging examples to train our judge model."))
    assert "benchmark" in [t.value for t in tags_of(out, TagKind.CONTRIBUTION)]
    assert "evaluation" not in [t.value for t in tags_of(out, TagKind.TOPIC)]


def test_theory_contribution_from_cue_phrase(record) -> None:
    out = tagged(record("We prove a generalization bound for transformers."))
    assert "theory" in [t.value for t in tags_of(out, TagKind.CONTRIBUTION)]


def test_no_contribution_without_a_cue(record) -> None:
    out = tagged(record("Transformers are widely used in vision."))
    assert tags_of(out, TagKind.CONTRIBUTION) == []


def test_real_title_ranks_its_topics_but_a_derived_one_does_not(record) -> None:
    text = "Language models are strong. We study them. We relate this to knowledge distillation."
    title = "Knowledge Distillation in Language Models"

    def topics(**fields) -> list[str]:
        return [t.value for t in tags_of(tagged(record(text, **fields)), TagKind.TOPIC)]

    assert "knowledge-distillation" in topics(title=title)
    assert "knowledge-distillation" not in topics(title=title, title_derived=True)


def test_only_the_kinds_asked_for_are_made(record) -> None:
    link = Link("https://github.com/x/usmoe", LinkRole.CODE)
    full = tagged(record(ABSTRACT, method="USMoE", links=(link,)))
    for kinds in ({TagKind.TOPIC}, {TagKind.METHOD, TagKind.CODE}, {TagKind.DATASET}, set()):
        some = tagged(record(ABSTRACT, method="USMoE", links=(link,)), kinds=kinds)
        assert some.tags == tuple(t for t in full.tags if t.kind in kinds)


def test_a_benchmark_tags_evaluation_even_when_contributions_are_not_made(record) -> None:
    abstract = "We introduce a benchmark of 7,000 questions for temporal knowledge."
    out = tagged(record(abstract), kinds={TagKind.TOPIC})
    assert "evaluation" in [t.value for t in out.tags]


def test_a_keyword_naming_a_kind_not_made_stays(record) -> None:
    keyword = Tag(TagKind.TOPIC, "theory")
    abstract = "We prove a generalization bound for transformers."
    assert keyword not in tagged(record(abstract, tags=(keyword,))).tags
    assert keyword in tagged(record(abstract, tags=(keyword,)), kinds={TagKind.TOPIC}).tags


def test_tag_made_by_setting_its_slots_is_the_tag_its_constructor_makes() -> None:
    fields = [field.name for field in dataclasses.fields(Tag)]
    assert fields == ["kind", "value", "label", "evidence", "loose"]
    made, built = _tag(TagKind.TOPIC, "x", "X", ((0, 1),)), Tag(TagKind.TOPIC, "x", "X", ((0, 1),))
    assert made == built and hash(made) == hash(built) and repr(made) == repr(built)
    assert pickle.loads(pickle.dumps(made)) == built
    loose = _tag(TagKind.TOPIC, "x", "X", ((0, 1),), True)
    assert repr(loose) == repr(Tag(TagKind.TOPIC, "x", "X", ((0, 1),), True))
    assert loose == built and hash(loose) == hash(built)  # loose is not what a tag is


def test_each_choice_of_kinds_gives_those_tags_of_the_full_stage_on_the_seeds(seeds) -> None:
    records = [
        Record(id=f"{path.stem}-{i}", abstract=text.strip())
        for path in [*seeds, DATA / "stress.txt"]
        for i, text in enumerate(path.read_text(encoding="utf-8").split("\n\n")[1:])
        if text.strip()
    ]
    full = tag_records(records)
    for kinds in ({TagKind.TOPIC}, {TagKind.DATASET, TagKind.MODEL}, set(DEFAULT_TAG_KINDS)):
        some = tag_records(records, kinds=kinds)
        for one, every in zip(some, full, strict=True):
            assert one.tags == tuple(t for t in every.tags if t.kind in kinds), one.id


def test_a_stream_tags_each_record_as_tagging_it_alone_does(seeds) -> None:
    """The stream tags records a batch at a time, step by step: more than a batch here."""
    records = [
        Record(id=f"{path.stem}-{i}", abstract=text.strip(), title="Mixture of Experts" * (i % 2))
        for path in [*seeds, DATA / "stress.txt"]
        for i, text in enumerate(path.read_text(encoding="utf-8").split("\n\n")[1:])
        if text.strip()
    ]
    assert len(records) > BATCH
    vocabulary = shipped()
    alone = [tag_record(record, vocabulary) for record in records]
    assert list(tag_stream(records, vocabulary=vocabulary)) == alone
