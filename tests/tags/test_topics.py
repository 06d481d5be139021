"""Topic matching: one test per matching rule, evidence spans into the original text."""

from __future__ import annotations

from bib.extract import topics
from bib.extract.topics import match_topics
from bib.extract.vocabulary import extend


def slugs(text: str, vocabulary, **options) -> list[str]:
    return [m.slug for m in match_topics(text, vocabulary, **options)]


def evidence(text: str, vocabulary, slug: str) -> list[str]:
    for m in match_topics(text, vocabulary, max_topics=50):
        if m.slug == slug:
            return [text[s:e] for s, e in m.evidence]
    return []


def test_matching_ignores_case(vocabulary) -> None:
    text = "We study SPECULATIVE DECODING for faster generation."
    assert evidence(text, vocabulary, "speculative-decoding") == ["SPECULATIVE DECODING"]


def test_matching_ignores_hyphens_and_spaces(vocabulary) -> None:
    text = "A mixture-of-experts layer routes tokens; each Mixture of Experts block is sparse."
    assert evidence(text, vocabulary, "mixture-of-experts") == [
        "mixture-of-experts",
        "Mixture of Experts",
    ]


def test_matching_joins_hyphenated_words(vocabulary) -> None:
    text = "Parameter-efficient finetuning with adapters beats full fine tuning."
    assert "peft" in slugs(text, vocabulary)


def test_matching_accepts_plurals(vocabulary) -> None:
    text = "Gaussian processes are kernels over functions; one Gaussian process per task."
    assert evidence(text, vocabulary, "gaussian-processes") == [
        "Gaussian processes",
        "Gaussian process",
    ]


def test_matching_accepts_british_spelling(vocabulary) -> None:
    text = "We revisit Bayesian optimisation for hyperparameter optimisation of networks."
    assert "bayesian-optimization" in slugs(text, vocabulary)


def test_matching_takes_whole_words_only(vocabulary) -> None:
    text = "Our RLVRish pipeline and the word gradual do not mention anything we know."
    assert slugs(text, vocabulary) == []


def test_abbreviation_matches_case_sensitively(vocabulary) -> None:
    assert "mixture-of-experts" in slugs("Sparse MoE layers scale well. MoE routing.", vocabulary)
    assert "mixture-of-experts" not in slugs("The moe of the model is low.", vocabulary)


def test_abbreviation_matches_its_plural(vocabulary) -> None:
    text = "dLLMs decode in parallel; dLLMs need fewer steps than autoregressive models."
    assert evidence(text, vocabulary, "diffusion-language-models") == ["dLLMs", "dLLMs"]


def test_acronym_defined_by_the_abstract_links_later_uses(vocabulary) -> None:
    text = (
        "Knowledge Graph Embedding (KGEX) methods are popular. "
        "We show KGEX scales, and KGEX models transfer."
    )
    found = evidence(text, vocabulary, "knowledge-graph-embedding")
    assert found.count("KGEX") == 3
    assert "knowledge-graphs" in vocabulary.ancestors("knowledge-graph-embedding")


def test_acronym_whose_letters_do_not_fit_is_not_linked(vocabulary) -> None:
    text = "Knowledge graphs (ZQW) are useful. ZQW is our system. ZQW again, ZQW."
    assert "ZQW" not in evidence(text, vocabulary, "knowledge-graphs")


def test_max_topics_limits_the_number_of_topic_tags(vocabulary) -> None:
    text = (
        "We combine speculative decoding, KV cache compression, quantization, pruning, "
        "LoRA, mixture of experts and knowledge distillation for efficient inference."
    )
    assert len(slugs(text, vocabulary, max_topics=3)) == 3
    assert len(slugs(text, vocabulary)) > 3


def test_specific_topic_ranks_above_generic_parent(vocabulary) -> None:
    text = (
        "Machine learning systems need data. We propose a speculative decoding method "
        "for machine learning inference; machine learning is everywhere."
    )
    ranked = slugs(text, vocabulary, max_topics=50)
    assert ranked[0] == "speculative-decoding"


def test_frequent_topic_ranks_above_single_mention(vocabulary, monkeypatch) -> None:
    monkeypatch.setattr(topics, "MIN_SCORE", 0.0)
    text = (
        "We study model merging. Model merging averages weights, and model merging needs "
        "no data. We also discuss knowledge distillation."
    )
    ranked = slugs(text, vocabulary, max_topics=50)
    assert ranked.index("model-merging") < ranked.index("knowledge-distillation")


