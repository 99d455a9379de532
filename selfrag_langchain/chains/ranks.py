"""Whether a sentence ranks what it speaks of otherwise than the question asks.

"What is the longest river in Africa?" is not answered by "The Niger is the 14th-longest river in the world, and
the third-longest river in Africa", nor "What is the largest moon of Saturn?" by "Enceladus is the sixth-largest
moon of Saturn": the sentence names the river or the moon and the very measure asked, so the sentence reader and
the answer finder read it as answering (it is one word away from the answer sentence), and word overlap ranks it
first. What it states is another rank. A question asks a rank with a superlative ("the longest", "the most
populous", "the southernmost", the first rank unless an ordinal stands before it: "the second-largest") or with
an ordinal before a noun ("the first person to ...", "her second wife"); a sentence that states some other rank
and not the one asked does not answer (:func:`states_other_rank`), and the quoter
(:class:`~selfrag_langchain.chains.quotes.PassageQuoter`) reads it so: its readings are zero, so that it is
neither quoted nor read as holding an answer, and the passage that states the asked rank is chosen. So does a
sentence that states the asked rank where the question does not ask it: "Calgary is the largest city in the
province of Alberta" for "Which Canadian city has the largest population?" (:attr:`Rank.scope`, read when the
question names something: "What is the largest planet?" is answered by "the largest in the Solar System").

The rule asks little of the sentence, so that it does not bar answers: a superlative the sentence states of
another measure counts as stating the first rank ("Kilimanjaro is the highest mountain in Africa and the fourth
most prominent peak" answers "the tallest mountain"); another measure's first rank does not count as another
rank ("Marseille is best known for its port" says nothing against "the second-largest city"), nor does the asked
place said of another noun ("The highest point is Mount Dena" for "the highest peak"); "one of the largest",
"the next brightest" and "at least" state no rank; an ordinal before a noun is read only for the noun the
question ranks ("first published" says nothing of "her first novel"), and one before a narrower phrase only for a
higher place than asked ("the eighth studio album" is no first album; "the first female president" may be the
eleventh president).
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass

from selfrag_langchain.chains.names import asked_names, describing_words, holds, kind_nouns
from selfrag_langchain.chains.peoples import other_names
from selfrag_langchain.judging.signals import STOPWORDS, folded
from selfrag_langchain.text.lexicon import adjective_lemma, noun_lemma, parts_of_speech
from selfrag_langchain.text.numerals import ordinal_place

__all__ = ["Rank", "stated_ranks", "states_other_rank"]

_TOKEN = re.compile(r"\d+(?:st|nd|rd|th)\b|[a-z]+", re.IGNORECASE)
_IRREGULAR = frozenset(("best", "worst"))
"""Superlatives that do not end in "-est" ("worst") or whose "-est" is no ending of their adjective ("best")."""
_RANKING_WORDS = frozenset(("most", "least"))
"""Words that make the next adjective a superlative ("the most populous")."""
_NO_RANK_BEFORE = (("one", "of", "the"), ("among", "the"), ("at",), ("next",))
"""What, before a superlative, leaves it stating no rank: "one of the largest", "among the oldest", "at least",
"the next brightest" (a place after another's, unsaid)."""
_NO_RANK_BEFORE_OWNER = (("one", "of", "the"), ("one", "of"), ("among", "the"), ("among",))
"""The same before a possessive that says where the superlative holds: "one of France's largest cities", "among
the world's oldest"."""


@dataclass(frozen=True)
class Rank:
    """A rank a text states or asks: its place (1 for "the largest", 3 for "the third-longest"), what it ranks by
    (the superlative, "largest", "most populous"; or the noun an ordinal stands before, "novel"), and whether the
    place was written (an ordinal) or is the first by default (a superlative alone)."""

    place: int
    measure: str
    ordinal_noun: bool = False
    written: bool = True
    phrase: tuple[str, ...] = ()
    """What an ordinal ranks, its noun last (:func:`_ordinal_phrase`: ("studio", "album") for "the eighth studio
    album"); empty for a superlative."""
    noun: str | None = None
    """The content word after a superlative ("river" in "the longest river"), in its dictionary form; None when
    a function word follows ("the largest in Brazil") or nothing does."""
    scope: tuple[tuple[str, ...], ...] = ()
    """Where a superlative holds, when the text names it after the rank: the names of each place it names
    (:func:`_scope`; "in Canada and North America": ("canada",), ("north", "america"); "in continental Africa":
    ("continental", "africa")); empty when it names none."""

    def ranks_alike(self, other: Rank, kinds: frozenset[str] = frozenset()) -> bool:
        """Whether two superlatives can rank the same things: their nouns are the same, or one has none, or
        this one ranks a kind of thing the question asks for (``kinds``: "the most populous city" for "Which
        city has the largest population?"); not "the longest river" and "the longest east-flowing river"."""
        return self.noun is None or other.noun is None or self.noun == other.noun or self.noun in kinds

    def holds_in(self, question: str) -> bool:
        """Whether the rank holds where the question asks: it names no place, or every name of one place it
        names is one the question :func:`~selfrag_langchain.chains.names.holds` ("in Canada" for "Which
        Canadian city ...", not "in the Canadian province of Alberta")."""
        return not self.scope or any(_place_held(names, question) for names in self.scope)


def _superlative(word: str) -> bool:
    """Whether a lower-cased word is a superlative adjective: "largest", "best", "southernmost" (not "forest",
    "honest", "most")."""
    if word in _IRREGULAR:
        return True
    if word.endswith("most") and len(word) > len("most") + 2:
        return adjective_lemma(word) is not None
    if not word.endswith("est") or len(word) < 5:
        return False
    lemma = adjective_lemma(word)
    return lemma is not None and lemma != word


def _noun(token: str) -> str | None:
    """What a superlative ranks, from the word after it: its dictionary form as a noun ("moons": "moon"), or
    None for a function word or a capitalised one."""
    if not token or token in STOPWORDS:
        return None
    return noun_lemma(token)


_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
         "ninety": 90}
