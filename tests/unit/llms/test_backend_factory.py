"""One choice point for the backend: ``build_llm``, the pipeline builders, and the ``--backend`` flags of every
run command."""

from __future__ import annotations

import pytest

from selfrag_langchain.cli import build_parser
from selfrag_langchain.commands.options import settings_from_args
from selfrag_langchain.errors import ConfigurationError, SelfRAGError
from selfrag_langchain.judging import CriticReflector
from selfrag_langchain.llms.factory import BACKENDS, build_llm
from selfrag_langchain.llms.llamacpp import LlamaCppLLM
from selfrag_langchain.llms.openai import OpenAICompatibleLLM
from selfrag_langchain.llms.transformers import TransformersLLM
from selfrag_langchain.llms.vllm import VllmLLM
from selfrag_langchain.pipeline import PipelineSettings, build_generator, build_reflector


@pytest.mark.parametrize(("backend", "cls", "options"), [
    ("transformers", TransformersLLM, {"device": "cpu", "no_repeat_ngram_size": 4}),
    ("vllm", VllmLLM, {"tensor_parallel_size": 2, "gpu_memory_utilization": 0.8}),
    ("openai", OpenAICompatibleLLM, {"base_url": "http://127.0.0.1:9/v1", "concurrency": 8}),
    ("llamacpp", LlamaCppLLM, {"n_ctx": 2048}),
])
def test_build_llm_builds_each_backend_without_loading_it(backend: str, cls: type, options: dict) -> None:
    llm = build_llm(backend, None, max_new_tokens=7, **options)
    assert type(llm) is cls
    assert llm.max_new_tokens == 7
    for key, value in options.items():
        assert getattr(llm, key) == value
    assert set(BACKENDS) == {"transformers", "vllm", "openai", "llamacpp"}


def test_build_llm_refuses_unknown_backends_and_foreign_options() -> None:
    with pytest.raises(ConfigurationError, match="unknown backend 'tgi'"):
        build_llm("tgi")
    with pytest.raises(ConfigurationError, match="base_url do not apply to the transformers backend"):
        build_llm("transformers", base_url="http://x/v1")


@pytest.mark.parametrize(("backend", "options", "message"), [
    ("openai", {"concurrency": 0}, "concurrency must be >= 1"),
    ("openai", {"timeout": 0}, "timeout must be > 0"),
    ("openai", {"max_retries": -1}, "max_retries must be >= 0"),
    ("openai", {"base_url": "localhost:8000"}, "base_url must be an http"),
    ("openai", {"top_logprobs": 0}, "top_logprobs must be >= 1"),
    ("vllm", {"gpu_memory_utilization": 1.5}, r"gpu_memory_utilization must be in \(0, 1\]"),
    ("vllm", {"tensor_parallel_size": 0}, "tensor_parallel_size must be >= 1"),
    ("llamacpp", {"n_ctx": 0}, "n_ctx must be >= 1"),
    ("llamacpp", {"temperature": -1.0}, "temperature must be >= 0"),
    ("transformers", {"no_repeat_ngram_size": -1}, "no_repeat_ngram_size must be >= 0"),
])
def test_bad_backend_options_are_one_line_errors(backend: str, options: dict, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        build_llm(backend, **options)


def test_openai_key_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    assert build_llm("openai").api_key.get_secret_value() == "sk-test"
    assert build_llm("openai", api_key="other").api_key.get_secret_value() == "other"


def _args(*flags: str) -> PipelineSettings:
    return settings_from_args(build_parser().parse_args(["ask", "q", *flags]))


def test_cli_flags_choose_the_generator_backend() -> None:
    args = _args("--backend", "openai", "--base-url", "http://10.0.0.1:8000/v1", "--model", "served",
                 "--timeout", "5", "--max-retries", "4", "--concurrency", "3", "--extra-body", '{"repeat_penalty": 1}')
    llm = build_generator(args)
    assert isinstance(llm, OpenAICompatibleLLM)
    assert (llm.base_url, llm.model, llm.timeout, llm.max_retries, llm.concurrency) == (
        "http://10.0.0.1:8000/v1", "served", 5.0, 4, 3)
    assert llm.extra_body == {"repeat_penalty": 1}
    assert llm.max_new_tokens == args.max_new_tokens
    assert isinstance(build_generator(_args()), TransformersLLM)
    assert build_generator(_args()).no_repeat_ngram_size == 0
    assert build_generator(_args("--no-repeat-ngram-size", "4")).no_repeat_ngram_size == 4
    vllm = build_generator(_args("--backend", "vllm", "--tensor-parallel-size", "4", "--enable-prefix-caching"))
    assert isinstance(vllm, VllmLLM) and vllm.tensor_parallel_size == 4 and vllm.enable_prefix_caching


def test_the_critic_shares_the_generator_unless_told_otherwise() -> None:
    args = _args("--backend", "llamacpp", "--n-ctx", "1024", "--reflector", "critic")
    generator = build_generator(args)
    reflector = build_reflector(args, generator)
    assert isinstance(reflector, CriticReflector) and reflector.llm is generator
    args = _args("--backend", "openai", "--base-url", "http://h:1/v1", "--critic-backend", "transformers",
                 "--reflector", "critic")
    generator = build_generator(args)
    critic = build_reflector(args, generator).llm
    assert isinstance(generator, OpenAICompatibleLLM) and isinstance(critic, TransformersLLM)


@pytest.mark.parametrize("flags", [
    ("--base-url", "http://h/v1"),
    ("--backend", "llamacpp", "--tensor-parallel-size", "2"),
    ("--backend", "openai", "--device", "cuda"),
])
def test_a_flag_for_another_backend_is_a_clear_error(flags: tuple[str, ...]) -> None:
    with pytest.raises(SelfRAGError, match="does not apply to --backend"):
        _args(*flags)


def test_extra_body_must_be_a_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _args("--backend", "openai", "--extra-body", "[1, 2]")
    assert "must be a JSON object" in capsys.readouterr().err


def test_backend_libraries_are_imported_only_when_used() -> None:
    import subprocess
    import sys

    code = ("import sys, selfrag_langchain.llms as m; m.build_llm('openai'); m.build_llm('vllm'); "
            "m.build_llm('llamacpp'); print(sorted(x for x in ('openai', 'llama_cpp', 'vllm') if x in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
