"""The sentence reader's training pairs and held-out slices, made from ``../shared/data``'s ``nli/`` and
``squad/`` files with a fixed seed.

Entailment pairs are (claim, premise) with a label of :data:`~selfrag_langchain.judging.reader.READING_LABELS`:

- SNLI dev and test, TaxiNLI's MultiNLI pairs (``held_mnli`` rows held out), the counterfactually edited SNLI
  minimal pairs (their own test split held out);
- HaluEval QA as "question answer" claims against the knowledge: the supported answer entails, the
  unsupported one contradicts. Only items whose two answers are both short (at most
  :data:`HALUEVAL_MAX_WORDS` words) are kept, so the answer's length does not give the label away
  (``held_halueval`` items held out);
- contrasts made from SQuAD answer sentences (VitaminC's idea): the sentence against itself (entailment);
  the claim with its answer changed to another answer of the same kind (a year, a number, a name), or the
  *passage* changed while the claim stays (contradiction); a rank against a superlative ("the fourth-largest"
  against "the largest", both ways; contradiction); another sentence of the same paragraph (neutral).

Answering pairs are (question, sentence): the SQuAD sentence that holds the answer (answers), the same
paragraph's other sentences and a sentence of another article (does not answer), and SQuAD 2.0's
unanswerable questions against the sentence of their paragraph that shares most of their words (does not
answer; the articles are split in two, half for training, half held out). A question whose answer occurs in
more than one sentence, or in none as the sentence splitter cuts them, is dropped rather than guessed.
"""

from __future__ import annotations

import hashlib
import random
import re
import urllib.parse
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from selfrag_langchain.errors import InputError
from selfrag_langchain.judging.claims import titled
from selfrag_langchain.judging.reader import HEAD_LABELS, READING_LABELS, Reading
from selfrag_langchain.judging.signals import content_words
from selfrag_langchain.text.sentences import split_sentences
from selfrag_langchain.trainer.data import read_jsonl, read_records
from selfrag_langchain.trainer.judge_data import ORDINALS, SUPERLATIVES

HALUEVAL_MAX_WORDS = 5
"""HaluEval items kept: both answers this short (its unsupported answers are otherwise sentences and its
supported ones spans, and length alone would tell them apart)."""

NLI_FILES = {"snli": "snli_dev_test.jsonl", "counterfactual": "snli_counterfactual.jsonl",
             "mnli": "mnli_taxinli.jsonl", "halueval": "halueval_qa.jsonl"}
SQUAD_FILES = {"squad": "squad11_train.jsonl", "squad2": "squad20_dev.jsonl"}
SELQA_DEV = "selqa_dev.jsonl"
"""SelQA's development questions (in the ``squad`` folder), trained on with ``selqa_dev``; its test questions
(``selqa_test.jsonl``) are never read in training: ``benchmarks/reader.py`` reports them."""
TITLED_SHARE = 0.7
"""The share of answer-sentence pairs read after their article's title, as the quoter reads a passage's sentence
(:func:`~selfrag_langchain.judging.claims.titled`); the rest without, so that a sentence alone is read too."""


@dataclass(frozen=True)
class ReaderPair:
    """One labelled pair: the two texts in the order the reader reads them, the reading, the label's index in
    :data:`~selfrag_langchain.judging.reader.HEAD_LABELS`, and where the pair came from."""

    first: str
    second: str
    reading: Reading
    label: int
    source: str

    @property
    def label_name(self) -> str:
        return HEAD_LABELS[self.label]


def _pair(first: str, second: str, label: str, source: str) -> ReaderPair:
    reading = next(r for r, labels in READING_LABELS.items() if label in labels)
    return ReaderPair(first, second, reading, HEAD_LABELS.index(label), source)


@dataclass
class ReaderData:
    """The training pairs, and each held-out slice by name."""

    train: list[ReaderPair]
    held_out: dict[str, list[ReaderPair]]


# ---------------------------------------------------------------------------------------------- entailment


def nli_rows(path: str | Path) -> list[dict[str, Any]]:
    return read_jsonl(path, required=("premise", "hypothesis", "label"))


