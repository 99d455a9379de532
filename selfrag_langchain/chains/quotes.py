"""Answers in the passage's own words: the sentence of the cited passage that states what the generator wrote.

A small generator that read the right passage often garbles what it copies ("The real name of the pirate
known as Blackbeard was actually Blackbeard the Blackbeard.") while one sentence of that passage states the
answer ("Edward Teach, better known as Blackbeard, was an English pirate ..."). What it wrote still points at
that sentence, by meaning and by the words it adds to the question, even where its own claim is wrong. So the
answer can be the passage's sentence the generation points at: a claim the cited passage states word for word,
which no judge has to check for a changed name or number.

The sentence is the one with the best sum of two signals, equally weighted: the cosine similarity between it
and the question followed by the generation's first sentence (by embedding), and the share (0 to 1) of that
first sentence's new words (content words the question does not hold) that it contains. With a sentence reader
(:class:`~selfrag_langchain.judging.reader.SentenceReader`) a third term joins them, weighted
:attr:`PassageQuoter.reader_weight`: the probability that the sentence answers the question, so that the
sentence that states what was asked wins over one the generation points at more closely ("Gold ... has the
symbol Au", not "Chemically, gold is a transition metal"; "... won gold in water polo" when the generator wrote
of his swimming). With an answer finder (:class:`~selfrag_langchain.judging.finder.AnswerFinder`) as well, that
probability is the mean of the reader's and the finder's (:attr:`PassageQuoter.finder_share`): the finder, trained
to point at the phrase that answers, ranks the answering sentence first where the reader misses it ("The play is
set in Athens, ..." for "In which city is A Midsummer Night's Dream set?"), and the reverse. An empty generation
points at nothing and is not quoted.

A sentence that states another rank than the question asks ("the third-longest river in Africa" for "What is
the longest river in Africa?") names the very measure asked, so both models read it as answering; its readings
are 0 (:mod:`~selfrag_langchain.chains.ranks`), so that it is neither chosen for them nor read as holding an
answer; so are those of a sentence that gives the title a question asks about only of other things ("the father
of information theory" for "the father of geographic information systems":
:mod:`~selfrag_langchain.chains.epithets`). The reverse holds for a sentence that opens with the question's
subject and the other name it asks for, joined by "or" ("An elevator or lift is ...", or a list of names): both
models read the opening as one name; its readings are 1 (:mod:`~selfrag_langchain.chains.aliases`).

Each passage's sentences are read against the question as the passage names things: an abbreviation its title
spells and it spells out is read as the title ("What year was Massachusetts Institute of Technology founded?" for
"... MIT ...": :func:`~selfrag_langchain.chains.aliases.in_full`), and a unit named in words as the passage writes
it ("in km2?" for "in square kilometres?" where it gives "4,500,000 km2":
:func:`~selfrag_langchain.chains.unit_symbols.as_written`).

Each quote comes with that probability (:class:`Quote`): a quote is the passage's own words, so whether it is
supported is settled, and what a judge still has to say of it is whether it answers the question. Selection
reads it as the quote's IsUse (:func:`~selfrag_langchain.chains.selection.quoted_critique`). With an answer
finder (:class:`~selfrag_langchain.judging.finder.AnswerFinder`) each quote also carries the probability
that it holds a phrase answering the question, which declining reads
(:func:`~selfrag_langchain.chains.declining.unfounded`).

A sentence from the middle of an article often opens with a pronoun ("He shared the 1903 Nobel Prize ..."),
which says nothing once the sentence stands alone. Given the passage's title, an opening "He", "She", "It" or
"They" becomes the title's subject ("the" kept where the first sentence says it), and "His", "Her", "Its" or
"Their" its possessive ("Pierre Curie shared the 1903 Nobel Prize ..."), when the passage's first sentence
names that subject (the article is about it) and the "It" is not an empty one ("It is believed that ..."). So
does the pronoun just after a phrase that opens the sentence and names nothing itself ("With a size of 21,960,000
km2, it is the second-smallest ..." from the Southern Ocean's article: the quote says which ocean).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Collection, Sequence
from dataclasses import dataclass, replace

from langchain_core.embeddings import Embeddings
from pydantic import BaseModel, ConfigDict, Field

from selfrag_langchain.chains.aliases import gives_asked_name, gives_expansion, gives_full_name, in_full
from selfrag_langchain.chains.answer_kinds import asks_nickname, gives_nickname, misses_asked_event
from selfrag_langchain.chains.branches import PreparedPassage
from selfrag_langchain.chains.epithets import states_other_epithet
from selfrag_langchain.chains.ranks import states_other_rank
from selfrag_langchain.chains.unit_symbols import as_written
from selfrag_langchain.judging.claims import named, titled
from selfrag_langchain.judging.finder import AnswerFinder
from selfrag_langchain.judging.reader import SentenceReader
from selfrag_langchain.judging.signals import content_words, folded, novel_words
from selfrag_langchain.text.sentences import split_sentences
from selfrag_langchain.tokens import FULLY_SUPPORTED

QUOTE_SUPPORT: dict[str, float] = {FULLY_SUPPORTED: 1.0}
"""A quote's IsSup: its passage states it word for word."""


