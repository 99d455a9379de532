"""The terminal status line: one line per step of a question, cleared before the answer, silent off a terminal."""

from __future__ import annotations

import io
from collections.abc import Iterator

import pytest
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM

from selfrag_langchain.chains.short_form import SelfRAG
from selfrag_langchain.commands.ask import stream_answer
from selfrag_langchain.commands.status import StatusLine, step_text
from selfrag_langchain.judging import CalibratedReflector
from selfrag_langchain.results import CitedSegment
from tests.fakes.bag_of_words import BagOfWords
from tests.fakes.calibrated_judge import calibration

CLEAR = "\r\033[K"


def _rag() -> SelfRAG:
    llm = FakeListLLM(responses=["Henri Matisse painted it.", "Leonardo da Vinci painted it."])
    return SelfRAG(generator=llm, reflector=CalibratedReflector(calibration(), embeddings=BagOfWords()),
                   mode="always", k=2)


def _docs() -> list[Document]:
    return [Document(page_content="Henri Matisse was a French painter.", metadata={"title": "Henri Matisse"}),
            Document(page_content="The Mona Lisa is by Leonardo da Vinci.", metadata={"title": "Mona Lisa"})]


def test_each_step_of_a_question_rewrites_one_line_in_order() -> None:
    out = io.StringIO()
    status = StatusLine(out, enabled=True)
    _rag().invoke({"question": "Who painted the Mona Lisa?", "passages": _docs()}, config={"callbacks": [status]})
    lines = [part for part in out.getvalue().split(CLEAR) if part]
    assert lines == ["selfrag: deciding whether to retrieve...", "selfrag: retrieving passages...",
                     "selfrag: generating 2 answers, one per passage...", "selfrag: judging the evidence...",
                     "selfrag: choosing the answer..."]
    assert "\n" not in out.getvalue()
    status.clear()
    assert out.getvalue().endswith(CLEAR)


def test_a_quoting_question_quotes_the_passages_before_choosing() -> None:
    from selfrag_langchain.chains.quotes import PassageQuoter

    out = io.StringIO()
    rag = _rag().model_copy(update={"quoter": PassageQuoter(embeddings=BagOfWords())})
    rag.invoke({"question": "Who painted the Mona Lisa?", "passages": _docs()}, config={"callbacks": [StatusLine(
        out, enabled=True)]})
    lines = [part for part in out.getvalue().split(CLEAR) if part]
    assert lines[-2:] == ["selfrag: quoting the passages...", "selfrag: choosing the answer..."]


def test_nothing_is_written_off_a_terminal() -> None:
    out = io.StringIO()  # isatty() is False, as for a pipe or a file
    status = StatusLine(out)
    _rag().invoke({"question": "Who painted the Mona Lisa?", "passages": _docs()}, config={"callbacks": [status]})
    status.clear()
    assert out.getvalue() == ""


def test_a_cleared_line_stays_silent_for_later_steps() -> None:
    out = io.StringIO()
    status = StatusLine(out, enabled=True)
    status.clear()
    status.on_chain_start(None, ["p"], run_id=None, name="critique")  # type: ignore[arg-type]
    assert out.getvalue() == ""


def test_only_the_question_steps_are_shown() -> None:
    assert step_text("RunnableSequence", {}) is None
    assert step_text("generate_branches", ["one prompt"]) == "generating the answer"
    assert step_text("generate_branches", ["a", "b", "c"]) == "generating 3 answers, one per passage"


def test_the_line_is_cleared_before_the_first_words_of_a_streamed_answer(capsys: pytest.CaptureFixture[str]) -> None:
    out = io.StringIO()
    status = StatusLine(out, enabled=True)
    status.on_chain_start(None, [], run_id=None, name="retrieve")  # type: ignore[arg-type]

    def items() -> Iterator[object]:
        assert out.getvalue().endswith("retrieving passages...")
        yield CitedSegment(text="Leonardo painted it.", citation=1)
        assert out.getvalue().endswith(CLEAR), "cleared before the segment was printed"
        yield "the result"

    assert stream_answer(items(), status=status, prefix="selfrag> ") == "the result"
    assert capsys.readouterr().out == "selfrag> Leonardo painted it [1].\n"


def test_a_step_that_fails_leaves_no_status_line_behind() -> None:
    out = io.StringIO()
    with pytest.raises(RuntimeError), StatusLine(out, enabled=True) as status:
        status.on_chain_start(None, [], run_id=None, name="critique")  # type: ignore[arg-type]
        raise RuntimeError("the judge failed")
    assert out.getvalue().endswith(CLEAR)
    assert not status.enabled