def nli_pairs(rows: Iterable[dict[str, Any]], source: str) -> list[ReaderPair]:
    """(hypothesis, premise) pairs of NLI rows."""
    return [_pair(r["hypothesis"], r["premise"], r["label"], source) for r in rows
            if r["label"] in READING_LABELS[Reading.ENTAILMENT]]


def halueval_pairs(rows: Iterable[dict[str, Any]]) -> list[ReaderPair]:
    """Both answers of each length-matched HaluEval item as a "question answer" claim against its knowledge."""
    out = []
    for r in rows:
        right, wrong = r["right_answer"].strip(), r["hallucinated_answer"].strip()
        if not right or not wrong or max(len(right.split()), len(wrong.split())) > HALUEVAL_MAX_WORDS:
            continue
        out.append(_pair(f"{r['question']} {right}", r["knowledge"], "entailment", "halueval"))
        out.append(_pair(f"{r['question']} {wrong}", r["knowledge"], "contradiction", "halueval"))
    return out


# ---------------------------------------------------------------------------------------------- SQuAD


@dataclass(frozen=True)
class Paragraph:
    title: str
    sentences: tuple[str, ...]
    questions: tuple[tuple[str, tuple[str, ...]], ...]
    """(question, answer texts); no answer texts for an unanswerable question."""


def paragraphs(path: str | Path, limit: int | None, rng: random.Random) -> list[Paragraph]:
    """Up to ``limit`` paragraphs of a SQuAD file, drawn with ``rng``, split into sentences."""
    rows = read_jsonl(path, required=("title", "context"))
    if limit is not None and limit < len(rows):
        rows = rng.sample(rows, limit)
    out = []
    for row in rows:
        questions = tuple((str(q["question"]).strip(), tuple(str(a) for a in q.get("answers") or []))
                          for q in row.get("qas") or [])
        title = urllib.parse.unquote(str(row["title"])).replace("_", " ")  # "Molotov%E2%80%93Ribbentrop_Pact"
        out.append(Paragraph(title, tuple(split_sentences(row["context"])), questions))
    return out


def answer_sentence(paragraph: Paragraph, answers: Sequence[str]) -> int | None:
    """The index of the one sentence holding an answer text; None if none does or several do."""
    holding = {i for i, s in enumerate(paragraph.sentences) for a in answers if a.strip() and a in s}
    return holding.pop() if len(holding) == 1 else None


class SentenceIndex:
    """Every sentence of some paragraphs, found by the content words it shares with a question: where the hard
    negatives come from (a sentence about the asked entity, or worded like the question, that does not answer)."""

    def __init__(self, paras: Sequence[Paragraph]) -> None:
        self.sentences = [(para.title, sentence) for para in paras for sentence in para.sentences]
        self.by_word: dict[str, list[int]] = {}
        for i, (_, sentence) in enumerate(self.sentences):
            for word in set(content_words(sentence)):
                self.by_word.setdefault(word, []).append(i)

    def nearest(self, question: str, *, title: str, same_article: bool, avoid: Sequence[str], answers: Sequence[str],
                rng: random.Random, among: int = 3) -> tuple[str, str] | None:
        """One of the ``among`` sentences sharing most content words with ``question`` (at least one), of the
        article ``title`` (``same_article``) or of any other, that is not in ``avoid`` and holds no answer text."""
        shared: dict[int, int] = {}
        for word in set(content_words(question)):
            for i in self.by_word.get(word, ()):
                shared[i] = shared.get(i, 0) + 1
        skip = set(avoid)
        ranked_ids = sorted(shared, key=lambda i: (-shared[i], i))
        found = []
        for i in ranked_ids:
            other_title, sentence = self.sentences[i]
            if (other_title == title) != same_article or sentence in skip or holds_answer(sentence, answers):
                continue
            found.append(self.sentences[i])
            if len(found) == among:
                break
        return rng.choice(found) if found else None


def holds_answer(sentence: str, answers: Sequence[str]) -> bool:
    """Whether ``sentence`` holds one of the (non-empty) answer texts, in any case."""
    lowered = sentence.lower()
    return any(a.strip() and a.strip().lower() in lowered for a in answers)


