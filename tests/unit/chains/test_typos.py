"""A question's word typed a letter wrong is read as the word of the passages found, by the rules and readers of
short and long form alike, while the answer keeps the question as it was asked."""

from __future__ import annotations

import asyncio

import pytest
from langchain_core.documents import Document

from selfrag_langchain import InlineReflector, SelfRAGLongForm
from selfrag_langchain.chains.inputs import Question
from selfrag_langchain.chains.names import names_found
from selfrag_langchain.chains.typos import read_question, read_typos
from selfrag_langchain.eval.examples import EvalExample
from selfrag_langchain.eval.rescoring import reselect
from selfrag_langchain.eval.tasks import get_task
from selfrag_langchain.scoring import HardConstraints, ScoringWeights
from tests.fakes.eiffel import eiffel_rag
from tests.fakes.scripted_long_form import FULL, REL, RecordingRetriever, ScriptedLongFormLLM, judged

TEMPEST = "The Tempest\nProspero's daughter Miranda was raised on the island."
SHARK = "Great white shark\nThe great white shark has about 300 teeth."


def test_a_misspelt_word_is_read_as_the_one_word_of_the_passages_a_letter_from_it() -> None:
    assert read_typos("what's the name of Prospero's daugter in The Tempest?", [TEMPEST]) == (
        "what's the name of Prospero's daughter in The Tempest?", [("daugter", "daughter")])
    assert read_typos("about how many teeth does a great white sharck have", [SHARK]) == (
        "about how many teeth does a great white shark have", [("sharck", "shark")])


def test_a_word_whose_first_or_last_two_letters_are_swapped_stays_as_typed() -> None:
    # Names give common words so: a question about Ovid or Yeats is not read as one about a void or yeast.
    assert read_typos("when was ovid exiled", ["Void\nA void is a vast empty space between galaxies."])[1] == []
    assert read_typos("what poems did yeats write", ["Bread\nBread is leavened with yeast."])[1] == []
    charophyta = "Charophyta\nCharophyta is a paraphyletic group of freshwater green algae, called charophytes."
    assert read_typos("what kind of algea are charophytes", [charophyta])[1] == []


def test_a_word_no_passage_spells_a_letter_from_it_stays_as_typed() -> None:
    assert read_typos("about how many teeth does a great white sharck have", [TEMPEST]) == (
        "about how many teeth does a great white sharck have", [])


def test_a_name_typed_without_its_apostrophe_or_a_letter_wrong_is_read_as_the_passages_spell_it() -> None:
    otoole = "Peter O'Toole\nPeter O'Toole received four Golden Globe Awards."
    assert read_typos("how many golden globes did peter otoole win", [otoole]) == (
        "how many golden globes did peter o'toole win", [("otoole", "o'toole")])
    river = "São Francisco River\nThe São Francisco is 2,914 kilometres long."
    assert read_typos("how long is the sao fransisco river", [river]) == (
        "how long is the sao francisco river", [("fransisco", "francisco")])


def test_a_word_typed_short_is_read_as_the_word_it_stands_for_unless_the_passages_hold_it() -> None:
    sakharov = "Andrei Sakharov\nAndrei Sakharov was awarded the Nobel Peace Prize in 1975."
    assert read_typos("what yr did sakarov get the nobel peace prize", [sakharov]) == (
        "what year did sakharov get the nobel peace prize", [("yr", "year"), ("sakarov", "sakharov")])
    assert names_found("what year did sakharov get the nobel peace prize", [sakharov], 0.6)
    assert not names_found("what yr did sakharov get the nobel peace prize", [sakharov], 0.6)
    snowdon = "Snowdon\nSnowdon, or Yr Wyddfa, is the highest mountain in Wales."
    assert read_typos("what does yr wyddfa mean", [snowdon])[1] == []
    notes: list[str] = []
    read_question(Question("what yr was it awarded"), [Document(sakharov, metadata={"title": "Andrei Sakharov"})],
                  notes)
    assert notes == ["read 'yr' as 'year', a word typed short"]


def test_a_letter_or_shorthand_typed_for_a_word_is_read_as_the_word_unless_the_passages_hold_it() -> None:
    annelid = "Annelid\nThe annelids are a large phylum, with over 22,000 extant species."
    assert read_typos("how many species of annelids r there", [annelid]) == (
        "how many species of annelids are there", [("r", "are")])
    assert names_found("how many species of annelids are there", [annelid], 0.6)
    assert not names_found("how many species of annelids r there", [annelid], 0.6)
    uranium = "Uranium\nUranium is a chemical element; it has symbol U and atomic number 92."
    assert read_typos("what element is u", [uranium])[1] == []
    plasmid = "Plasmid\nPlasmids are most commonly found as small circular DNA molecules in bacteria and archaea."
    assert read_typos("plasmids r mostly found in wat kind of organisms", [plasmid]) == (
        "plasmids are mostly found in what kind of organisms", [("r", "are"), ("wat", "what")])
    angkor = "Angkor Wat\nAngkor Wat is a Hindu-Buddhist temple complex in Cambodia."
    assert read_typos("which country is angkor wat in", [angkor])[1] == []
    # A shortening of two words reads as both.
    screw = "Archimedes' screw\nAn Archimedes' screw is a hydraulic machine."
    assert read_typos("wat kinda machine is an archimedes screw", [screw])[0].startswith("what kind of machine")
    assert names_found("what kind of machine is an archimedes' screw", [screw], 0.6)
    assert not names_found("what kinda machine is an archimedes' screw", [screw], 0.6)