"""The tens an ordinal in words may open with ("twenty-second": 22)."""


def _place_at(tokens: list[str], i: int) -> tuple[int, int] | None:
    """Where the ordinal that ends at token ``i`` begins and the place it names, the tens before it counted
    ("twenty-second": 22, not 2), or None when token ``i`` is no ordinal."""
    place = ordinal_place(tokens[i]) if i >= 0 else None
    if place is None:
        return None
    if place < 10 and i > 0 and tokens[i - 1] in _TENS:
        return i - 1, _TENS[tokens[i - 1]] + place
    return i, place


def _tokens(text: str) -> tuple[list[str], list[tuple[int, int]]]:
    """The text's words and ordinals in figures, lower-cased, and where each stands; a hyphen parts words
    ("third-longest"). A capitalised word is part of a name ("the Second World War", "Best Actor", "Greatest
    Hits") and ranks nothing: it is kept as "" so that it neither ranks nor counts as the word before a rank."""
    matches = list(_TOKEN.finditer(text))
    return ["" if m.group()[:1].isupper() else m.group().lower() for m in matches], [m.span() for m in matches]


_CLAUSE_GOES_ON = r"(?:is|are|was|were|has|have|had|remains|remained|became|becomes|which|that|who|whose|where)"
"""The verbs and relative words that carry a sentence on past where its rank holds: "The largest city in Canada
is Toronto" ranks in Canada, and Toronto is its answer, not a place it ranks in."""
_SCOPE = re.compile(r"(?:\s+[a-z][\w-]*){0,2}?\s*\b(?:in|of|on|within|across|throughout)\b"
                    rf"(?:(?!\s+{_CLAUSE_GOES_ON}\b)(?:[^,.;:()\n]|(?<=\b[A-Z])\.))*")