_LEAD = re.compile(r"^(?:the |an? )?(?P<head>\S+).{0,300}?\b(?:is|was|are|were|refers to)\b", re.IGNORECASE)
"""An article's opening sentence that says what its subject is ("The 2008 Sichuan earthquake ... was a deadly
earthquake"): the head group is its first word, which must be the title's."""


def articles(path: str | Path) -> dict[str, list[Paragraph]]:
    """Every paragraph of a SQuAD file by article title, in the article's order."""
    out: dict[str, list[Paragraph]] = {}
    for para in paragraphs(path, None, random.Random(0)):
        out.setdefault(para.title, []).append(para)
    return out


def lead_sentence(title: str, first: Paragraph) -> str | None:
    """The first sentence of an article whose first paragraph (``first``) is its lead section, which opens by
    naming the subject and saying what it is; None when the paragraph opens otherwise (SQuAD left many articles'
    leads out)."""
    if not first.sentences:
        return None
    opening = _LEAD.match(first.sentences[0])
    head = re.sub(r"^(?:the|an?) ", "", title, flags=re.IGNORECASE).split()
    if opening is None or not head:
        return None
    return first.sentences[0] if opening.group("head").lower() == head[0].lower() else None


@dataclass(frozen=True)
class LeadQuestion:
    """A question of an article that opens with a lead sentence (:func:`lead_sentence`): the paragraph that answers
    it and the index of its one answer sentence there."""

    title: str
    question: str
    answers: tuple[str, ...]
    lead: str
    paragraph: Paragraph
    answer: int


def lead_questions(by_article: dict[str, list[Paragraph]]) -> tuple[list[LeadQuestion], list[LeadQuestion]]:
    """The questions of articles that open with a lead sentence, in the articles' order: those answered after
    the lead, by a later paragraph's sentence that the lead does not also hold; and those the lead sentence
    answers, of a first paragraph of more than one sentence."""
    later: list[LeadQuestion] = []
    answered: list[LeadQuestion] = []
    for title, paras in by_article.items():
        lead = lead_sentence(title, paras[0]) if paras else None
        if lead is None:
            continue
        first = paras[0]
        for question, answers in first.questions:
            if answer_sentence(first, answers) == 0 and len(first.sentences) > 1:
                answered.append(LeadQuestion(title, question, answers, lead, first, 0))
        for para in paras[1:]:
            for question, answers in para.questions:
                found = answer_sentence(para, answers)
                if found is not None and not holds_answer(lead, answers):
                    later.append(LeadQuestion(title, question, answers, lead, para, found))
    return later, answered


def lead_pairs(by_article: dict[str, list[Paragraph]], rng: random.Random, questions: int) -> list[ReaderPair]:
    """Up to ``questions`` questions answered after their article's lead sentence, each against its answer
    sentence (answers) and against the lead sentence (does not answer); and every question the lead answers,
    against it (answers) and against the sentence of its paragraph nearest the question (does not answer). The
    lead names the question's subject and says what it is, so a reader learning only from a paragraph's own
    sentences reads it as answering whatever is asked about that subject ("Gone with the Wind is a 1939 American
    ... film" for who directed it); the questions it does answer keep the lead's own answers read as such."""
    later, answered = lead_questions(by_article)
    rows = [(q.title, q.question, q.paragraph.sentences[q.answer], q.lead)
            for q in rng.sample(later, min(questions, len(later)))]
    for q in answered:
        others = [s for s in q.paragraph.sentences[1:] if not holds_answer(s, q.answers)]
        if others:
            rows.append((q.title, q.question, q.lead, others[nearest_sentence(q.question, others)]))
    out = []
    for title, question, answering, other in rows:
        shown = title if rng.random() < TITLED_SHARE else ""
        out.append(_pair(question, titled(shown, answering), "answers", "squad:lead"))
        out.append(_pair(question, titled(shown, other), "does not answer", "squad:lead"))
    return out


