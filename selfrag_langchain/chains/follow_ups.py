"""Follow-up questions made standalone without a language model: the word that refers back becomes what it stands
for.

A small generator often fails to rewrite "When was it painted?" into a question that stands alone (it
echoes the question, answers it, or asks the previous question again). The conversation already says
what "it" is: the article the conversation is about, which the retrieval of an earlier turn found. Each
turn records that subject (the retrieved passage's title that the question names, else the one its
answer cited; a follow-up that refers back keeps the subject it inherited), and putting it in place of
the follow-up's first pronoun ("When was Mona Lisa painted?") retrieves for the subject of the
conversation, where joining the earlier questions retrieves for whatever the longest of them is about.
"One" standing for the subject's kind ("What is the largest one ever found?") is the subject too. A
demonstrative brings in something newly named ("Which lake is that city on?" after "... settled in Cleveland,
Ohio"), and so does "he" or "she" after a question that asked who did something: they stand for the name the
previous answer gave (:func:`referent`). "The" and the kind the conversation defines one of its subjects as ("the
plant" after "Horseradish is a perennial plant ...") is that subject (:func:`with_description`). A follow-up whose
reference stands for nothing the conversation names, or that names nothing, is asked with the subject in brackets
(:func:`with_topic`).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from langchain_core.language_models import BaseLanguageModel
from langchain_core.messages import BaseMessage
from pydantic import BaseModel, ConfigDict

from selfrag_langchain.chains.answer_kinds import BIRTHPLACE_UNITS
from selfrag_langchain.chains.declining import DECLINED
from selfrag_langchain.chains.names import NATIONALITY_ENDINGS, WORD, asked_names, kind_nouns
from selfrag_langchain.chains.peoples import LANGUAGES, names_a_people
from selfrag_langchain.judging.claims import DISAMBIGUATION
from selfrag_langchain.judging.finder import AnswerSpan
from selfrag_langchain.judging.signals import STOPWORDS, content_words, coverage, text_words
from selfrag_langchain.text.lexicon import noun_lemma, parts_of_speech, past_participle
from selfrag_langchain.text.numerals import ORDINALS
from selfrag_langchain.text.sentences import split_sentences
from selfrag_langchain.text.spelling import american_noun


class FollowUpSettings(BaseModel):
    """How a chat makes a follow-up standalone: the settings :class:`~selfrag_langchain.chains.chat.SelfRAGConversation`
    and :class:`~selfrag_langchain.chains.chat_model.ChatSelfRAG` share, declared once."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    condense_llm: BaseLanguageModel | None = None
    """Rewrites follow-ups (default: the Self-RAG generator)."""
    rewrite: bool = True
    """Ask ``condense_llm`` to rewrite a follow-up; False goes straight to ``fallback``."""
    fallback: Literal["subject", "questions"] = "subject"
    """When the rewrite is not a standalone question (not a question, still a word that refers back, not every
    word of the follow-up, or nothing added to a follow-up that names nothing): ``subject`` puts what the
    follow-up's first word that refers back stands for in its place (:func:`referent`): the conversation's subject
    (the title of the article an earlier turn retrieved: "When was Mona Lisa painted?"), or the name the previous
    answer gave ("Which lake is Cleveland, Ohio on?" for "Which lake is that city on?"), or in place of "the" and
    the kind the conversation defines one of its subjects as (:func:`with_description`: "Where is Horseradish
    from?" for "Where is the plant from?" after "Horseradish is a perennial plant ..."), puts the subject after a
    follow-up that names nothing or whose reference stands for nothing the conversation names (:func:`with_topic`:
    "And the colour? (Properties of water)"), and leaves any other follow-up as asked; ``questions`` joins the
    previous standalone question and this one. Either joins the questions when no subject is known."""
    history_turns: int = 3
    """Previous turns shown to the rewrite; joined questions keep at most ``history_turns`` + 1 questions."""
    condense_max_tokens: int = 48
    """Generation budget of the rewrite."""

    def follow_up_settings(self) -> dict[str, object]:
        """These settings by name, to build another chat with the same ones."""
        return {name: getattr(self, name) for name in FollowUpSettings.model_fields}


PRONOUN = re.compile(r"\b(it|its|he|him|his|she|her|hers|they|them|their|theirs|there)\b", re.IGNORECASE)
"""The words of a follow-up that refer back to the conversation's subject."""

_POSSESSIVE = {"its", "his", "their", "theirs", "hers"}
_NOT_A_NOUN = re.compile(r"^\s*(?:[?.!,;:]|$|(?:to|in|on|at|for|with|and|or|from|by|about|as|than)\b)", re.I)
_BE = re.compile(r"\b(?:is|are|was|were|be|been)\s*$", re.I)
_BE_NEXT = re.compile(r"^\s*(?:is|are|was|were|be|been|'s)\b", re.I)


@dataclass(frozen=True)
class Reference:
    """Where a follow-up refers back, and how: a pronoun ("it", "her"), a demonstrative with its noun or alone
    ("that city", "that"), or "one" standing for the subject's kind ("the largest one")."""

    start: int
    end: int
    word: str
    """The pronoun, the demonstrative ("the same" among them) or "one(s)", as typed."""
    kind: Literal["pronoun", "demonstrative", "one"]
    noun: str | None = None
    """The demonstrative's noun ("city" in "that city", "country" in "that island country"); None for a
    demonstrative alone and the other kinds."""
    modifier: str | None = None
    """The noun before the demonstrative's noun in a compound ("island" in "that island country": :func:`_head`),
    read when the noun finds nothing (:func:`referent`)."""
    kind_word: str | None = None
    """The word of kind the noun follows after "of" ("type" in "this type of poem", :data:`_KINDS`), read when the
    noun finds nothing and the previous question asked for one (:func:`referent`); None without one."""
    asks_what: bool = False
    """"This" closing a question that asks what it is ("what kind of music is this"), which stands for the
    conversation's subject (:func:`_asks_what_this_is`)."""


_DEMONSTRATIVE = re.compile(r"\b(that|this|these|those)\b(?:\s+([A-Za-z]+))?", re.IGNORECASE)
_ONE = re.compile(r"\b([A-Za-z]+)\s+(ones?)\b(?:\s+([A-Za-z]+))?", re.IGNORECASE)
_COPULAS = frozenset({"is", "are", "was", "were"})
_BE_WORDS = _COPULAS | {"be", "been", "has", "have", "had"}
_AUXILIARIES = frozenset({"do", "does", "did", "can", "could", "will", "would", "should", "may", "might", "must"})
_PLACE_PREPOSITIONS = frozenset({
    "about", "across", "against", "along", "around", "at", "beside", "besides", "between", "by", "for", "from", "in",
    "inside", "into", "near", "of", "off", "on", "over", "than", "through", "to", "under", "with", "within",
    "without"})
_TIME_PREPOSITIONS = frozenset({"after", "before", "during", "since", "until"})
_BEFORE_DEMONSTRATIVE = _BE_WORDS | _AUXILIARIES | _PLACE_PREPOSITIONS | _TIME_PREPOSITIONS
"""The words after which "that" or "this" points at a thing ("Which lake is that city on?") rather than opening a
clause ("the river that flows ...", "Is it true that ...")."""
_NOT_A_THING = frozenset({"one", "ones", "who", "which", "what", "is", "are", "was", "were", "has", "have", "had",
                          "did", "does", "do", "can", "could", "will", "would"})
"""Words after a demonstrative that the lexicon also knows as nouns but that make it a pronoun or a clause."""
_NOT_REFERRING = frozenset({
    "time", "times", "year", "years", "day", "days", "week", "weekend", "month", "months", "period", "point", "case",
    "reason", "moment", "way", "era", "age", "stage", "matter", "sense", "question", "answer", "fact", "kind",
    "sort", "type"})
"""Nouns a demonstrative takes for a time or for what was said, not for a thing named ("at that time", "in that
case", "for this reason")."""
_TIMES = frozenset({"time", "times", "year", "years", "day", "days", "week", "month", "months", "period", "moment",
                    "era", "age", "date", "century"})