@dataclass(frozen=True)
class Quote:
    """A passage's sentence that states a generated answer, the probability that it answers the question
    (:meth:`PassageQuoter.readings`; None without a sentence reader), and the answer finder's that it holds an
    answer to it (None without a finder)."""

    text: str
    answering: float | None = None
    holds_answer: float | None = None


@dataclass(frozen=True)
class QuoteRequest:
    """What a Runnable asks its quoter for: each generated text with the passage it was written from (as the
    models read it), and that passage's title."""

    pairs: list[tuple[str, str]]
    titles: list[str | None]
    taken: list[frozenset[str]] | None = None
    """For each pair, the quotes it may not give (a long-form beam's earlier quotes); None: none taken."""

    @classmethod
    def of(cls, written: Sequence[tuple[str, PreparedPassage]],
           taken: Sequence[frozenset[str]] | None = None) -> QuoteRequest:
        """The request for each (generated text, passage it was written from) pair, each with the quotes it may
        not give."""
        return cls([(text, passage.body) for text, passage in written], [passage.title for _, passage in written],
                   list(taken) if taken is not None else None)


class PassageQuoter(BaseModel):
    """Finds, in each passage, the sentence that states a generated answer (see the module's docstring).

    Example:
        .. code-block:: python

            from selfrag_langchain.chains.quotes import PassageQuoter
            from selfrag_langchain.embeddings import MiniLMEmbeddings

            quoter = PassageQuoter(embeddings=MiniLMEmbeddings())
            quoter.quote("What was Blackbeard's real name?",
                         "Blackbeard's real name was Edward Teach.",
                         "Blackbeard was a pirate. Edward Teach, better known as Blackbeard, was an English pirate.")
            # 'Edward Teach, better known as Blackbeard, was an English pirate.'
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    embeddings: Embeddings
    """Embeds the question with the answer, and the passages' sentences (the retriever's model is a good
    choice); the vectors are compared by their dot product, so the model should return unit vectors."""
    reader: SentenceReader | None = None
    """Reads whether each sentence answers the question (a third term of the choice); None: two terms."""
    reader_weight: float = Field(default=3.0, ge=0.0)
    """The reader's probability's weight in the choice, beside the cosine and the share of new words held (each
    weighted 1). A 135M generator often writes of the right passage's wrong sentence, and the reader knows which
    sentence answers better than the generation points at it: chosen by leave-one-list-out cross-validation
    over seven lists already run (1, 2, 3, 5 and the reader alone)."""
    finder: AnswerFinder | None = None
    """Reads whether each quote holds a phrase that answers the question (:attr:`Quote.holds_answer`, what
    declining reads), and with a reader shares in each sentence's reading (:attr:`finder_share`); None: quotes
    carry no such reading."""
    read_alone: bool = False
    """With a reader: also read each sentence alone (its opening pronoun named from the title, as the quote shows
    it), its reading the lower of that and the one after its title. After the title, any sentence of an article
    can read as answering a question about the article's subject ("James M. Geraghty: In 1908, Geraghty married
    Nora Toolen." for "What is James M. Geraghty's occupation?"); the lower reading asks the sentence to answer
    without it too. That helps where a question asks an attribute of the entity its passages' title names (PopQA
    dev: Self-RAG right for 35 of 50 against 33) and hurts where the title holds what a sentence leaves out
    ("Gabon: Libreville is the capital ...": 4 of 120 lost on three demo-corpus lists), so it is off by
    default."""
    finder_share: float = Field(default=0.5, ge=0.0, le=1.0)
    """With a reader and a finder: the finder's share of a sentence's reading, the probability that it answers
    the question that weighs in the choice of quote and scores it (IsUse), beside the reader's (0: the reader's
    alone). The two were trained apart (the reader on entailment and answer sentences, the finder to point at an
    answering phrase) and each ranks the answering sentence first where the other misses it: on SQuAD 1.1 dev's
    held-out half of articles (4,961 questions) the sentence holding the answer is ranked first for 90.1% by the
    reader, 92.4% by the finder and 92.2% by their mean (0.75 and the geometric mean 92.5%); on SelQA test, which
    neither was chosen on, 87.7%, 87.4% and 88.5%."""

    def quote(self, question: str, answer: str, passage: str, title: str | None = None) -> str | None:
        """The sentence of ``passage`` that states ``answer`` to ``question``, an opening pronoun named from
        ``title``; None for a passage without text."""
        return self.quotes(question, [(answer, passage)], titles=[title])[0]

    def quotes(self, question: str, pairs: Sequence[tuple[str, str]],
               titles: Sequence[str | None] | None = None) -> list[str | None]:
        """For each (answer, passage) pair, the passage's sentence that states the answer (None for a passage
        without text or an empty answer), with one embedding call for them all; ``titles`` (one per pair, or
        None) name the subject an opening pronoun stands for."""
        return [found.text if found is not None else None for found in self.find(question, pairs, titles)]

    def find(self, question: str, pairs: Sequence[tuple[str, str]],
             titles: Sequence[str | None] | None = None,
             taken: Sequence[Collection[str]] | None = None) -> list[Quote | None]:
        """:meth:`quotes`, each with the probability that it answers the question (:meth:`readings`). ``taken`` (one per
        pair, or None): quotes a pair may not give, so that it gives the best of its passage's other sentences
        (None when its passage has no other)."""
        found = _Found(question, pairs, titles, taken)
        groups = found.groups()
        asked = _asked(question, groups)
        answering = self._readings_as_asked(asked, groups)
        quotes = found.quotes(self.embeddings.embed_documents(found.texts), answering, self.reader_weight)
        return self._with_finder(asked, quotes, found.titles)

    async def afind(self, question: str, pairs: Sequence[tuple[str, str]],
                    titles: Sequence[str | None] | None = None,
                    taken: Sequence[Collection[str]] | None = None) -> list[Quote | None]:
        """:meth:`find` with the embeddings' async call."""
        found = _Found(question, pairs, titles, taken)
        groups = found.groups()
        asked = _asked(question, groups)
        answering = await asyncio.to_thread(self._readings_as_asked, asked, groups)
        quotes = found.quotes(await self.embeddings.aembed_documents(found.texts), answering, self.reader_weight)
        return await asyncio.to_thread(self._with_finder, asked, quotes, found.titles)

    def best_answering(self, question: str, passages: Sequence[tuple[str, str | None]],
                       taken: Sequence[Collection[str]] | None = None) -> list[float | None]:
        """For each (passage, title), the highest probability that one of its sentences answers the question
        (:meth:`readings`), read as quoting reads it (so quoting later finds those readings in the models' caches),
        of the sentences it may still quote (``taken``: for each passage, the quotes it may not give, as
        :class:`QuoteRequest` holds them); None for a passage without such sentences, or for every one without a
        reader."""
        if self.reader is None:
            return [None] * len(passages)
        if taken is not None and len(taken) != len(passages):
            msg = f"{len(taken)} taken quote sets for {len(passages)} passages"
            raise ValueError(msg)
        sentences = [split_sentences(passage) for passage, _ in passages]
        groups = [(parts, title) for parts, (_, title) in zip(sentences, passages, strict=True)]
        readings = iter(self.sentence_readings(question, groups) or [])
        best: list[float | None] = []
        for i, (parts, (_, title)) in enumerate(zip(sentences, passages, strict=True)):
            read = [next(readings) for _ in parts]
            barred = taken[i] if taken is not None else ()
            best.append(max((r for r, s in zip(read, parts, strict=True)
                             if not barred or named(s, title, parts[0]) not in barred), default=None))
        return best

    def settled_quotes(self, question: str, passages: Sequence[tuple[str, str | None]]) -> list[Quote | None]:
        """For each (body, title), the quote any generation from it would be given, when its sentences' readings
        settle it before a word is written (:func:`settled`: its best-read sentence, the reading ahead of every
        other sentence's by more than the generation can move the choice); None where they do not, or for every
        passage without a reader. A generation that comes out empty is not quoted at all: that is assumed not to
        happen."""
        if self.reader is None:
            return [None] * len(passages)
        sentences = [split_sentences(body) for body, _ in passages]
        titles = [title for _, title in passages]
        groups = list(zip(sentences, titles, strict=True))
        asked = _asked(question, groups)
        readings = iter(self._readings_as_asked(asked, groups) or [])
        vectors = iter(self.embeddings.embed_documents([s for parts in sentences for s in parts]))
        quotes: list[Quote | None] = []
        for parts, title in zip(sentences, titles, strict=True):
            read, embedded = [next(readings) for _ in parts], [next(vectors) for _ in parts]
            best = max(range(len(parts)), key=read.__getitem__, default=None)
            quotes.append(Quote(named(parts[best], title, parts[0]), read[best])
                          if best is not None and settled(read, embedded, self.reader_weight) else None)
        return self._with_finder(asked, quotes, titles)

    async def asettled_quotes(self, question: str, passages: Sequence[tuple[str, str | None]]
                              ) -> list[Quote | None]:
        """:meth:`settled_quotes` off the event loop."""
        return await asyncio.to_thread(self.settled_quotes, question, passages)

    def best_holding(self, question: str, passages: Sequence[tuple[str, str | None]],
                     taken: Sequence[Collection[str]] | None = None) -> list[float | None]:
        """For each (passage, title), the highest probability, read by the answer finder as a quote of it is read
        (its opening pronoun named, after the title), that one of its sentences it may still quote (``taken``)
        holds an answer to the question: no quote of the passage can hold one with more. None for a passage
        without such sentences, or for every one without a finder."""
        if self.finder is None:
            return [None] * len(passages)
        if taken is not None and len(taken) != len(passages):
            msg = f"{len(taken)} taken quote sets for {len(passages)} passages"
            raise ValueError(msg)
        groups = [(split_sentences(passage), title) for passage, title in passages]
        shown: list[list[str]] = []
        for i, (parts, title) in enumerate(groups):
            barred = taken[i] if taken is not None else ()
            shown.append([q for q in (named(s, title, parts[0]) for s in parts) if q not in barred])
        read = iter(_holdings(self.finder, [(asked, titled(title or "", q))
                                            for asked, quotes, (_, title)
                                            in zip(_asked(question, groups), shown, passages, strict=True)
                                            for q in quotes]))
        return [max((next(read) for _ in quotes), default=None) for quotes in shown]

    async def abest_holding(self, question: str, passages: Sequence[tuple[str, str | None]],
                            taken: Sequence[Collection[str]] | None = None) -> list[float | None]:
        """:meth:`best_holding` off the event loop."""
        return await asyncio.to_thread(self.best_holding, question, passages, taken)

    def readings(self, pairs: Sequence[tuple[str, str]]) -> list[float] | None:
        """For each (question, sentence read after its title) pair, the probability that the sentence answers the
        question: the reader's, blended with the finder's by :attr:`finder_share`; None without a reader."""
        if self.reader is None:
            return None
        read = self.reader.answering(pairs)
        if self.finder is not None and self.finder_share and pairs:
            share = self.finder_share
            read = [(1.0 - share) * r + share * f for r, f in zip(read, self.finder.holds_answer(pairs), strict=True)]
        return _ruled(pairs, read)

    def sentence_readings(self, question: str, groups: Sequence[tuple[Sequence[str], str | None]]
                          ) -> list[float] | None:
        """:meth:`readings` of each (passage's sentences, title) group's sentences in order, read after the title
        and, with :attr:`read_alone`, alone too (the lower of the two), against the question as the passage names
        things (:func:`~selfrag_langchain.chains.aliases.in_full`); None without a reader."""
        return self._readings_as_asked(_asked(question, groups), groups)

    def _readings_as_asked(self, asked: Sequence[str], groups: Sequence[tuple[Sequence[str], str | None]]
                           ) -> list[float] | None:
        """:meth:`sentence_readings`, given the question as each group names things (``asked``, one per group)."""
        after_title = [pair for q, (parts, title) in zip(asked, groups, strict=True)
                       for pair in _reading_pairs(q, parts, title)]
        if not self.read_alone:
            return self.readings(after_title)
        alone = [pair for q, (parts, title) in zip(asked, groups, strict=True)
                 for pair in _alone_pairs(q, parts, title)]
        read = self.readings([*after_title, *alone])  # one batch for both readings
        if read is None:
            return None
        return [min(a, b) for a, b in zip(read[:len(after_title)], read[len(after_title):], strict=True)]

    async def abest_answering(self, question: str, passages: Sequence[tuple[str, str | None]],
                              taken: Sequence[Collection[str]] | None = None) -> list[float | None]:
        """:meth:`best_answering` off the event loop."""
        return await asyncio.to_thread(self.best_answering, question, passages, taken)

    def _with_finder(self, asked: Sequence[str], quotes: list[Quote | None],
                     titles: Sequence[str | None]) -> list[Quote | None]:
        """``quotes``, each with the finder's probability that it holds an answer to the question as its passage
        names things (``asked``, one per quote), read after its passage's title; as they are without a finder."""
        if self.finder is None:
            return quotes
        read = [(i, (asked[i], titled(titles[i] or "", quote.text))) for i, quote in enumerate(quotes)
                if quote is not None]
        holds = dict(zip((i for i, _ in read), _holdings(self.finder, [pair for _, pair in read]), strict=True))
        return [replace(quote, holds_answer=holds[i]) if quote is not None else None
                for i, quote in enumerate(quotes)]

    async def aquotes(self, question: str, pairs: Sequence[tuple[str, str]],
                      titles: Sequence[str | None] | None = None) -> list[str | None]:
        """:meth:`quotes` with the embeddings' async call."""
        return [found.text if found is not None else None for found in await self.afind(question, pairs, titles)]


