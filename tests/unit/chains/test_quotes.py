"""Quoted answers: the cited passage's sentence that states what the generator wrote, in short and long form,
the generation kept in the trace; off unless asked for."""

from __future__ import annotations

import argparse

import pytest
from langchain_core.documents import Document
from langchain_core.language_models import FakeListLLM

from selfrag_langchain.chains.controls import LoopSettings
from selfrag_langchain.chains.long_form import SelfRAGLongForm
from selfrag_langchain.chains.quotes import PassageQuoter
from selfrag_langchain.chains.short_form import SelfRAG
from selfrag_langchain.judging import CalibratedReflector, InlineReflector
from selfrag_langchain.pipeline import PipelineSettings, build_quoter
from selfrag_langchain.results import CitedSegment, LongFormResult, SelfRAGResult
from selfrag_langchain.tokens import NO_RETRIEVAL, RETRIEVAL
from tests.fakes.bag_of_words import BagOfWords
from tests.fakes.scripted_long_form import FULL, QUESTION, REL, RecordingRetriever, ScriptedLongFormLLM, judged

BLACKBEARD = Document(
    page_content="Blackbeard was a pirate of the West Indies. Edward Teach, better known as Blackbeard, was an "
                 "English pirate. His flagship was Queen Anne's Revenge.",
    metadata={"title": "Blackbeard"})


def test_the_sentence_holding_what_the_answer_adds_is_quoted_though_the_answer_garbles_it() -> None:
    quoter = PassageQuoter(embeddings=BagOfWords())
    question = "What was the real name of the pirate Blackbeard?"
    # The answer repeats the question's words; what it adds ("Edward Teach") is in one sentence only.
    assert quoter.quote(question, "The real name of the pirate Blackbeard was Edward Teach, a pirate.",
                        BLACKBEARD.page_content) == "Edward Teach, better known as Blackbeard, was an English pirate."
    # What it adds points at another sentence: that one is quoted, whichever way the answer is worded.
    assert quoter.quote(question, "It sailed in Queen Anne's Revenge.", BLACKBEARD.page_content) == (
        "His flagship was Queen Anne's Revenge.")


def test_only_the_answers_first_sentence_points_and_every_pair_is_found_in_one_embedding_call() -> None:
    embeddings = BagOfWords()
    quoter = PassageQuoter(embeddings=embeddings)
    found = quoter.quotes("Who was Blackbeard?", [
        ("Blackbeard was Edward Teach. His flagship was Queen Anne's Revenge.", BLACKBEARD.page_content),
        ("Anything.", "   "),
    ])
    assert found == ["Edward Teach, better known as Blackbeard, was an English pirate.", None]
    assert len(embeddings.calls) == 1
    assert quoter.quote("Who was Blackbeard?", "  ", BLACKBEARD.page_content) is None  # nothing to point with


def test_an_opening_pronoun_is_named_from_the_title_when_the_article_is_about_it() -> None:
    from selfrag_langchain.judging.claims import named

    first = "Pierre Curie was a French physicist."
    assert named("He shared the 1903 Nobel Prize in Physics.", "Pierre Curie", first) == (
        "Pierre Curie shared the 1903 Nobel Prize in Physics.")
    assert named("His wife was Marie Curie.", "Pierre Curie", first) == "Pierre Curie's wife was Marie Curie."
    # The title's disambiguation is dropped, "the" kept as the first sentence says it, "'" after a plural.
    assert named("It is exhibited in Madrid.", "Guernica (Picasso)", "Guernica is a painting by Picasso.") == (
        "Guernica is exhibited in Madrid.")
    assert named("They flew in 1903.", "Wright brothers", "The Wright brothers were American aviators.") == (
        "The Wright brothers flew in 1903.")
    assert named("Their plane was the Flyer.", "Wright brothers", "The Wright brothers were aviators.") == (
        "The Wright brothers' plane was the Flyer.")
    assert named("It was released in 2007.", "iPhone", "The iPhone is a smartphone.") == (
        "The iPhone was released in 2007.")
    assert named("It was founded in 1995.", "eBay", "eBay is a company.") == "eBay was founded in 1995."
    # The pronoun just after a phrase that opens the sentence, when the phrase's pronouns stand for the same person
    # and, if it is a clause, it names nothing.
    assert named("In 1903, he shared the Nobel Prize.", "Pierre Curie", first) == (
        "In 1903, Pierre Curie shared the Nobel Prize.")
    assert named("With a size of 21,960,000 km2 (8,480,000 mi2), it is the second-smallest ocean.", "Southern Ocean",
                 "The Southern Ocean is the southernmost ocean.") == (
        "With a size of 21,960,000 km2 (8,480,000 mi2), the Southern Ocean is the second-smallest ocean.")
    assert named("Since 1988, her record has stood.", "Jackie Joyner-Kersee", "Jackie Joyner-Kersee is an athlete."
                 ) == "Since 1988, Jackie Joyner-Kersee's record has stood."
    assert named("During his career in France, he won the prize.", "Pierre Curie", first) == (
        "During his career in France, Pierre Curie won the prize.")
    assert named("Today, it is a major river.", "Nile", "The Nile is a river in Africa.") == (
        "Today, the Nile is a major river.")  # a phrase of one word
    assert named("The second-lightest of the halogens, it appears between fluorine and bromine.", "Chlorine",
                 "Chlorine is a chemical element.") == (
        "The second-lightest of the halogens, Chlorine appears between fluorine and bromine.")
    # "the" only when the first sentence calls the subject so, not where it names something after it
    assert named("It was admitted in 1817.", "Mississippi", "Mississippi is a state bordered by the Mississippi "
                 "River.") == "Mississippi was admitted in 1817."
    # Unchanged: an empty "It", a pronoun inside the sentence, no title, an article about something else, an
    # opening phrase that names or refers to something the pronoun may stand for, and a first sentence (nothing
    # before it for a pronoun to stand for).
    unchanged = [("It is believed that he was born in Paris.", "Pierre Curie", first),
                 ("In 1900, it was thought that the river had no source.", "Nile", "The Nile is a river."),
                 ("It seems that the river had no source.", "Nile", "The Nile is a river."),
                 ("Later he shared the prize.", "Pierre Curie", first),
                 ("After Marie fell ill, she left Paris.", "Pierre Curie", first),
                 ("After self-publishing it in 1855, he revised it.", "Pierre Curie", first),
                 ("When her sister died, he left Paris.", "Pierre Curie", first),
                 ("In 1903 and in 1905 and in 1906 and in 1907 and in 1908 and in 1910, he worked.", "Pierre Curie",
                  first),
                 ("He shared the prize.", None, first),
                 ("He shared the prize.", "Nobel Prize", first),
                 ("He was a physicist.", "Pierre Curie", "He was a physicist.")]
    for sentence, title, lead in unchanged:
        assert named(sentence, title, lead) == sentence