"""Nouns of time: "What year was this?" asks when, not what the subject is."""
_THE_SAME = re.compile(r"\b(the\s+same)\s+([A-Za-z]+)", re.IGNORECASE)
""""The same" and its noun, which point back as a demonstrative does ("the same composer's best-known pieces")."""
_COMPARED = re.compile(r"\bas\b", re.IGNORECASE)
"""What "the same" compares with ("the same number of moons as Uranus"): then it points at nothing said before."""
_HAPPENINGS = frozenset({"thing", "things"})
"""Nouns "the same" takes for what happened or was said ("Did the same thing happen in Atlanta?")."""
_KINDS = frozenset({"kind", "kinds", "sort", "sorts", "type", "types", "form", "forms", "variety", "varieties",
                    "class", "classes", "branch", "branches", "genre", "genres", "style", "styles", "breed", "breeds"})
"""Words of kind a demonstrative takes before "of" and the noun it points at ("this type of poem", "that branch of
medicine")."""
_OF_NOUN = re.compile(r"\s+of\s+([A-Za-z]+(?:-[A-Za-z]+)*)\b(?!['’](?![sS]\b))", re.IGNORECASE)
""""Of" and the noun after a word of kind ("of poem", "of hip-hop"), not one before a contracted verb."""
_NOT_OF_A_KIND = frozenset({"first", "second", "third", "last", "next", "only", "same", "other", "another"})
"""Words before "one" that make it someone, not one of the subject's kind ("the first one to climb it")."""


def reference(question: str) -> Reference | None:
    """The follow-up's first word that refers back. A pronoun, but not an existential "there" ("is there a ...",
    "there are ..."). A demonstrative after a verb of being, an auxiliary or a preposition, or opening the
    question: with its noun ("When did that emperor abdicate?"), but not a noun of time or of what was said ("at
    that time", "in that case") nor a verb after an auxiliary ("How much does that cost?"); alone before a
    preposition or an article ("How wide is that at its maximum?", "What province is that the capital of?") or
    closing the question after a preposition of place ("the two kinds of that"), but not before a predicate ("Is
    that true?", "When did that happen?", "That's interesting") nor after one of time ("after that"); "that one"
    as one. "The same" with its noun as a demonstrative ("the same composer's"), but not a noun of time or of
    what happened ("at the same time", "the same thing"), nor a verb after an auxiliary ("Does the same hold for
    ...?"), nor compared ("the same size as ...") or before a clause that says which ("the same architect who
    ..."). A demonstrative's noun that opens a compound gives way to the compound's last noun ("that island
    country": :func:`_head`). A word of kind before "of" (:data:`_KINDS`) gives way to the noun of a thing after it
    ("Where did this type of poem originate?": "poem"; not "that kind of thing"), which may open a compound too
    (:func:`_kind_head`). "One" or "ones" after an adjective, a participle or a demonstrative ("What is the largest
    one ever found?", "the oldest known one"), but not before a noun ("one year") or "of", after an ordinal ("the
    first one to climb it") nor as "the one who"."""
    found: list[Reference] = []
    for match in PRONOUN.finditer(question):
        if match.group(1).lower() == "there" and (
            _BE.search(question[: match.start()]) or _BE_NEXT.match(question[match.end():])
        ):
            continue
        found.append(Reference(match.start(), match.end(), match.group(1), "pronoun"))
        break
    for match in _DEMONSTRATIVE.finditer(question):
        previous = _word_before(question, match.start())
        after, rest, end, kind_word = match.group(2), question[match.end(1):], match.end(), None
        of_noun = _OF_NOUN.match(question, end) if after is not None and after.lower() in _KINDS else None
        if of_noun is not None and of_noun.group(1).lower() not in _HAPPENINGS and _demonstrated_noun(
                previous, of_noun.group(1), _word_after(question, of_noun.end())):  # not "that kind of thing"
            kind_word, after, end = after, of_noun.group(1), of_noun.end()
        following = _word_after(question, end)
        after_verb = previous is not None and previous not in _BEFORE_DEMONSTRATIVE
        if after_verb and not ("VERB" in parts_of_speech(previous) and _demonstrated_noun(previous, after, following)
                               and _ends_phrase(question[end:])):
            continue  # after a verb, only as its object: "Who founded that city?", not "... said that people like"
        if kind_word is None and after is not None and after.lower() in {"one", "ones"}:
            found.append(Reference(match.start(), match.end(), match.group(1), "demonstrative"))
        elif kind_word is not None or _demonstrated_noun(previous, after, following):
            head = (_head if kind_word is None else _kind_head)(question, end, previous)
            found.append(Reference(match.start(), head.end(1), match.group(1), "demonstrative", head.group(1), after,
                                   kind_word=kind_word)
                         if head is not None else
                         Reference(match.start(), end, match.group(1), "demonstrative", after, kind_word=kind_word))
        elif _asks_what_this_is(question, match.group(1), previous, rest):
            found.append(Reference(match.start(), match.end(1), match.group(1), "demonstrative", asks_what=True))
        elif _stands_alone(previous, rest) or _alone_before_verb(previous, _word_after(question, match.end(1))):
            found.append(Reference(match.start(), match.end(1), match.group(1), "demonstrative"))
        else:
            continue
        break
    for match in _THE_SAME.finditer(question):
        noun = match.group(2)
        following = _word_after(question, match.end())
        previous = _word_before(question, match.start())
        if (noun.lower() not in _TIMES | _HAPPENINGS | _NOT_A_THING | _NOT_REFERRING
                and "NOUN" in parts_of_speech(noun.lower())
                and (previous not in _AUXILIARIES or _demonstrated_noun(previous, noun, following))
                and not _COMPARED.search(question[match.end():])  # not "the same size and mass as Earth"
                and following not in _RELATIVES):  # not "the same architect who built ..."
            found.append(Reference(match.start(), match.end(), match.group(1), "demonstrative", noun))
            break
    for match in _ONE.finditer(question):
        before, after = match.group(1).lower(), (match.group(3) or "").lower()
        pos = parts_of_speech(before)
        of_a_kind = before in {"the", "this", "that", "these", "those"} or (before not in _NOT_OF_A_KIND and (
            "ADJ" in pos or ("VERB" in pos and before.endswith(("ed", "en", "wn")))))
        named_after = bool(after) and (after in {"of", "who", "that", "which"} or (
            "NOUN" in parts_of_speech(after) and not parts_of_speech(after) & {"ADJ", "ADV"}))
        if of_a_kind and not named_after:
            found.append(Reference(match.start(2), match.end(2), match.group(2), "one"))
            break
    return min(found, key=lambda r: r.start, default=None)


_NEXT_WORD = re.compile(r"\s+([a-z]+)\b(?!['’](?![sS]\b))")
_POSSESSIVE_NEXT = re.compile(r"['’][sS]\b")


def _head(question: str, end: int, previous: str | None) -> re.Match[str] | None:
    """The noun that ends a compound a demonstrative's noun (ending at ``end``) opens, the noun it then modifies
    ("country" in "which sea is that island country in"), or None: the next word is a noun of a thing
    (:func:`_demonstrated_noun`, so that "When did that war end?" keeps its verb), not a past participle ("Where
    was that film shot?"), an ordinal or "other", and it ends the phrase (:func:`_ends_phrase`), takes a possessive
    ("that island country's capital") or comes before a participle that names it ("What is that island country
    known for?"), so that "Where was ... in that field set up?" keeps its verb; not in a question that opens with
    a verb of being, whose noun may be a predicate ("Is that city capital?"), nor before "of" ("Was that king
    head of the church?")."""
    next_word = _NEXT_WORD.match(question, end)
    if next_word is None or question[:end].split()[0].lower() in _COPULAS:
        return None
    word, rest = next_word.group(1), question[next_word.end():]
    if word in _NOT_OF_A_KIND | _TIMES | _HAPPENINGS or past_participle(word):
        return None
    after = _word_after(question, next_word.end())
    ends = (_ends_phrase(rest) or after in _NAMING_PARTICIPLES or bool(_POSSESSIVE_NEXT.match(rest))) and after != "of"
    return next_word if ends and "NOUN" in parts_of_speech(word) and _demonstrated_noun(previous, word, after) else None