def test_passing_mention_weighs_less_than_a_claim(vocabulary) -> None:
    text = "We propose federated learning for clinics. Unlike federated learning, ours is local."
    scanned = topics.scan(text, vocabulary)
    claim = scanned.weight(text.index("federated"))
    passing = scanned.weight(text.rindex("federated"))
    assert passing < 1.0 < claim


def test_example_after_e_g_is_a_passing_mention(vocabulary) -> None:
    text = "Alignment methods (e.g., RLHF, DPO) are costly. We study model merging."
    scanned = topics.scan(text, vocabulary)
    assert scanned.weight(text.index("DPO")) < 1.0
    assert scanned.weight(text.index("model merging")) > 1.0


def test_reinforcement_learning_in_an_llm_abstract_is_rl_for_llms(vocabulary) -> None:
    with_llm = "We fine-tune large language models with reinforcement learning on math."
    without = "We train robot policies with reinforcement learning in simulation."
    assert "llm-reinforcement-learning" in slugs(with_llm, vocabulary)
    assert "reinforcement-learning" in slugs(without, vocabulary)


def test_implied_broader_topic_shares_the_evidence(vocabulary) -> None:
    text = "LoRA adapters are initialised from gradients; LoRA then trains faster."
    assert set(evidence(text, vocabulary, "lora")) <= set(evidence(text, vocabulary, "peft"))
    assert evidence(text, vocabulary, "lora") == ["LoRA", "LoRA"]


def test_evidence_spans_index_the_original_text_across_line_breaks(vocabulary) -> None:
    text = "We study catastrophic\n    forgetting   in continual\nlearning."
    found = {m.slug: m.evidence for m in match_topics(text, vocabulary, max_topics=50)}
    ((start, end),) = found["catastrophic-forgetting"]
    assert text[start:end] == "catastrophic\n    forgetting"


def test_evidence_spans_are_sorted_and_inside_the_text(vocabulary) -> None:
    text = "KV cache eviction. Then the KV cache again, and a key-value cache once more."
    (match,) = [m for m in match_topics(text, vocabulary) if m.slug == "kv-cache"]
    assert list(match.evidence) == sorted(match.evidence)
    assert all(0 <= s < e <= len(text) for s, e in match.evidence)


def test_user_synonym_is_matched_after_extending(vocabulary) -> None:
    extended = extend(
        vocabulary,
        {"topics": [{"slug": "kv-cache", "label": "KV cache", "synonyms": ["token memo"]}]},
        "test",
    )
    assert "kv-cache" in slugs("We shrink the token memo of decoders.", extended)


def test_topic_below_the_minimum_score_is_not_tagged(vocabulary) -> None:
    text = "Our approach, unlike federated learning, trains a classifier on images."
    found = {m.slug: m.score for m in match_topics(text, vocabulary, max_topics=50)}
    assert "federated-learning" not in found


def test_matching_accepts_irregular_plurals(vocabulary) -> None:
    text = "The singular vectors of attention matrices align with features."
    assert evidence(text, vocabulary, "attention-mechanisms") == ["attention matrices"]


def test_acronym_inside_its_long_form_links_the_long_form(vocabulary) -> None:
    text = "We compress the Key-Value (KV) cache. Our KV eviction halves the KV footprint."
    assert evidence(text, vocabulary, "kv-cache") == ["Key-Value (KV) cache", "KV", "KV"]


def test_acronym_inside_its_long_form_spans_a_line_break(vocabulary) -> None:
    text = "We compress the Key-Value\n   (KV) cache of decoders."
    assert evidence(text, vocabulary, "kv-cache") == ["Key-Value\n   (KV) cache"]


def test_acronym_defined_after_a_hyphenated_long_form_links_later_uses(vocabulary) -> None:
    text = "Retrieval-Augmented Generation (RAGX) helps. RAGX is cheap, and RAGX scales."
    assert evidence(text, vocabulary, "rag").count("RAGX") == 3


def test_mention_in_an_aside_weighs_less(vocabulary) -> None:
    text = "We evaluate on several tasks (instruction following, arithmetic reasoning) today."
    scanned = topics.scan(text, vocabulary)
    assert scanned.weight(text.index("arithmetic")) < 1.0