def test_the_quoter_names_the_subject_from_each_pairs_title() -> None:
    passage = "Pierre Curie was a French physicist. He shared the 1903 Nobel Prize in Physics with Marie Curie."
    quoter = PassageQuoter(embeddings=BagOfWords())
    question = "With whom did Marie Curie share the 1903 Nobel Prize?"
    answer = "Marie Curie shared the 1903 Nobel Prize in Physics with her husband."
    assert quoter.quotes(question, [(answer, passage)] * 2, titles=["Pierre Curie", None]) == [
        "Pierre Curie shared the 1903 Nobel Prize in Physics with Marie Curie.",
        "He shared the 1903 Nobel Prize in Physics with Marie Curie."]
    assert quoter.quote(question, answer, passage, "Pierre Curie").startswith("Pierre Curie shared")
    with pytest.raises(ValueError, match="1 titles for 2 passages"):
        quoter.quotes(question, [(answer, passage)] * 2, titles=["Pierre Curie"])


def _short_form(quoter: PassageQuoter | None, answer: str) -> SelfRAG:
    return SelfRAG(generator=FakeListLLM(responses=[answer]), reflector=CalibratedReflector(embeddings=BagOfWords()),
                   mode="always", k=1, quoter=quoter, min_name_coverage=0.0, decline=False)


def test_short_form_answers_with_the_quote_and_keeps_the_generation_in_the_trace() -> None:
    generated = "The real name of the pirate Blackbeard was Edward Teach the Blackbeard."
    question = {"question": "What was the real name of the pirate Blackbeard?", "passages": [BLACKBEARD]}
    result = _short_form(PassageQuoter(embeddings=BagOfWords()), generated).invoke(question)
    assert result.answer == "Edward Teach, better known as Blackbeard, was an English pirate."
    assert result.quoted and result.settings["quote"] is True
    assert result.selected == 0 and result.branches[0].answer == generated
    assert result.citations[0].metadata["title"] == "Blackbeard"

    plain = _short_form(None, generated).invoke(question)
    assert plain.answer == generated and not plain.quoted and plain.settings["quote"] is False


def test_short_form_names_the_subject_from_the_cited_documents_title() -> None:
    curie = Document(page_content="Pierre Curie was a French physicist. He shared the 1903 Nobel Prize in Physics "
                                  "with his wife, Marie Curie.", metadata={"title": "Pierre Curie"})
    question = {"question": "With which husband did Marie Curie share the 1903 Nobel Prize?", "passages": [curie]}
    result = _short_form(PassageQuoter(embeddings=BagOfWords()), "She shared it with her husband Pierre.").invoke(
        question)
    assert result.answer == "Pierre Curie shared the 1903 Nobel Prize in Physics with his wife, Marie Curie."
    assert result.branches[0].quote == result.answer


def test_a_declined_answer_or_one_written_without_a_passage_is_not_quoted() -> None:
    quoter = PassageQuoter(embeddings=BagOfWords())
    rag = _short_form(quoter, "Edward Teach.").model_copy(update={"decline": True, "min_name_coverage": 0.6})
    declined = rag.invoke({"question": "Who founded Atlantis Corp?", "passages": [BLACKBEARD]})
    assert declined.declined and not declined.quoted and declined.answer.startswith("The sources found")

    never = _short_form(quoter, "Edward Teach.").model_copy(update={"mode": "never"})
    result = never.invoke("What was Blackbeard's real name?")
    assert result.answer == "Edward Teach." and not result.quoted and not result.retrieved


