"""``PipelineSettings`` and the builders of :mod:`selfrag_langchain.pipeline`: the command line's defaults, one-line
validation messages, backend options routed to the model whose backend takes them, and the Runnables built
from the settings without loading a model or opening a store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from langchain_core.language_models.fake import FakeListLLM
from pydantic import ValidationError

from selfrag_langchain.cli import build_parser
from selfrag_langchain.commands import options
from selfrag_langchain.commands.options import run_settings, settings_from_args
from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.judging import CriticReflector, InlineReflector
from selfrag_langchain.llms.openai import OpenAICompatibleLLM
from selfrag_langchain.llms.transformers import TransformersLLM
from selfrag_langchain.pipeline import (
    PipelineSettings,
    build_generator,
    build_long_form,
    build_reflector,
    build_selfrag,
    uses_demo_corpus,
)
from selfrag_langchain.scoring import RetrieveMode

COMMANDS = {"ask": ["ask", "Who?"], "chat": ["chat"], "serve": ["serve"],
            "eval": ["eval", "f.jsonl", "--task", "popqa"]}


# ---------------------------------------------------------------------- defaults: the command line's


@pytest.mark.parametrize("argv", COMMANDS.values(), ids=COMMANDS.keys())
def test_the_defaults_are_the_command_lines(argv: list[str]) -> None:
    assert settings_from_args(build_parser().parse_args(argv)) == PipelineSettings()


def test_the_runnables_defaults_are_the_settings() -> None:
    from selfrag_langchain.chains.long_form import SelfRAGLongForm
    from selfrag_langchain.chains.short_form import SelfRAG

    llm = FakeListLLM(responses=["x"])
    short = SelfRAG(generator=llm, reflector=CriticReflector(llm))
    long = SelfRAGLongForm(generator=llm, reflector=CriticReflector(llm))
    settings = PipelineSettings()
    loop = settings.loop_settings()
    assert {name: getattr(short, name) for name in loop} == loop
    assert {name: getattr(long, name) for name in loop} == loop  # max_new_tokens included: one budget, declared once
    assert {name: getattr(long, name) for name in settings.long_form_settings()} == settings.long_form_settings()


def test_switches_and_help_come_from_the_settings_fields() -> None:
    parser = build_parser()
    settings = settings_from_args(parser.parse_args(["ask", "Who?", "--no-decline", "--no-sequence-probability",
                                                     "--keep-whole", "--window-sentences", "2", "--mode", "hard"]))
    assert (settings.decline, settings.use_sequence_probability, settings.keep_whole) == (False, False, True)
    assert (settings.window_sentences, settings.mode) == (2, RetrieveMode.HARD)
    ask = next(a for a in parser._subparsers._group_actions[0].choices["ask"]._actions if a.dest == "threshold")
    assert ask.help.startswith("Adaptive mode retrieves when p(Retrieve) > threshold")
    assert ask.default == PipelineSettings.model_fields["threshold"].default


def test_every_setting_is_a_flag() -> None:
    args = vars(build_parser().parse_args(COMMANDS["ask"]))
    flagged = {"backend_options": "device"}
    for name in PipelineSettings.model_fields:
        assert flagged.get(name, name) in args, f"PipelineSettings.{name} has no flag"


def test_flags_become_settings() -> None:
    argv = ["ask", "Who?", "--k", "3", "--reflector", "critic", "--mode", "always", "--w-sup", "2",
            "--no-sequence-probability", "--drop-irrelevant", "--backend", "openai", "--base-url", "http://h:1/v1",
            "--critic-backend", "transformers", "--device", "cuda", "--store", "st", "--beam-score", "sum"]
    settings = settings_from_args(build_parser().parse_args(argv))
    assert settings == PipelineSettings(
        k=3, reflector="critic", mode="always", w_sup=2.0, use_sequence_probability=False, drop_irrelevant=True,
        backend="openai", critic_backend="transformers", store=Path("st"), beam_score="sum",
        backend_options={"base_url": "http://h:1/v1", "device": "cuda"})
    assert settings.mode is RetrieveMode.ALWAYS


# ---------------------------------------------------------------------- validation


@pytest.mark.parametrize(("fields", "message"), [
    ({"threshold": 1.5}, r"threshold must be in \[0, 1\], got 1.5"),
    ({"min_quote_answering": -0.1}, r"min_quote_answering must be in \[0, 1\], got -0.1"),
    ({"k": 0}, "k must be >= 1, got 0"),
    ({"k": 1000}, r"k must be at most 20 \(each passage is a branch, generated and judged\), got 1000"),
    ({"max_new_tokens": 0}, "max_new_tokens must be >= 1, got 0"),
    ({"beam_width": 0}, "beam_width must be >= 1, got 0"),
    ({"max_depth": -1}, "max_depth must be >= 1, got -1"),
    ({"w_sup": -100}, "w_sup must be between 0 and 10, got -100"),
    ({"w_use": float("inf")}, "w_use must be a finite number, got inf"),
    ({"backend": "tgi"}, "unknown backend 'tgi': choose one of transformers, vllm, openai, llamacpp"),
    ({"critic_backend": "tgi"}, "unknown backend 'tgi'"),
    ({"backend_options": {"base_url": "http://h/v1"}}, "base_url does not apply to backend transformers"),
    ({"backend": "llamacpp", "critic_backend": "openai", "backend_options": {"tensor_parallel_size": 2}},
     "tensor_parallel_size does not apply to backend llamacpp or openai"),
    ({"backend_options": {"max_new_tokens": 9}}, "max_new_tokens is a setting of its own"),
    ({"backend": "openai", "critic_backend": "transformers", "backend_options": {"no_repeat_ngram_size": 3}},
     r"no_repeat_ngram_size changes what the generator writes, and the generator's backend openai does not take it"),
    ({"reflector": "oracle"},
     "reflector\n.*Input should be 'calibrated', 'entailment', 'learned', 'critic' or 'inline'"),
    ({"mode": "sometimes"}, "mode\n.*Input should be 'adaptive', 'hard', 'always' or 'never'"),
    ({"top_k": 3}, "top_k\n.*Extra inputs are not permitted"),
])
def test_unusable_values_are_refused_naming_the_field(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationError, match=message):
        PipelineSettings(**fields)


@pytest.mark.parametrize(("flags", "message"), [
    (["--threshold", "1.5"], r"--threshold must be in \[0, 1\], got 1.5"),
    (["--k", "0"], "--k must be >= 1, got 0"),
    (["--k", "1000"], r"--k must be at most 20 \(each passage is a branch, generated and judged\), got 1000"),
    (["--max-new-tokens", "0"], "--max-new-tokens must be >= 1, got 0"),
    (["--max-segment-tokens", "0"], "--max-segment-tokens must be >= 1, got 0"),
    (["--w-rel", "11"], "--w-rel must be between 0 and 10, got 11"),
    (["--base-url", "http://h/v1"], "--base-url does not apply to --backend transformers"),
    (["--backend", "vllm", "--critic-backend", "transformers", "--no-repeat-ngram-size", "3"],
     r"--no-repeat-ngram-size changes what the generator writes, and the generator's backend vllm does not take it "
     r"\(the critic only reads\)"),
    (["--k", "0", "--threshold", "2"], r"--threshold must be in \[0, 1\], got 2.0; --k must be >= 1, got 0"),
])
def test_the_command_line_says_it_with_its_flags(flags: list[str], message: str) -> None:
    with pytest.raises(ConfigurationError, match=f"^{message}$"):
        settings_from_args(build_parser().parse_args(["ask", "Who?", *flags]))


def test_settings_are_frozen_and_changes_are_checked() -> None:
    settings = PipelineSettings(k=3)
    with pytest.raises(ValidationError, match="frozen"):
        settings.k = 4  # type: ignore[misc]
    assert settings.with_changes(reflector="critic") == PipelineSettings(k=3, reflector="critic")
    with pytest.raises(ValidationError, match="k must be >= 1"):
        settings.with_changes(k=0)


def test_none_backend_options_are_left_out() -> None:
    assert PipelineSettings(backend_options={"device": None}).backend_options == {}


# ---------------------------------------------------------------------- builders


def test_backend_options_go_to_the_model_whose_backend_takes_them() -> None:
    settings = PipelineSettings(backend="openai", model="served", max_new_tokens=7, reflector="critic",
                                critic_backend="transformers", critic="smollm2-135m-instruct",
                                backend_options={"base_url": "http://h:1/v1", "concurrency": 3, "device": "cuda"})
    assert settings.options_for("openai") == {"base_url": "http://h:1/v1", "concurrency": 3}
    assert settings.options_for("transformers") == {"device": "cuda"}
    generator = build_generator(settings)
    assert isinstance(generator, OpenAICompatibleLLM)
    assert (generator.base_url, generator.concurrency, generator.model, generator.max_new_tokens) == (
        "http://h:1/v1", 3, "served", 7)
    critic = build_reflector(settings, generator)
    assert isinstance(critic, CriticReflector) and critic.llm is not generator
    assert isinstance(critic.llm, TransformersLLM) and critic.llm.device == "cuda"


def test_the_critic_is_the_generator_when_it_is_the_same_model_on_the_same_backend() -> None:
    settings = PipelineSettings(reflector="critic", critic_prompts="paper", backend_options={"device": "cpu"})
    generator = build_generator(settings)
    critic = build_reflector(settings, generator)
    assert isinstance(critic, CriticReflector) and critic.llm is generator and critic.relevance == "labels"
    other = build_reflector(settings.with_changes(critic="another-model"), generator)
    assert isinstance(other, CriticReflector) and other.llm is not generator and other.llm.model == "another-model"


def test_a_trained_critic_is_read_with_the_label_bias_saved_beside_it(tmp_path: Path) -> None:
    from selfrag_langchain.judging import LabelBias
    from selfrag_langchain.judging.label_bias import LABEL_BIAS_FILE
    from selfrag_langchain.tokens import NO_SUPPORT, Group

    bias = LabelBias({Group.ISSUP: {NO_SUPPORT: 1.5}})
    (tmp_path / LABEL_BIAS_FILE).write_text(json.dumps(bias.to_dict()))
    settings = PipelineSettings(reflector="critic", critic=str(tmp_path), critic_prompts="paper")
    critic = build_reflector(settings, FakeListLLM(responses=["x"]))
    assert isinstance(critic, CriticReflector) and critic.label_bias == bias
    plain = build_reflector(settings.with_changes(critic="another-model"), FakeListLLM(responses=["x"]))
    assert isinstance(plain, CriticReflector) and plain.label_bias is None


def test_the_inline_judge_is_the_generator_built_when_not_given() -> None:
    llm = FakeListLLM(responses=["x"])
    assert build_reflector(PipelineSettings(reflector="inline"), llm).llm is llm
    built = build_reflector(PipelineSettings(reflector="inline"))
    assert isinstance(built, InlineReflector) and isinstance(built.llm, TransformersLLM)


def test_the_runnables_carry_the_settings_knobs() -> None:
    settings = PipelineSettings(mode="always", threshold=0.4, k=3, w_rel=0.5, w_sup=2.0, w_use=0.0,
                                use_sequence_probability=False, drop_unsupported=True, max_new_tokens=30,
                                beam_width=3, max_depth=2, max_segment_tokens=16, beam_score="sum")
    llm = FakeListLLM(responses=["x"])
    judge = InlineReflector(llm)
    short = build_selfrag(settings, generator=llm, reflector=judge, retriever=None)
    assert short.generator is llm and short.reflector is judge and short.retriever is None
    assert (short.mode, short.threshold, short.k, short.max_new_tokens) == (RetrieveMode.ALWAYS, 0.4, 3, 30)
    assert (short.w_rel, short.w_sup, short.w_use, short.use_sequence_probability) == (0.5, 2.0, 0.0, False)
    assert short.drop_unsupported and not short.drop_irrelevant
    long = build_long_form(settings, generator=llm, reflector=judge, retriever=None)
    assert (long.beam_width, long.max_depth, long.max_segment_tokens, long.beam_score) == (3, 2, 16, "sum")
    assert (long.k, long.max_new_tokens) == (3, 30)


def test_mode_never_opens_no_store(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_store(settings: PipelineSettings) -> None:
        raise AssertionError("mode never must not open a store")

    monkeypatch.setattr("selfrag_langchain.pipeline.build_retriever", no_store)
    llm = FakeListLLM(responses=["x"])
    rag = build_selfrag(PipelineSettings(mode="never", reflector="inline"), generator=llm)
    assert rag.retriever is None and rag.reflector.llm is llm


def test_the_store_the_settings_name_is_the_retriever(monkeypatch: pytest.MonkeyPatch) -> None:
    from langchain_core.retrievers import BaseRetriever

    from selfrag_langchain.retrievers import PassageRetriever

    seen: list[PipelineSettings] = []

    def retriever(settings: PipelineSettings) -> BaseRetriever:
        seen.append(settings)
        return PassageRetriever()

    monkeypatch.setattr("selfrag_langchain.pipeline.build_retriever", retriever)
    settings = PipelineSettings(reflector="inline", store=Path("somewhere"))
    rag = build_selfrag(settings, generator=FakeListLLM(responses=["x"]))
    assert isinstance(rag.retriever, PassageRetriever) and seen == [settings]


# ------------------------------------------------------------------ the demo corpus: the library asks, the CLI says


def test_the_demo_corpus_is_used_without_a_store(store_home: Path) -> None:
    assert uses_demo_corpus(PipelineSettings())
    assert not uses_demo_corpus(PipelineSettings(store=store_home / "mine"))


@pytest.mark.parametrize(("flags", "told"), [([], True), (["--mode", "never"], False), (["--store", "st"], False)])
def test_the_command_line_tells_when_it_answers_from_the_demo_corpus(
    flags: list[str], told: bool, store_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_settings(build_parser().parse_args(["ask", "Who?", *flags]))
    assert ("answering from the demo corpus" in capsys.readouterr().err) is told


def test_the_library_prints_nothing(store_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    settings = options.settings_from_args(build_parser().parse_args(["ask", "Who?"]))
    assert uses_demo_corpus(settings)
    assert capsys.readouterr().err == ""