"""A phrase after a ranked noun (and at most two more lower-case words of it: "dwarf planet") that says where the
rank holds, up to the next punctuation (not an initial's full stop: "in the U.S."), the next rank or the verb or
relative word that carries the sentence on (:data:`_CLAUSE_GOES_ON`): "in the Canadian province of Alberta", "of
Saturn", "by population in Canada"."""
_OWNER = re.compile(r"([^\W\d_][\w-]*)['’]s\s*$")
"""A name in the possessive just before a rank, which says where it holds: "Pennsylvania's most populous city"."""
_ALTERNATIVE = re.compile(r"\b(?:and|or)\b")
_WORD = re.compile(r"[^\W\d_]\w*")
_AFTER_SUPERLATIVE = frozenset(("known",))
"""Words that belong to the superlative before them, not to what it ranks: "the best-known sections" rank by
"best known", "the largest-known dwarf planet" by "largest known"."""
_QUALIFIERS = frozenset(("continental", "contiguous", "mainland", "metropolitan", "northern", "southern", "eastern",
                         "western", "central", "northeastern", "northwestern", "southeastern", "southwestern"))
"""Lower-case words that narrow the place a rank holds in to a part of it: "the smallest country in continental
Africa" is not the smallest in Africa, "the second-brightest star in the northern celestial hemisphere" not the
second-brightest in the night sky. A place's scope keeps them beside its names, so that a question holds the
place only when it narrows it alike."""
_SCALES = (
    ({"large", "big"}, {"small", "little", "tiny"}),
    ({"long"}, {"short"}),
    ({"high", "tall"}, {"low", "short"}),
    ({"old"}, {"young", "new"}),
    ({"deep"}, {"shallow"}),
    ({"heavy"}, {"light"}),
    ({"fast", "quick"}, {"slow"}),
    ({"hot", "warm"}, {"cold", "cool"}),
    ({"early"}, {"late"}),
    ({"wide", "broad"}, {"narrow"}),
    ({"bright"}, {"faint", "dim"}),
    ({"rich", "wealthy"}, {"poor"}),
    ({"close", "near"}, {"far"}),
    ({"strong"}, {"weak"}),
    ({"thick"}, {"thin"}),
    ({"good"}, {"bad"}),
    ({"northernmost"}, {"southernmost"}),
    ({"easternmost"}, {"westernmost"}),
)
"""The two ends of each scale, as the adjectives' dictionary forms: "the largest bats" rank the other end from "the
smallest species of bat", so the sentence states another rank than the one asked."""
_ASKED_PLACE = re.compile(r"\b(?:in|of|on|within)\s+(?:which|what)\b", re.IGNORECASE)
"""A question that asks where ("the largest centre of which civilisation?"), so that no place a sentence ranks in
is another than the asked one."""


def _names(phrase: str) -> tuple[str, ...]:
    """The capitalised words of a phrase, lower-cased and without accents, in any script with case, parted at
    hyphens as the names rule parts them ("Åland": "aland"; "Île-de-France": "ile", "france"), and the
    :data:`_QUALIFIERS` that narrow them: one just before a name ("continental Africa": "continental", "africa";
    not "the northern constellation of Auriga") or in a phrase that has no name ("the northern hemisphere")."""
    words = _WORD.findall(folded(phrase))
    named = any(word[0].isupper() for word in words)
    names = (word.lower() for word, after in itertools.pairwise([*words, ""])
             if word[0].isupper() or (word in _QUALIFIERS and (not named or after[:1].isupper())))
    return tuple(name for name in names if name not in STOPWORDS)


def _narrowed(names: tuple[str, ...]) -> bool:
    """Whether a place's names hold a :data:`_QUALIFIERS` word ("continental Africa")."""
    return any(name in _QUALIFIERS for name in names)


