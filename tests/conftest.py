"""Shared pytest fixtures. Tests never touch the user's home and never reach a model hub."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from selfrag_langchain.embeddings import MiniLMEmbeddings

# Property tests check results, not time: a deadline fails an example that a loaded machine runs slowly.
settings.register_profile("selfrag", deadline=None)
settings.load_profile("selfrag")


@dataclass(frozen=True)
class Allowed:
    """A test CI accepts not passing as written: tests whose node id matches ``tests``, skipped (``outcome``
    "skipped") or failing as expected (``outcome`` "xfailed") for a reason matching ``reason``, and ``why``."""

    outcome: str
    tests: str
    reason: str
    why: str


ALLOWED = (
    Allowed(
        "skipped",
        r"tests/(unit/chains|integration)/test_chat_selfrag_standard\.py::",
        r"^(Does not support|Test requires|Model does not|Model override not supported|Not implemented\.|"
        r"VCR not set up|init_from_env_params not specified|Model is not serializable)",
        "langchain-tests' suites skip the features ChatSelfRAG declares it lacks (tools, structured output, "
        "images, usage metadata, model override, serialisation, env init, recorded HTTP): the suites' own design",
    ),
    Allowed(
        "skipped",
        r"tests/integration/test_readme_blocks\.py::",
        r"^(README|docs/[\w.-]+)\.md:\d+ \(.*\): needs ",
        "blocks of the README and of the docs pages its sections moved to, marked `readme-test: skip` with the "
        "reason on the page (a GPU, a 7B model, hours of training, a server that runs until stopped); the test "
        "itself caps them at seven",
    ),
    Allowed(
        "xfailed",
        r"tests/integration/test_learned_judge_real\.py::test_a_contradicting_output_scores_below_the_right_one"
        r"\[(capital|rank|ordinal|absent-city|count)\]",
        r"^the shipped learned judge does not yet separate this case$",
        "contradictions the learned judge (an option, not the default) does not yet separate; strict, so a judge "
        "that learns one fails the run until the mark is removed",
    ),
    Allowed(
        "xfailed",
        r"tests/integration/test_entailment_judge_real\.py::test_a_contradicted_output_gets_less_support_than_the_"
        r"stated_one\[capital\]",
        r"^both cities are in the passage's one sentence",
        "one sentence naming the capital and the largest city: the entailment judge (an option) does not yet tell "
        "them apart; strict, like the others",
    ),
    Allowed(
        "xfailed",
        r"tests/integration/test_answer_finder_real\.py::test_declining_keeps_the_answering_sentence_and_declines_the_"
        r"other\[Coyoacan\]",
        r"^not yet: ",
        "the answer finder's probability above the declining threshold for a sentence naming only a nationality, "
        "one of the five written cases (it ranks it right); strict, so a finder that reads it fails the run until "
        "the mark is removed",
    ),
)
"""The only skips and expected failures a CI run (``CI=true``) may have; any other fails the run. Data that is
missing, a dependency not installed or a server that did not start are faults in CI, not reasons to skip; a
feature marked "not yet" is a decision, listed here with its reason."""

OUTCOMES = ("skipped", "xfailed")


def _in_ci() -> bool:
    return os.environ.get("CI", "").lower() in {"1", "true", "yes"}


def _reason(report: pytest.TestReport) -> str:
    if hasattr(report, "wasxfail"):
        return str(report.wasxfail).removeprefix("reason: ")
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return reason.removeprefix("Skipped: ")


def _allowance(report: pytest.TestReport, outcome: str) -> Allowed | None:
    reason = _reason(report)
    return next((rule for rule in ALLOWED if rule.outcome == outcome and re.search(rule.tests, report.nodeid)
                 and re.search(rule.reason, reason)), None)


def _unexpected(reporter: pytest.TerminalReporter | None, outcome: str) -> list[pytest.TestReport]:
    reports = reporter.stats.get(outcome, []) if reporter is not None else []
    return [report for report in reports if _allowance(report, outcome) is None]


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if _in_ci() and any(_unexpected(reporter, outcome) for outcome in OUTCOMES):
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    for outcome in OUTCOMES:
        reports = terminalreporter.stats.get(outcome, [])
        if not reports:
            continue
        unexpected = _unexpected(terminalreporter, outcome)
        terminalreporter.section(outcome)
        terminalreporter.write_line(
            f"{len(reports)} {outcome}: {len(reports) - len(unexpected)} on the allowed list (tests/conftest.py), "
            f"{len(unexpected)} not"
        )
        for rule in ALLOWED:
            count = sum(1 for report in reports if _allowance(report, outcome) is rule)
            if count:
                terminalreporter.write_line(f"  allowed ({count}): {rule.why}")
        for report in unexpected:
            terminalreporter.write_line(f"  not allowed: {report.nodeid}: {_reason(report)}")
        if unexpected and _in_ci():
            terminalreporter.write_line(f"CI=true: a test {outcome} off the allowed list fails the run")


def pytest_configure(config: pytest.Config) -> None:
    # Before any test module imports huggingface_hub, which reads these once.
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture
def store_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh, empty SELFRAG_HOME for one test: the default store lives under it."""
    home = tmp_path / "selfrag-home"
    monkeypatch.setenv("SELFRAG_HOME", str(home))
    yield home


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbeddings:
    """The real all-MiniLM-L6-v2 embeddings, loaded once for the whole session."""
    embeddings = MiniLMEmbeddings()
    embeddings.embed_query("warm up")
    return embeddings


@pytest.fixture
def onnx_caches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Empty ONNX caches for one test, the environment's first and the user's second, in place of the real ones."""
    from selfrag_langchain.embeddings import onnx

    dirs = [tmp_path / "env" / "onnx", tmp_path / "home" / "onnx"]
    monkeypatch.setattr(onnx, "_cache_dirs", lambda: dirs)
    return dirs