def answering_pairs(paras: Sequence[Paragraph], rng: random.Random, *, per_paragraph: int = 5,
                    same_paragraph: int = 2, hard: bool = True) -> list[ReaderPair]:
    """Per question: its answer sentence (answers), and sentences that do not answer it: up to
    ``same_paragraph`` other sentences of its paragraph (the one sharing most words with the question first),
    and a sentence of another article. With ``hard``, that sentence is one sharing words with the question,
    and one of another paragraph of the same article joins them: the sentence about the asked entity that
    states something else, the mistake a reader makes on real passages."""
    out = []
    index = SentenceIndex(paras) if hard else None
    for para in paras:
        for question, answers in para.questions[:per_paragraph]:
            found = answer_sentence(para, answers)
            if found is None:
                continue
            title = para.title if rng.random() < TITLED_SHARE else ""
            out.append(_pair(question, titled(title, para.sentences[found]), "answers", "squad"))
            others = [s for i, s in enumerate(para.sentences) if i != found and not holds_answer(s, answers)]
            for sentence in non_answers(question, others, same_paragraph, rng, nearest_first=hard):
                out.append(_pair(question, titled(title, sentence), "does not answer", "squad:paragraph"))
            if index is not None:
                near = index.nearest(question, title=para.title, same_article=True, avoid=para.sentences,
                                     answers=answers, rng=rng)
                if near is not None:
                    out.append(_pair(question, titled(title and near[0], near[1]), "does not answer", "squad:article"))
                near = index.nearest(question, title=para.title, same_article=False, avoid=(), answers=answers,
                                     rng=rng)
                if near is not None:
                    out.append(_pair(question, titled(title and near[0], near[1]), "does not answer",
                                     "squad:elsewhere"))
            elif rng.random() < 0.5:
                stranger = rng.choice(paras)
                if stranger.title != para.title and stranger.sentences:
                    out.append(_pair(question, titled(stranger.title if title else "", rng.choice(stranger.sentences)),
                                     "does not answer", "squad:elsewhere"))
    return out


_NAME = re.compile(r"[A-Z][\w'’.-]*(?: (?:(?:of|the|de|von|van|da|and) )*[A-Z][\w'’.-]*)*")
"""A name as a question writes it: capitalised words, with "of", "the", "de" ... between them, kept whole across a
possessive ("Kraków's Old Town"), unlike :func:`~selfrag_langchain.chains.answer_kinds.names_beyond`'s reading of a
claim, so that the name swapped is the whole of what the question asks about."""


def question_names(question: str) -> list[str]:
    """The names of ``question`` past its first word, without a final possessive, in the question's order ("When
    was Kraków's Old Town made a World Heritage Site?": ["Kraków's Old Town", "World Heritage Site"])."""
    first = question.split(" ", 1)
    rest = first[1] if len(first) > 1 else ""
    return [re.sub(r"['’]s?$", "", m.group()) for m in _NAME.finditer(rest)]  # "Nasser's" is "Nasser"


def _words(text: str) -> set[str]:
    return set(content_words(text))


def names_subject(name: str, title: str) -> bool:
    """Whether ``name`` shares a word with the article's ``title``: the question names the article's subject."""
    return bool(_words(name) & _words(title))


def as_word(name: str) -> re.Pattern[str]:
    """``name`` as whole words ("US" not inside "USSR")."""
    return re.compile(rf"(?<!\w){re.escape(name)}(?!\w)")


def asked_name(question: str, title: str, sentence: str, answers: Sequence[str]) -> str | None:
    """The name the question asks about, as the answer sentence writes it: the first of the question's names that
    shares a word with the article's title, else its first name, that the sentence holds as whole words and that
    is no part of an answer; None when there is none."""
    held = [n for n in question_names(question) if as_word(n).search(sentence)
            and not holds_answer(n, answers) and not any(n.lower() in a.lower() for a in answers)]
    titled_names = [n for n in held if names_subject(n, title)]
    return (titled_names or held or [None])[0]