EIFFEL = Document(page_content="The Eiffel Tower is a wrought-iron tower in Paris. It was built for the World's Fair "
                               "of 1889. It is 330 metres tall.", metadata={"title": "Eiffel Tower"})


def _long_form(quoter: PassageQuoter | None, depth: int = 3) -> SelfRAGLongForm:
    s1, s2 = "The tower stands in Paris, France.", "It was made for the World's Fair of 1889."
    retriever = RecordingRetriever(default=[EIFFEL])
    llm = ScriptedLongFormLLM(
        script={(0, "Eiffel Tower"): judged(s1, REL, FULL),
                (1, "Eiffel Tower"): judged(s2, REL, FULL),
                (2, "Eiffel Tower"): judged("It is in Paris.", REL, FULL),
                (3, "Eiffel Tower"): judged("It is a tower in Paris.", REL, FULL)},
        retrieve_logprobs={d: {RETRIEVAL: 0.0, NO_RETRIEVAL: -3.0} for d in (1, 2, 3)})
    return SelfRAGLongForm(generator=llm, reflector=InlineReflector(llm), retriever=retriever, k=1, beam_width=1,
                           max_depth=depth, min_name_coverage=0.0, quoter=quoter)


def test_long_form_quotes_each_segment_from_the_sentences_its_beam_has_not_quoted() -> None:
    rag = _long_form(PassageQuoter(embeddings=BagOfWords()))
    streamed = list(rag.stream(QUESTION))
    result = streamed[-1]
    assert isinstance(result, LongFormResult)
    # The third segment points at the first segment's sentence again; that one is taken, so it quotes the best
    # sentence its beam has not. Each opening "It" is named from the passage's title, as its first sentence
    # calls it.
    assert [s.text for s in result.segments] == ["The Eiffel Tower is a wrought-iron tower in Paris.",
                                                 "The Eiffel Tower was built for the World's Fair of 1889.",
                                                 "The Eiffel Tower is 330 metres tall."]
    assert [s.support for s in result.segments] == ["supported"] * 3
    assert [s.citation for s in result.segments] == [1, 1, 1]
    assert [s.text for s in streamed if isinstance(s, CitedSegment)] == [s.text for s in result.segments]
    assert [c.answer for c in result.candidates] == ["The tower stands in Paris, France.",
                                                   "It was made for the World's Fair of 1889.", "It is in Paris."]
    assert result.settings["quote"] is True and result.quoted
    assert [c.quote for c in result.candidates] == [s.text for s in result.segments]
    # Each candidate is scored as its quote: IsSup is the quote's, and no sequence term is read.
    assert all(c.scores.sequence_probability is None and c.scores.support == 1.0 for c in result.candidates)

    plain = _long_form(None).invoke(QUESTION)
    assert [s.text for s in plain.segments] == [c.answer for c in plain.candidates] and not plain.quoted


def test_a_segment_whose_passage_has_nothing_left_to_quote_ends_its_beam() -> None:
    result = _long_form(PassageQuoter(embeddings=BagOfWords()), depth=4).invoke(QUESTION)
    assert len(result.segments) == 3
    fourth = result.candidates[-1]
    assert fourth.depth == 3 and fourth.quote is None
    assert fourth.dropped == "its passage has no sentence its beam has not quoted"
    assert result.beams[0].finished is not None and "no continuation survived" in result.beams[0].finished


class AsyncBagOfWords(BagOfWords):
    """Records whether each embedding call came through the async API."""

    def __init__(self) -> None:
        super().__init__()
        self.modes: list[str] = []

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.modes.append("sync")
        return super().embed_documents(texts)

    async def aembed_documents(self, texts: list[str]) -> list[list[float]]:
        self.modes.append("async")
        return super().embed_documents(texts)


def test_the_async_paths_quote_as_the_sync_ones_through_the_async_embedding_call() -> None:
    import asyncio

    generated = "The real name of the pirate Blackbeard was Edward Teach the Blackbeard."
    question = {"question": "What was the real name of the pirate Blackbeard?", "passages": [BLACKBEARD]}
    embeddings = AsyncBagOfWords()
    short = asyncio.run(_short_form(PassageQuoter(embeddings=embeddings), generated).ainvoke(question))
    assert short.quoted and short.answer == "Edward Teach, better known as Blackbeard, was an English pirate."
    assert embeddings.modes == ["async"]

    embeddings = AsyncBagOfWords()
    long = asyncio.run(_long_form(PassageQuoter(embeddings=embeddings)).ainvoke(QUESTION))
    assert long.quoted
    assert [s.text for s in long.segments] == ["The Eiffel Tower is a wrought-iron tower in Paris.",
                                               "The Eiffel Tower was built for the World's Fair of 1889.",
                                               "The Eiffel Tower is 330 metres tall."]
    assert embeddings.modes and set(embeddings.modes) == {"async"}
    assert long.model_dump() == _long_form(PassageQuoter(embeddings=BagOfWords())).invoke(QUESTION).model_dump()


