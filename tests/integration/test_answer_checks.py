"""The real-model answer checks reject an echo of the question: run under the echo backend
(``tests/fakes/echo_backend.py``: the real generator answers with the question it was asked, and no quote
or decline replaces that), each fails, and fails on the echo itself."""

from __future__ import annotations

import subprocess
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]

ANSWER_TESTS = {
    "tests/integration/test_selfrag_real.py::test_lcel_batch_and_abatch_agree": "Who painted the Mona Lisa?",
    "tests/integration/test_examples.py::test_same_runnable_over_three_vector_stores":
        "Who designed the Eiffel Tower?",
    "tests/integration/test_examples.py::test_langgraph_node": "Who wrote Hamlet?",
    "tests/integration/test_serve_real.py::test_an_openai_client_gets_a_cited_answer_whole_and_streamed":
        "Who designed the Eiffel Tower",
    "tests/integration/test_readme_blocks.py::test_python_block_runs_as_a_script[README-python-use-it-in-python-1]":
        "Who painted the Mona Lisa?",
}
"""Answer tests of each way in (the Runnable, the examples, the server, the README), and the question whose
echo each must refuse."""


def test_every_answer_check_fails_on_an_echo_of_its_question(tmp_path: Path) -> None:
    report = tmp_path / "echo.xml"
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "tests.fakes.echo_backend", "-p", "no:cacheprovider",
                           "-q", f"--junitxml={report}", *ANSWER_TESTS], capture_output=True, text=True,
                          timeout=1200, cwd=ROOT)
    assert done.returncode == 1, done.stdout[-3000:]  # 1: tests ran and failed (not a usage or collection error)
    cases = {f"{case.get('classname', '').replace('.', '/')}.py::{case.get('name')}": case
             for case in ElementTree.parse(report).getroot().iter("testcase")}
    for test, question in ANSWER_TESTS.items():
        case = cases.get(test)
        assert case is not None, f"{test} did not run: {sorted(cases)}"
        failure = case.find("failure")
        assert failure is not None, f"{test} passed on an echo of its question"
        # The check failed on the echo: the failure shows the answer, and the answer is the question.
        assert "AssertionError" in (failure.text or "") and question in (failure.text or ""), failure.text