def swap_candidates(paras: Sequence[Paragraph]) -> tuple[list[tuple[Paragraph, str, str, str]], list[str]]:
    """The questions a name swap can be made of: each question whose answer sentence names what it asks about
    (:func:`asked_name`), with its paragraph, that sentence and that name; and every question's names, the pool
    another name is drawn from (:func:`other_name`)."""
    found: list[tuple[Paragraph, str, str, str]] = []
    pool: list[str] = []
    for para in paras:
        for question, answers in para.questions:
            pool += question_names(question)
            index = answer_sentence(para, answers)
            if index is None:
                continue
            name = asked_name(question, para.title, para.sentences[index], answers)
            if name is not None:
                found.append((para, question, para.sentences[index], name))
    return found, pool


def other_name(name: str, pool: Sequence[str], text: str, rng: random.Random) -> str | None:
    """A name of ``pool`` that shares no word with ``name`` and that ``text`` does not hold, in five draws at most;
    None when none of them is."""
    asked = _words(name)
    return next((o for o in (rng.choice(pool) for _ in range(5)) if not asked & _words(o) and o not in text), None)


def swapped_pairs(paras: Sequence[Paragraph], rng: random.Random, questions: int) -> list[ReaderPair]:
    """Up to ``questions`` questions whose answer sentence names what the question asks about
    (:func:`swap_candidates`), each against that sentence with the name changed to another question's, in the
    title too (does not answer), and against the sentence as it is (answers): "Kraków's Old Town was declared a
    World Heritage Site in 1978" does not say when Tallinn's was, however much of the question it holds. A title
    that names the subject in other words is left out: it would give the change away."""
    found, pool = swap_candidates(paras)
    out = []
    for para, question, sentence, name in rng.sample(found, min(questions, len(found))):
        other = other_name(name, pool, sentence, rng)
        if other is None:
            continue
        title = para.title if rng.random() < TITLED_SHARE else ""
        pattern = as_word(name)
        if title and not pattern.search(title) and names_subject(name, title):
            title = ""
        out.append(_pair(question, titled(title, sentence), "answers", "squad:swapped"))
        out.append(_pair(question, titled(pattern.sub(other, title), pattern.sub(other, sentence)),
                         "does not answer", "squad:swapped"))
    return out


def non_answers(question: str, others: Sequence[str], count: int, rng: random.Random, *,
                nearest_first: bool = True) -> list[str]:
    """Up to ``count`` of the sentences that do not answer ``question``: with ``nearest_first``, the one sharing
    most of its words (the hard case), then others drawn with ``rng``."""
    chosen = [others[nearest_sentence(question, others)]] if nearest_first and others else []
    rest = [s for s in others if s not in chosen]
    return chosen + rng.sample(rest, max(0, min(count - len(chosen), len(rest))))


def nearest_sentence(question: str, sentences: Sequence[str]) -> int:
    """The sentence sharing most content words with the question (the first of equals)."""
    asked = set(content_words(question))
    return max(range(len(sentences)), key=lambda i: (len(asked & set(content_words(sentences[i]))), -i))


def unanswerable_pairs(paras: Sequence[Paragraph]) -> list[ReaderPair]:
    """SQuAD 2.0: an unanswerable question against its paragraph's nearest sentence (does not answer), and an
    answerable one against its answer sentence (answers)."""
    out = []
    for para in paras:
        if not para.sentences:
            continue
        for question, answers in para.questions:
            if answers:
                found = answer_sentence(para, answers)
                if found is not None:
                    out.append(_pair(question, titled(para.title, para.sentences[found]), "answers", "squad2"))
            else:
                sentence = para.sentences[nearest_sentence(question, para.sentences)]
                out.append(_pair(question, titled(para.title, sentence), "does not answer", "squad2:unanswerable"))
    return out


def held_out_article(title: str) -> bool:
    """Whether an article's paragraphs are held out: half the articles, by a hash of the title, so that any
    script finds the same half without the training draw."""
    return hashlib.sha256(title.encode("utf-8")).digest()[0] % 2 == 1


def split_by_title(paras: Sequence[Paragraph]) -> tuple[list[Paragraph], list[Paragraph]]:
    """The paragraphs of the training half of the articles, and of the held-out half (:func:`held_out_article`)."""
    return [p for p in paras if not held_out_article(p.title)], [p for p in paras if held_out_article(p.title)]


# ---------------------------------------------------------------------------------------------- SelQA