async def test_quoting_is_a_run_of_its_own_in_both_forms_only_when_there_is_a_quoter() -> None:
    question = {"question": "What was the real name of the pirate Blackbeard?", "passages": [BLACKBEARD]}
    for quoter, expected in ((PassageQuoter(embeddings=BagOfWords()), True), (None, False)):
        short = [e["name"] async for e in _short_form(quoter, "Edward Teach.").astream_events(question, version="v2")
                 if e["event"] == "on_chain_end"]
        assert ("quote" in short) is expected
        long = [e["name"] async for e in _long_form(quoter).astream_events(QUESTION, version="v2")
                if e["event"] == "on_chain_end"]
        assert ("quote" in long) is expected
        if expected:  # both score each candidate as its quote; long form quotes a depth's candidates first
            assert short.index("critique") < short.index("quote") < short.index("select")
            assert long.index("generate_segments") < long.index("quote") < long.index("critique")


def test_a_quote_is_supported_by_its_passage_unless_the_passage_was_judged_irrelevant() -> None:
    from selfrag_langchain.chains.declining import quote_verdict, verdict
    from tests.fakes.scripted_long_form import IRR, NOSUP

    assert verdict({"IsRel": REL, "IsSup": NOSUP}) == "not supported"
    assert quote_verdict({"IsRel": REL, "IsSup": NOSUP}) == "supported"
    assert quote_verdict({"IsRel": IRR, "IsSup": FULL}) == "not supported"


def test_the_settings_and_the_command_line_switch_quoting() -> None:
    from selfrag_langchain.commands.options import add_selfrag_options, settings_from_args

    parser = argparse.ArgumentParser()
    add_selfrag_options(parser)
    default = settings_from_args(parser.parse_args([]))
    assert default.quote is PipelineSettings().quote
    assert (build_quoter(default) is None) is not default.quote
    assert settings_from_args(parser.parse_args(["--quote"])).quote is True
    assert build_quoter(PipelineSettings(quote=False)) is None
    assert isinstance(build_quoter(PipelineSettings(quote=True)), PassageQuoter)


def test_the_reflection_lines_say_the_answer_is_quoted_and_what_the_branch_wrote() -> None:
    generated = "The real name of the pirate Blackbeard was Edward Teach the Blackbeard."
    question = {"question": "What was the real name of the pirate Blackbeard?", "passages": [BLACKBEARD]}
    lines = _short_form(PassageQuoter(embeddings=BagOfWords()), generated).invoke(question).summary_lines()
    assert lines[-1] == f"quoted from its passage; branch [0] wrote: {generated}"
    assert not any("quoted" in line for line in _short_form(None, generated).invoke(question).summary_lines())
    assert not any("its quote answers" in line for line in lines)  # no reader, no reading


def test_with_a_reader_each_reflection_line_gives_the_quotes_reading() -> None:
    from tests.fakes.table_reader import TableReader

    question = {"question": "What was the real name of the pirate Blackbeard?", "passages": [BLACKBEARD]}
    reader = TableReader(answering=lambda q, s: 0.83 if "Edward Teach" in s else 0.1)
    result = _short_form(PassageQuoter(embeddings=BagOfWords(), reader=reader), "Edward Teach.").invoke(question)
    assert result.branches[0].quote_answering == 0.83
    assert "; its quote answers 0.83; score " in result.summary_lines()[0]
    assert result.settings["quote_reader_weight"] == 3.0


def test_the_settings_record_the_readers_weight_only_when_a_reader_chooses_the_quote() -> None:
    from tests.fakes.table_reader import TableReader

    question = {"question": "What was the real name of the pirate Blackbeard?", "passages": [BLACKBEARD]}
    reader = TableReader(answering=lambda q, s: 0.5)
    weighted = PassageQuoter(embeddings=BagOfWords(), reader=reader, reader_weight=1.5)
    assert _short_form(weighted, "Edward Teach.").invoke(question).settings["quote_reader_weight"] == 1.5
    unread = _short_form(PassageQuoter(embeddings=BagOfWords()), "Edward Teach.").invoke(question)
    assert unread.settings["quote"] is True and unread.settings["quote_reader_weight"] is None
    assert _short_form(None, "Edward Teach.").invoke(question).settings["quote_reader_weight"] is None


def test_every_branch_records_its_quote_and_a_reselection_from_the_trace_answers_with_it() -> None:
    from selfrag_langchain.eval.examples import EvalExample
    from selfrag_langchain.eval.rescoring import reselect
    from selfrag_langchain.eval.tasks import TASKS

    rag = SelfRAG(generator=FakeListLLM(responses=["Blackbeard was Edward Teach.", "The tower stands in Paris."]),
                  reflector=CalibratedReflector(embeddings=BagOfWords()), mode="always", k=2, decline=False,
                  min_name_coverage=0.0, quoter=PassageQuoter(embeddings=BagOfWords()))
    result = rag.invoke({"question": "Who was Blackbeard?", "passages": [BLACKBEARD, EIFFEL]})
    assert [b.quote for b in result.branches] == ["Edward Teach, better known as Blackbeard, was an English pirate.",
                                                  "The Eiffel Tower is a wrought-iron tower in Paris."]
    assert result.answer == result.branches[result.selected].quote
    example = EvalExample(key="q", line=1, question="Who was Blackbeard?", answers=("Edward Teach",))
    again = reselect(result, TASKS["questions"], example, weights=rag.weights(), constraints=rag.constraints())
    assert again == result.answer