def _kind_head(question: str, end: int, previous: str | None) -> re.Match[str] | None:
    """The noun that ends a compound after a word of kind and "of" ("engine" in "When was this type of steam engine
    invented?"), or None: :func:`_head`'s, or, where a verb or a predicate must follow the phrase (after a verb of
    being, an auxiliary, or opening the question), the next word when it is a noun of a thing
    (:func:`_demonstrated_noun`, so that "What does that branch of medicine deal with?" keeps its verb) and no past
    participle."""
    head = _head(question, end, previous)
    next_word = _NEXT_WORD.match(question, end)
    if head is not None or next_word is None or not (previous is None or previous in _BE_WORDS | _AUXILIARIES):
        return head
    word = next_word.group(1)
    if word in _NOT_OF_A_KIND | _TIMES | _HAPPENINGS or past_participle(word) or "NOUN" not in parts_of_speech(word):
        return None
    return next_word if _demonstrated_noun(previous, word, _word_after(question, next_word.end())) else None


MIN_UNLISTED_NOUN = 4
"""The fewest letters of a word the lexicon does not know that a demonstrative takes as its noun."""


def _demonstrated_noun(previous: str | None, word: str | None, following: str | None = None) -> bool:
    """Whether ``word``, after a demonstrative that follows ``previous`` and before ``following``, is the noun of the
    thing it points at. After an auxiliary, a word that may be a verb is read as the verb ("How much does that cost?")
    unless a verb follows it, adverbs aside ("Which verb does that word come from?"); one of :data:`_LIGHT_VERBS` is
    always read as the verb."""
    if word is None or word.lower() in _NOT_A_THING or word.lower() in _NOT_REFERRING:
        return False
    pos = parts_of_speech(word.lower())
    if not pos:  # a term the lexicon lacks ("that suborder", "this empire"), not a name ("Is that Paris?")
        return word.isalpha() and word.islower() and len(word) >= MIN_UNLISTED_NOUN
    if word.lower() in _THING_VERBS | _NAMING_PARTICIPLES | _LIGHT_VERBS or (
            previous in _COPULAS and "VERB" in pos and word.lower().endswith("ed")):  # "Who's that married to?"
        return False
    verb_next = following is not None and "VERB" in parts_of_speech(following)
    return "NOUN" in pos and "ADV" not in pos and not (previous in _AUXILIARIES and "VERB" in pos and not verb_next)


_LIGHT_VERBS = frozenset({"make", "take", "help", "have", "get", "cause", "do", "seem", "go", "look", "sound", "feel",
                          "work", "cost", "matter", "change", "happen", "hold"})
"""Verbs that a demonstrative before them never takes as its noun, though the lexicon lists them as nouns too ("Does
that make sense?", "When did that take place?", "How much does that cost?", "Does the same hold true?")."""


_ARTICLE_OR_PLACE = re.compile(r"\s+(?:the|a|an|" + "|".join(sorted(_PLACE_PREPOSITIONS)) + r")\b", re.IGNORECASE)
_CLOSING = re.compile(r"\s*(?:[?.!]|$)")


def _stands_alone(previous: str | None, rest: str) -> bool:
    """Whether a demonstrative followed by ``rest`` (after ``previous``) stands for a thing by itself: before an
    article or a preposition, or closing the question after a preposition of place."""
    return bool(_ARTICLE_OR_PLACE.match(rest)) or (previous in _PLACE_PREPOSITIONS and bool(_CLOSING.match(rest)))


_ASKING_WHAT = re.compile(r"\s*(?:(?:and|so)\s+)?(?:what|which|who)\b", re.IGNORECASE)


_THING_VERBS = frozenset({"mean", "stand", "refer", "belong", "come", "derive", "contain", "include", "consist",
                          "represent", "signify", "symbolise", "symbolize", "live", "eat", "feed", "weigh"})
"""Verbs after an auxiliary whose subject is a thing named ("What does that mean?", "Which suborder do those belong
to?", "What do those eat?"), not what happened or was said ("What did that lead to?", "Does that seem right?")."""
_NAMING_PARTICIPLES = frozenset({"called", "known", "named", "termed", "used", "made", "found", "located", "defined",
                                 "classified", "spelled", "spelt", "pronounced", "written", "derived", "composed"})
"""Participles after a verb of being whose subject is a thing named ("What's that also called?", "Where are those
found?"), not what happened ("Why was that stolen?")."""


def _alone_before_verb(previous: str | None, verb: str | None) -> bool:
    """Whether a demonstrative after ``previous`` is the subject of the ``verb`` after it (adverbs aside,
    :func:`_word_after`: "What's that also called?") that says what a thing is: after an auxiliary, one of
    :data:`_THING_VERBS`; after a verb of being, one of :data:`_NAMING_PARTICIPLES`."""
    if previous in _AUXILIARIES:
        return verb in _THING_VERBS
    return previous in _COPULAS and verb in _NAMING_PARTICIPLES


def _asks_what_this_is(question: str, word: str, previous: str | None, rest: str) -> bool:
    """Whether "this" closes a question that asks what or who it is ("what kind of music is this", "Who is this?"),
    where it stands for what the conversation is about; not one that asks a time ("What year was this?")."""
    return (word.lower() == "this" and previous in _BE_WORDS and bool(_CLOSING.match(rest))
            and bool(_ASKING_WHAT.match(question)) and _TIMES.isdisjoint(_words(question)))


def _ends_phrase(rest: str) -> bool:
    """Whether ``rest`` (what follows a noun phrase) closes the question or goes on with an article or a preposition,
    so that the phrase is an object ("Who founded that city?", "... that city in 1596?")."""
    return bool(_ARTICLE_OR_PLACE.match(rest) or _CLOSING.match(rest))


def refers_back(question: str) -> bool:
    """Whether the question has a word that needs the conversation to be understood (:func:`reference`)."""
    return reference(question) is not None


def keeps_question(rewrite: str, question: str) -> bool:
    """Whether a rewrite still asks the follow-up: every content word of the follow-up is in it (a small
    model's "rewrite" is often the previous question asked again). A follow-up without content words
    ("Why?") has nothing to lose."""
    words = content_words(question)
    return not words or coverage(words, content_words(rewrite)) == 1.0


def conversation_subject(messages: Sequence[BaseMessage]) -> str | None:
    """The subject recorded with the latest turn that has one (``additional_kwargs["subject"]`` of its
    question); in a history without recorded subjects, the title of the passage the latest cited answer
    cited first; None when neither is known."""
    for message in reversed(messages):
        if message.type == "human" and message.additional_kwargs.get("subject"):
            return str(message.additional_kwargs["subject"])
    for message in reversed(messages):
        if message.type != "ai":
            continue
        for source in message.additional_kwargs.get("citations") or []:
            title = str((source or {}).get("title") or "").strip()
            if title:
                return title
    return None


def named_title(question: str, titles: Sequence[str]) -> str | None:
    """Of ``titles``, one whose every content word the question contains ("Where is the Taj Mahal?" names "Taj
    Mahal") but a kind of thing it writes only before "of" (:func:`_only_before_of`: "How many species of molluscs
    ..." does not name "Species"), and of those, in this order: not the kind of thing it asks for when it names another
    (:func:`_names_a_kind`, :func:`~selfrag_langchain.chains.names.kind_nouns`: "At the foothills of which mountain
    range is Monterrey located?" is about "Monterrey", not "Mountain range"), not a title within a longer one it
    names ("the Battle of Hastings" is about the battle), one another title it names is asked of ("of" between that
    title's last word and this one's first, :func:`_before_of`: "What is the chemical formula of ethane?" is about
    "Ethane", not "Chemical formula"), not one the kind asked for is of ("In which region of South Asia was the Sikh
    Empire based?" is about the Sikh Empire), then the longest; None when it names none."""
    asked = set(content_words(question))
    tokens = text_words(question)
    named = [t for t in titles
             if (words := content_words(t)) and set(words) <= asked and not _only_before_of(tokens, t)]
    kinds = {american_noun(kind) for kind in kind_nouns(question)}
    whole = [t for t in named if not any(set(content_words(t)) < set(content_words(other)) for other in named)]

    def rank(title: str) -> tuple[bool, bool, bool, int]:
        before = _before_of(tokens, title)
        lasts = _last_words(whole, title)
        return (not (_names_a_kind(title) and bool(_lemmas(title) & kinds)),
                any(word in lasts and american_noun(word) not in kinds for word in before),
                not any(american_noun(word) in kinds for word in before), len(content_words(title)))

    return max(whole, key=rank, default=None)