class _Found:
    """One :meth:`PassageQuoter.quotes` call: the texts to embed, then the sentence each pair points at."""

    def __init__(self, question: str, pairs: Sequence[tuple[str, str]], titles: Sequence[str | None] | None,
                 taken: Sequence[Collection[str]] | None = None) -> None:
        for name, given in (("titles", titles), ("taken quote sets", taken)):
            if given is not None and len(given) != len(pairs):
                msg = f"{len(given)} {name} for {len(pairs)} passages"
                raise ValueError(msg)
        self.question, self.pairs = question, pairs
        self.titles = list(titles) if titles is not None else [None] * len(pairs)
        self.taken = list(taken) if taken is not None else [()] * len(pairs)
        self.sentences = [split_sentences(passage) if answer.strip() else [] for answer, passage in pairs]
        self.queries = [f"{question} {_first_sentence(answer)}" for answer, _ in pairs]
        self.texts = [*self.queries, *(s for parts in self.sentences for s in parts)]

    def groups(self) -> list[tuple[list[str], str | None]]:
        """Each passage's sentences with its title, in the order :meth:`quotes` takes their readings."""
        return list(zip(self.sentences, self.titles, strict=True))

    def quotes(self, vectors: list[list[float]], answering: list[float] | None,
               reader_weight: float) -> list[Quote | None]:
        """The quotes, given the embeddings of :attr:`texts` and, with a reader, the probability that each sentence
        answers the question (in :meth:`groups`' order), weighted ``reader_weight``."""
        query_vectors, sentence_vectors = vectors[: len(self.queries)], iter(vectors[len(self.queries):])
        answers = iter(answering) if answering is not None else None
        found: list[Quote | None] = []
        for (answer, _), parts, query, title, taken in zip(self.pairs, self.sentences, query_vectors, self.titles,
                                                           self.taken, strict=True):
            added = set(novel_words(folded(_first_sentence(answer)), folded(self.question)))
            best: Quote | None = None
            best_score = float("-inf")
            for sentence in parts:
                vector = next(sentence_vectors)
                reads = next(answers) if answers is not None else None
                shown = named(sentence, title, parts[0])
                if shown in taken:
                    continue
                held = len(added & set(content_words(folded(sentence)))) / len(added) if added else 0.0
                score = sum(a * b for a, b in zip(query, vector, strict=True)) + held
                if reads is not None:
                    score += reader_weight * reads
                if score > best_score:
                    best, best_score = Quote(shown, reads), score
            found.append(best)
        return found