def selqa_pairs(path: str | Path, rng: random.Random, *, negatives: int = 4) -> list[ReaderPair]:
    """SelQA: each question against every sentence of its section that answers it (answers), and against up to
    ``negatives`` that do not (does not answer): the one sharing most of the question's words first, then others
    drawn with ``rng``. SelQA's questions were written from the section and then paraphrased, so they share
    fewer words with their answer than SQuAD's: what a reader learns here is less word matching."""
    def check(record: dict[str, Any]) -> str | None:
        candidates, answers = record.get("candidates"), record.get("answers")
        if not isinstance(candidates, list) or not isinstance(answers, list):
            return "candidates and answers must be lists (the section's sentences, the indices that answer)"
        if any(not isinstance(i, int) or not 0 <= i < len(candidates) for i in answers):
            return "answers must be indices of candidates"
        return None

    rows = read_jsonl(path, required=("question", "article"), check=check)
    out = []
    for r in rows:
        candidates, answering = [str(c) for c in r["candidates"]], set(r["answers"])
        if not answering:
            continue
        question = str(r["question"]).strip()
        title = str(r["article"]) if rng.random() < TITLED_SHARE else ""
        out += [_pair(question, titled(title, candidates[i]), "answers", "selqa") for i in sorted(answering)]
        others = [c for i, c in enumerate(candidates) if i not in answering]
        if negatives > 0:
            out += [_pair(question, titled(title, c), "does not answer", "selqa:section")
                    for c in non_answers(question, others, negatives, rng)]
    return out


# ---------------------------------------------------------------------------------------------- contrasts

_RANKED = re.compile(r"\b(" + "|".join(ORDINALS) + r")[- ](" + "|".join(SUPERLATIVES) + r")\b", re.IGNORECASE)
_SUPERLATIVE = re.compile(r"\bthe (" + "|".join(SUPERLATIVES) + r")\b", re.IGNORECASE)
_YEAR = re.compile(r"(1[0-9]{3}|20[0-9]{2})")


def answer_kind(answer: str) -> str | None:
    """What kind of value an answer is, for a swap with another of the same kind; None: not swapped."""
    text = answer.strip()
    if _YEAR.fullmatch(text):
        return "year"
    if re.fullmatch(r"[\d,.$%\s]+|\$?[\d,.]+ ?\w{0,12}", text) and any(c.isdigit() for c in text):
        return "number"
    words = text.split()
    if 1 <= len(words) <= 4 and all(w[:1].isupper() for w in words if w.lower() not in ("of", "the", "de", "and")):
        return "name"
    return None


def ranked(sentence: str, rng: random.Random) -> str | None:
    """The sentence with a rank and its superlative told apart: "the fourth-largest" made "the largest", or "the
    largest" made "the second-largest"; None if it has neither."""
    match = _RANKED.search(sentence)
    if match:
        return sentence[: match.start()] + match.group(2) + sentence[match.end():]
    match = _SUPERLATIVE.search(sentence)
    if match:
        rank = rng.choice(ORDINALS[1:5])
        return f"{sentence[: match.start(1)]}{rank}-{match.group(1)}{sentence[match.end(1):]}"
    return None


def contrast_pairs(paras: Sequence[Paragraph], rng: random.Random, per_kind: int) -> list[ReaderPair]:
    """Up to ``per_kind`` pairs of each contrast kind (see the module's docstring) from answer sentences."""
    found: list[tuple[Paragraph, int, str, str]] = []  # paragraph, sentence, answer, kind
    for para in paras:
        for _, answers in para.questions:
            index = answer_sentence(para, answers)
            if index is None or (kind := answer_kind(answers[0])) is None:
                continue
            if answers[0] in para.sentences[index]:
                found.append((para, index, answers[0], kind))
    pool: dict[str, list[str]] = {}
    for _, _, answer, kind in found:
        pool.setdefault(kind, []).append(answer)
    rng.shuffle(found)
    counts: dict[str, int] = {}
    out: list[ReaderPair] = []

    def add(kind: str, pair: ReaderPair) -> None:
        if counts.get(kind, 0) < per_kind:
            counts[kind] = counts.get(kind, 0) + 1
            out.append(pair)

    for para, index, answer, kind in found:
        sentence = para.sentences[index]
        other = rng.choice([a for a in pool[kind] if a.lower() != answer.lower()] or [answer])
        if other.lower() == answer.lower():
            continue
        changed = sentence.replace(answer, other, 1)
        add("copy", _pair(sentence, sentence, "entailment", "contrast:copy"))
        add("claim_changed", _pair(changed, sentence, "contradiction", "contrast:claim_changed"))
        add("passage_changed", _pair(sentence, changed, "contradiction", "contrast:passage_changed"))
        rank = ranked(sentence, rng)
        if rank is not None:
            add("rank", _pair(rank, sentence, "contradiction", "contrast:rank"))
            add("rank", _pair(sentence, rank, "contradiction", "contrast:rank"))
        neighbours = [s for i, s in enumerate(para.sentences) if i != index and answer not in s]
        if neighbours:
            add("neighbour", _pair(sentence, rng.choice(neighbours), "neutral", "contrast:neighbour"))
    return out


