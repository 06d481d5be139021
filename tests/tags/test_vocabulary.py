"""The shipped vocabulary files and user vocabularies: schema, structure, errors, overrides."""

from __future__ import annotations

import json

import jsonschema
import pytest

import schema
from bib.errors import BibError
from bib.extract import vocabulary as vocab
from bib.extract.topics import match_topics

DATA = vocab.resources.files("bib").joinpath("data")


@pytest.mark.parametrize(
    "name", ["topics.json", "topics-imported.json", "datasets.json", "models.json"]
)
def test_shipped_file_is_valid_against_the_schema(name: str) -> None:
    document = json.loads(DATA.joinpath(name).read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator(schema.load("vocabulary.schema.json")).validate(document)


def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    jsonschema.Draft202012Validator.check_schema(schema.load("vocabulary.schema.json"))


def test_shipped_vocabulary_has_at_least_1000_topics(vocabulary) -> None:
    assert len(vocabulary.topics) >= 1000


def test_every_shipped_topic_records_its_source(vocabulary) -> None:
    for topic in vocabulary.topics.values():
        assert topic.source == "bib" or topic.source.startswith(("bib: ", "pwc:")), topic.slug


def test_imported_topics_never_replace_a_curated_one() -> None:
    curated = json.loads(DATA.joinpath("topics.json").read_text(encoding="utf-8"))["topics"]
    imported = json.loads(DATA.joinpath("topics-imported.json").read_text(encoding="utf-8"))
    assert not {t["slug"] for t in curated} & {t["slug"] for t in imported["topics"]}


def test_topics_form_a_hierarchy_with_one_root(vocabulary) -> None:
    roots = [t.slug for t in vocabulary.topics.values() if not t.parents]
    assert roots == ["machine-learning"]
    for slug in vocabulary.topics:
        assert slug == "machine-learning" or "machine-learning" in vocabulary.ancestors(slug)


def test_no_topic_is_its_own_ancestor(vocabulary) -> None:
    for slug, topic in vocabulary.topics.items():
        for parent in topic.parents:
            assert slug not in (parent, *vocabulary.ancestors(parent)), slug


def test_every_parent_combines_implies_and_subsumes_names_a_known_topic(vocabulary) -> None:
    for topic in vocabulary.topics.values():
        for other in (*topic.parents, *topic.combines, *topic.implies, *topic.subsumes):
            assert other in vocabulary.topics, (topic.slug, other)


def test_every_label_is_one_concept(vocabulary) -> None:
    """Compound labels ("Guardrails and content moderation") are split into topics."""
    for topic in vocabulary.topics.values():
        words = topic.label.lower().split()
        assert "and" not in words and "&" not in words, topic.label


def test_topics_file_says_where_its_structure_comes_from() -> None:
    about = json.loads(DATA.joinpath("topics.json").read_text(encoding="utf-8"))["about"]
    assert "ICML" in about and "ACM" in about


def test_curated_lists_name_the_benchmarks_and_models_of_the_issue(vocabulary) -> None:
    datasets = {n for e in vocabulary.datasets for n in e.names}
    models = {n for e in vocabulary.models for n in e.names}
    wanted_datasets = "AIME 24|AIME24|MATH500|GSM8K|HumanEval|LongMemEval|LoCoMo|XSTest|GAIA"
    wanted_datasets += "|SWE-bench|ImageNet|CIFAR-10|COCO"
    wanted_models = "Llama|LLaMA|Qwen2.5|Qwen3|Mistral|Mixtral|LLaVA|GPT-4o|Claude|Gemini"
    wanted_models += "|DeepSeek-R1|Phi|Gemma|BERT|T5|ViT|CLIP|Stable Diffusion|LLaDA"
    assert set(wanted_datasets.split("|")) <= datasets
    assert set(wanted_models.split("|")) <= models


def test_bad_user_file_names_the_file_and_the_json_path(vocab_file) -> None:
    topics = [{"slug": f"t{i}", "label": f"Topic {i}"} for i in range(3)]
    topics.append({"slug": "t3", "label": "Topic 3", "synonyms": "not a list"})
    path = vocab_file({"topics": topics})
    with pytest.raises(BibError) as caught:
        vocab.load([path])
    assert str(caught.value).startswith(f"{path}: topics[3].synonyms: ")


def test_user_file_that_is_not_json_is_an_error_with_its_line(vocab_file) -> None:
    path = vocab_file('{"topics": [\n  {"slug": "a",}\n]}')
    with pytest.raises(BibError) as caught:
        vocab.load([path])
    assert caught.value.path == str(path) and caught.value.line == 2


def test_user_topic_with_unknown_parent_is_an_error(vocab_file) -> None:
    path = vocab_file({"topics": [{"slug": "x", "label": "X", "parent": "no-such-topic"}]})
    with pytest.raises(BibError, match=r"topics\[0\]\.parent: unknown topic 'no-such-topic'"):
        vocab.load([path])


def test_duplicate_slug_in_user_file_is_an_error(vocab_file) -> None:
    path = vocab_file({"topics": [{"slug": "x", "label": "X"}, {"slug": "x", "label": "Y"}]})
    with pytest.raises(BibError, match=r"topics\[1\]\.slug: duplicate slug 'x'"):
        vocab.load([path])


def test_user_file_adds_a_topic(vocab_file) -> None:
    topic = {"slug": "sheaf-networks", "label": "Sheaf neural networks"}
    topic |= {"parent": "graph-learning", "abbreviations": ["NSD"]}
    path = vocab_file({"topics": [topic]})
    loaded = vocab.load([path])
    found = match_topics("We study sheaf neural networks and NSD on graphs.", loaded)
    assert "sheaf-networks" in [m.slug for m in found]


def test_user_file_overrides_a_shipped_topic_by_slug(vocab_file) -> None:
    topic = {"slug": "kv-cache", "label": "KV cache", "parent": "efficient-inference"}
    path = vocab_file({"topics": [topic | {"synonyms": ["attention memory"]}]})
    loaded = vocab.load([path])
    assert loaded.topics["kv-cache"].synonyms == ("attention memory",)
    text = "We compress the attention memory of long prompts and evict cache entries."
    assert "kv-cache" in [m.slug for m in match_topics(text, loaded)]


def test_user_file_can_disable_a_shipped_topic(vocab_file) -> None:
    path = vocab_file({"topics": [{"slug": "quantization", "label": "x", "disabled": True}]})
    loaded = vocab.load([path])
    text = "Post-training quantization of large models to 4-bit weights."
    assert "quantization" not in loaded.topics
    assert "quantization" not in [m.slug for m in match_topics(text, loaded)]


def test_user_file_adds_a_dataset(vocab_file) -> None:
    path = vocab_file({"datasets": [{"name": "OurSet-9", "aliases": ["OurSet 9"]}]})
    assert "OurSet-9" in {e.name for e in vocab.load([path]).datasets}


def test_shipped_vocabulary_is_compiled_once(vocabulary) -> None:
    assert vocabulary.compiled is vocabulary.compiled
    assert vocab.shipped() is vocabulary


def test_spelling_variants_cover_british_and_american() -> None:
    assert "optimisation" in vocab.spelling_variants("optimization")
    assert "optimization" in vocab.spelling_variants("optimisation")
    assert "behaviour" in vocab.spelling_variants("behavior")
    assert vocab.spelling_variants("supervised") == {"supervised"}


def test_every_shipped_phrase_is_ascii_so_the_fast_scan_serves_every_abstract(
    vocabulary,
) -> None:
    assert vocabulary.compiled.ascii
