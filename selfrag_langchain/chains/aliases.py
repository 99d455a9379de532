"""Whether a sentence gives the other name a question asks for by opening with both names.

"An elevator or lift is a machine that vertically transports people ..." answers "What other name is an elevator
known by?": the sentence names its subject twice, joined by "or", before it says anything of it. The answer
finder, trained on SQuAD, where openings like it are rare, reads the pair as a name and the sentence as holding
no answer (0.002, pointing at "An elevator or lift"), while "An elevator, also called a lift, is ..." reads 0.98.
So a sentence that opens with the question's subject and another name joined by "or" (after commas or a bracket
as well: "An antibody (Ab), or immunoglobulin (Ig), is ...") holds the answer to a question asking another name
(:func:`gives_asked_name`), and the quoter reads it so
(:class:`~selfrag_langchain.chains.quotes.PassageQuoter`). One of the two names must be the one the question
names, whole ("the diesel engine" is not named by "An engine or motor is ..."), and the other must hold a word the
question does not (in any number: "elevators" is "elevator"). The opening cannot tell two names of one thing from
two things ("Cats or dogs are ..."); a question asking another name of one of them is rare, and the sentence is
then still the one whose subject it asks about. Likewise a sentence that spells out an abbreviation, with the
abbreviation in brackets after its words ("A light-emitting diode (LED) is ..."), answers what the abbreviation
stands for, and one that writes a name in full ("Alan John Percivale Taylor") what its initials stand for ("A. J. P.
Taylor"; :func:`gives_expansion`). And a question that writes an abbreviation is read, against a passage whose title
it abbreviates and which spells it out, as the title (:func:`in_full`): "What year was MIT founded?" of the
Massachusetts Institute of Technology's article. So too a sentence that opens with the question's person under a
fuller name ("Eldred Gregory Peck was an American actor.") answers a question asking their full, first or middle
name ("What was Gregory Peck's actual first name?", :func:`gives_full_name`), which the finder reads as holding no
answer: of SQuAD's 23 training questions asking such a name whose answer lies in one sentence, 5 answer sentences
open so, against none of the same paragraphs' 66 other sentences.
"""

from __future__ import annotations

import functools
import re

from selfrag_langchain.chains.answer_kinds import NAME_JOINERS, asks_relative
from selfrag_langchain.chains.names import NATIONALITY_ENDINGS, PHRASE_OPENERS, asked_names, initials
from selfrag_langchain.chains.peoples import other_names
from selfrag_langchain.judging.claims import DISAMBIGUATION
from selfrag_langchain.judging.signals import STOPWORDS, folded
from selfrag_langchain.text.lexicon import parts_of_speech
from selfrag_langchain.text.numerals import ROMAN
from selfrag_langchain.text.spelling import american_noun

__all__ = ["asks_full_name", "asks_other_name", "gives_asked_name", "gives_expansion", "gives_full_name", "in_full"]

_ASKS_OTHER_NAME = re.compile(
    r"\b(?:another|other|alternative|alternate)\s+(?:\w+\s+)?names?\b"
    r"|\b(?:also|otherwise|commonly|popularly|usually|often|sometimes)\s+(?:called|known|named|referred)\b"
    r"|\belse\b.{0,60}\b(?:called|known|named)\b",
    re.IGNORECASE)
"""How a question asks for another name of its subject: "another name for", "by what other name", "also known
as", "what else is ... called"."""
_NAMING_WORDS = frozenset(("called", "known", "named", "nicknamed", "referred", "termed", "name", "names"))
"""Words of naming, which may stand beside the subject in a question without being part of its name."""
_WORDS = re.compile(r"\w+")
_VERB = r"(?:is|are|was|were|refers?|has|have)\b"
"""The verbs that end a sentence's opening names."""
_NAME = rf"(?!{_VERB})[^\W\d_][\w'’\-]*(?: (?!{_VERB})[\w'’\-]+){{0,5}}?"
"""A name of at most six words: no comma, bracket or other mark within it, and no verb."""
_BRACKET = r"(?: \([^()]{1,40}\))?"
"""An abbreviation or gloss in brackets after a name ("An antibody (Ab)")."""
_ARTICLE = r"(?:the |an? )?"
_HEDGE = r"(?:(?:\w+ly|just) )?"
"""A word that may stand before the last name of a list ("or simply the Golgi", "or generally a gravitational
slingshot")."""
_SETTING = rf"(?!(?:{'|'.join(sorted(PHRASE_OPENERS))})\s)"
"""Not a phrase that sets the scene ("In most buildings, an elevator or lift is ..."), which a list's first name
would otherwise be read as."""
_OPENING_ALTERNATIVE = re.compile(
    rf"(?:^|: ){_ARTICLE}{_SETTING}(?P<first>{_NAME}){_BRACKET}(?P<middle>(?:, {_ARTICLE}{_NAME}{_BRACKET}){{0,5}})"
    rf",? or {_HEDGE}{_ARTICLE}(?P<last>{_NAME}){_BRACKET}(?:,| {_VERB})",
    re.IGNORECASE)