def _only_before_of(tokens: Sequence[str], title: str) -> bool:
    """Whether the question writes ``title``, a kind of thing (:func:`_names_a_kind`) of one word, only before "of",
    where it says what of something else is asked ("How many species of molluscs ...": not about "Species")."""
    words = content_words(title)
    if len(words) != 1 or not _names_a_kind(title):
        return False
    at = [i for i, token in enumerate(tokens) if token == words[0]]
    return bool(at) and all(i + 1 < len(tokens) and tokens[i + 1] == "of" for i in at)


def _before_of(tokens: Sequence[str], title: str) -> list[str]:
    """The words just before "of" (or "of the") where the question writes ``title``'s first word after it ("formula"
    in "the chemical formula of ethane")."""
    first = content_words(title)[:1]
    found = []
    for i, token in enumerate(tokens):
        if first and token == first[0]:
            at = i - 2 if i >= 2 and tokens[i - 1] == "the" else i - 1
            if at >= 1 and tokens[at] == "of":
                found.append(tokens[at - 1])
    return found


def _last_words(titles: Sequence[str], title: str) -> set[str]:
    """The last content words of ``titles`` other than ``title``."""
    return {words[-1] for other in titles if other != title and (words := content_words(other))}


def turn_subject(question: str, standalone: str, inherited: str | None, retrieved: Sequence[str],
                 cited: Sequence[str]) -> str | None:
    """What a finished turn was about: the retrieved title its standalone question names; else, for a follow-up that
    referred back, the subject it inherited; else the title its answer cited first. A follow-up asked as it was,
    its reference unread, or asked with the subject in brackets (:func:`with_topic`) keeps the subject it inherited:
    the titles it names are its words ("that family" names "Family", "How many known species? (Malvaceae)"
    names "Species"), not what it asks about; so are the titles a follow-up that refers back names with its own
    words ("How is that defined in biology?" names "Biology")."""
    if inherited is not None and (
            (standalone == question and refers_back(question)) or standalone == with_topic(question, inherited)):
        return inherited
    if inherited is not None and refers_back(question):  # its own words are not what it refers to
        retrieved = [t for t in retrieved if not set(content_words(t)) <= set(content_words(question))]
    named = named_title(standalone, retrieved)
    if named is not None:
        return named
    if refers_back(question) and inherited is not None:
        return inherited
    return next((t for t in cited if t), None)


_PERSONAL = (frozenset({"he", "him", "his"}), frozenset({"she", "her", "hers"}))
"""The personal pronouns, by gender: only these may stand for a person the previous answer named."""
_ASKS_WHO_DID = re.compile(r"\s*(?:(?:and|so|then)\s+)?(?:who|whom)\s+(?!(?:is|was|are|were|'s)\b)[a-z]",
                           re.IGNORECASE)
"""A question that asks who did something ("Who wrote Pride and Prejudice?"), not who someone is ("Who was Charles
Darwin?", whose answer may name others)."""
CITATION_MARKER = re.compile(r"\s*\[\d+\]")
"""A long-form answer's citation marker (" [1]"), left out where an answer is read as text."""
FindSpans = Callable[[Sequence[tuple[str, str]]], Sequence[AnswerSpan]]
"""An answer finder's ``find``: the phrase of each (question, sentence) pair that answers the question."""


def previous_question(messages: Sequence[BaseMessage]) -> str:
    """The latest question of the history as it was answered: its recorded standalone question, else as asked."""
    return next((str(m.additional_kwargs.get("standalone_question") or m.content).strip()
                 for m in reversed(messages) if m.type == "human"), "")


def referent(question: str, messages: Sequence[BaseMessage], subject: str, find: FindSpans | None) -> str | None:
    """What the follow-up's reference (:func:`reference`) stands for, or None when the conversation names nothing it
    stands for.

    A pronoun keeps to what the conversation is about: ``subject``. So does "one", when the subject is a kind of
    thing (a common noun: "Emerald", "Tower block"; not "Eiffel Tower"). A demonstrative brings in something newly
    named, so it stands for the name the previous answer gave, alone ("What body of water is it on?" then "How
    wide is that at its maximum?": the Río de la Plata) or with a noun that name holds or the previous question
    asked for ("In which city did his family settle?" then "Which lake is that city on?": Cleveland, Ohio); a
    noun of the subject's own title keeps it to the subject ("that tower" of the Eiffel Tower), unless the previous
    question asked for a thing of that kind and the answer named one, neither the subject's name nor within it
    ("Aromatic compounds have a chemistry typified by which compound?" then "that compound": benzene); a noun the
    previous question gave a name after "the" stands for that name ("this genus" after "Which family is the genus
    Colchicum a member of?": Colchicum, not the family answered); a name the answer gives a thing of the noun's
    kind, and else a definition of the subject as one, come before a phrase in lower case, and before a place the
    answer gave a question asking where ("that region" after "Where are the Sioux from?": the Great Plains, but "that
    city" after "Where is Monterrey?": Monterrey, which the answer defines as a city); without such a name it
    stands for nothing the conversation names (None: the chat asks the follow-up with the subject in
    brackets, :func:`with_topic`, since "Is that syndrome curable?" asked as it is finds the article "Syndrome").
    "He" or "she" stands for that name when the previous question asked who did something ("Who wrote Pride and
    Prejudice?" then "When was she born?": Jane Austen), unless that question already called the subject so ("Who
    did he marry?" then "When did he die?"). That name is the phrase ``find`` (the answer finder's) points at in the
    previous answer's first sentence for the question it answered, from its first capitalised word, when it reads
    as a name (first and last words capitalised) that is neither the subject's nor within it, and that the question
    did not already hold; for a demonstrative alone or with the noun the previous question asked for, a thing of a
    kind in lower case too ("... important to which field?" then "What is that field also called?": forensic
    science). A compound after a demonstrative (:func:`_head`) stands for what its last noun stands for, and else
    for what its first noun does, the last noun kept after it ("which sea is that island country in": Cyprus, the
    country asked for; "How big was that river basin?": "Amazon River basin"); a first noun of the subject's own
    title keeps it to the subject, the last noun after it ("that river basin" of the Amazon River: "Amazon River
    basin", unless the previous question asked for a river). A thing of a kind ("this type of poem", "that form of
    government") stands for what its noun stands for; else, when the previous question asked for that kind ("What
    form of government does it have?"), for what the word of kind does ("constitutional monarchy"); else for the
    subject when the subject is a kind of thing (:func:`_names_a_kind`: "Ode", not "Ozymandias")."""
    found = reference(question)
    if found is None:
        return None
    if found.modifier is not None and _own_unasked(found.modifier, subject, messages):
        return f"{subject} {found.noun}"
    meant = _stands_for(found, messages, subject, find)
    if meant is None and found.modifier is not None:
        first = _stands_for(replace(found, noun=found.modifier, modifier=None), messages, subject, find)
        meant = None if first is None else f"{first} {found.noun}"
    if meant is None and found.kind_word is not None:
        turn = _last_turn(messages)
        if turn is not None and american_noun(found.kind_word.lower()) in asked_nouns(turn[1]):
            meant = _stands_for(replace(found, noun=found.kind_word, modifier=None), messages, subject, find)
        if meant is None and _names_a_kind(subject):
            meant = subject
    return meant


def _own_unasked(noun: str, subject: str, messages: Sequence[BaseMessage]) -> bool:
    """Whether ``noun`` is a word of the subject's title that the previous question did not ask for ("river" of the
    Amazon River, unless after "Which river is the longest?")."""
    turn = _last_turn(messages)
    lemma = american_noun(noun.lower())
    return lemma in _lemmas(subject) and (turn is None or lemma not in asked_nouns(turn[1]))


