"""Training the answer finder (:mod:`selfrag_langchain.judging.finder`) on SQuAD's training paragraphs.

Each question whose answer lies in one sentence of its paragraph gives three pairs: that sentence with the answer
phrase marked, the paragraph's sentence sharing most of the question's words that holds no answer, and one more
of its sentences drawn at random, both marked "no answer" (the first word piece). With ``squad2``, SQuAD 2.0's
training half of articles (the half the sentence reader read; :func:`~selfrag_langchain.trainer.reader_data.
split_by_title`) adds its answerable questions the same way and each unanswerable one against its paragraph's
nearest sentence and one drawn at random, both "no answer": those questions were written to have a plausible
phrase of the asked kind in the paragraph, which is what a finder trained on answerable questions alone points
at (the shipped finder is trained without them: docs/training.md). With ``selqa_dev``, SelQA's development
questions (written from a Wikipedia section and then paraphrased, so they share fewer words with their answer)
add each answering sentence as holding an answer somewhere (SelQA marks sentences, not phrases: the loss is the
likelihood of any of its word pieces against none) and four that do not, as the sentence reader's third stage
reads them (:func:`~selfrag_langchain.trainer.reader_data.selqa_pairs`). With ``swapped_questions``, questions
whose answer sentence names their subject are asked of another subject against it, as holding no answer
(:func:`swapped_examples`). With ``questions``, a user's own questions asked of passages add theirs: each
answered one as SQuAD's, each one its passages do not answer against the two sentences sharing most of its words,
as holding none (:func:`question_examples`; the project's lists already run so make a second stage, an option:
docs/training.md). With ``init_finder``, a trained finder goes on training rather than a new span head
over a reader's layers (a later stage). Each sentence is read after its article's title 70% of the time, as the
finder reads quotes. The layers start from a sentence reader's (the shipped one by default), which already knows
answering sentences; ``transformers.Trainer`` runs the loop, with a fixed seed, a progress bar, checkpoints and
resuming, as for the sentence reader.

Examples:
    selfrag train answer-finder --config trainer/configs/answer_finder.yaml
    selfrag train answer-finder --squad ../shared/data/squad --out my_finder --squad-paragraphs 500
"""

from __future__ import annotations

import random
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selfrag_langchain.errors import InputError
from selfrag_langchain.files.durable import write_json_atomic
from selfrag_langchain.judging.claims import titled
from selfrag_langchain.judging.finder import (
    CARD_FILE,
    WEIGHTS_FILE,
    FinderCard,
    build_finder,
    finder_state,
    load_finder_weights,
)
from selfrag_langchain.text.sentences import split_sentences
from selfrag_langchain.trainer.data import read_jsonl
from selfrag_langchain.trainer.judge_encoder import PairDataset
from selfrag_langchain.trainer.provenance import provenance
from selfrag_langchain.trainer.reader import length_grouped_trainer
from selfrag_langchain.trainer.reader_data import (
    SELQA_DEV,
    SQUAD_FILES,
    Paragraph,
    answer_sentence,
    as_word,
    names_subject,
    nearest_sentence,
    other_name,
    paragraphs,
    selqa_pairs,
    split_by_title,
    swap_candidates,
)
from selfrag_langchain.trainer.training import resumable_checkpoint, run_definition
from selfrag_langchain.trainer.training_config import AnswerFinderConfig

TITLED = 0.7
"""The share of sentences read after their article's title."""


@dataclass(frozen=True)
class SpanExample:
    """A question and a sentence, with where in the sentence its answer starts (-1: it holds none, or holds one at
    a place not marked when ``somewhere``)."""

    first: str
    second: str
    start: int
    answer: str
    somewhere: bool = False


def _read(para: Paragraph, sentence: str, rng: random.Random) -> str:
    """A sentence of ``para`` as the finder reads it: after its article's title ``TITLED`` of the time."""
    return titled(para.title, sentence) if rng.random() < TITLED else sentence


