"""The answer finder's training pairs: seeded, three per question answered in one sentence, the answer marked
where it stands and nowhere in the sentences marked as holding none; the collator marks the answer's word pieces."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from selfrag_langchain.trainer.finder import SpanCollator, span_examples
from selfrag_langchain.trainer.reader_data import paragraphs
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