def test_a_possessive_typed_without_its_apostrophe_is_read_with_it() -> None:
    bering = "Vitus Bering\nVitus Bering was an officer in the Russian Navy."
    assert read_typos("vitus bering was an officer in which countrys navy", [bering]) == (
        "vitus bering was an officer in which country's navy", [("countrys", "country's")])
    assert names_found("vitus bering was an officer in which country's navy", [bering], 0.6)
    assert not names_found("vitus bering was an officer in which countrys navy", [bering], 0.6)
    # A name with an "s" after it, or a word the lexicon knows ending so, is no possessive of a noun.
    assert read_typos("who painted the einsteins portrait", [bering])[1] == []
    assert read_typos("how many moons has mars", [bering])[1] == []
    notes: list[str] = []
    read_question(Question("in which countrys navy did vitus bering serve"),
                  [Document("Vitus Bering was an officer in the Russian Navy.", metadata={"title": "Vitus Bering"})],
                  notes)
    assert notes == ["read 'countrys' as \"country's\", a possessive typed without its apostrophe"]


def test_a_name_typed_without_its_letters_or_marks_is_held_by_the_passages_that_write_them() -> None:
    lodz = "Łódź\nŁódź is about 120 kilometres south-west of Warsaw."
    bahai = "Baháʼí Faith\nThe Baháʼí Faith initially developed in Iran."
    assert names_found("how far is lodz from warsaw", [lodz], 0.6)
    assert names_found("where did the bahai faith first develop", [bahai], 0.6)


def test_words_and_names_are_not_read_as_typos() -> None:
    # A word the lexicon knows ("shard" one letter from "shark") and a capitalised name ("Sharck") stay.
    assert read_typos("who found the shard", [SHARK])[1] == []
    assert read_typos("Who was Jean Sharck?", [SHARK])[1] == []
    # A rare word whose relative begins or ends otherwise is a name of its own, not a typo of the other.
    assert read_typos("which lake is the axolotl native to", ["Axolotl\nNamed after the god Xolotl."])[1] == []
    assert read_typos("where does rendang come from", ["Kendang\nA kendang is a drum."])[1] == []
    # A passage's word with an "s" after it is its plural or possessive, not a typo of another word.
    assert read_typos("who is asterixs friend", ["Asterix\nAsterix and Asterius."])[1] == []
    # Accents are left aside: a name typed without its accent, and a letter wrong, is read as the passages' name.
    assert read_typos("how high is bogta", ["Bogotá\nBogotá is the capital of Colombia."]) == (
        "how high is bogota", [("bogta", "bogota")])


def test_a_typo_two_words_of_the_passages_could_mend_is_left_as_typed() -> None:
    assert read_typos("wich country borders it", ["Which country shares a border with it?"])[1] == []
    assert read_typos("wich country borders it", ["Which country is it?"])[1] == [("wich", "which")]


def test_a_question_with_answer_choices_or_written_raw_is_read_as_written() -> None:
    passages = [Document("Prospero's daughter Miranda.", metadata={"title": "The Tempest"})]
    for q in (Question("prospero's daugter?", choices={"A": "Miranda", "B": "Ariel"}),
              Question("prospero's daugter?", raw=True)):
        notes: list[str] = []
        assert read_question(q, passages, notes) is q and notes == []
    notes = []
    assert read_question(Question("prospero's daugter?"), passages, notes).question == "prospero's daughter?"
    assert notes == ["read 'daugter' as 'daughter', as the passages found spell it"]


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_short_form_judges_the_question_as_read_and_answers_it_as_asked(mode: str) -> None:
    # "towr" reads as a name no passage holds: the names rule declines it, unless it is read as "tower".
    rag = eiffel_rag(min_name_coverage=0.6)
    question = "who built the eiffel towr"
    result = rag.invoke(question) if mode == "sync" else asyncio.run(rag.ainvoke(question))
    assert not result.declined and result.answer == "Gustave Eiffel's company built it."
    assert result.question == question
    assert "read 'towr' as 'tower', as the passages found spell it" in result.notes
    assert rag.generator.prompts_seen and all("eiffel tower" in p for p in rag.generator.prompts_seen)
    # Read as typed, the question names a "towr" no passage holds: the names rule would decline it.
    assert not names_found(question, [f"{d.metadata['title']}\n{d.page_content}" for d in rag.retriever.passages],
                           0.6)


def test_long_form_judges_the_question_as_read_and_answers_it_as_asked() -> None:
    question = "tell me about the eiffel towr"
    tower = Document("The Eiffel Tower is a wrought-iron tower in Paris.", metadata={"title": "Eiffel Tower"})
    llm = ScriptedLongFormLLM(script={(0, "Eiffel Tower"): judged("Eiffel Tower is worth a visit.", REL, FULL)})
    rag = SelfRAGLongForm(generator=llm, reflector=InlineReflector(llm),
                          retriever=RecordingRetriever(results={question: [tower]}), k=1, max_depth=1,
                          min_name_coverage=0.6)
    result = rag.invoke(question)
    assert not result.declined and [s.text for s in result.segments] == ["Eiffel Tower is worth a visit."]
    assert result.question == question
    assert "read 'towr' as 'tower', as the passages found spell it" in result.notes


def test_reselecting_from_a_trace_reads_the_question_as_the_run_did() -> None:
    task = get_task("popqa")
    example = EvalExample(key="q", line=1, question="who built the eiffel towr", answers=("Gustave Eiffel",))
    recorded = eiffel_rag(mode="always", w_rel=0.0, w_sup=0.0, w_use=0.0).invoke(task.runnable_input(example))
    rerun = eiffel_rag(mode="always", w_rel=0.0, w_sup=0.0, w_use=0.0, min_name_coverage=0.6).invoke(
        task.runnable_input(example))
    assert not rerun.declined
    assert reselect(recorded, task, example, weights=ScoringWeights(0.0, 0.0, 0.0),
                    constraints=HardConstraints(min_name_coverage=0.6)) == rerun.answer