"""A sentence (or a titled one, "Elevator: An elevator or lift is ...") that opens with names joined by "or", two
or a list of them ("A gravity assist, gravity assist maneuver, swing-by, or generally a gravitational slingshot
...") before its verb or a comma."""
_LISTED = re.compile(rf", {_ARTICLE}(?P<name>{_NAME}){_BRACKET}", re.IGNORECASE)
"""One name of the middle of such a list."""


def asks_other_name(question: str) -> bool:
    """Whether the question asks for another name of what it names ("What is another name for an abacus?")."""
    return bool(_ASKS_OTHER_NAME.search(question))


def gives_asked_name(question: str, sentence: str) -> bool:
    """Whether ``sentence`` opens with the question's subject and another name for it, joined by "or", and the
    question asks for another name (the module's docstring)."""
    if not asks_other_name(question):
        return False
    opening = _OPENING_ALTERNATIVE.search(folded(sentence))
    if opening is None:
        return False
    asked = _lemmas(question)
    listed = [opening.group("first"), *(m.group("name") for m in _LISTED.finditer(opening.group("middle"))),
              opening.group("last")]
    names = [_lemmas(name) for name in listed]
    return any(_names_subject(asked, name, names) for name in names) and any(set(name) - set(asked)
                                                                             for name in names)


def _names_subject(words: list[str], name: list[str], names: list[list[str]]) -> bool:
    """Whether the question (``words``, its lemmas) names ``name`` (lemmas) as a whole: its words in a row, not
    within a longer name ("an elevator known by", not "the diesel engine" for "engine", nor "elevator shaft"),
    unless the longer name is another of the sentence's ``names`` ("the gravity assist manoeuvre" when the sentence
    names "gravity assist maneuver" beside "gravity assist")."""
    size = len(name)
    return size > 0 and any(
        words[i:i + size] == name and not _within_name(words[i - 1] if i else "")
        and (not _within_name(words[i + size] if i + size < len(words) else "")
             or any(other[:size + 1] == words[i:i + size + 1] for other in names))
        for i in range(len(words) - size + 1))


def _within_name(word: str) -> bool:
    """Whether a word beside a name in the question makes that name part of a longer one: a content word that is
    no word of naming ("called", "known")."""
    return bool(word) and word not in STOPWORDS and word not in _NAMING_WORDS


def _lemmas(text: str) -> list[str]:
    """The words of ``text`` read as nouns in their dictionary form ("elevators" is "elevator") and spelt the
    American way ("manoeuvre" is "maneuver"), lower-cased and without accents, a possessive "'s" dropped."""
    return [american_noun(word)
            for word in _WORDS.findall(folded(text).lower().replace("'s", "").replace("’s", ""))]


_ASKS_EXPANSION = re.compile(
    r"\b(?:stands?|stood|short)\s+for\b|\b(?:abbreviation|acronym|initialism)\s+(?:of|for)\b"
    r"|\b(?:do|does|did)\b[^?]*\bmean\b|\bmeaning\s+of\b|\bfull\s+(?:name|form)\b|\bspel(?:l|ls|led|t)\s+out\b",
    re.IGNORECASE)
"""How a question asks what an abbreviation stands for ("stand for", "short for", "an abbreviation of", "What does
NASA mean?", "the full name of", "spelt out"); not one that asks something else of it ("What French phrase lies
behind the abbreviation UTC?", "the mean temperature in NYC")."""
_ABBREVIATION = re.compile(r"\b[A-Z][A-Z0-9]{1,7}\b")
"""An abbreviation as a question writes it: two to eight capitals (a digit after the first), "LED", "HTML"."""
_STANDALONE = r"(?<![\w&/-]){}(?![\w&/-])"
"""An abbreviation that stands alone: not part of a longer one written with "&", "/" or "-" ("AT&T", "AC/DC")."""
_STANDING_ABBREVIATION = re.compile(_STANDALONE.format(_ABBREVIATION.pattern))
_LEADING_THE = re.compile(r"^the\s+", re.IGNORECASE)