def settled(readings: Sequence[float], vectors: Sequence[Sequence[float]], reader_weight: float) -> bool:
    """Whether a passage's best-read sentence is its quote whatever is generated from it. A sentence's standing in
    the choice (:meth:`_Found.quotes`) is its cosine with the generation, plus the share of the generation's new
    words it holds (0 to 1), plus ``reader_weight`` times its reading; two unit vectors' cosines with any third
    differ by at most their distance, so the best-read sentence wins when, for every other sentence,
    ``reader_weight`` times the difference of readings exceeds the two sentences' distance plus 1. Never for
    embeddings that are not unit length (one per sentence, ``vectors``): the choice's dot product is then no
    cosine, and nothing bounds it."""
    if any(abs(math.sqrt(sum(x * x for x in v)) - 1.0) > UNIT_TOLERANCE for v in vectors):
        return False
    best = max(range(len(readings)), key=readings.__getitem__, default=None)
    return best is not None and all(
        reader_weight * (readings[best] - readings[i]) > math.dist(vectors[i], vectors[best]) + 1.0
        for i in range(len(readings)) if i != best)


UNIT_TOLERANCE = 1e-3
"""How far from 1 a sentence vector's length may be for :func:`settled` to read dot products as cosines."""


def _holdings(finder: AnswerFinder, pairs: Sequence[tuple[str, str]]) -> list[float]:
    """The finder's probability that each (question, sentence) pair's sentence holds an answer, as the rules read
    it (:func:`_ruled`)."""
    return _ruled(pairs, finder.holds_answer(pairs))