@functools.lru_cache(maxsize=1 << 10)
def _scale_ends(measure: str) -> frozenset[tuple[str, int]]:
    """The scales a superlative measures by, each with the end it ranks from: ("populous", 1) for "most
    populous", ("populous", -1) for "least populous", a scale of :data:`_SCALES` by its first adjective
    ("smallest": ("big", -1); "shortest" on two scales); empty for a measure no scale knows. "Largest known"
    ranks as "largest" does."""
    words = measure.removesuffix(" known").split()
    if len(words) == 2 and words[0] in _RANKING_WORDS:
        return frozenset({(words[1], 1 if words[0] == "most" else -1)})
    if len(words) != 1:
        return frozenset()
    lemma = adjective_lemma(words[0]) or words[0]
    return frozenset((min(high), 1 if lemma in high else -1) for high, low in _SCALES if lemma in high | low)


def _opposite(measure: str, other: str) -> bool:
    """Whether two superlatives rank from the two ends of one scale: "largest" and "smallest", "most populous"
    and "least populous", "tallest" and "shortest" (not "longest" and "lowest")."""
    return any((scale, -end) in _scale_ends(other) for scale, end in _scale_ends(measure))


def _scope(text: str, before: int, after: int, stop: int) -> tuple[tuple[str, ...], ...]:
    """The names of the places a rank holds in: the name whose possessive ends just before it (:data:`_OWNER`),
    and the phrase after it (:data:`_SCOPE`, read up to ``stop``, where the next rank begins), each alternative
    it joins with "and" or "or" as its capitalised words, lower-cased ("in the Alps and Western Europe":
    ("alps",), ("western", "europe")), and the words that narrow it (:data:`_QUALIFIERS`); empty when neither
    says where ("in the world")."""
    owner = _OWNER.search(text, 0, before)
    owners = [owner.group(1)] if owner else []
    for word in reversed(text[: owner.start(1)].split() if owner else []):  # the rest of its name: "New York's"
        if not (word[:1].isupper() and _WORD.fullmatch(word)):  # a mark ends the name: "Tonlé Sap, Southeast Asia's"
            break
        owners.insert(0, word)
    phrase = _SCOPE.match(text[:stop], after)
    parts = [*(_ALTERNATIVE.split(phrase.group()) if phrase else ()), *((" ".join(owners),) if owners else ())]
    return tuple(names for names in map(_names, parts) if names)


def _place_held(names: tuple[str, ...], question: str) -> bool:
    """Whether the question :func:`~selfrag_langchain.chains.names.holds` a place a rank names: each of its
    names (and the words that narrow it: "continental"), or the acronym they spell ("us" for "United States"), or
    another name of it (:func:`~selfrag_langchain.chains.peoples.other_names`: "America" for "the United
    States")."""
    if all(holds(name, question) for name in names):
        return True
    if len(names) > 1 and not _narrowed(names) and holds("".join(name[0] for name in names), question):
        return True
    return any(all(holds(word, question) for word in other) for other in other_names(" ".join(names)))


def _owner_start(tokens: list[str], spans: list[tuple[int, int]], text: str, i: int) -> int:
    """Where the possessive just before token ``i`` begins ("France's", "New York's", "the world's": its first
    word), or ``i`` when none stands there (:func:`_tokens` keeps a capitalised word as "")."""
    j = i - 1
    if j < 1 or tokens[j] != "s" or text[spans[j][0] - 1] not in "'’":
        return i
    j -= 1
    if tokens[j]:
        return j
    while j > 0 and not tokens[j - 1]:
        j -= 1
    return j


def _unranked(tokens: list[str], spans: list[tuple[int, int]], text: str, i: int) -> bool:
    """Whether the superlative at token ``i`` states no rank: what stands before it is one of
    :data:`_NO_RANK_BEFORE`, or one of :data:`_NO_RANK_BEFORE_OWNER` before a possessive (:func:`_owner_start`)."""
    def ends(at: int, befores: tuple[tuple[str, ...], ...]) -> bool:
        return any(tuple(tokens[max(0, at - len(before)):at]) == before for before in befores)

    if ends(i, _NO_RANK_BEFORE):
        return True
    owner = _owner_start(tokens, spans, text, i)
    return owner < i and ends(owner, _NO_RANK_BEFORE_OWNER)