def gives_expansion(question: str, sentence: str) -> bool:
    """Whether the question asks what an abbreviation it names stands for ("What does the abbreviation LED stand
    for?") and ``sentence`` writes that abbreviation in brackets after its words ("A light-emitting diode (LED) is
    ..."): the way a text spells an abbreviation out, which the shipped answer finder points at but reads as holding
    no answer (0.014 for that sentence, below its threshold). Likewise a name's initials ("What did the initials
    in the name of the historian A. J. P. Taylor stand for?") are spelt out by a sentence that writes the name in
    full ("Alan John Percivale Taylor was an English historian ..."), which the finder reads at 0.0001."""
    folded_sentence = folded(sentence)
    return any(spelled.search(folded_sentence) is not None
               for spelled in (_spelled_out(question), _spelled_initials(question)) if spelled is not None)


_FULLER = "full|given|first|christian|middle|complete"
"""The words before "name" that ask a person's fuller name."""
_ASKS_FULL_NAME = re.compile(rf"\b(?:{_FULLER})\s+names?\b", re.IGNORECASE)
"""How a question asks a person's fuller name: "full name", "actual first name", "middle name". Not a real or
birth name: a fuller form of a pen or stage name ("Vladimir Lenin") is not the name behind it."""
_ASKS_WHAT = re.compile(r"\W*(?:what|which)\b", re.IGNORECASE)
_OTHERS = re.compile(rf"['’]s?\s+(?!(?:actual|{_FULLER})\b)[a-z]")
"""A possessive before a lower-case word: the name asked is another's ("the Titanic's captain", "the Beatles'
manager")."""
_OPENING_NAME = re.compile(
    r"(?:^|: )\W*((?:(?:[A-Z][\w'’.-]*|\"[^\"]{1,20}\"|" + "|".join(sorted(NAME_JOINERS)) + r")\s+){0,8}"
    r"[A-Z][\w'’-]*)")
"""The run of capitalised words (a nickname in quotation marks, a joining particle: "Dwight David "Ike" Eisenhower",
"Ludwig van Beethoven") a sentence opens with, after a title and colon when it is titled."""


def asks_full_name(question: str) -> bool:
    """Whether ``question`` asks what a person's full, first or middle name is, not a relative's or another's, nor
    something else about the name ("What was Gregory Peck's actual first name?", not "What was Gregory Peck's
    father's first name?", "What was the first name of the Titanic's captain?" nor "At what age did Bell ask for a
    middle name?")."""
    return (bool(_ASKS_WHAT.match(question)) and bool(_ASKS_FULL_NAME.search(question))
            and not asks_relative(question) and not _OTHERS.search(question))


def gives_full_name(question: str, sentence: str) -> bool:
    """Whether the question asks a fuller name (:func:`asks_full_name`) and ``sentence`` opens with one: a run of
    capitalised words that ends with the question's last name, holds every other, and holds a word besides that
    is no function word and that English's lexicon does not know as a noun, an adjective or an adverb ("Eldred
    Gregory Peck was ..." for Gregory Peck, "Dwight David "Ike" Eisenhower" for his middle name; not "Actor
    Gregory Peck", "Legendary Gregory Peck", "When Gregory Peck was ten", "Gregory Peck Jr." nor "George
    Washington Carver")."""
    if not asks_full_name(question):
        return False
    names = [name for name in asked_names(question) if not name.isdigit()]
    if not names:
        return False
    text = folded(sentence)
    for opening in (_OPENING_NAME.match(text), _OPENING_NAME.search(text, text.find(": ")) if ": " in text else None):
        if opening is None:
            continue
        words = [word.strip(".,'’\"").lower() for word in opening.group(1).split()]
        if (words[-1] == names[-1] and set(names) <= set(words)
                and any(word not in names and word not in STOPWORDS and len(word) > 1
                        and not parts_of_speech(word) & {"NOUN", "ADJ", "ADV"} for word in words)):
            return True
    return False