def test_the_quoted_top1_baseline_quotes_its_passage_but_not_an_answer_among_options() -> None:
    from selfrag_langchain.eval.examples import EvalExample
    from selfrag_langchain.eval.methods import BaselineMethod
    from selfrag_langchain.eval.tasks import TASKS

    quoter = PassageQuoter(embeddings=BagOfWords())
    generated = "The real name of the pirate Blackbeard was Edward Teach the Blackbeard."
    rag = BaselineMethod(name="rag_top1_quoted", generator=FakeListLLM(responses=[generated]), quoter=quoter)
    example = EvalExample(key="q", line=1, question="What was the real name of the pirate Blackbeard?",
                          answers=("Edward Teach",), passages=[BLACKBEARD, EIFFEL])
    outcome = rag.answer(example, TASKS["popqa"])
    assert outcome.prediction == "Edward Teach, better known as Blackbeard, was an English pirate."
    assert outcome.trace["generation"] == generated and [p["title"] for p in outcome.trace["passages"]] == [
        "Blackbeard"]

    options = EvalExample(key="a", line=2, question="Blackbeard was a", choices={"A": "pirate", "B": "king"},
                          label="A", passages=[BLACKBEARD])
    arc = BaselineMethod(name="rag_top1_quoted", generator=FakeListLLM(responses=["A"]), quoter=quoter)
    assert arc.answer(options, TASKS["arc_c"]).prediction == "A"
    with pytest.raises(ValueError, match="needs a quoter"):
        BaselineMethod(name="rag_top1_quoted", generator=FakeListLLM(responses=["A"]))


def test_with_a_reader_the_sentence_that_answers_the_question_wins_where_the_generation_points_at_two() -> None:
    from tests.fakes.table_reader import TableReader

    passage = "Chemically, gold is a transition metal. Gold has the chemical symbol Au."
    question = "What is the chemical symbol of gold?"
    answer = "Gold is a metal element."  # points at the first sentence by a little ("metal"), at both by "gold"
    plain = PassageQuoter(embeddings=BagOfWords())
    assert plain.quote(question, answer, passage, title="Gold") == "Chemically, gold is a transition metal."
    reader = TableReader(answering=lambda q, s: 0.95 if "symbol Au" in s else 0.02)
    read = PassageQuoter(embeddings=BagOfWords(), reader=reader)
    assert read.quote(question, answer, passage, title="Gold") == "Gold has the chemical symbol Au."
    # each sentence is read once, after its passage's title, with the question
    assert sorted(s for _, q, s in reader.asked if q == question) == [
        "Gold: Chemically, gold is a transition metal.", "Gold: Gold has the chemical symbol Au."]


def test_the_readers_weight_decides_between_the_sentence_the_generation_copies_and_the_one_that_answers() -> None:
    from tests.fakes.table_reader import TableReader

    passage = ("Johnny Weissmuller won the 100m freestyle in Paris. "
               "Weissmuller also won a bronze medal in the water polo competition in Paris.")
    question = "Apart from swimming, in which Olympic team sport did Johnny Weissmuller compete?"
    answer = "Johnny Weissmuller won the 100m freestyle in Paris."  # copies the sentence that does not answer
    reader = TableReader(answering=lambda q, s: 0.9 if "water polo" in s else 0.2)
    copied = "Johnny Weissmuller won the 100m freestyle in Paris."
    answers = "Weissmuller also won a bronze medal in the water polo competition in Paris."
    assert PassageQuoter(embeddings=BagOfWords(), reader=reader, reader_weight=1.0).quote(
        question, answer, passage) == copied  # the generation's pull outweighs the reader's 0.7 lead
    assert PassageQuoter(embeddings=BagOfWords(), reader=reader).quote(question, answer, passage) == answers
    assert PassageQuoter(embeddings=BagOfWords(), reader=reader, reader_weight=0.0).quote(
        question, answer, passage) == copied


def test_reading_alone_too_takes_the_lower_reading_so_a_sentence_the_title_alone_makes_answer_loses() -> None:
    import asyncio

    from tests.fakes.table_reader import TableReader

    title = "James M. Geraghty"
    passage = "James M. Geraghty was an American politician. In 1908, Geraghty married Nora Toolen. He died in 1940."
    question = "What is James M. Geraghty's occupation?"

    def answering(_q: str, s: str) -> float:  # after the title, the marriage reads as answering best
        if s.startswith(f"{title}: "):
            return 0.99 if "married" in s else 0.7 if "politician" in s else 0.9
        return 0.8 if "politician" in s else 0.1

    pairs = [("He was a man.", passage)]
    titled_reader = TableReader(answering=answering)
    (after_title,) = PassageQuoter(embeddings=BagOfWords(), reader=titled_reader).find(question, pairs, [title])
    assert after_title is not None and after_title.text == "In 1908, Geraghty married Nora Toolen."
    reader = TableReader(answering=answering)
    quoter = PassageQuoter(embeddings=BagOfWords(), reader=reader, read_alone=True)
    (alone,) = quoter.find(question, pairs, [title])
    assert alone is not None and alone.text == "James M. Geraghty was an American politician."
    assert alone.answering == pytest.approx(0.7)  # the lower of 0.7 after the title and 0.8 alone
    # each sentence is read after the title and alone, its opening pronoun named
    asked = {s for _, q, s in reader.asked if q == question}
    assert {"James M. Geraghty: He died in 1940.", "James M. Geraghty died in 1940."} <= asked
    assert asyncio.run(quoter.afind(question, pairs, [title])) == [alone]
    assert quoter.best_answering(question, [(passage, title)]) == [pytest.approx(0.7)]