# ---------------------------------------------------------------------------------------------- your own


def own_pairs(path: str | Path) -> list[ReaderPair]:
    """Labelled pairs of a user's file (JSON Lines, or CSV with a header): ``premise``, ``hypothesis`` and a
    ``label`` of entailment, neutral or contradiction; or ``question``, ``sentence`` and a ``label`` of answers
    or does not answer.

    Raises:
        InputError: naming the file and line of a row that is neither.
    """
    def check(record: dict[str, Any]) -> str | None:
        label = record.get("label")
        if {"premise", "hypothesis"} <= set(record):
            ok = label in READING_LABELS[Reading.ENTAILMENT]
            return None if ok else f"label must be one of {', '.join(READING_LABELS[Reading.ENTAILMENT])}"
        if {"question", "sentence"} <= set(record):
            ok = label in READING_LABELS[Reading.ANSWERING]
            return None if ok else f"label must be one of {', '.join(READING_LABELS[Reading.ANSWERING])}"
        return "a row needs premise, hypothesis and label, or question, sentence and label"

    rows = read_records(path, optional_text=("premise", "hypothesis", "question", "sentence", "label"), check=check)
    return [_pair(r["hypothesis"], r["premise"], r["label"], "own") if "premise" in r
            else _pair(r["question"], r["sentence"], r["label"], "own") for r in rows]


# ---------------------------------------------------------------------------------------------- all together


def nli_split(nli_dir: str | Path, seed: int, *, held_mnli: int, held_halueval: int
              ) -> tuple[list[ReaderPair], dict[str, list[ReaderPair]]]:
    """The training pairs of the counterfactual, MultiNLI and HaluEval files, and their held-out slices (the
    counterfactual test split, ``held_mnli`` MultiNLI rows, ``held_halueval`` HaluEval items), each file drawn
    with its own generator so that any script finds the same slices from the seed alone."""
    nli_dir = Path(nli_dir)
    cad = nli_rows(nli_dir / NLI_FILES["counterfactual"])
    mnli = nli_rows(nli_dir / NLI_FILES["mnli"])
    random.Random(f"{seed}/mnli").shuffle(mnli)
    halu = read_jsonl(nli_dir / NLI_FILES["halueval"],
                      required=("knowledge", "question", "right_answer", "hallucinated_answer"))
    random.Random(f"{seed}/halueval").shuffle(halu)
    halu_pairs = halueval_pairs(halu)  # both answers of an item stay on one side: they come in twos
    train = [*nli_pairs((r for r in cad if r.get("split") != "cad_test"), "counterfactual"),
             *nli_pairs(mnli[held_mnli:], "mnli"), *halu_pairs[2 * held_halueval:]]
    held = {"counterfactual_test": nli_pairs((r for r in cad if r.get("split") == "cad_test"), "counterfactual"),
            "mnli": nli_pairs(mnli[:held_mnli], "mnli"), "halueval": halu_pairs[: 2 * held_halueval]}
    return train, held