def span_examples(paras: Sequence[Paragraph], rng: random.Random) -> list[SpanExample]:
    """Three pairs per question answered in one sentence (the module's docstring), in a seeded order."""
    examples = []
    for para in paras:
        for question, answers in para.questions:
            index = answer_sentence(para, answers)
            if index is None:
                continue
            answer = next(a for a in answers if a.strip() and a in para.sentences[index])
            sentence = para.sentences[index]
            text = _read(para, sentence, rng)  # the answer is marked in the sentence, not in a title holding it too
            examples.append(SpanExample(question, text, len(text) - len(sentence) + sentence.index(answer), answer))
            others = [j for j, s in enumerate(para.sentences)
                      if j != index and not any(a.strip() and a in s for a in answers)]
            if not others:
                continue
            nearest = others[nearest_sentence(question, [para.sentences[j] for j in others])]
            examples.append(SpanExample(question, _read(para, para.sentences[nearest], rng), -1, ""))
            rest = [j for j in others if j != nearest]
            if rest:
                examples.append(SpanExample(question, _read(para, para.sentences[rng.choice(rest)], rng), -1, ""))
    rng.shuffle(examples)
    return examples


def unanswerable_examples(paras: Sequence[Paragraph], rng: random.Random) -> list[SpanExample]:
    """SQuAD 2.0's unanswerable questions, each against its paragraph's nearest sentence and one more drawn at
    random, both marked "no answer" (the module's docstring)."""
    examples = []
    for para in paras:
        for question, answers in para.questions:
            if answers or not para.sentences:
                continue
            nearest = nearest_sentence(question, para.sentences)
            picked = [nearest]
            rest = [j for j in range(len(para.sentences)) if j != nearest]
            if rest:
                picked.append(rng.choice(rest))
            examples += [SpanExample(question, _read(para, para.sentences[j], rng), -1, "") for j in picked]
    return examples


def swapped_examples(paras: Sequence[Paragraph], rng: random.Random, questions: int) -> list[SpanExample]:
    """Up to ``questions`` questions whose answer sentence names their subject (a name of the question that shares a
    word with the article's title: :func:`~selfrag_langchain.trainer.reader_data.swap_candidates`), each with that
    name changed to another question's, against the sentence read after its title: "no answer". A sentence about
    the Brooklyn Bridge does not say which river the Clifton Suspension Bridge crosses, however many of the
    question's words it holds; SQuAD's own negatives, other sentences of the paragraph, are about the same subject
    and never ask the finder whose sentence it reads. Only the subject is changed: a question naming a second
    thing the sentence leaves out ("Henrik Ibsen's play A Doll's House") is still answered by it."""
    found, pool = swap_candidates(paras)
    subjects = [f for f in found if names_subject(f[3], f[0].title)]
    out = []
    for para, question, sentence, name in rng.sample(subjects, min(questions, len(subjects))):
        text = titled(para.title, sentence)
        other = other_name(name, pool, text, rng)
        if other is not None:
            out.append(SpanExample(as_word(name).sub(lambda _, o=other: o, question, count=1), text, -1, ""))
    return out


def selqa_examples(path: Path, rng: random.Random) -> list[SpanExample]:
    """SelQA's questions against each sentence of their section that answers them, marked as holding an answer
    somewhere, and against four that do not, marked as holding none (the module's docstring)."""
    return [SpanExample(p.first, p.second, -1, "", somewhere=p.label_name == "answers")
            for p in selqa_pairs(path, rng)]


def own_questions(path: str | Path) -> list[dict[str, Any]]:
    """A user's questions asked of passages (JSON Lines): ``question``; ``answers``, the strings that answer it,
    empty for a question the passages do not answer; ``passages``, what it was asked against, each an object with
    ``text`` and an optional ``title``.

    Raises:
        InputError: naming the file and line of a row that lacks them.
    """
    def check(record: dict[str, Any]) -> str | None:
        answers, passages = record.get("answers"), record.get("passages")
        if not isinstance(answers, list) or not all(isinstance(a, str) for a in answers):
            return "answers must be a list of strings (empty for a question the passages do not answer)"
        if (not isinstance(passages, list) or not passages
                or not all(isinstance(p, dict) and isinstance(p.get("text"), str)
                           and isinstance(p.get("title") or "", str) for p in passages)):
            return 'passages must be a non-empty list of objects with "text" and an optional "title"'
        return None

    return read_jsonl(path, required=("question",), check=check)