def test_reading_alone_is_a_setting_and_a_switch_that_needs_the_reader() -> None:
    from selfrag_langchain.commands.options import add_selfrag_options

    assert PipelineSettings().quote_read_alone is False
    parser = argparse.ArgumentParser()
    add_selfrag_options(parser)
    assert parser.parse_args(["--quote-read-alone"]).quote_read_alone is True


def test_a_negative_reader_weight_is_refused() -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="reader_weight"):
        PassageQuoter(embeddings=BagOfWords(), reader_weight=-1.0)


def test_the_async_quote_reads_the_same_sentence_with_a_reader() -> None:
    import asyncio

    from tests.fakes.table_reader import TableReader

    reader = TableReader(answering=lambda q, s: 0.9 if "Au" in s else 0.0)
    quoter = PassageQuoter(embeddings=BagOfWords(), reader=reader)
    pairs = [("Gold is a metal.", "Chemically, gold is a transition metal. Gold has the chemical symbol Au.")]
    question = "What is gold's symbol?"
    assert asyncio.run(quoter.aquotes(question, pairs)) == quoter.quotes(question, pairs)


def test_each_quote_carries_the_readers_probability_that_it_answers() -> None:
    import asyncio

    from selfrag_langchain.chains.quotes import Quote
    from tests.fakes.table_reader import TableReader

    reader = TableReader(answering=lambda q, s: 0.9 if "Au" in s else 0.1)
    pairs = [("Gold has a symbol.", "Chemically, gold is a transition metal. Gold has the chemical symbol Au."),
             ("Silver is a metal.", "Silver is a chemical element.")]
    question = "What is gold's symbol?"
    found = PassageQuoter(embeddings=BagOfWords(), reader=reader).find(question, pairs)
    assert found == [Quote("Gold has the chemical symbol Au.", 0.9), Quote("Silver is a chemical element.", 0.1)]
    assert asyncio.run(PassageQuoter(embeddings=BagOfWords(), reader=reader).afind(question, pairs)) == found
    unread = PassageQuoter(embeddings=BagOfWords()).find(question, pairs)
    assert [q.answering for q in unread if q is not None] == [None, None]
    assert PassageQuoter(embeddings=BagOfWords()).find(question, [("", "Gold is a metal.")]) == [None]


def test_short_form_chooses_the_branch_whose_quote_answers_and_a_trace_reselects_it() -> None:
    from selfrag_langchain.eval.examples import EvalExample
    from selfrag_langchain.eval.rescoring import reselect
    from selfrag_langchain.eval.tasks import get_task
    from selfrag_langchain.scoring import HardConstraints, ScoringWeights
    from tests.fakes.table_reader import TableReader

    kant = Document(page_content="Immanuel Kant was a German philosopher. Born in Königsberg, he taught there all "
                                 "his life.", metadata={"title": "Immanuel Kant"})
    fichte = Document(page_content="Johann Gottlieb Fichte was a German philosopher who studied the writings of "
                                   "Immanuel Kant.", metadata={"title": "Johann Gottlieb Fichte"})
    question = "In which city was the philosopher Immanuel Kant born?"
    reader = TableReader(answering=lambda q, s: 0.9 if "Königsberg" in s else 0.05)
    generations = ["Kant was born in Berlin.", "Johann Gottlieb Fichte was a German philosopher."]

    def run(quoter: PassageQuoter | None) -> SelfRAGResult:
        rag = SelfRAG(generator=FakeListLLM(responses=generations), reflector=CalibratedReflector(
            embeddings=BagOfWords()), mode="always", k=2, quoter=quoter, min_name_coverage=0.0, decline=False,
            writing_margin=2.0)  # both branches written, whatever their prospects
        return rag.invoke({"question": question, "passages": [kant, fichte]})

    judged_on_generations = run(None)
    assert judged_on_generations.selected == 1  # the first generation garbled its passage: judged unsupported
    result = run(PassageQuoter(embeddings=BagOfWords(), reader=reader))
    assert result.selected == 0 and "Königsberg" in result.answer
    assert [b.quote_answering for b in result.branches] == [0.9, 0.05]
    example = EvalExample(key="kant", line=1, question=question, answers=["Königsberg"])
    again = reselect(result, get_task("questions"), example, weights=ScoringWeights(), constraints=HardConstraints())
    assert again == result.answer