def _stands_for(found: Reference, messages: Sequence[BaseMessage], subject: str, find: FindSpans | None
                ) -> str | None:
    """What the reference ``found`` stands for (:func:`referent`), its noun read as ``found.noun``: the compound's
    last noun, or its first when :func:`referent` reads that one."""
    if found.kind == "one":
        return subject if _names_a_kind(subject) else None
    word = found.word.lower()
    gender = next((words for words in _PERSONAL if word in words), None)
    if found.kind == "pronoun" and gender is None:
        return subject
    noun = american_noun(found.noun.lower()) if found.noun else None
    own = noun is not None and noun in _lemmas(subject)  # "that tower" of the Eiffel Tower
    if found.asks_what:
        return subject
    turn = _last_turn(messages)
    if turn is None:
        return subject if found.kind == "pronoun" or own else None
    typed, asked, answer = turn
    # a thing of a kind in lower case for a demonstrative alone, or with the noun the previous question asked for
    # ("... important to which field?" then "What is that field also called?": "forensic science")
    asked_thing = asked_nouns(asked)
    if own and noun not in asked_thing:
        return subject
    place = _ASKS_WHERE.match(asked) is not None and noun in PLACES_ASKED
    common = found.kind == "demonstrative" and (noun is None or noun in asked_thing or place)
    name = _answered_name(asked, answer, subject, find, common=common)
    if own:  # the previous question asked for another of the subject's kind ("which compound?"): the one answered
        return subject if name is None else name
    if found.kind == "pronoun":
        asked_who = _ASKS_WHO_DID.match(asked) is not None and not gender & _words(typed)
        return name if name is not None and asked_who else subject
    if noun is None:
        return name
    if noun not in asked_thing:
        called = _called_by(noun, found.noun or noun, asked)
        if called is not None:  # "this genus" after "Which family is the genus Colchicum a member of?"
            return called
    named = _named_with(noun, answer)
    if name is not None and noun in _lemmas(name) | _lemmas(asked):
        return named if named is not None and name.islower() else name  # "Apiaceae" before "carrot family"
    if named is not None:
        return named
    if _defined_as(subject, noun, messages):
        return subject
    return name if place else None  # "that region" after "Where are the Sioux from?": the Great Plains


def _word_before(text: str, end: int) -> str | None:
    """The word of ``text`` just before ``end``, lower-cased, a contracted "is" as itself ("What's", "whats": "is");
    None at its start."""
    before = text[:end].split()
    if not before:
        return None
    word = before[-1].lower().strip(",")
    return "is" if _CONTRACTED_IS.fullmatch(word) else word


_CONTRACTED_IS = re.compile(r"(?:what|who|where|how|when|why|which)['’]?s")
"""A question word with "is" contracted, its apostrophe typed or not ("what's", "whats")."""


def _word_after(text: str, start: int) -> str | None:
    """The first word of ``text`` after ``start`` that is no adverb ("permanently", "often"; an adverb the lexicon
    also knows as a noun or a verb counts as a word: "still", "best"), lower-cased; None when none follows."""
    for word in (w.lower().strip("?.!,;:") for w in text[start:].split()):
        pos = parts_of_speech(word)
        if word and not ("ADV" in pos and not pos & {"NOUN", "VERB"}):
            return word
    return None


def _last_turn(messages: Sequence[BaseMessage]) -> tuple[str, str, str] | None:
    """The latest answered turn: the question as asked, as answered (its standalone question) and the answer
    without its markers; None without an answer or when it was declined."""
    for i in range(len(messages) - 1, 0, -1):
        if messages[i].type == "ai" and messages[i - 1].type == "human":
            asked = messages[i - 1]
            answer = CITATION_MARKER.sub("", str(messages[i].content)).strip()
            if not answer or answer.startswith(DECLINED):
                return None
            return str(asked.content), previous_question([asked]), answer
    return None


def _answered_name(asked: str, answer: str, subject: str, find: FindSpans | None, *, common: bool = False
                   ) -> str | None:
    """The name the answer's first sentence gives for ``asked``, as :func:`referent` reads it; with ``common``, for a
    demonstrative alone or with the noun ``asked`` asked for, a thing of a kind too: a phrase of at most
    :data:`MAX_COMMON_WORDS` words in lower case of nouns and adjectives the lexicon knows that ends with a noun
    ("profanities", "amorphous solids"; not "short-horned" nor "struck an iceberg"), after its article ("What does
    that mean?" after "... between people in a relation of consanguinity": "consanguinity"), but not a list
    ("granites, pegmatites, and schists"), a number or a description ("very large")."""
    if find is None or not asked:
        return None
    span = find([(asked, (split_sentences(answer) or [answer])[0])])[0]
    words = span.text.strip(" ,.;:").split()
    if common and words and all(w.islower() for w in words):
        return _common_name(words, asked, subject) if span.probability >= 0.5 else None
    while words and not words[0][:1].isupper():  # "the rising House of Habsburg"
        words.pop(0)
    name = " ".join(words)
    if span.probability < 0.5 or not words or not words[-1][:1].isupper() or name.lower() in asked.lower():
        return None
    named, subject_words = _lemmas(name), _lemmas(subject)
    return None if named <= subject_words or subject_words <= named else name


MAX_COMMON_WORDS = 3
"""The most words of a thing in lower case an answer gives that a demonstrative alone may stand for."""
_DETERMINERS = frozenset({"its", "their", "his", "her", "some", "many", "most"})


def _common_name(words: list[str], asked: str, subject: str) -> str | None:
    """The thing a lower-case answer phrase names, for :func:`_answered_name`; None when it names none."""
    while words and words[0] in _ARTICLES | _DETERMINERS:
        words = words[1:]
    if not words or len(words) > MAX_COMMON_WORDS or not all(re.fullmatch(r"[a-z]+(?:-[a-z]+)*", w) for w in words):
        return None
    if "NOUN" not in parts_of_speech(words[-1]) or not all(
            parts_of_speech(w) & {"NOUN", "ADJ"} and w not in STOPWORDS for w in words):
        return None  # a list ("granites and schists"), a verb's phrase ("struck an iceberg"), a description
    name = " ".join(words)
    if set(words) <= _words(asked):
        return None
    named, subject_words = _lemmas(name), _lemmas(subject)
    return None if not named or named <= subject_words else name


_NAMING_JOINERS = frozenset({"of", "the", "with", "de", "del", "la", "von", "van"})
"""Lower-case words that may join the capitalised words of one name ("Bay of Biscay", "Rio de Janeiro", "Gone with
the Wind"); not "and", which joins names in a list more often than within a title."""


def _named_with(noun: str, answer: str) -> str | None:
    """The name the answer gives a thing of the noun's kind (``noun`` as :func:`american_noun` writes it): the
    capitalised words just after it, "of" allowed between when it names (:func:`_names_by_of`: "the suborder Zygoptera",
    "the city of Cleveland", not "the largest city of Mexico"), else just before it ("the Cucurbitaceae family", not
    "the Indian states"), or the name the noun is a word of ("the Empire of Japan"); None when the answer names none
    so."""
    words = list(WORD.finditer(answer))
    for i, word in enumerate(words):
        if american_noun(word.group().lower()) != noun:
            continue
        after = words[i + 1:]
        if word.group()[:1].isupper():  # the noun within a name: "the Empire of Japan", "Mexico City"
            before = _capitalised_run(answer, word, reversed(words[:i]), backwards=True)
            end = _capitalised_run(answer, word, after, within_name=True)
            if before or end:
                return answer[before[0].start() if before else word.start():end[-1].end() if end else word.end()]
            continue  # the noun alone, as a sentence opens with it: "Family is ..."
        if after and after[0].group() == "of" and _adjacent(answer, word, after[0]) and _names_by_of(words, i):
            after, word = after[1:], after[0]
        run = _capitalised_run(answer, word, after)
        if not run:
            run = _capitalised_run(answer, words[i], reversed(words[:i]), backwards=True)
            if run and not _names_before(words, words.index(run[0]), run):
                continue
        if run:
            return answer[run[0].start():run[-1].end()]
    return None


_ARTICLES = frozenset({"the", "a", "an"})


def _names_before(words: Sequence[re.Match[str]], start: int, run: Sequence[re.Match[str]]) -> bool:
    """Whether capitalised words before a noun name it ("the Cucurbitaceae family") rather than describe it: they
    follow an article (not a sentence's opening, "Many cities"), and none is a word the lexicon knows as an
    adjective or a people's word (:func:`_describes`: "a Dutch painter", "the Indian states")."""
    return (start > 0 and words[start - 1].group().lower() in _ARTICLES
            and not any(_describes(w.group().lower()) for w in run))


