"""The answer finder's training pairs: seeded, three per question answered in one sentence, the answer marked
where it stands and nowhere in the sentences marked as holding none; SQuAD 2.0's unanswerable questions against
their nearest sentence and one more, from the training half of its articles only; SelQA's answering sentences as
holding an answer somewhere; swapped-name questions against their answer sentence as holding none; the collator
marks the answer's word pieces, and the loss reads them."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from selfrag_langchain.errors import ConfigurationError, InputError
from selfrag_langchain.trainer.finder import (
    SpanCollator,
    own_questions,
    question_examples,
    span_examples,
    span_loss,
    started_from_finder,
    swapped_examples,
    training_examples,
)
from selfrag_langchain.trainer.reader_data import Paragraph, held_out_article, nearest_sentence, paragraphs
from selfrag_langchain.trainer.training_config import AnswerFinderConfig
from tests.fakes.reader_data import CONTEXTS, write_reader_data


def _examples(tmp_path: Path, seed: int) -> list:
    tmp_path.mkdir(parents=True, exist_ok=True)
    _, squad = write_reader_data(tmp_path)
    rng = random.Random(seed)
    return span_examples(paragraphs(squad / "squad11_train.jsonl", None, rng), rng)


def test_pairs_are_seeded_and_labelled_as_intended(tmp_path: Path) -> None:
    examples = _examples(tmp_path / "a", 0)
    assert examples == _examples(tmp_path / "b", 0)
    assert examples != _examples(tmp_path / "c", 1)
    questions = {q: answers for _, _, qas in CONTEXTS for q, answers in qas}
    with_answer = [e for e in examples if e.start >= 0]
    assert len(with_answer) == 3 * len(questions)  # each fake paragraph thrice, every question answered in one sentence
    assert len(examples) == 9 * len(questions)  # and each paragraph has two other sentences
    titles = {title for title, _, _ in CONTEXTS}
    for e in with_answer:
        assert e.second[e.start:e.start + len(e.answer)] == e.answer
        assert e.answer in questions[e.first]
        title, _, _ = e.second.partition(": ")
        if title in titles:  # read after its title: the answer is marked in the sentence ("Nile: The Nile is ...")
            assert e.start >= len(title) + 2
    for e in examples:
        if e.start < 0:  # its sentence (after a title, which may name the answer) holds none
            title, _, rest = e.second.partition(": ")
            sentence = rest if title in titles else e.second
            assert not any(a in sentence for a in questions[e.first]) and e.answer == ""
    assert any(e.second.startswith(("Neptune: ", "Canberra: ", "Nile: ", "Mount Everest: ")) for e in examples)


def test_squad2_adds_its_training_half_with_unanswerable_questions_marked_as_holding_none(tmp_path: Path) -> None:
    _, squad = write_reader_data(tmp_path)

    def examples(squad2: bool) -> list:
        config = AnswerFinderConfig(squad=str(squad), out=str(tmp_path / "out"), squad_paragraphs=12, squad2=squad2)
        return training_examples(config, random.Random(0))[0]

    alone, both = examples(False), examples(True)
    assert len(alone) == 9 * sum(len(qas) for _, _, qas in CONTEXTS)  # SQuAD 1.1 alone, as before
    assert examples(True) == both  # seeded
    trained = [t for t, _, _ in CONTEXTS if not held_out_article(t)]
    held = [t for t, _, _ in CONTEXTS if held_out_article(t)]
    assert trained and held, "the fake articles fall on both sides of the split"
    unanswerable = [e for e in both if e.first.startswith("Who renamed ")]
    assert {e.first for e in unanswerable} == {f"Who renamed {t} in 1999?" for t in trained}  # none held out
    assert len(unanswerable) == 2 * len(trained) and all(e.start == -1 and e.answer == "" for e in unanswerable)
    for title in trained:  # one of its two sentences is the one sharing most of the question's words
        para = next(p for p in paragraphs(squad / "squad20_dev.jsonl", None, random.Random(0)) if p.title == title)
        nearest = para.sentences[nearest_sentence(f"Who renamed {title} in 1999?", para.sentences)]
        assert nearest in {e.second.removeprefix(f"{title}: ") for e in unanswerable if title in e.first}
    answered = [e for e in both if e.start >= 0]
    assert len(answered) == len([e for e in alone if e.start >= 0]) + sum(
        len(qas) for t, _, qas in CONTEXTS if t in trained)


@pytest.mark.slow
def test_the_collator_marks_the_answers_word_pieces(tmp_path: Path) -> None:
    from transformers import AutoTokenizer

    from selfrag_langchain.embeddings import default_model_path

    tokenizer = AutoTokenizer.from_pretrained(str(default_model_path()))
    examples = _examples(tmp_path, 0)
    batch = SpanCollator(tokenizer, 64)(examples)
    for k, e in enumerate(examples):
        first, last = int(batch["start_positions"][k]), int(batch["end_positions"][k])
        if e.start < 0:
            assert first == last == 0
        else:
            marked = tokenizer.decode(batch["input_ids"][k][first:last + 1])
            assert marked.replace(" ", "") == e.answer.lower().replace(" ", "")


def test_selqa_dev_adds_its_answering_sentences_as_holding_an_answer_somewhere(tmp_path: Path) -> None:
    _, squad = write_reader_data(tmp_path)

    def examples(selqa_dev: int) -> list:
        config = AnswerFinderConfig(squad=str(squad), out=str(tmp_path / "out"), squad_paragraphs=12,
                                    selqa_dev=selqa_dev)
        return training_examples(config, random.Random(0))

    (alone, sources), (both, with_selqa) = examples(0), examples(2)
    assert sources == [squad / "squad11_train.jsonl"] and with_selqa == [*sources, squad / "selqa_dev.jsonl"]
    assert examples(2)[0] == both  # seeded
    selqa = [e for e in both if e.first.startswith("Paraphrased: ")]
    assert len(both) == len(alone) + len(selqa)
    assert not any(e.somewhere for e in alone)
    questions = {f"Paraphrased: {q}": (t, a) for t, _, qas in CONTEXTS for q, a in qas[:1]}
    for e in selqa:  # no phrase is marked: an answering sentence holds one somewhere, the others none
        title, answers = questions[e.first]
        assert e.start == -1 and e.answer == ""
        assert e.somewhere == any(a in e.second.removeprefix(f"{title}: ") for a in answers)
    answering = [e for e in selqa if e.somewhere]
    assert len(answering) == 2 * len(questions)  # one answering sentence each, read twice over
    assert len(selqa) > len(answering)


def test_span_loss_reads_a_marked_position_or_the_whole_sentence() -> None:
    import torch

    logits = torch.tensor([[2.0, 0.0, 1.0, 3.0, -1.0], [2.0, 0.0, 1.0, 3.0, -1.0]])
    pieces = torch.tensor([[False, False, True, True, False]] * 2)
    positions = torch.tensor([3, 0])
    log_p = torch.log_softmax(logits, dim=-1)
    marked = span_loss(logits, positions, torch.tensor([False, False]), pieces)
    assert torch.isclose(marked, torch.nn.functional.cross_entropy(logits, positions))
    somewhere = span_loss(logits, positions, torch.tensor([True, True]), pieces)
    assert torch.isclose(somewhere, -torch.logsumexp(log_p[0, 2:4], dim=0))  # the sentence's pieces, not "no answer"
    assert somewhere < span_loss(logits, torch.tensor([0, 0]), torch.tensor([False, False]), pieces)
    assert torch.isclose(span_loss(logits, positions, torch.tensor([True, False]), pieces),
                         (-torch.logsumexp(log_p[0, 2:4], dim=0) - log_p[1, 0]) / 2)


def test_selqa_dev_must_not_be_negative(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="selqa_dev"):
        AnswerFinderConfig(squad=str(tmp_path), out=str(tmp_path / "out"), selqa_dev=-1)


def test_swapped_questions_ask_of_another_subject_against_the_answer_sentence_and_hold_none() -> None:
    paras = [
        Paragraph("Brooklyn Bridge", ("The Brooklyn Bridge crosses the East River.", "It opened in 1883."),
                  (("Which river does the Brooklyn Bridge cross?", ("East River",)),
                   ("When did the bridge open?", ("1883",)))),
        Paragraph("A Doll's House", ("Henrik Ibsen wrote A Doll's House in Copenhagen.", "It premiered in 1879."),
                  (("Where did Henrik Ibsen write his play?", ("Copenhagen",)),)),
        Paragraph("Kraków", ("Kraków's Old Town was listed in 1978.",),
                  (("When was Kraków's Old Town listed?", ("1978",)),)),
    ]
    swapped = swapped_examples(paras, random.Random(0), 10)
    assert swapped == swapped_examples(paras, random.Random(0), 10)  # seeded
    # the subjects "Brooklyn Bridge" and "Kraków's Old Town" (sharing the title's words) are changed, not "Henrik
    # Ibsen", whom the sentence names but the title does not: a question naming a second thing is no swap
    assert {e.second for e in swapped} == {"Brooklyn Bridge: The Brooklyn Bridge crosses the East River.",
                                           "Kraków: Kraków's Old Town was listed in 1978."}
    for e in swapped:
        assert e.start == -1 and e.answer == ""
        asked = "Brooklyn Bridge" if e.second.startswith("Brooklyn") else "Kraków's Old Town"
        other = e.first.removeprefix("Which river does the ").removesuffix(" cross?")
        other = other.removeprefix("When was ").removesuffix(" listed?")
        assert asked not in e.first and other in {"Henrik Ibsen", "Brooklyn Bridge", "Kraków's Old Town"} - {asked}
    assert len(swapped_examples(paras, random.Random(0), 1)) == 1  # at most as many as asked


def test_swapped_questions_are_added_to_the_drawn_paragraphs_pairs(tmp_path: Path) -> None:
    _, squad = write_reader_data(tmp_path)

    def examples(swapped: int) -> list:
        config = AnswerFinderConfig(squad=str(squad), out=str(tmp_path / "out"), squad_paragraphs=12,
                                    swapped_questions=swapped)
        return training_examples(config, random.Random(0))[0]

    # no fake question names its paragraph's subject in its answer sentence: nothing to swap, the same pairs
    assert sorted(examples(100), key=repr) == sorted(examples(0), key=repr)


@pytest.mark.parametrize(("options", "message"), [
    ({"swapped_questions": -1}, "swapped_questions must be >= 0"),
    ({"init_finder": "a", "init_reader": "b"}, "init_finder or init_reader, not both"),
])
def test_finder_options_are_checked(tmp_path: Path, options: dict, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        AnswerFinderConfig(squad=str(tmp_path), out=str(tmp_path / "out"), **options)


def test_going_on_from_a_directory_without_a_finder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="init_finder: no answer finder in"):
        started_from_finder(object(), str(tmp_path))
    assert started_from_finder(object(), None) is None


HAMLET = {"title": "Hamlet", "text": "Hamlet is a tragedy. It was written by William Shakespeare around 1600. "
                                     "It is set in Denmark. The play is long."}
JOYCE = {"title": "James Joyce", "text": "James Joyce was an Irish novelist. He wrote Ulysses in Paris."}


def test_own_questions_give_the_answer_sentence_marked_and_two_without_an_answer(tmp_path: Path) -> None:
    rows = [{"question": "Who wrote the play Hamlet?", "answers": ["william shakespeare"], "passages": [JOYCE, HAMLET]},
            {"question": "When did Ulysses win the Booker Prize?", "answers": [], "passages": [JOYCE, HAMLET]},
            {"question": "Who painted the Mona Lisa?", "answers": ["Leonardo"], "passages": [HAMLET]}]
    examples = question_examples(rows, random.Random(0))
    assert examples == question_examples(rows, random.Random(0))
    answered = [e for e in examples if e.first == rows[0]["question"]]
    # the first sentence holding an answer, in any case, marked where it stands after the title
    assert answered[0].start >= 0 and answered[0].answer == "William Shakespeare"
    assert answered[0].second[answered[0].start:].startswith("William Shakespeare")
    assert answered[0].second.startswith("Hamlet: It was written")
    # then the passage's nearest sentence without one, and one more of those; never one holding the answer
    assert [e.start for e in answered[1:]] == [-1, -1]
    assert answered[1].second == "Hamlet: Hamlet is a tragedy."
    assert answered[2].second in ("Hamlet: It is set in Denmark.", "Hamlet: The play is long.")
    # an unanswered question: the two sentences of all its passages sharing most of its words, as holding none
    unanswered = [e for e in examples if e.first == rows[1]["question"]]
    assert [(e.second, e.start) for e in unanswered] == [("James Joyce: He wrote Ulysses in Paris.", -1),
                                                         ("James Joyce: James Joyce was an Irish novelist.", -1)]
    # no sentence holds the answer: nothing to learn from
    assert not [e for e in examples if e.first == rows[2]["question"]]


def test_own_questions_are_read_from_json_lines_and_a_bad_row_is_named(tmp_path: Path) -> None:
    good = tmp_path / "good.jsonl"
    good.write_text(json.dumps({"question": "Who wrote Hamlet?", "answers": ["Shakespeare"], "passages": [HAMLET]})
                    + "\n", encoding="utf-8")
    assert own_questions(good)[0]["passages"] == [HAMLET]
    for row, message in [({"question": "q", "answers": "x", "passages": [HAMLET]}, "answers must be a list"),
                         ({"question": "q", "answers": [], "passages": []}, "passages must be a non-empty list"),
                         ({"question": "q", "answers": [], "passages": [{"title": "t"}]}, "passages must be"),
                         ({"answers": [], "passages": [HAMLET]}, "question")]:
        bad = tmp_path / "bad.jsonl"
        bad.write_text(json.dumps(row) + "\n", encoding="utf-8")
        with pytest.raises(InputError, match=rf"bad\.jsonl:1: .*{message}"):
            own_questions(bad)


def test_own_questions_are_added_to_squads_pairs_and_named_as_a_source(tmp_path: Path) -> None:
    _, squad = write_reader_data(tmp_path)
    rows = tmp_path / "questions.jsonl"
    rows.write_text(json.dumps({"question": "Who wrote Hamlet?", "answers": ["Shakespeare"], "passages": [HAMLET]})
                    + "\n", encoding="utf-8")
    config = AnswerFinderConfig(squad=str(squad), out=str(tmp_path / "out"), squad_paragraphs=2, questions=str(rows))
    examples, sources = training_examples(config, random.Random(0))
    base, _ = training_examples(AnswerFinderConfig(squad=str(squad), out=str(tmp_path / "o"), squad_paragraphs=2),
                                random.Random(0))
    assert sources[-1] == rows and config.questions == [str(rows)]
    assert len(examples) == len(base) + 3
    assert sum(e.first == "Who wrote Hamlet?" for e in examples) == 3