def test_a_taken_quote_gives_way_to_the_best_sentence_not_taken_and_a_passage_with_none_left_gives_none() -> None:
    from tests.fakes.table_reader import TableReader

    reader = TableReader(answering=lambda q, s: 0.9 if "330" in s else 0.1)
    quoter = PassageQuoter(embeddings=BagOfWords(), reader=reader)
    passage = EIFFEL.page_content
    question, written = "How tall is the Eiffel Tower?", "It is 330 metres tall."
    first = quoter.find(question, [(written, passage)], titles=["Eiffel Tower"])[0]
    assert first is not None and first.text == "The Eiffel Tower is 330 metres tall." and first.answering == 0.9
    every = {s for s in ("The Eiffel Tower is a wrought-iron tower in Paris.",
                         "The Eiffel Tower was built for the World's Fair of 1889.", first.text)}
    found = quoter.find(question, [(written, passage)] * 3, titles=["Eiffel Tower"] * 3,
                        taken=[set(), {first.text}, every])
    assert found[0] == first
    assert found[1] is not None and found[1].text != first.text and found[1].answering == 0.1
    assert found[2] is None
    with pytest.raises(ValueError, match="1 taken quote sets for 3 passages"):
        quoter.find(question, [(written, passage)] * 3, taken=[set()])


def test_long_form_lets_a_quote_stand_on_its_reading_and_declines_one_that_does_not_answer() -> None:
    from tests.fakes.scripted_long_form import NOSUP
    from tests.fakes.table_reader import TableReader

    llm = ScriptedLongFormLLM(script={(0, "Eiffel Tower"): judged("The tower stands in Paris, France.", REL, NOSUP)},
                              retrieve_logprobs={})
    for answering, declined in ((0.9, False), (0.02, True)):
        quoter = PassageQuoter(embeddings=BagOfWords(), reader=TableReader(answering=lambda q, s, a=answering: a))
        rag = SelfRAGLongForm(generator=llm, reflector=InlineReflector(llm), retriever=RecordingRetriever(
            default=[EIFFEL]), k=1, beam_width=1, max_depth=1, min_name_coverage=0.0, quoter=quoter)
        result = rag.invoke(QUESTION)
        # The generation was judged unsupported; what stands or falls is its quote, on whether it answers.
        assert result.candidates[0].quote_answering == answering
        assert result.declined is declined
        if declined:
            assert result.answer.startswith("The sources found do not answer")
        else:
            assert [s.text for s in result.segments] == ["The Eiffel Tower is a wrought-iron tower in Paris."]


def test_each_quote_carries_the_finders_probability_that_it_holds_an_answer() -> None:
    import asyncio

    from selfrag_langchain.chains.quotes import Quote
    from tests.fakes.table_finder import TableFinder

    finder = TableFinder(odds=lambda q, s: 4.0 if "Saturn" in s else -6.0)
    pairs = [("Enceladus orbits Saturn.", "Enceladus is the sixth-largest moon of Saturn."),
             ("Enceladus is icy.", "Its surface is covered in ice."), ("", "Enceladus is a moon.")]
    question = "Enceladus orbits which planet?"
    quoter = PassageQuoter(embeddings=BagOfWords(), finder=finder)
    found = quoter.find(question, pairs, titles=["Enceladus", None, "Enceladus"])
    assert found[2] is None  # an empty generation points at nothing: nothing to read
    assert [q.holds_answer for q in found if q is not None] == pytest.approx([0.982, 0.00247], abs=1e-3)
    assert found[0] == Quote("Enceladus is the sixth-largest moon of Saturn.", None, found[0].holds_answer)
    # each quote read after its passage's title, as the finder was trained
    assert finder.asked == [(question, "Enceladus: Enceladus is the sixth-largest moon of Saturn."),
                            (question, "Its surface is covered in ice.")]
    assert asyncio.run(quoter.afind(question, pairs, titles=["Enceladus", None, "Enceladus"])) == found
    assert PassageQuoter(embeddings=BagOfWords()).find(question, pairs[:1])[0].holds_answer is None


def test_the_settings_record_the_finders_threshold_and_whether_one_reads_the_quotes() -> None:
    from tests.fakes.table_finder import TableFinder

    question = {"question": "What was the real name of the pirate Blackbeard?", "passages": [BLACKBEARD]}
    found = _short_form(PassageQuoter(embeddings=BagOfWords(), finder=TableFinder()), "Edward Teach.").invoke(question)
    default = LoopSettings.model_fields["min_quote_holds_answer"].default
    assert found.settings["quote_finder"] is True and found.settings["min_quote_holds_answer"] == default > 0.0
    assert found.branches[0].quote_holds_answer == pytest.approx(4.54e-5, rel=1e-2)  # odds -10
    unread = _short_form(PassageQuoter(embeddings=BagOfWords()), "Edward Teach.").invoke(question)
    assert unread.settings["quote_finder"] is False and unread.branches[0].quote_holds_answer is None