def question_examples(rows: Sequence[dict[str, Any]], rng: random.Random) -> list[SpanExample]:
    """Pairs from questions asked of passages (:func:`own_questions`), each sentence read after its passage's
    title, as quotes are. A question the passages answer gives three, as SQuAD's do: its first sentence that holds
    an answer (in any case), the answer marked; that passage's sentence sharing most of the question's words that
    holds none; one more of those drawn at random. One they do not answer gives the two of all their sentences
    that share most of its words, both marked as holding none: the sentences that lead a finder to answer it. A
    question whose answers no sentence holds gives none."""
    examples = []
    for row in rows:
        question = row["question"]
        passages = [(p.get("title") or "", split_sentences(p["text"])) for p in row["passages"]]
        answers = [re.compile(re.escape(a.strip()), re.IGNORECASE) for a in row["answers"] if a.strip()]
        if not answers:
            pool = [titled(title, s) for title, sentences in passages for s in sentences]
            for _ in range(min(2, len(pool))):
                examples.append(SpanExample(question, pool.pop(nearest_sentence(question, pool)), -1, ""))
            continue
        found = _first_holding(passages, answers)
        if found is None:
            continue
        title, sentences, index, match = found
        text = titled(title, sentences[index])
        start = len(text) - len(sentences[index]) + match.start()
        examples.append(SpanExample(question, text, start, match.group()))
        others = [s for j, s in enumerate(sentences) if j != index and not any(a.search(s) for a in answers)]
        if others:
            examples.append(SpanExample(question, titled(title, others.pop(nearest_sentence(question, others))),
                                        -1, ""))
            if others:
                examples.append(SpanExample(question, titled(title, rng.choice(others)), -1, ""))
    return examples


def _first_holding(passages: Sequence[tuple[str, Sequence[str]]], answers: Sequence[re.Pattern[str]]
                   ) -> tuple[str, Sequence[str], int, re.Match[str]] | None:
    """The first sentence of the (title, sentences) passages that holds one of ``answers``: its passage's title
    and sentences, its index and where the answer stands; None when none does."""
    for title, sentences in passages:
        for index, sentence in enumerate(sentences):
            for answer in answers:
                if (match := answer.search(sentence)) is not None:
                    return title, sentences, index, match
    return None


def training_examples(config: AnswerFinderConfig, rng: random.Random) -> tuple[list[SpanExample], list[Path]]:
    """The finder's training pairs (the module's docstring) in a seeded order, and the files they came from.

    Raises:
        InputError: for a missing or malformed SQuAD or questions file, or when no SQuAD question is answered in
            one sentence.
    """
    squad = Path(config.squad) / SQUAD_FILES["squad"]
    paras = paragraphs(squad, config.squad_paragraphs, rng)
    examples = span_examples(paras, rng)
    if not examples:
        msg = f"{squad}: no question answered in one sentence of its paragraph"
        raise InputError(msg)
    sources = [squad]
    if config.swapped_questions:
        examples += swapped_examples(paras, random.Random(f"{config.seed}/swapped"), config.swapped_questions)
    if config.squad2:
        squad2 = Path(config.squad) / SQUAD_FILES["squad2"]
        train, _ = split_by_title(paragraphs(squad2, None, rng))
        examples += [*span_examples(train, rng), *unanswerable_examples(train, rng)]
        sources.append(squad2)
    if config.selqa_dev:
        selqa = Path(config.squad) / SELQA_DEV
        examples += selqa_examples(selqa, random.Random(f"{config.seed}/selqa")) * config.selqa_dev
        sources.append(selqa)
    for path in config.questions:
        examples += question_examples(own_questions(path), random.Random(f"{config.seed}/questions"))
        sources.append(Path(path))
    if len(sources) > 1 or config.swapped_questions:
        rng.shuffle(examples)
    return examples, sources