def _describes(word: str) -> bool:
    """Whether a capitalised word before a noun describes it: an adjective of the lexicon's, a people's word
    (:func:`~selfrag_langchain.chains.peoples.names_a_people`: "Dutch", "Roman") or a word ending as one does
    ("Baltic" aside, which the lexicon lacks: "-ian", "-ese")."""
    return "ADJ" in parts_of_speech(word) or names_a_people(word) or word.endswith(NATIONALITY_ENDINGS)


_BELONGING = frozenset({"capital", "main", "chief", "principal", "only", "major", "leading", "first", "last", "most",
                        "more", "less", "least"})
"""Words before a noun that make "of" after it say what the thing belongs to, not its name ("the capital city of
France", "the main river of Spain")."""
MAX_BEFORE_NOUN = 2
"""The most words between "the" and a noun whose "of" gives its name ("the northeastern Mexican state of ...")."""


def _names_by_of(words: Sequence[re.Match[str]], i: int) -> bool:
    """Whether "of" after ``words[i]`` (the noun) gives its name: the noun follows "the" and at most
    :data:`MAX_BEFORE_NOUN` describing words ("the city of Cleveland", "the Indian state of Andhra Pradesh",
    "the northeastern state of Nuevo León"), none of them a superlative ("-est", "most") or a word of rank
    (:data:`_BELONGING`: not "the largest city of Mexico", "the most populous city of ...")."""
    between = [w.group() for w in words[max(0, i - MAX_BEFORE_NOUN - 1):i]]
    if "the" not in (w.lower() for w in between):
        return False
    described = between[max(j for j, w in enumerate(between) if w.lower() == "the") + 1:]
    return not any(w.lower() in _BELONGING or w.lower().endswith("est") or w.lower() in ORDINALS
                   or not (w[:1].isupper() or "ADJ" in parts_of_speech(w.lower())) for w in described)


MAX_ABBREVIATION = 3
"""The most letters of a capitalised word a full stop may follow within a name ("St. Louis", "H. sapiens")."""


def _adjacent(text: str, first: re.Match[str], second: re.Match[str]) -> bool:
    """Whether only spaces stand between two words of ``text``, or a full stop after a short capitalised first one
    (an abbreviation within a name)."""
    gap = text[first.end():second.start()].strip()
    return not gap or (gap == "." and first.group()[:1].isupper() and len(first.group()) <= MAX_ABBREVIATION)


def _capitalised_run(text: str, anchor: re.Match[str], words: Iterable[re.Match[str]], *,
                     backwards: bool = False, within_name: bool = False) -> list[re.Match[str]]:
    """The capitalised words next to ``anchor`` in the order ``words`` walks away from it, with only spaces between
    (or an abbreviation's full stop), in the text's order: lower-case joiners (:data:`_NAMING_JOINERS`) within, not
    at either end, and stop words dropped from its start when walking backwards or ``within_name`` (the anchor is a
    word of the name, and a joiner may follow it: "Empire of Japan")."""
    run: list[re.Match[str]] = []
    last = anchor
    for word in words:
        first, second = (word, last) if backwards else (last, word)
        text_word = word.group()
        joins = text_word in _NAMING_JOINERS and (bool(run) or backwards or within_name)
        if not _adjacent(text, first, second) or not (text_word[:1].isupper() or joins):
            break
        run.append(word)
        last = word
    if backwards:
        run.reverse()
    while run and (run[0].group().lower() in STOPWORDS if backwards or within_name
                   else run[0].group() in _NAMING_JOINERS):
        run.pop(0)
    while run and run[-1].group() in _NAMING_JOINERS:
        run.pop()
    return run


_WORD_OR_COMMA = re.compile(f"{WORD.pattern}|,")
KIND_WINDOW = 10
"""The most words after "is" within which a definition of the subject names its kind ("Monterrey is the capital and
largest city of ...")."""


def _definitions(subject: str, messages: Sequence[BaseMessage]) -> Iterator[list[str]]:
    """The phrases the conversation's answers (not declined ones) define the subject by, in lower case: after a
    clause that names the subject (an apposition between commas allowed: "Malvaceae, or the mallows, is a family
    ..."), then "is" or "are", at most :data:`KIND_WINDOW` words that still say what it is
    (:func:`_within_definition`): "a genus of perennial" for "Colchicum is a genus of perennial flowering plants",
    nothing of "Monterrey lies near Linares, which is a city ..."."""
    named = _lemmas(_plain(subject))
    if not named:
        return
    for message in messages:
        if message.type != "ai" or str(message.content).startswith(DECLINED):
            continue
        for sentence in split_sentences(CITATION_MARKER.sub("", str(message.content))):
            words = [w.lower() for w in _WORD_OR_COMMA.findall(sentence)]
            opened = -1  # the last word that opened a clause
            for i, word in enumerate(words):
                if word in _RELATIVES:
                    opened = i
                clause = words[opened + 1:i]
                if (word not in _COPULAS or not named <= _lemmas(" ".join(clause))
                        or any(w.endswith(("'s", "’s")) for w in clause)):  # "Rembrandt's teacher was ..."
                    continue
                yield list(itertools.takewhile(_within_definition, words[i + 1:i + 1 + KIND_WINDOW]))


def _defined_as(subject: str, noun: str, messages: Sequence[BaseMessage]) -> bool:
    """Whether an answer of the conversation defines the subject as a thing of the noun's kind (``noun`` as
    :func:`american_noun` writes it), the noun within a phrase of :func:`_definitions`: "Colchicum is a genus of ..."
    for "this genus", not "Monterrey lies near Linares, which is a city ..." for "that city"."""
    return any(american_noun(w) == noun for phrase in _definitions(subject, messages) for w in phrase)


def _defined_kinds(subject: str, messages: Sequence[BaseMessage]) -> set[str]:
    """The words the subject's definitions (:func:`_definitions`) call it by, as written: those before the phrase's
    first "of" and not just after "the" ("perennial" and "plant" of "a perennial plant of the family Brassicaceae",
    "largest" and "city" of "the capital and largest city of the state ...", "port", "city" and "municipality" of "a
    major port city and municipality"); not what the definition names after "of" or "the" ("family", "state",
    "capital")."""
    kinds = set()
    for phrase in _definitions(subject, messages):
        head = list(itertools.takewhile(lambda w: w != "of", phrase))
        kinds.update(w for k, w in enumerate(head) if k == 0 or head[k - 1] != "the")
    return kinds


_RELATIVES = frozenset({"that", "which", "who", "whose", "where", "when", "while"})
"""The words that open a clause: what comes after one is not said of the sentence's subject ("Monterrey lies near
Linares, which is a city ...")."""
_CLAUSE_OPENERS = _RELATIVES | {","}
"""A comma and the words that open a clause, which end the phrase a definition names the subject's kind in."""


_NOT_DEFINING = (_PLACE_PREPOSITIONS - {"of"}) | {"not", "never", "no", "than", "like", "as", "born", "made"}
"""Words after "is" that say where, how or what the subject is not, rather than what it is ("is in a city", "is not a
country", "was born in a small city", "is made by a fungus")."""


def _within_definition(word: str) -> bool:
    """Whether a word after "is" still belongs to the phrase that says what the subject is: not a comma, a word
    that opens a clause ("which", "while"), a participle ("containing", "flowering") or a word of
    :data:`_NOT_DEFINING`."""
    return (word not in _CLAUSE_OPENERS and word not in _NOT_DEFINING
            and not (word.endswith(("ing", "ed")) and "VERB" in parts_of_speech(word)))


def _names_a_kind(subject: str) -> bool:
    """Whether the subject's title is a common noun, a kind of thing "one" can stand for ("Emerald", "Tower block"),
    rather than a name ("Eiffel Tower", "Mona Lisa")."""
    words = _plain(subject).split()
    return bool(words) and all(w.islower() for w in words[1:]) and "NOUN" in parts_of_speech(words[-1].lower()) \
        and bool(parts_of_speech(words[0].lower()))