def test_with_a_reader_and_a_finder_a_sentences_reading_is_their_blend_and_chooses_the_quote() -> None:
    import asyncio
    import math

    from tests.fakes.table_finder import TableFinder
    from tests.fakes.table_reader import TableReader

    question = "In which city is the play A Midsummer Night's Dream set?"
    passage = ("A Midsummer Night's Dream is a comedy play written by William Shakespeare. The play is set in Athens, "
               "and tells of the marriage of Theseus.")
    pairs = [("It is a play.", passage)]  # the generation adds nothing to the question: the readings choose
    # The reader misses the answering sentence; the finder points at "Athens" in it.
    reader = TableReader(answering=lambda q, s: 0.3 if "comedy" in s else 0.1)
    odds = math.log(0.9 / 0.1)
    finder = TableFinder(odds=lambda q, s: odds if "Athens" in s else -odds)

    alone = PassageQuoter(embeddings=BagOfWords(), reader=reader).find(question, pairs, titles=[None])[0]
    assert alone is not None and alone.text.startswith("A Midsummer") and alone.answering == pytest.approx(0.3)
    blended = PassageQuoter(embeddings=BagOfWords(), reader=reader, finder=finder)
    found = blended.find(question, pairs, titles=[None])[0]
    assert found is not None and found.text.startswith("The play is set in Athens")
    assert found.answering == pytest.approx(0.5 * 0.1 + 0.5 * 0.9)  # the blend scores it (IsUse) as it chose it
    assert found.holds_answer == pytest.approx(0.9)
    assert asyncio.run(blended.afind(question, pairs, titles=[None]))[0] == found
    # The prospect reads the same blend, so that it still bounds the quote's score.
    assert blended.best_answering(question, [(passage, None)]) == [pytest.approx(0.5)]
    reader_only = PassageQuoter(embeddings=BagOfWords(), reader=reader, finder=finder, finder_share=0.0)
    assert reader_only.find(question, pairs, titles=[None])[0].text.startswith("A Midsummer")
    assert reader_only.best_answering(question, [(passage, None)]) == [pytest.approx(0.3)]
    with pytest.raises(ValueError):
        PassageQuoter(embeddings=BagOfWords(), finder_share=1.5)


def test_the_settings_record_the_finders_share_only_when_it_shares_a_reading() -> None:
    from tests.fakes.table_finder import TableFinder
    from tests.fakes.table_reader import TableReader

    question = {"question": "What was the real name of the pirate Blackbeard?", "passages": [BLACKBEARD]}
    both = PassageQuoter(embeddings=BagOfWords(), reader=TableReader(), finder=TableFinder(), finder_share=0.25)
    assert _short_form(both, "Edward Teach.").invoke(question).settings["quote_finder_share"] == 0.25
    finder_only = PassageQuoter(embeddings=BagOfWords(), finder=TableFinder())
    assert _short_form(finder_only, "Edward Teach.").invoke(question).settings["quote_finder_share"] is None
    assert _short_form(both, "Edward Teach.").invoke(question).settings["quote_read_alone"] is False
    alone = PassageQuoter(embeddings=BagOfWords(), reader=TableReader(), read_alone=True)
    assert _short_form(alone, "Edward Teach.").invoke(question).settings["quote_read_alone"] is True
    assert _short_form(finder_only, "Edward Teach.").invoke(question).settings["quote_read_alone"] is None


def test_long_form_declines_a_quote_that_speaks_of_another_thing_than_the_question_names() -> None:
    dagestan = Document(page_content="Dagestan is a republic of Russia. It borders Chechnya and Kalmykia. "
                                     "Makhachkala is the republic's capital.", metadata={"title": "Dagestan"})
    for question, declined in (("What is the capital of Chechnya?", True), ("What is the capital of Dagestan?", False)):
        llm = ScriptedLongFormLLM(script={(0, "Dagestan"): judged("Makhachkala is the capital.", REL, FULL)})
        rag = SelfRAGLongForm(generator=llm, reflector=InlineReflector(llm), retriever=RecordingRetriever(
            default=[dagestan]), k=1, beam_width=1, max_depth=1, quoter=PassageQuoter(embeddings=BagOfWords()))
        result = rag.invoke(question)
        assert result.declined is declined, question
        assert ("Makhachkala" in result.answer) is not declined


def test_asked_a_nickname_the_quoter_passes_over_a_sentence_that_gives_none_though_both_models_read_it_as_answering(
) -> None:
    from tests.fakes.table_finder import TableFinder
    from tests.fakes.table_reader import TableReader

    passage = ("Usain St Leo Bolt is a Jamaican retired sprinter. "
               "For his speed he has been called the \"Lightning Bolt\".")
    question = "What nickname was the sprinter Usain Bolt given?"
    answer = "Usain Bolt is a Jamaican retired sprinter."  # copies the opening, as a small generator does
    # both models read the opening, which names the asked person, as answering best
    reader = TableReader(answering=lambda q, s: 0.95 if "Jamaican" in s else 0.6)
    finder = TableFinder(odds=lambda q, s: 4.0 if "Jamaican" in s else 2.0)
    quoter = PassageQuoter(embeddings=BagOfWords(), reader=reader, finder=finder)
    found = quoter.find(question, [(answer, passage)], titles=["Usain Bolt"])[0]
    assert found is not None and found.text == "For his speed he has been called the \"Lightning Bolt\"."
    assert found.holds_answer == pytest.approx(1 / (1 + 2.718281828 ** -2), rel=1e-3)
    # asked something else, the opening is quoted, as the models read it
    asked = "What nationality is the sprinter Usain Bolt?"
    assert quoter.find(asked, [(answer, passage)], titles=["Usain Bolt"])[0].text == (
        "Usain St Leo Bolt is a Jamaican retired sprinter.")