@dataclass
class SpanCollator:
    """Tokenizes a batch together and marks each answer's first and last word piece (both 0 for no answer); a
    pair holding an answer somewhere is marked by ``somewhere`` and the sentence's word pieces
    (``sentence_pieces``), for :func:`span_loss`."""

    tokenizer: Any
    max_length: int

    def __call__(self, rows: Sequence[SpanExample]) -> dict[str, Any]:
        import torch

        batch = self.tokenizer([r.first for r in rows], [r.second for r in rows], padding=True,
                               truncation="only_second", max_length=self.max_length, return_tensors="pt",
                               return_offsets_mapping=True)
        offsets = batch.pop("offset_mapping").tolist()
        starts, ends = [], []
        for k, row in enumerate(rows):
            first = last = 0
            if row.start >= 0:
                begin, stop = row.start, row.start + len(row.answer)
                for piece, ((a, b), sequence) in enumerate(zip(offsets[k], batch.sequence_ids(k), strict=True)):
                    if sequence != 1:
                        continue
                    if first == 0 and a <= begin < b:
                        first = piece
                    if a < stop <= b:
                        last = piece
                if last < first or first == 0:  # the answer was cut off
                    first = last = 0
            starts.append(first)
            ends.append(last)
        sentence = [[sequence == 1 for sequence in batch.sequence_ids(k)] for k in range(len(rows))]
        batch["start_positions"] = torch.tensor(starts)
        batch["end_positions"] = torch.tensor(ends)
        batch["somewhere"] = torch.tensor([r.somewhere for r in rows])
        batch["sentence_pieces"] = torch.tensor(sentence)
        return dict(batch)


def span_loss(logits: Any, positions: Any, somewhere: Any, sentence_pieces: Any) -> Any:
    """Cross-entropy of start (or end) ``logits`` over a pair's word pieces: against the marked position, or, for
    a pair holding an answer ``somewhere`` unmarked, against all of its sentence's word pieces at once (the
    likelihood that the answer starts in the sentence rather than at "no answer")."""
    import torch

    log_p = torch.log_softmax(logits, dim=-1)
    marked = log_p.gather(1, positions.clamp(0, logits.shape[1] - 1)[:, None])[:, 0]
    anywhere = torch.logsumexp(log_p.masked_fill(~sentence_pieces, float("-inf")), dim=-1)
    return -torch.where(somewhere, anywhere, marked).mean()


def span_trainer() -> type:
    """The length-grouped trainer with :func:`span_loss` for both ends of the answer."""
    base = length_grouped_trainer()

    class SpanTrainer(base):  # type: ignore[misc, valid-type]
        def compute_loss(self, model: Any, inputs: dict[str, Any], return_outputs: bool = False,
                         num_items_in_batch: Any = None) -> Any:
            starts, ends = inputs.pop("start_positions"), inputs.pop("end_positions")
            somewhere, pieces = inputs.pop("somewhere"), inputs.pop("sentence_pieces")
            outputs = model(**inputs)
            loss = (span_loss(outputs.start_logits, starts, somewhere, pieces)
                    + span_loss(outputs.end_logits, ends, somewhere, pieces)) / 2
            return (loss, outputs) if return_outputs else loss

    return SpanTrainer


def init_layers(model: Any, directory: str | Path) -> None:
    """Start the finder's layers from a sentence reader's (``directory``, what ``selfrag train reader`` wrote).

    Raises:
        InputError: when ``directory`` holds no sentence reader.
    """
    import torch
    from safetensors.torch import load_file

    from selfrag_langchain.judging.reader import WEIGHTS_FILE as READER_WEIGHTS

    weights = Path(directory) / READER_WEIGHTS
    if not weights.is_file():
        msg = f"init_reader: no sentence reader in {directory} (it needs {READER_WEIGHTS})"
        raise InputError(msg)
    layers = {name.replace("encoder.", "bert.", 1): tensor.to(torch.float32)
              for name, tensor in load_file(str(weights)).items() if name.startswith("encoder.encoder.layer.")}
    model.load_state_dict(layers, strict=False)