MAX_RANKED_PHRASE = 3
"""The most words after an ordinal read as the phrase it ranks ("the eighth studio album")."""


def _ordinal_phrase(tokens: list[str], spans: list[tuple[int, int]], text: str, i: int) -> tuple[str, ...] | None:
    """The phrase an ordinal at token ``i`` ranks, its noun last: the words after it that English's lexicon knows
    as nouns or adjectives (or as verbs in "-ing": "the first sewing machine"), up to punctuation, a function
    word or :data:`MAX_RANKED_PHRASE` words, to their last noun, that noun in dictionary form ("the eighth studio
    albums": ("studio", "album")); the next word alone when the ordinal is hyphened to it ("16th-century",
    "second-generation") or none of them is a noun; after the next ordinal when joined to it with "and" or "or"
    ("the 22nd and 24th president": ("president",) for both). None for a superlative ("third-largest") or a
    capitalised word."""
    after = i + 1
    if after + 1 < len(tokens) and tokens[after] in ("and", "or"):
        joined = after + 1 + (tokens[after + 1] in _TENS)
        if _place_at(tokens, joined) is not None:
            i, after = joined, joined + 1
    if after >= len(tokens) or not tokens[after] or tokens[after] in _RANKING_WORDS or _superlative(tokens[after]):
        return None
    if text[spans[i][1]:spans[after][0]] == "-":
        return (tokens[after],)
    words: list[str] = []
    head = 0
    for k in range(after, min(after + MAX_RANKED_PHRASE, len(tokens))):
        word = tokens[k]
        if not word or word in STOPWORDS or (k > after and text[spans[k - 1][1]:spans[k][0]].strip(" -")):
            break
        kinds = parts_of_speech(word)
        if not kinds & {"NOUN", "ADJ"} and not (word.endswith("ing") and "VERB" in kinds):
            break
        words.append(word)
        if "NOUN" in kinds:
            head = len(words)
    if not head:
        return (tokens[after],)
    return (*words[:head - 1], noun_lemma(words[head - 1]))


@functools.lru_cache(maxsize=1 << 14)
def stated_ranks(text: str) -> tuple[Rank, ...]:
    """The ranks ``text`` states or asks, in order: each superlative with its place (an ordinal before it, else
    the first), unless it follows "one of the", "among the", "the next" or "at" (a question's are the ranks it
    asks), with the noun after it (shared by superlatives joined with "and": "the most massive and
    second-largest dwarf planet") and where it holds (:func:`_scope`); each ordinal before a noun that is no
    superlative, the noun as what it ranks ("second wife": 2, "wife"). Capitalised words are left out
    (:func:`_tokens`)."""
    tokens, spans = _tokens(text)
    found: list[tuple[int, int, str, int | None]] = []  # a superlative's first token, end, measure, written place
    ordinals: list[tuple[int, Rank]] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        measure = None
        if token in _RANKING_WORDS and i + 1 < len(tokens) and adjective_lemma(tokens[i + 1]) is not None:
            measure, end = f"{token} {tokens[i + 1]}", i + 2
        elif _superlative(token):
            measure, end = token, i + 1
        if measure is not None:
            if not _unranked(tokens, spans, text, i):
                written = _place_at(tokens, i - 1)
                found.append((written[0], end, measure, written[1]) if written else (i, end, measure, None))
            i = end
            continue
        written = _place_at(tokens, i)
        if written is not None and (phrase := _ordinal_phrase(tokens, spans, text, i)) is not None:
            ordinals.append((written[0], Rank(written[1], phrase[-1], ordinal_noun=True, phrase=phrase)))
        i += 1
    starts = sorted([first for first, *_ in found] + [first for first, _ in ordinals])
    superlatives: list[tuple[int, Rank]] = []
    following: Rank | None = None
    for first, end, measure, place in reversed(found):
        if end < len(tokens) and tokens[end] in _AFTER_SUPERLATIVE:
            measure, end = f"{measure} {tokens[end]}", end + 1
        stop = next((spans[s][0] for s in starts if s > first), len(text))
        if following is not None and end + 1 < len(tokens) and tokens[end] == "and" and spans[end + 1][0] == stop:
            # "the most massive and second-largest dwarf planet": the noun and the place after are both ranks'
            noun = following.noun
            scope = (*_scope(text, spans[first][0], spans[end - 1][1], stop), *following.scope)
        else:
            noun = _noun(tokens[end]) if end < len(tokens) else None
            scope = _scope(text, spans[first][0], spans[end if noun else end - 1][1], stop)
        following = Rank(place or 1, measure, written=place is not None, noun=noun, scope=scope)
        superlatives.append((first, following))
    return tuple(rank for _, rank in sorted(superlatives + ordinals, key=lambda pair: pair[0]))