def in_full(question: str, title: str | None, passage: str) -> str:
    """The question as the passage names things: each abbreviation it writes that the passage's ``title`` spells
    (its words' initials) and the passage spells out, with the abbreviation in brackets after the words ("The
    Massachusetts Institute of Technology (MIT) is ..."), written as the title. A sentence is read after its
    title, and neither model reads a title as the abbreviation: "Founded in 1861 ..., the university ..." read
    after "Massachusetts Institute of Technology" holds an answer to "What year was MIT founded?" at 0.035 for
    the answer finder, and to "What year was Massachusetts Institute of Technology founded?" at 0.98. A question
    that asks what the abbreviation stands for (:func:`gives_expansion`), one that already writes the title, a Roman
    numeral ("Philip II"), and an abbreviation within a longer name or a question typed in capitals (a capitalised
    word beside it: "The IT Crowd", "WHO IS THE HEAD OF THE WHO?") are left as written; a title's leading "The" gives
    way to the question's own article ("the OU" is "the Open University")."""
    standing = _standing_alone(question)
    if not standing or not title or _ASKS_EXPANSION.search(question):
        return question
    name = DISAMBIGUATION.sub("", title).strip()
    bare = _LEADING_THE.sub("", name)
    if folded(bare).lower() in folded(question).lower():
        return question
    spelled = initials(name)
    for match in reversed(standing):  # from the end, so that the earlier places stay where they are
        abbreviation = match.group()
        if (abbreviation.lower() == spelled and abbreviation.lower() not in ROMAN
                and re.search(rf"\w\s*\(\s*{abbreviation}\s*[),;]", passage) is not None):
            article = re.search(r"\bthe\s+$", question[:match.start()], re.IGNORECASE) is not None
            question = question[:match.start()] + (bare if article else name) + question[match.end():]
    return question


def _standing_alone(question: str) -> list[re.Match[str]]:
    """Where the question writes an abbreviation on its own: not within a longer name (a capitalised word right
    after it, or right before it other than a sentence's first word, a possessive or a people's adjective: "The IT
    Crowd", "MIT Press", "Scale AI", not "Vancouver's NHL team" or "the Dutch EIC"), nor joined to another by "&",
    "/" or "-"."""
    found = []
    for match in _STANDING_ABBREVIATION.finditer(question):
        ahead, behind = question[:match.start()], question[match.end():]
        before, after = re.search(r"(\S+)\s+$", ahead), re.match(r"\s+(\S+)", behind)
        name_before = (before is not None and before.group(1)[0].isupper()
                       and re.search(r"['’]s?$", before.group(1)) is None  # a possessive
                       and not _people(before.group(1))
                       and re.search(r"(?:^|[.?!:;]\s+)\S+\s+$", ahead) is None)  # a sentence's first word
        name_after = after is not None and after.group(1)[0].isupper()
        if not (name_before or name_after):
            found.append(match)
    return found


def _people(word: str) -> bool:
    """Whether a word names a people or its country's adjective ("Dutch", "Chinese"), which describes the name after
    it rather than begins it."""
    lowered = word.lower()
    return bool(other_names(lowered)) or lowered.endswith(NATIONALITY_ENDINGS)


_INITIALS = re.compile(r"\b((?:[A-Z]\. ?){1,4})([A-Z][a-z]+(?:-[A-Z]?[a-z]+)*)")
"""A name with initials as a question writes it: "A. J. P. Taylor", "H.G. Wells"."""


@functools.lru_cache(maxsize=256)
def _spelled_initials(question: str) -> re.Pattern[str] | None:
    """How a sentence writes in full the name whose initials the question asks the meaning of: a word for each
    initial, in order, then the surname, a nickname in quotes or brackets allowed before it ("David Herbert
    Lawrence" for "D. H. Lawrence"); None when the question asks no such thing."""
    if not _ASKS_EXPANSION.search(question):
        return None
    names = _INITIALS.findall(folded(question))
    if not names:
        return None
    spelled = [r" ".join(rf"{letter}[\w'’-]+" for letter in re.findall(r"[A-Z]", initials))
               + rf" (?:[\"“(][^\"”)]{{1,30}}[\"”)] )?{re.escape(surname)}\b"
               for initials, surname in names]
    return re.compile(rf"\b(?:{'|'.join(spelled)})")


@functools.lru_cache(maxsize=256)
def _spelled_out(question: str) -> re.Pattern[str] | None:
    """How a sentence spells out the abbreviations the question asks the meaning of, or None when it asks none:
    read once per question, as every sentence of every passage found is read against it."""
    if not _ASKS_EXPANSION.search(question):
        return None
    abbreviations = _ABBREVIATION.findall(folded(question))
    return re.compile(rf"\w\s*\(\s*(?:{'|'.join(abbreviations)})\s*[),;]") if abbreviations else None