def test_name_spelled_out_in_parentheses_is_not_an_aside(vocabulary) -> None:
    text = "Our method, OpenAgent (Tool-Use Agent in Open-World), is new to all of us."
    scanned = topics.scan(text, vocabulary)
    assert scanned.weight(text.index("Tool-Use")) >= 1.0


def test_baseline_after_outperforms_is_passing_but_the_task_is_not(vocabulary) -> None:
    text = "Gradient boosting still outperforms deep networks on tabular datasets of all sizes."
    scanned = topics.scan(text, vocabulary)
    assert scanned.weight(text.index("deep networks")) < 1.0
    assert scanned.weight(text.index("tabular")) >= 1.0


def test_llm_agent_abstract_is_not_also_tagged_llm(vocabulary) -> None:
    text = (
        "Large language models (LLMs) power autonomous agents. We propose a memory for LLM agents."
    )
    found = slugs(text, vocabulary)
    assert "llm-agents" in found and "large-language-models" not in found


def test_llm_abstract_gets_the_llm_topic_below_the_generic_one(vocabulary) -> None:
    text = "Large language models (LLMs) forget. We propose a post-training recipe for LLMs."
    found = slugs(text, vocabulary)
    assert "post-training" in found
    assert "large-language-models" in vocabulary.ancestors("post-training")


def test_user_topic_can_subsume_another(vocabulary) -> None:
    extended = extend(
        vocabulary,
        {"topics": [{"slug": "kv-cache", "label": "KV cache", "subsumes": ["transformers"]}]},
        "test",
    )
    text = "We compress the KV cache of transformers. KV cache eviction keeps transformers fast."
    assert "transformers" in slugs(text, vocabulary)
    found = slugs(text, extended)
    assert "kv-cache" in found and "transformers" not in found


def test_subsumed_topic_is_kept_when_the_subsuming_one_scores_too_low(vocabulary) -> None:
    extended = extend(
        vocabulary,
        {"topics": [{"slug": "kv-cache", "label": "KV cache", "subsumes": ["transformers"]}]},
        "test",
    )
    text = "Transformers dominate. We study transformers, unlike the KV cache of decoders."
    assert "transformers" in slugs(text, extended)


def test_title_ranks_a_topic_it_names_higher(vocabulary) -> None:
    text = "Language models are strong. We study them. We relate this to knowledge distillation."
    title = "Knowledge Distillation in Language Models"
    assert "knowledge-distillation" not in slugs(text, vocabulary)
    assert "knowledge-distillation" in slugs(text, vocabulary, title=title)


def test_topic_only_in_the_title_is_not_tagged(vocabulary) -> None:
    text = "Language models are strong. We study how they fail."
    assert "mixture-of-experts" not in slugs(text, vocabulary, title="Mixture of Experts")


def test_hallucination_in_a_vlm_abstract_is_vlm_hallucination(vocabulary) -> None:
    text = "Vision-language models (VLMs) hallucinate. We reduce hallucination in VLMs."
    found = slugs(text, vocabulary)
    assert "hallucination-in-vlms" in found and "hallucination" not in found


def test_reasoning_model_is_a_reasoning_topic(vocabulary) -> None:
    text = "Large reasoning models think at length. We shorten what reasoning models write."
    assert evidence(text, vocabulary, "reasoning") == ["Large reasoning models", "reasoning models"]


def test_non_ascii_letters_are_part_of_a_word(vocabulary) -> None:
    text = "The ÜnïMoE layer is naïve about MoEs. Our MoE routes tokens."
    assert evidence(text, vocabulary, "mixture-of-experts") == ["MoEs", "MoE"]


def test_a_generic_topic_is_not_tagged_beside_a_topic_below_it(vocabulary) -> None:
    text = (
        "We study large language models as agents. LLM agents call tools; "
        "our LLM agents plan with tool use."
    )
    found = slugs(text, vocabulary)
    assert "llm-agents" in found
    assert "large-language-models" not in found


def test_a_generic_topic_named_in_passing_is_not_tagged(vocabulary) -> None:
    text = (
        "Graph neural networks oversmooth with depth. We propose a residual rewiring that "
        "keeps node features apart, and compare it with large language models once."
    )
    assert "large-language-models" not in slugs(text, vocabulary)


def test_a_generic_topic_the_paper_is_about_is_kept(vocabulary) -> None:
    text = (
        "Large language models memorise their pre-training data. We measure how large "
        "language models forget over training."
    )
    assert "large-language-models" in slugs(text, vocabulary)