def started_from_finder(model: Any, directory: str | None) -> dict[str, Any] | None:
    """Load a trained finder's layers and span head (``directory``, what ``selfrag train answer-finder`` wrote)
    into ``model`` and return how it was made (its directory and its card's provenance); None without one.

    Raises:
        InputError: when ``directory`` holds no answer finder.
    """
    if not directory:
        return None
    path = Path(directory)
    if not (path / CARD_FILE).is_file() or not (path / WEIGHTS_FILE).is_file():
        msg = f"init_finder: no answer finder in {directory} (it needs {CARD_FILE} and {WEIGHTS_FILE})"
        raise InputError(msg)
    load_finder_weights(model, path)
    return {"directory": str(path), "provenance": FinderCard.load(path / CARD_FILE).provenance}


def train_answer_finder(config: AnswerFinderConfig, *, base: str | Path | None = None) -> FinderCard:
    """Train and write ``<out>/answer_finder.safetensors`` and ``<out>/answer_finder.json``.

    Raises:
        InputError: for a missing or malformed SQuAD file, or an ``init_reader`` that holds no reader.
    """
    import torch
    from safetensors.torch import save_file
    from transformers import AutoTokenizer, set_seed

    from selfrag_langchain.embeddings import default_model_path
    from selfrag_langchain.judging.reader import SHIPPED_READER

    started, cpu = time.monotonic(), time.process_time()
    set_seed(config.seed)
    examples, sources = training_examples(config, random.Random(config.seed))
    base = Path(base) if base is not None else default_model_path()
    tokenizer = AutoTokenizer.from_pretrained(str(base))
    model = build_finder(base)
    finder_init = started_from_finder(model, config.init_finder)
    if finder_init is None:
        init_layers(model, config.init_reader or str(SHIPPED_READER))
    frozen = len(model.bert.encoder.layer) - config.trained_layers
    for parameter in (*model.bert.embeddings.parameters(),
                      *(p for layer in model.bert.encoder.layer[:frozen] for p in layer.parameters())):
        parameter.requires_grad = False  # the embeddings (and bottom layers) stay the shipped MiniLM's
    trainer = span_trainer()(model=model, args=config, train_dataset=PairDataset(examples),
                                       data_collator=SpanCollator(tokenizer, config.max_length))
    trainer.train(resume_from_checkpoint=resumable_checkpoint(Path(str(config.output_dir)),
                                                                 run_definition(config, examples)))
    seconds, cpu_seconds = round(time.monotonic() - started), round(time.process_time() - cpu)
    card = FinderCard(max_length=config.max_length, provenance={
        **provenance(sources, config.seed), "base": "sentence-transformers/all-MiniLM-L6-v2",
        "init_reader": None if finder_init else config.init_reader or "the shipped sentence reader",
        "init_finder": finder_init, "squad_paragraphs": config.squad_paragraphs,
        "swapped_questions": config.swapped_questions,
        "squad2_training_half": config.squad2, "selqa_dev": config.selqa_dev, "pairs": len(examples),
        "with_answer": sum(e.start >= 0 or e.somewhere for e in examples),
        "epochs": config.num_train_epochs, "learning_rate": config.learning_rate,
        "batch_size": config.per_device_train_batch_size, "seconds": seconds,
        "cpu_seconds": cpu_seconds})
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    state = {k: v.to(torch.float16).contiguous() for k, v in finder_state(model).items()}
    tmp = out / (WEIGHTS_FILE + ".tmp")
    save_file(state, str(tmp))
    tmp.replace(out / WEIGHTS_FILE)
    write_json_atomic(out / CARD_FILE, card.to_dict())
    return card