_DEFINITE = re.compile(r"\bthe\s+([A-Za-z]+)(?:['’]s)?\b", re.IGNORECASE)
_BINDING = frozenset({"of", "that", "which", "who", "whom", "whose", "where", "when", "with"})
"""Words after a noun that say which one it is ("the plant of the year", "the plant that ...", "the plant with the
hottest root"): a description of its own, not the subject's."""
_ASKING = re.compile(r"\b(?:which|what)\b(?:\s+(?:kind|sort|type)\s+of\b)?", re.IGNORECASE)
"""Where a question starts to say the thing it asks for: after "which" or "what", "kind of" aside ("Which plant
family ...", "what kind of field ...")."""
MAX_ASKED_WORDS = 3
"""How many words after "which" or "what" are read for the thing a question asks for ("Which Roman emperor's")."""
_PASSED_OVER = frozenset({"other", "another"})
"""Words between "which" and the noun asked for that say nothing of it ("Which other cities ...")."""
_ASKS_WHERE = re.compile(r"\W*(?:(?:and|so|then|but)\s+)?(?:from\s+)?where\b", re.IGNORECASE)
"""A question that opens asking where ("Where are the Sioux from?"; not "the town where he was born")."""
PLACES_ASKED = frozenset(american_noun(unit) for unit in BIRTHPLACE_UNITS) - {"part"}
"""The places a question asking where asks for ("Where are the Sioux from?" then "that region"); not "part",
which "that part" uses for a part of the thing itself."""


def _plain(subject: str) -> str:
    """A subject's title without its bracketed qualifier ("Puya" for "Puya (plant)"): the passages name the
    subject, not the qualifier."""
    return DISAMBIGUATION.sub("", subject).strip() or subject


def asked_nouns(question: str) -> set[str]:
    """The nouns ``question`` asks for by "which" or "what" (:data:`_ASKING`), as :func:`american_noun` writes them: the
    last of up to :data:`MAX_ASKED_WORDS` nouns and adjectives, read up to a verb, a function word or a name the lexicon
    lacks, and not past a possessive ("field" of "... important to which field?", "family" of "Which plant family does
    ...", "emperor" of "Which Roman emperor's guard ...", "city" of "Which French city hosts ...", "religion" of "Which
    religion later influenced ...")."""
    nouns: set[str] = set()
    for match in _ASKING.finditer(question):
        head: str | None = None
        for typed in question[match.end():].split()[:MAX_ASKED_WORDS]:
            possessive = typed.endswith(("'s", "’s", "'", "’"))
            word = typed.removesuffix("'s").removesuffix("’s").rstrip("'’").strip("?.!,;:\"()").lower()
            if word in _PASSED_OVER:
                continue
            pos = parts_of_speech(word)
            a_name = not pos and typed[:1].isupper() and not _describes(word)  # "Euphorbiaceae", not "Roman"
            a_verb = head is not None and (("VERB" in pos and (word.endswith("s") or head != noun_lemma(head)))
                                           or ("ADV" in pos and "NOUN" not in pos))  # "later" of "... religion later"
            if (not word.isalpha() or word in STOPWORDS or word in _BE_WORDS | _AUXILIARIES
                    or (pos and not pos & {"NOUN", "ADJ"}) or a_name or a_verb):
                break  # "hosts" of "Which French city hosts ...", "live" of "What animals live ..."
            head = word
            if possessive or typed[-1] in "?.!,;:":
                break
        if head is not None:
            nouns.add(american_noun(head))
    return nouns


def _called_by(noun: str, typed: str, asked: str) -> str | None:
    """The name ``asked`` gives a thing of the noun's kind (``noun`` as :func:`american_noun` writes it, ``typed`` as
    the follow-up writes it, whose number it must have) just after "the" and the noun: "Colchicum" of "Which family is
    the genus Colchicum a member of?"; not "Beatles" of "Which of the Beatles albums ...", nor "Napoleon" of "the army
    of Napoleon"."""
    words = list(WORD.finditer(asked))
    for i, word in enumerate(words[1:-1], start=1):
        text = word.group()
        if (american_noun(text.lower()) != noun or not _same_number(text.lower(), typed.lower())
                or words[i - 1].group().lower() != "the"):
            continue
        run = _capitalised_run(asked, word, words[i + 1:])
        if run:
            return asked[run[0].start():run[-1].end()]
    return None


def _same_number(word: str, other: str) -> bool:
    """Whether two nouns are both singular or both plural ("plant" and "plant", not "plants")."""
    return (word == noun_lemma(word)) == (other == noun_lemma(other))


def _describes_alone(question: str, match: re.Match[str]) -> bool:
    """Whether "the" and its noun at ``match`` stand alone as a description, rather than with what follows: not
    before a word that says which one it is (:data:`_BINDING`), a participle ("the plant used for wasabi"), a name
    ("the plant Wasabi") or a noun it modifies ("the plant family")."""
    rest = question[match.end():].split()
    typed = rest[0].strip("?.!,;:") if rest else ""
    following = typed.lower()
    pos = parts_of_speech(following)
    return not (following in _BINDING or typed[:1].isupper()
                or ("VERB" in pos and following.endswith(("ed", "en")))
                or ("NOUN" in pos and "VERB" not in pos and following not in STOPWORDS
                    and not following.endswith(("self", "selves"))))  # "the plant itself"


def subject_description(question: str, subject: str, messages: Sequence[BaseMessage]) -> re.Match[str] | None:
    """Where a follow-up that does not name the subject calls it by its kind: "the" and a word a definition of it in
    the conversation calls it by (:func:`_defined_kinds`: "where is the plant itself from?" after "Horseradish is a
    perennial plant ..."), or the last word of a title that names a kind ("the shark" of "Hammerhead shark"; not
    "Properties of water"), in the same number; not a noun that says which one it is or modifies another
    (:func:`_describes_alone`), a noun of time or of what was said ("the year", "the case"), nor one the question
    asks which of ("Which plant is the plant used for wasabi?"). "The" must come just before it: "the largest
    plant" is another. None when it names the subject or calls it by no kind."""
    if names_subject(question, subject):
        return None
    kinds = _defined_kinds(subject, messages)
    plain = _plain(subject)
    title = plain.split()
    if _names_a_kind(plain) and not {"of", "in"} & set(title):
        kinds.add(title[-1].lower())
    asked = asked_nouns(question)
    for match in _DEFINITE.finditer(question):
        word = match.group(1).lower()
        if (word in _NOT_REFERRING or word in _TIMES or word in _NOT_A_THING or "NOUN" not in parts_of_speech(word)
                or american_noun(word) in asked or not _describes_alone(question, match)):
            continue
        if any(american_noun(kind) == american_noun(word) and _same_number(kind, word) for kind in kinds):
            return match
    return None


def conversation_subjects(messages: Sequence[BaseMessage]) -> list[str]:
    """The subjects recorded with the conversation's turns, the latest first, each once; without any, the one
    :func:`conversation_subject` reads from the citations, if any."""
    recorded = [str(m.additional_kwargs["subject"]) for m in reversed(messages)
                if m.type == "human" and m.additional_kwargs.get("subject")]
    if recorded:
        return list(dict.fromkeys(recorded))
    latest = conversation_subject(messages)
    return [latest] if latest is not None else []


def described_subject(question: str, messages: Sequence[BaseMessage]) -> tuple[str, re.Match[str]] | None:
    """The latest subject of the conversation that the follow-up calls by its kind (:func:`subject_description`),
    and where: "Back to the plant itself: where is it from?" after horseradish and then its family is about
    horseradish, which the conversation defined as a plant; None when it calls none so."""
    for subject in conversation_subjects(messages):
        found = subject_description(question, subject, messages)
        if found is not None:
            return subject, found
    return None


_ITS = frozenset({"it", "its"})
"""The pronouns that, after a description of a subject, stand for the same ("Back to the plant itself: where is it
from?"); "he", "they" or "that family" may be another."""


def with_description(question: str, described: tuple[str, re.Match[str]] | None) -> str | None:
    """``question`` with its description of a subject (``described``, :func:`described_subject`) replaced by the
    subject ("Where is Horseradish itself from?" for "Where is the plant itself from?"), and an "it" or "its" after
    it too ("Back to Parsnip itself: when does Parsnip's root get sweeter?"); None when it has none, or when a word
    that refers back comes first (:func:`referent` reads that one)."""
    first = reference(question)
    if described is None or (first is not None and first.start < described[1].start()):
        return None
    subject, found = described
    plain = _plain(subject)
    possessive = found.group()[-2:] in ("'s", "’s")
    replaced = question[: found.start()] + (f"{plain}'s" if possessive else plain) + question[found.end():]
    after = reference(replaced)
    return with_subject(replaced, plain) if after is not None and after.word.lower() in _ITS else replaced