def _narrows(stated: Rank, asked: Rank) -> bool:
    """Whether an ordinal a sentence states ranks the asked ordinal's things or fewer of them: its phrase holds
    every word of the asked one ("the eighth studio album" for "the first album"). Its place then says the place
    among the asked things is as high or higher, so only a higher place rules the asked one out."""
    return set(asked.phrase) <= set(stated.phrase)


@functools.lru_cache(maxsize=1 << 10)
def _question_reading(question: str) -> tuple[frozenset[str], bool, bool]:
    """What :func:`states_other_rank` reads of the question once, however many sentences it is asked about: the
    kinds of thing it asks for, whether a place a sentence ranks in can be another than the asked one (the
    question names something and does not ask where), and whether a narrowed place can be (it does not ask
    where: "In which constellation is Capella the brightest star?" is answered by "the northern constellation of
    Auriga")."""
    kinds = frozenset(noun_lemma(noun) for noun in kind_nouns(question))
    asks_where = bool(_ASKED_PLACE.search(question))
    scoped = bool(asked_names(question) or describing_words(question)) and not asks_where
    return kinds, scoped, not asks_where


def states_other_rank(question: str, sentence: str) -> bool:
    """Whether ``sentence`` states another rank than ``question`` asks, and not the asked one. For a superlative
    asked: another place written before any superlative ("the third-longest"), or the asked superlative at the
    first place when another is asked, or the other end of the asked scale ("the largest bats" for "the smallest
    bat"), or the asked place where the question does not ask it (:meth:`Rank.holds_in`, when the question names
    something or the place is narrowed: "in continental Africa"), and no superlative at the asked place that can
    rank the same things (:meth:`Rank.ranks_alike`; any other measure's first place states the first) where the
    question asks. For an ordinal asked before a noun: another ordinal before the same phrase, or a higher one before a
    phrase that narrows it (:func:`_narrows`), and not the asked one."""
    asked = stated_ranks(question)
    if not asked:
        return False
    stated = stated_ranks(sentence)
    kinds, scoped, narrowable = _question_reading(question)
    for rank in asked:
        if rank.ordinal_noun:
            same = [s for s in stated if s.ordinal_noun and s.measure == rank.measure and _narrows(s, rank)]
            if (any(s.place != rank.place and (s.phrase == rank.phrase or s.place > rank.place) for s in same)
                    and all(s.place != rank.place for s in same)):
                return True
            continue
        superlatives = [s for s in stated if not s.ordinal_noun]
        elsewhere = [s for s in superlatives
                     if not s.holds_in(question) and (scoped or (narrowable and all(map(_narrowed, s.scope))))]
        opposed = [s for s in superlatives if _opposite(s.measure, rank.measure)]
        unasked = elsewhere + opposed
        if any(s.place == rank.place and s.ranks_alike(rank, kinds) and s not in unasked for s in superlatives):
            continue
        if opposed or any(s.place != rank.place and (s.written or s.measure == rank.measure) for s in superlatives):
            return True
        if any(s.place == rank.place and (s.measure == rank.measure or (s.noun and s.ranks_alike(rank, kinds)))
               for s in elsewhere):
            return True
    return False