def build(nli_dir: str | Path, squad_dir: str | Path, *, seed: int = 0, snli: int = 10_000,
          squad_paragraphs: int = 4_000, contrasts_per_kind: int = 1_500, held_mnli: int = 1_000,
          held_halueval: int = 300, hard_negatives: bool = True, own: Sequence[str | Path] = (),
          selqa_dev: int = 0, replay: int | None = None, lead_questions: int = 0,
          swapped_questions: int = 0) -> ReaderData:
    """The training pairs and held-out slices, the same for the same files and arguments.

    Held out: the counterfactual pairs' test split, ``held_mnli`` MultiNLI rows, ``held_halueval`` HaluEval
    items, and SQuAD 2.0's questions on half its articles (``squad2``). ``hard_negatives``: see
    :func:`answering_pairs`. ``replay`` keeps at most that many of these training pairs, drawn with the seed (a
    later stage reads a sample of what the earlier ones read, beside what is new to it). ``selqa_dev`` adds SelQA's
    development pairs (:func:`selqa_pairs`) that many times over, and ``lead_questions`` that many SQuAD
    questions answered after their article's lead sentence, against it, and every question the lead answers
    (:func:`lead_pairs`), and
    ``swapped_questions`` that many against their answer sentence with the asked name changed
    (:func:`swapped_pairs`); SelQA's test questions are never read here: they
    check how far answer-sentence selection carries to questions written another way. ``own`` names files of a
    user's labelled pairs (:func:`own_pairs`), trained on beside the rest.

    Raises:
        InputError: for a missing or malformed file.
    """
    rng = random.Random(seed)
    nli_dir, squad_dir = Path(nli_dir), Path(squad_dir)
    needed = [*(nli_dir / f for f in NLI_FILES.values()), *(squad_dir / f for f in SQUAD_FILES.values())]
    if selqa_dev:
        needed.append(squad_dir / SELQA_DEV)
    for name in needed:
        if not name.is_file():
            msg = f"{name} is missing: the sentence reader trains on ../shared/data's nli/ and squad/ files"
            raise InputError(msg)
    snli_rows = nli_rows(nli_dir / NLI_FILES["snli"])
    snli_rows = rng.sample(snli_rows, min(snli, len(snli_rows)))
    nli_train, held_out = nli_split(nli_dir, seed, held_mnli=held_mnli, held_halueval=held_halueval)
    train = [*nli_pairs(snli_rows, "snli"), *nli_train]
    squad = paragraphs(squad_dir / SQUAD_FILES["squad"], squad_paragraphs, rng)
    half = len(squad) // 2
    train += answering_pairs(squad[:half], rng, hard=hard_negatives)
    train += contrast_pairs(squad[half:], rng, contrasts_per_kind)
    squad2_train, squad2_held = split_by_title(paragraphs(squad_dir / SQUAD_FILES["squad2"], None, rng))
    train += unanswerable_pairs(squad2_train)
    held_out["squad2"] = unanswerable_pairs(squad2_held)
    if replay is not None and replay < len(train):
        train = random.Random(f"{seed}/replay").sample(train, replay)
    if selqa_dev:
        train += selqa_pairs(squad_dir / SELQA_DEV, random.Random(f"{seed}/selqa")) * selqa_dev
    if lead_questions:
        train += lead_pairs(articles(squad_dir / SQUAD_FILES["squad"]), random.Random(f"{seed}/lead"), lead_questions)
    if swapped_questions:
        train += swapped_pairs(paragraphs(squad_dir / SQUAD_FILES["squad"], None, random.Random(0)),
                               random.Random(f"{seed}/swapped"), swapped_questions)
    for path in own:
        train += own_pairs(path)
    held = {(p.first, p.second) for pairs in held_out.values() for p in pairs}
    train = [p for p in train if (p.first, p.second) not in held]  # a pair both sides hold is held out only
    rng.shuffle(train)
    return ReaderData(train, held_out)


def label_counts(pairs: Iterable[ReaderPair]) -> dict[str, int]:
    """Pairs per (source, label), for the card."""
    counts: dict[str, int] = {}
    for p in pairs:
        key = f"{p.source.split(':')[0]}/{p.label_name}"
        counts[key] = counts.get(key, 0) + 1
    return dict(sorted(counts.items()))