def names_subject(text: str, subject: str) -> bool:
    """Whether ``text`` holds every content word of the subject's title (its qualifier left out)."""
    return _lemmas(_plain(subject)) <= _lemmas(text)


def _words(text: str) -> set[str]:
    """The text's words in lower case, pronouns among them (which :func:`content_words` leaves out)."""
    return {w.lower() for w in re.findall(r"[A-Za-z]+", text)}


def _lemmas(text: str) -> set[str]:
    """The text's content words as :func:`american_noun` writes them, to compare a name, a title and a noun."""
    return {american_noun(w) for w in content_words(text)}


_GOING_ON = re.compile(r"\s*(?:and|also|so|but|then|what about|how about|and what about)\b", re.IGNORECASE)
"""How a follow-up that goes on with the conversation opens ("And the colour?", "What about the population?")."""
_UNREAD = re.compile(
    r"\b(?:that|this|these|those|ones?)\b(?=\s*(?:[?.!]|$|[a-z]+(?:ed|en|ing)?\b(?!\s+(?:of|that|which)\b)))",
    re.IGNORECASE)
"""A demonstrative or "one" closing the question or before a word that does not go on with "of", "that" or "which":
where :func:`reference` leaves one unread, :func:`_points_back` reads whether it points back ("How is that
measured?", "How long does one last?", "What are those like?")."""


_ITS_NAME = re.compile(r"\bthe\s+(?:word|term|name)\b", re.IGNORECASE)
""""The word", "the term" or "the name", which :func:`_whose_unsaid` reads as the subject's own or not."""
_CLOSING_OR_ITS = re.compile(r"\s*(?:['’]s\b|[?.!]|$)")
"""The end of the question or a possessive "'s" after the word, term or name ("the name's origin")."""
_SAYING_WHICH = _PLACE_PREPOSITIONS | _TIME_PREPOSITIONS | _RELATIVES | _NAMING_PARTICIPLES | {"coined", "given"}
"""Words after "the word", "the term" or "the name" that go on to say which ("the term for ...", "the name given
to ...")."""


def _whose_unsaid(question: str, match: re.Match[str]) -> bool:
    """Whether the word, term or name at ``match`` (:data:`_ITS_NAME`) is asked about without saying whose, so the
    subject's own: it closes the question or takes a possessive "'s" ("the name's origin"), or a verb or an adverb
    follows it ("Which language does the word come from?", "Is the term only used for ...?"); not a word that says
    which (:data:`_SAYING_WHICH`: "the term for ...", "the name of ..."), a participle in "-ing" ("the word
    meaning ..."), the word itself ("the word photosynthesis") or a quotation."""
    rest = question[match.end():]
    if _CLOSING_OR_ITS.match(rest):
        return True
    following = rest.split()[0].strip("?.!,;:").lower()
    return (following.isalpha() and following not in _SAYING_WHICH and not following.endswith("ing")
            and bool(parts_of_speech(following) & {"VERB", "ADV", "AUX"}))


def asks_unnamed(question: str) -> bool:
    """Whether a follow-up asks about something it neither names nor refers to with a word :func:`reference`
    reads, and shows it goes on with the conversation: it has no name of its own
    (:func:`~selfrag_langchain.chains.names.asked_names`), and it opens as a follow-up does ("And the colour?",
    "What about the population?") or points back with a word left unread ("How is that measured in biology?",
    "How long does one last?") or asks about the word, term or name without saying whose (:func:`_whose_unsaid`:
    "Which language does the word come from?"). In a conversation it asks about the conversation's subject, which a
    search for its words alone does not find; a new question that names nothing ("How does photosynthesis work?")
    is asked as it is. A word the lexicon lacks that is a noun after a prefix is no name, nor a language before
    "word" (:func:`_own_names`)."""
    if reference(question) is not None or _own_names(question):
        return False
    return (bool(_GOING_ON.match(question)) or any(_points_back(question, m) for m in _UNREAD.finditer(question))
            or any(_whose_unsaid(question, m) for m in _ITS_NAME.finditer(question)))


_LANGUAGE = re.compile(r"\b([A-Za-z]+)\s+(?:words?|names?|terms?)\b")
"""A word before "word", "name" or "term": a language (:data:`~selfrag_langchain.chains.peoples.LANGUAGES`) or a
people's word is the language the word is of ("Which Latin word ...", "the Greek name"), a name is not ("the Google
name")."""


def _own_names(question: str) -> list[str]:
    """The follow-up's names (:func:`~selfrag_langchain.chains.names.asked_names`) but a word the lexicon lacks that
    is a noun it knows after a prefix (:func:`_prefixed_noun`: "And the superfamily?" names nothing) and a
    language before "word", "name" or "term" (:data:`_LANGUAGE`: "Which Latin word does the term come from?")."""
    languages = {word for m in _LANGUAGE.finditer(question) if (word := m.group(1).lower()) in LANGUAGES
                 or _describes(word)}
    return [name for name in asked_names(question) if not _prefixed_noun(name) and name not in languages]


_NOUN_PREFIXES = ("sub", "super", "infra", "supra", "inter", "intra", "micro", "macro", "mega", "multi", "non", "semi",
                  "pseudo", "proto", "hyper", "hypo", "ultra")
MIN_PREFIXED_NOUN = 4
"""The fewest letters of the noun after a prefix in :func:`_prefixed_noun`."""


def _prefixed_noun(word: str) -> bool:
    """Whether a (lower-cased) word the lexicon lacks is a noun it knows after a prefix ("superfamily", "suborder",
    "infraorder"), a common noun rather than a name."""
    return not parts_of_speech(word) and any(
        word.startswith(prefix) and len(word) - len(prefix) >= MIN_PREFIXED_NOUN
        and "NOUN" in parts_of_speech(word[len(prefix):]) for prefix in _NOUN_PREFIXES)


def _points_back(question: str, match: re.Match[str]) -> bool:
    """Whether the demonstrative or "one" at ``match`` points back: "one" not as a number before a noun, and a
    demonstrative not opening a clause after a noun ("the theory that explains ...")."""
    word = match.group().lower()
    nxt = question[match.end():].split()
    following = nxt[0].strip("?.!,").lower() if nxt else ""
    if word in {"one", "ones"}:
        return not following or "VERB" in parts_of_speech(following) or "ADV" in parts_of_speech(following)
    previous = _word_before(question, match.start())
    return previous is None or previous in _BEFORE_DEMONSTRATIVE or "VERB" in parts_of_speech(previous)


def adds_nothing(rewrite: str, question: str) -> bool:
    """Whether a rewrite adds no content word to the follow-up (it echoes it), so that it says no more than it."""
    return set(content_words(rewrite)) <= set(content_words(question))


def with_topic(question: str, subject: str) -> str:
    """A follow-up that names nothing (:func:`asks_unnamed`), or whose reference stands for nothing the conversation
    names (:func:`referent` is None), with the subject it asks about in brackets after it ("And the colour?
    (Properties of water)"): retrieval looks for the subject, and the names rule asks the passages to name it. A
    title's bracketed qualifier is left out ("(Puya)" for "Puya (plant)"): the passages name the subject, not the
    qualifier."""
    return f"{question.strip()} ({_plain(subject)})"


def with_subject(question: str, subject: str) -> str:
    """``question`` with its first word that refers back (:func:`reference`) replaced by ``subject``: "its"
    by "subject's", "there" by "in subject", a demonstrative with its noun ("that city") or "one" by the
    subject; the question unchanged when nothing in it refers back."""
    found = reference(question)
    if found is None:
        return question
    word = found.word.lower()
    rest = question[found.end:]
    possessive = found.kind == "pronoun" and (
        word in _POSSESSIVE or (word == "her" and not _NOT_A_NOUN.match(rest)))
    if possessive:
        replacement = f"{subject}'s"
    elif found.kind == "pronoun" and word == "there":
        replacement = f"in {subject}"
    else:
        replacement = subject
    return question[: found.start] + replacement + rest