def _ruled(pairs: Sequence[tuple[str, str]], readings: Sequence[float]) -> list[float]:
    """``readings`` of (question, sentence) pairs, each 0 where the sentence states another rank than the
    question asks (:func:`~selfrag_langchain.chains.ranks.states_other_rank`: "the third-longest river in
    Africa" for "the longest") or gives the asked title only of other things
    (:func:`~selfrag_langchain.chains.epithets.states_other_epithet`: "the father of information theory" for "the
    father of geographic information systems"): it names what was asked, so the models read it as answering, but
    it does not; 0 too where the question asks a nickname and the sentence gives no name as one its subject is
    called by (:func:`~selfrag_langchain.chains.answer_kinds.gives_nickname`: "Franz Uri Boas was a German-American
    anthropologist" for "What nickname has Franz Boas been given?", which both models read as answering; read with
    its title, so a title that names, "Alias (TV series)", leaves its sentences as read), or asks where or how
    someone died, where they lie or whom they married and the sentence speaks of no such thing
    (:func:`~selfrag_langchain.chains.answer_kinds.misses_asked_event`: "... made the first known European contact
    with the Philippines" for where Magellan was killed, beside "Magellan was killed in battle in the Philippines");
    and 1
    where it opens with the other name the question asks for
    (:func:`~selfrag_langchain.chains.aliases.gives_asked_name`: "An elevator or lift is ..."), which the models
    read as one name, or spells out the abbreviation whose meaning it asks
    (:func:`~selfrag_langchain.chains.aliases.gives_expansion`: "A light-emitting diode (LED) is ..."), or opens
    with the question's person under the fuller name it asks (:func:`~selfrag_langchain.chains.aliases.gives_full_name`:
    "Eldred Gregory Peck was ...")."""
    return [0.0 if states_other_rank(question, sentence) or states_other_epithet(question, sentence)
            or (asks_nickname(question) and not gives_nickname(sentence)) or misses_asked_event(question, sentence)
            else 1.0 if gives_asked_name(question, sentence) or gives_expansion(question, sentence)
            or gives_full_name(question, sentence)
            else reading for (question, sentence), reading in zip(pairs, readings, strict=True)]


def _asked(question: str, groups: Sequence[tuple[Sequence[str], str | None]]) -> list[str]:
    """The question as each (passage's sentences, title) group names things
    (:func:`~selfrag_langchain.chains.aliases.in_full`) and writes units
    (:func:`~selfrag_langchain.chains.unit_symbols.as_written`)."""
    asked = []
    for parts, title in groups:
        text = " ".join(parts)
        asked.append(as_written(in_full(question, title, text), text))
    return asked


def _reading_pairs(question: str, sentences: Sequence[str], title: str | None) -> list[tuple[str, str]]:
    """(question, sentence) for each sentence of a passage, as a sentence reader reads them: after the title."""
    return [(question, titled(title or "", sentence)) for sentence in sentences]


def _alone_pairs(question: str, sentences: Sequence[str], title: str | None) -> list[tuple[str, str]]:
    """(question, sentence) for each sentence of a passage read alone, an opening pronoun named from the title (as
    the quote shows it)."""
    return [(question, named(sentence, title, sentences[0])) for sentence in sentences]


def _first_sentence(text: str) -> str:
    """The answer's first claim: a small generator's later sentences drift from what it read."""
    parts = split_sentences(text)
    return parts[0] if parts else text
