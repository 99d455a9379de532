"""Whether the passages found name what the question names.

A question about Greta Thunberg is not answered by a passage about Greta Garbo, however close its topic:
the judge's IsRel reads topic and wording, so a passage that names nothing the question names can still look
relevant. Names are the question's capitalised words and numbers (a sentence's first word when English's
lexicon does not know it; not a nationality that describes what is asked for, "In which European state ...":
:func:`describing_words`), or, in a question that capitalises none, its numbers and the words the lexicon does
not know (:func:`asked_names`); a passage holds a name in any form of it, a place's adjective and a word
derived from it included (a collective in "-ry" too, "Freemasonry" for "freemasons", a long word with another
ending, "hypothermia" for "hypothermic", a people's adjective, "Celtic" for "Celts", and a long word the lexicon
knows for one a letter from it, "division" for "divison"), the place for its people's word where they share no
stem ("France" for "French": :mod:`~selfrag_langchain.chains.peoples`), a short form by its word ("television"
for "TV": :data:`SHORT_FORMS`), a decade by a year within it ("1765" for "the 1760s": :func:`decade_prefix`), a
round year by the decade it opens ("2000" for "the early 2000s"), a century's hundreds by its ordinal ("the 19th
century" for "the 1800s") and an ordinal in figures by its word ("eighteenth" for "18th": :func:`number_forms`;
:func:`holds`). Three rules read them, with one threshold
(:attr:`~selfrag_langchain.chains.controls.LoopSettings.min_name_coverage`):

- selection drops a branch whose passage holds less than that share of the names, unless no passage holds
  that much (a question that compares two things may find each in a passage of its own);
- an answer is declined when the passages found hold less than that share together (the words of a name of
  several words, "Percy Jackson", counted from one passage that holds at least that share of them:
  :func:`name_runs`), or leave out a rare term
  of the question (:func:`rare_terms`: a word that all-MiniLM-L6-v2's vocabulary of common words splits into
  pieces, "Mahomes", "Brexit", "axolotl", not "English" or "Nintendo", among the question's names and its
  nouns, :func:`noun_words`), and unless a claim of it comes from a passage that holds that
  share (or, when no passage found holds it, from any of them);
- a quoted answer speaks of another thing than the question names when the quote, its passage's title and the
  passage's first sentence leave out one of the question's rare terms, or, for a question without one, hold
  none of its names, or leave out the number of a name numbered with a Roman numeral ("Mary I",
  :mod:`~selfrag_langchain.chains.regnal`; :func:`speaks_of_asked`; a passage without a title is left to the rules
  above): selection drops its branch, unless every branch's quote does (long form at its first step), and such an
  answer is declined.

All apply to open questions; a question with answer choices always gets one of them.
"""

from __future__ import annotations

import functools
import itertools
import re
import string
from collections.abc import Iterable, Sequence
from typing import Any

from selfrag_langchain.chains.peoples import LANGUAGES, other_names
from selfrag_langchain.chains.regnal import holds_regnal, regnal_names
from selfrag_langchain.judging.signals import SENTENCE_BREAK, STOPWORDS, content_words, folded, name_words
from selfrag_langchain.prompts import passage_body
from selfrag_langchain.text.lexicon import noun_lemma, parts_of_speech
from selfrag_langchain.text.numerals import ORDINALS, ROMAN, ordinal_place
from selfrag_langchain.text.sentences import split_sentences
from selfrag_langchain.text.spelling import american_spelling


@functools.cache
def _vocabulary() -> Any:
    """all-MiniLM-L6-v2's WordPiece tokenizer (shipped with the package; loaded once, offline)."""
    from transformers import AutoTokenizer

    from selfrag_langchain.embeddings import default_model_path

    return AutoTokenizer.from_pretrained(str(default_model_path()))


def rare(word: str) -> bool:
    """Whether a (lower-cased) word is rare: not a number, and not one piece of MiniLM's vocabulary of 30,000
    common words and word pieces ("mahomes" is "ma", "##hom", "##es"; "english" is itself)."""
    return not word.isdigit() and len(_vocabulary().tokenize(word)) > 1


@functools.cache
def _stemmer() -> Any:
    """Snowball's English stemmer (Porter's second), which strips derivational endings as well as inflections."""
    import snowballstemmer

    return snowballstemmer.stemmer("english")


MIN_ROOT = 5
"""The fewest letters a root of :func:`root` keeps for two words to meet by it, so that short roots do not join
unrelated words."""


@functools.lru_cache(maxsize=1 << 16)
def root(word: str) -> str:
    """The word without its derivational and inflectional endings ("romanization" and "romanized" are both
    "roman", "constitution" and "constitutional" "constitut"), or "" when what is left is shorter than
    :data:`MIN_ROOT`."""
    stem = str(_stemmer().stemWord(word))
    return stem if len(stem) >= MIN_ROOT else ""


COLLECTIVE_ENDING = "ri"
"""What Snowball leaves of "-ry", an ending it keeps, which makes a collective or practice of a noun
("freemason" and "freemasonry", "forest" and "forestry")."""


def _same_root(one: str, other: str) -> bool:
    """Whether two roots of :func:`root` are the same word, or one is the other with "-ry" after it."""
    return one == other or COLLECTIVE_ENDING in (one.removeprefix(other), other.removeprefix(one))


MIN_ENDED = 8
"""The fewest letters two words need to be read as one word with another ending (:func:`_other_ending`)."""
MAX_ENDING = 3
"""The most letters the longer of two such words has after what they share."""


def _other_ending(one: str, other: str) -> bool:
    """Whether two long words are one word with another ending, where Snowball's roots leave them apart: they share
    all but the last letter of the shorter, and the longer ends at most :data:`MAX_ENDING` letters later
    ("hypothermic" and "hypothermia", "prehistory" and "prehistoric"; not "Alexander" and "Alexandria")."""
    shorter, longer = sorted((one, other), key=len)
    shared = next((i for i, (a, b) in enumerate(zip(shorter, longer, strict=False)) if a != b), len(shorter))
    return len(shorter) >= MIN_ENDED and shared >= len(shorter) - 1 and len(longer) - shared <= MAX_ENDING


_CONTRACTION_TEXT = (
    "whats whos wheres whens hows whys thats theres heres hes shes theyre youre ive youve weve theyve im youll "
    "theyll youd theyd isnt arent wasnt werent dont doesnt didnt hasnt havent hadnt couldnt wouldnt shouldnt aint"
)
_CONTRACTION_PIECES = "doesn didn isn aren wasn weren hasn haven hadn couldn wouldn shouldn t ll ve"
_CONTRACTIONS = frozenset(_CONTRACTION_TEXT.split()) | frozenset(_CONTRACTION_PIECES.split())
"""Function words typed without their apostrophe, which are no names ("whats", "isnt"), and the pieces a word
split at its apostrophe leaves ("doesn", "t"); those that are words of their own ("its", "well", "shell", "don")
are left to the lexicon."""


def lexical(word: str) -> bool:
    """Whether the lexicon can speak to a (lower-cased) word: written in a script with case, and not a function
    word typed without its apostrophe."""
    return any(c.islower() for c in word) and word not in _CONTRACTIONS


@functools.cache
def plain_words() -> frozenset[str]:
    """Function and number words English's lexicon (open-class words only) does not list: scikit-learn's English
    stop words ("until", "upon", "three", "twelve")."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    return frozenset(ENGLISH_STOP_WORDS)


def _unknown(word: str) -> bool:
    """Whether a (lower-cased) word reads as a name: the lexicon can speak to it and does not know it, and it is
    no function or number word (:func:`plain_words`: "What three-letter abbreviation ..." names nothing), nor one
    typed a letter wrong (:func:`_mistyped`)."""
    return lexical(word) and not parts_of_speech(word) and word not in plain_words() and not _mistyped(word)


MIN_MISTYPED = 4
"""The fewest letters of a word :func:`_mistyped` reads as mistyped: a shorter one is as often a name ("Hoi An")."""


def one_edit(word: str) -> set[str]:
    """The words one letter away from ``word``: one dropped, added, changed, or two neighbours swapped."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    dropped = {a + b[1:] for a, b in splits if b}
    swapped = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    changed = {a + c + b[1:] for a, b in splits if b for c in string.ascii_lowercase}
    added = {a + c + b for a, b in splits for c in string.ascii_lowercase}
    return dropped | swapped | changed | added


def rare_unknown(word: str, fewest: int) -> bool:
    """Whether a (lower-cased) word of ``fewest`` letters or more is rare (:func:`rare`) and the lexicon does not
    know it: what a word typed a letter wrong looks like, and a name too."""
    return len(word) >= fewest and not parts_of_speech(word) and rare(word)


@functools.lru_cache(maxsize=1 << 12)
def _mistyped(word: str) -> bool:
    """Whether a (lower-cased) word the lexicon does not know is a function or naming word or an adverb typed a
    letter wrong ("wich", "anothr", "calld" in "what is the study of puzzles calld", "finaly" in "what year did the
    cold war finaly end"), not a name a passage must hold: it is rare (:func:`rare`), of :data:`MIN_MISTYPED`
    letters or more, and one letter from a stop word or a word of naming, or an adverb typed with a letter left out
    (:func:`_adverb_mistyped`). Names one letter from a noun ("shrek", "rolex", "saiga") stay names."""
    if not rare_unknown(word, MIN_MISTYPED):
        return False
    near = one_edit(word)
    return not near.isdisjoint(_typed_words()) or _adverb_mistyped(word, near)


MIN_MISTYPED_ADVERB = 6
"""The fewest letters of a word :func:`_adverb_mistyped` reads as an adverb typed wrong: shorter names are one letter
from a short adverb ("daly", "duly")."""
_ADVERB = frozenset({"ADV"})


def _adverb_mistyped(word: str, near: set[str]) -> bool:
    """Whether ``word`` (``near``: the words one letter from it) reads as an adverb typed with a letter left out: of
    :data:`MIN_MISTYPED_ADVERB` letters or more, ending in "-ly", and a word ending so that the lexicon knows only as
    an adverb with one of its letters dropped ("finaly", "actualy", "orginally"). Names a letter from an adverb
    mostly end otherwise ("quito" and "quite", "solon" and "soon", "fairey" and "fairly") or change a letter of it
    ("vasily" and "vastly", "cicely" and "nicely", "moberly" and "soberly"); "vitaly" ("vitally") is still read as
    typed wrong. The 17 words of SQuAD's questions (1.1's and 2.0's dev) this reads so are all adverbs typed
    wrong."""
    return (len(word) >= MIN_MISTYPED_ADVERB and word.endswith("ly")
            and any(len(w) == len(word) + 1 and w.endswith("ly") and parts_of_speech(w) == _ADVERB for w in near))


MIN_TYPED_WRONG = 7
"""The fewest letters of a word the lexicon does not know that :class:`_Held` reads as a word it holds typed a letter
wrong (:func:`_known_one_edit`): shorter names are often one letter from a word ("shrek", "rolex", "saiga")."""


@functools.lru_cache(maxsize=1 << 12)
def _known_one_edit(word: str) -> frozenset[str]:
    """The words the lexicon knows one letter from ``word``, when it may be a content word typed a letter wrong
    ("division" for "divison"): a rare word of :data:`MIN_TYPED_WRONG` letters or more that the lexicon does not
    know; none for any other."""
    if not rare_unknown(word, MIN_TYPED_WRONG):
        return frozenset()
    return frozenset(w for w in one_edit(word) if parts_of_speech(w))


@functools.cache
def _typed_words() -> frozenset[str]:
    """The words :func:`_mistyped` reads a typo as: stop words and the words that ask for a name."""
    return STOPWORDS | plain_words() | _NAMING_VERBS | {"name", "names"}


def asked_names(question: str) -> list[str]:
    """The names the question names (:func:`~selfrag_langchain.judging.signals.name_words`: capitalised words
    and numbers); for a question that capitalises none (typed in lower case, or with only its first letter
    capitalised), its numbers and the words that read as names (:func:`_unknown`: "who was otto von bismarck's
    wife": "otto", "von", "bismarck"; a word in a script without case is left out); never a word that describes
    what is asked for (:func:`describing_words`), nor a preposition that opens the question's first phrase, once
    ("Besides London, ...": :data:`PHRASE_OPENERS`)."""
    describing, openers = describing_words(question), _opening_function_words(question)
    names = [name for name in name_words(question) if name not in describing]
    for opener in openers & set(names):
        names.remove(opener)  # the opening one only: "Following Christopher Nolan's Following, ..."
    if not all(name.isdigit() for name in names):
        return [*(word for word in _opening_names(question) if word not in names and word not in openers), *names]
    return [word for word in content_words(folded(question))
            if (word.isdigit() or _unknown(word)) and word not in describing | openers]


PHRASE_OPENERS = frozenset((
    "in", "on", "at", "for", "from", "by", "during", "after", "before", "under", "with", "as", "when", "while",
    "besides", "unlike", "like", "according", "since", "despite", "following", "except", "aside", "apart",
    "beyond", "along", "alongside", "among", "amid", "within", "without", "throughout", "toward", "towards",
    "upon", "via", "per", "concerning", "regarding", "including", "although", "though", "whereas", "unless",
    "until", "once", "outside", "inside", "near"))
"""Prepositions and conjunctions that open a phrase before a sentence's main clause and so are not the first word
of a name there: "Besides London, where did William Blake live?", "In most buildings, an elevator or lift is
..."."""


def _opening_function_words(question: str) -> set[str]:
    """The first words of the question's sentences that open a phrase (:data:`PHRASE_OPENERS`) ended by a comma
    before the sentence's main clause: capitalised before a name ("Besides London, where ..."),
    :func:`~selfrag_langchain.judging.signals.name_words` reads such a word as the name's first, and no passage
    holds it. Without the comma the word may begin a title ("Inside Out was produced by which studio?")."""
    found = set()
    for sentence in SENTENCE_BREAK.split(folded(question)):
        opening = WORD.match(sentence.strip())
        if opening and (word := opening.group().lower()) in PHRASE_OPENERS and "," in sentence:
            found.add(word)
    return found


NATIONALITY_ENDINGS = ("ian", "ean", "can", "ese", "ish")
"""How a word ends that says which people or region something belongs to ("Norwegian", "European", "American",
"Chinese", "Swedish"), for :func:`describing_words`; endings that many names share ("Milan", "Henri",
"Titanic", "Batman") are left out."""


_NAMING_VERBS = frozenset(("called", "known", "named", "termed", "spelled", "spelt"))
"""The verbs after which "in" and a language says which language's name is asked ("called in English")."""


def describing_words(question: str) -> set[str]:
    """The (lower-cased) nationality that describes what the question asks for, not what it asks about: the one
    capitalised word between the "which" or "what" that opens the question phrase (as for :func:`kind_nouns`)
    and the noun they ask for, when it ends as a nationality does, with the compass word before it
    (:data:`NATIONALITY_ENDINGS`: "In which European state was the tuba invented?": "european"; "Which American
    architect ...": "american"; "which South American country": "south", "american"; not "Which Bohemian
    Rhapsody singer ..."), and the language of an asked name
    ("What is xiangqi usually called in English?": "english"; a word that ends as a nationality or is one of
    :data:`~selfrag_langchain.chains.peoples.LANGUAGES`), or of a scientific name (:func:`_latin_name`: "What is
    the turbot's Latin species name?": "latin"). A passage that answers need
    not say it: the one about the tuba says "Prussia", not "European"; the one about xiangqi says "commonly known
    in the West as Chinese chess"."""
    found = set()
    for sentence in SENTENCE_BREAK.split(folded(question)):
        tokens = _TOKEN.findall(sentence)
        lowered = [token.lower() for token in tokens]
        for i in range(len(tokens) - 2):
            if _opens_asked_phrase(lowered, i):
                found.update(_describing_nationality(tokens, lowered, i + 1))
            if _names_language(tokens, lowered, i):
                found.add(lowered[i + 2])
        if any(_latin_name(lowered, i) for i in range(len(lowered) - 1)):
            found.add("latin")
    return found


SCIENTIFIC_NAMING = frozenset(("species", "scientific", "binomial", "genus"))
"""Words between "Latin" and "name" that say a scientific name is asked ("the turbot's Latin species name")."""
_NAME_WORDS = frozenset(("name", "names"))


def _latin_name(lowered: Sequence[str], i: int) -> bool:
    """Whether ``lowered[i:]`` read "Latin name", or "Latin" and one of :data:`SCIENTIFIC_NAMING` before "name"
    ("Latin species name"): the language of the asked name, which a passage writes without saying it ("The
    turbot, Scophthalmus maximus, is ...")."""
    if lowered[i] != "latin":
        return False
    after = [*lowered[i + 1:i + 3], ""]
    return after[0] in _NAME_WORDS or (after[0] in SCIENTIFIC_NAMING and after[1] in _NAME_WORDS)


_COMPASS = frozenset(("north", "south", "east", "west", "central", "northern", "southern", "eastern", "western"))
"""Words that name a part of the world before a nationality ("South American", "West African")."""


def _describing_nationality(tokens: Sequence[str], lowered: Sequence[str], i: int) -> list[str]:
    """The capitalised nationality at ``tokens[i]`` before a lower-case noun, with the compass word before it
    ("which South American country": "south", "american"); none when it is not there."""
    start = i
    if lowered[i] in _COMPASS and tokens[i][:1].isupper():
        i += 1
    if (i + 1 < len(tokens) and tokens[i][:1].isupper() and tokens[i + 1][:1].islower()
            and lowered[i].endswith(NATIONALITY_ENDINGS)):
        return list(lowered[start:i + 1])
    return []


def _names_language(tokens: Sequence[str], lowered: Sequence[str], i: int) -> bool:
    """Whether ``tokens[i:]`` open with a naming verb, "in" and one language that the sentence names nowhere else
    ("called in English", not "called in North America", "known in Paris" nor "What is French Guiana called in
    French?", whose subject's name holds it)."""
    language = lowered[i + 2]
    return (lowered[i] in _NAMING_VERBS and lowered[i + 1] == "in" and tokens[i + 2][:1].isupper()
            and (i + 3 == len(tokens) or not tokens[i + 3][:1].isupper())
            and (language.endswith(NATIONALITY_ENDINGS) or language in LANGUAGES) and lowered.count(language) == 1)


def _opening_names(question: str) -> list[str]:
    """The capitalised first words of the question's sentences that English's lexicon does not know: a question
    may open with what it asks about ("Semarang is the capital of which province?"), where
    :func:`~selfrag_langchain.judging.signals.name_words` passes over a sentence's first word ("Which", "Apart")."""
    openers = (WORD.match(sentence.strip()) for sentence in SENTENCE_BREAK.split(folded(question)))
    words = [m.group().lower() for m in openers if m and m.group()[:1].isupper()]
    return [word for word in content_words(" ".join(words)) if _unknown(word)]


_DOTTED = re.compile(r"\b(?:[A-Za-z]\.){2,}")
WORD = re.compile(r"[^\W\d_][\w'’-]*")
_JOINING = frozenset({"of", "and", "for", "the", "de"})
"""Words that join the capitalised words of a name without giving it a letter."""
ACRONYM_LETTERS = (2, 6)
"""The lengths an acronym a text spells may have (:func:`acronyms`)."""


def acronyms(text: str) -> set[str]:
    """The acronyms ``text`` spells, in lower case: dotted ones ("U.S." gives "us") and the initials of each run of
    capitalised words, with "of", "and", "for", "the" or "de" between them and giving no letter ("The United
    States of America" gives "usa", and "us" and "sa" within it), so that a question's "US" finds a passage about
    the United States."""
    found = {m.group().replace(".", "").lower() for m in _DOTTED.finditer(text)}
    low, high = ACRONYM_LETTERS
    runs: list[str] = []
    initials = ""
    for word in [*WORD.findall(text), ""]:
        if word.lower() in _JOINING and initials:
            continue
        if word[:1].isupper() and word.lower() not in _JOINING:
            initials += word[0].lower()
        else:
            runs.append(initials)
            initials = ""
    for run in runs:
        found |= {run[i:j] for i in range(len(run)) for j in range(i + low, min(len(run), i + high) + 1)}
    return {a for a in found if low <= len(a) <= high}


def initials(name: str) -> str:
    """The first letters of a name's words, lower-cased, "of", "and", "for", "the" and "de" giving none
    ("Massachusetts Institute of Technology" gives "mit"); empty for a name of one word, which has no initials."""
    words = [word for word in WORD.findall(name) if word.lower() not in _JOINING]
    return "".join(word[0].lower() for word in words) if len(words) > 1 else ""


_NUMBERED = re.compile(r"\b(?:no|nos|number)\.?\s*(\d{1,2})\b", re.IGNORECASE)


def _suffixed(n: int) -> str:
    """``n`` as an ordinal in figures: "1st", "2nd", "9th", "12th"."""
    ending = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{ending}"


def numbered(text: str) -> set[str]:
    """What ``text`` numbers as "No. 9" or "Number 9", each as "no-9" (a form no content word takes), so that a
    question's "Ninth Symphony" finds "Symphony No. 9" (:func:`number_forms`)."""
    return {f"no-{int(m.group(1))}" for m in _NUMBERED.finditer(text)}


FIGURES_AS_WORDS = 4
"""The lowest place whose ordinal in figures is held by its word ("4th" by "fourth"): "first", "second" and
"third" are everyday words ("a third of the land", "the first to climb it"), so "1st", "2nd" and "3rd" are held
only as written."""


@functools.cache
def number_forms(word: str) -> frozenset[str]:
    """Other ways a text writes the number an ordinal word names ("ninth"): "9th", a Roman numeral of two letters
    or more ("ix"), a numbering ("No. 9": :func:`numbered`); the other way round, the ordinal word and "9th" for
    such a Roman numeral ("World War II" for "the Second World War"); and the word for an ordinal in figures from
    the fourth to the twentieth ("ninth" for "9th": :data:`FIGURES_AS_WORDS`; not a Roman numeral, which is also a
    word or a name's: "Xi", "IV"). Empty for any other word: a number in figures is held only as it is written
    ("Apollo 13" is not held by "the thirteenth century")."""
    if word in ROMAN and len(word) > 1:
        n = ROMAN.index(word) + 1
        return frozenset({ORDINALS[n - 1], _suffixed(n)})
    if word in ORDINALS:
        n = ORDINALS.index(word) + 1
        return frozenset({_suffixed(n), f"no-{n}"} | ({ROMAN[n - 1]} if len(ROMAN[n - 1]) > 1 else set()))
    n = ordinal_place(word)
    if n is not None and FIGURES_AS_WORDS <= n <= len(ORDINALS) and word == _suffixed(n):
        return frozenset({ORDINALS[n - 1]})
    return frozenset()


_HUNDREDS = re.compile(r"(1[1-9])00s")
"""A century's hundreds as people write them ("the 1800s": 1800 to 1899), from the 1100s to the 1900s ("1000s"
is as often thousands)."""


@functools.cache
def _century_named(hundreds: str) -> re.Pattern[str] | None:
    """For a century's hundreds ("1800s"), its ordinal, in figures or as a word, before "century" or "centuries"
    in a text's content words, at most two words apart ("the 19th and early 20th centuries"); None for any other
    word."""
    found = _HUNDREDS.fullmatch(hundreds)
    if found is None:
        return None
    n = int(found.group(1)) + 1
    return re.compile(rf" (?:{ORDINALS[n - 1]}|{_suffixed(n)})(?: \S+){{0,2}} centur(?:y|ies) ")


_DECADE = re.compile(r"(\d{2})(\d)0s")
_SHORT_DECADE = re.compile(r"\d0s")
"""A decade written without its century ("the late 70s and 80s"), held by that decade in any century ("1980s")."""
_ROUND_YEAR = re.compile(r"\d{3}0")
"""A year that opens a decade ("2000", "1990"), held by that decade ("the early 2000s"): a round year in a
question often stands for the time about it ("around the year 2000"). Any other year is not held by its decade,
which does not say it."""


def decade_prefix(word: str) -> str | None:
    """What the years a decade or century in figures spans begin with ("1760s": "176", 1760 to 1769; "1800s", as
    people use it, "18", 1800 to 1899), so that "the 1760s" is held by "between 1765 and 1769"; None for any other
    word."""
    decade = _DECADE.fullmatch(word)
    if decade is None:
        return None
    century, tens = decade.groups()
    return century if tens == "0" else century + tens


class _Held:
    """The content words of a text and the acronyms it spells, read once for every word looked up in it, with its
    words by their first letter: another form of a word starts as the word does (a noun's dictionary form with
    its letter, a place's stem and a Snowball root with its first four), so only those are read further, and only
    when a word is looked up that the text does not hold as it is."""

    def __init__(self, text: str) -> None:
        content = content_words(folded(text))
        self.phrase = f" {' '.join(content)} "
        self.words = set(content) | acronyms(text) | numbered(text) | unit_names(text)
        self.initial: dict[str, list[str]] = {}
        self._american: set[str] | None = None
        for w in self.words:
            self.initial.setdefault(w[:1], []).append(w)

    def _american_spellings(self) -> set[str]:
        """The text's words spelt the American way (:func:`~selfrag_langchain.text.spelling.american_spelling`),
        read the first time a word is looked up that the text does not hold as it is."""
        if self._american is None:
            self._american = {american_spelling(w) for w in self.words}
        return self._american

    def _starting(self, prefix: str) -> list[str]:
        return [w for w in self.initial.get(prefix[:1], ()) if w.startswith(prefix)]

    def _holds_name(self, name: tuple[str, ...]) -> bool:
        """Whether the text holds a name of one word, or of several in a row (stop words between them aside)."""
        return name[0] in self.words if len(name) == 1 else f" {' '.join(name)} " in self.phrase

    def holds(self, word: str, first: frozenset[str] = frozenset()) -> bool:
        """:func:`holds` against this text; ``first``: the question's :func:`first_names`."""
        if word in self.words or not self.words.isdisjoint(number_forms(word)):
            return True
        if not self.words.isdisjoint(short_form_pair(word)):  # "television" for "TV"
            return True
        if american_spelling(word) in self._american_spellings():  # "fibres" for "fibers"
            return True
        if _SHORT_DECADE.fullmatch(word):  # "the 80s" for "the 1980s"
            return any(f"{century}{word}" in self.words for century in range(10, 21))
        century = _century_named(word)  # "the 19th century" for "the 1800s"
        if century is not None and century.search(self.phrase):
            return True
        prefix = decade_prefix(word)
        if prefix is not None:
            return any(len(w) == 4 and w.isdigit() for w in self._starting(prefix))
        if _ROUND_YEAR.fullmatch(word):  # "around the year 2000" for "the early 2000s"
            return f"{word}s" in self.words
        lemma = noun_lemma(word)
        if any(noun_lemma(w) == lemma for w in self._starting(lemma[:1])):
            return True
        formal = FORMAL_NAMES.get(lemma, ()) if word not in first else ()  # "Oscars" by "Academy Awards"
        if any(self._holds_name(name) for name in {*other_names(word), *other_names(lemma), *formal}):
            return True
        stems = place_stems(word.removesuffix("s") if word.endswith("ns") else word)  # "Croatians" as "Croatian"
        if any(not stems.isdisjoint(place_stems(w)) for w in self._starting(word[:MIN_STEM])):
            return True
        forms = derived_forms(word)
        if any(w in forms or word in derived_forms(w) for w in self._starting(word[:MIN_DERIVED - 1])):
            return True
        derived, long = root(word), len(word) >= MIN_ENDED
        if any((derived and _same_root(root(w), derived)) or (long and _other_ending(w, word))
               for w in self._starting(word[:MIN_ROOT - 1])):
            return True
        if not self.words.isdisjoint(_known_one_edit(word)):
            return True
        return any(word[:i] in self.words and word[i:] in self.words for i in range(3, len(word) - 2))


SCALE_SYMBOLS = {"C": "celsius", "F": "fahrenheit"}
"""The temperature scales a text writes as a symbol after the degree sign ("20 °C", "68°F"), by the name a question
uses ("at 20 degrees Celsius")."""
_DEGREES = re.compile(r"°\s?([CF])\b")


SI_UNIT_SYMBOLS = {"Pa": "pascal", "J": "joule", "W": "watt", "Hz": "hertz", "V": "volt", "K": "kelvin"}
"""The units named after people that a text writes as symbols after a number, with or without a prefix ("101325
Pa", "58 kJ/mol", "22,500 MW", "300 GHz"), by the name a question uses ("How many pascals ..."): the lexicon does
not know the name, so the question's word is a name a passage has to hold."""
SI_PREFIXES = {"k": "kilo", "M": "mega", "G": "giga", "T": "tera", "h": "hecto", "m": "milli", "μ": "micro",
               "n": "nano"}
"""The prefixes a symbol of :data:`SI_UNIT_SYMBOLS` may carry, by the name's ("MW" is a "megawatt")."""
_ONE_LETTER = "".join(symbol for symbol in SI_UNIT_SYMBOLS if len(symbol) == 1)
_SI_UNIT = re.compile(
    r"(?<![\w.,-])\d+(?:[.,]\d+)*"  # a number of its own, not of a code or a model ("MiG-29K", "C-27J")
    r"(?:\s?(?!TV)([" + "".join(SI_PREFIXES) + "])(" + "|".join(SI_UNIT_SYMBOLS) + ")"  # "22,500 MW", "50kHz"
    r"|\s?(" + "|".join(s for s in SI_UNIT_SYMBOLS if len(s) > 1) + ")"  # "101325 Pa", "50Hz"
    r"|\s([" + _ONE_LETTER + "]))"  # a symbol of one letter only after a space: "0 K", not "4K" nor "Y2K"
    r"(?![\w°-])(?!\.\s?[A-Z]\.)")  # not an initial: "In 1937 J. R. R. Tolkien"
"""A number and the symbol of a unit of :data:`SI_UNIT_SYMBOLS` after it, with a prefix's group and the symbol's."""


def unit_names(text: str) -> set[str]:
    """The (lower-cased) names of the temperature scales ``text`` writes as symbols (:data:`SCALE_SYMBOLS`), so that
    a question's "Celsius" is held by a passage that gives "20 °C" ("℃" is folded to "°C" first), and of the units
    it writes as symbols after a number (:data:`SI_UNIT_SYMBOLS`: "pascal" by "101325 Pa", "megawatt" and "watt" by
    "22,500 MW")."""
    text = folded(text)
    units = (_si_unit_names(m.group(1), m.group(2) or m.group(3) or m.group(4)) for m in _SI_UNIT.finditer(text))
    return {SCALE_SYMBOLS[m.group(1)] for m in _DEGREES.finditer(text)} | {name for names in units for name in names}


def _si_unit_names(prefix: str | None, symbol: str) -> tuple[str, ...]:
    """The names a unit's symbol holds: the unit's, and with a prefix the prefixed one too ("watt", "megawatt")."""
    unit = SI_UNIT_SYMBOLS[symbol]
    return (unit,) if prefix is None else (unit, SI_PREFIXES[prefix] + unit)


SHORT_FORMS = {"tv": "television"}
"""Words shortened to letters that are not the initials of words (which :func:`acronyms` spells), so that a
question's "satellite TV" finds the passage on satellite television; each is held by the word and the word by
it."""


FORMAL_NAMES = {"oscar": (("academy", "award"), ("academy", "awards"))}
"""A name of several words, as content words, that a question may call by a popular one of one word: "How many
Oscars did Billy Wilder win?" is answered by "He received seven Academy Awards". Only the popular name is held by
the formal one (each word of the formal name is a name of its own), and not as a first name
(:func:`first_names`)."""


def short_form_pair(word: str) -> frozenset[str]:
    """The word a (lower-cased) short form of :data:`SHORT_FORMS` stands for, or the short forms of a word; empty
    for any other word."""
    return frozenset({SHORT_FORMS[word]} if word in SHORT_FORMS else
                     {short for short, full in SHORT_FORMS.items() if full == word})


@functools.lru_cache(maxsize=1024)
def _held(text: str) -> _Held:
    """:class:`_Held` of a text, read once however often the rule looks at it: selection, declining and each
    branch ask of the same passages."""
    return _Held(text)


DEMONYM_ENDINGS = ("ian", "ese", "lese", "ish", "an", "n", "i")
"""The endings that make a place's name its people's or its adjective ("Croatia" "Croatian", "Italy" "Italian",
"China" "Chinese", "Congo" "Congolese", "Iraq" "Iraqi", "Pakistan" "Pakistani"), for :func:`place_stems`; a name
whose adjective drops more of it ("Turkey" "Turkish", "France" "French") is not met this way."""
DOCTRINE_ENDINGS = ("ism", "ist")
"""The endings of a doctrine's name and its follower's, which its adjective replaces ("Manichaeism" "Manichaean",
"Buddhism" "Buddhist"), for :func:`place_stems`."""
PLACE_ENDINGS = ("a", "y", "e", "o")
"""The letter a place's name may end with where its adjective has another ending ("Mexico" "Mexican")."""
MIN_STEM = 4
"""The fewest letters a stem of :func:`place_stems` keeps, so that short words do not meet by chance."""


def place_stems(word: str) -> set[str]:
    """The stems a place's name and its adjective share: the word without one of :data:`DEMONYM_ENDINGS`, or
    without the last of :data:`PLACE_ENDINGS`, each of at least :data:`MIN_STEM` letters ("croatian" and
    "croatia" both give "croati", "italian" and "italy" "ital", "german" and "germany" "german"), so that a
    question's "Croatian capital" finds the passage about Croatia and "the Indonesian province" one in Indonesia;
    so too a doctrine's name and its adjective, without one of :data:`DOCTRINE_ENDINGS` ("manichaeism" and
    "manichaean" give "manichae"), a doctrine's name and its follower's, without their last letter ("cubism" and
    "cubist" give "cubis", where "cub" is too short), and a group's Latin name and its English one ("bryozoa" and
    "bryozoan", "bryozo")."""
    endings = (*DEMONYM_ENDINGS, *DOCTRINE_ENDINGS)
    bases = {word} | {word[: -len(end)] for end in endings if word.endswith(end)}
    bases |= {word[:-1] for end in DOCTRINE_ENDINGS if word.endswith(end)}
    stems = bases | {base[:-1] for base in bases if base.endswith(PLACE_ENDINGS)}
    return {stem for stem in stems if len(stem) >= MIN_STEM}


PEOPLE_ADJECTIVE_ENDINGS = ("ic", "ish", "ian")
"""The endings a people's adjective puts after the singular of its name, where the name is no place's ("Celts"
"Celtic", "Franks" "Frankish", "Mongols" "Mongolian"), or after its last letter doubled ("Huns" "Hunnic")."""
PLURAL_LOOKALIKES = ("ss", "is", "us", "ics")
"""Endings of a word in "-s" that is no people in the plural ("Solaris", "Taurus", "Physics", whose "physician" is
no adjective of it), which :func:`derived_forms` leaves alone."""
SCIENCE_ENDINGS = {"ience": ("ientific", "ientist")}
"""A field's name and the endings of its adjective and its practitioner's word, which Snowball leaves apart
("pseudoscience" "pseudoscientific", "neuroscience" "neuroscientist")."""
MIN_DERIVED = 4
"""The fewest letters a word needs for :func:`derived_forms` to make others of it ("Huns" and "Jews" have four)."""


@functools.lru_cache(maxsize=1 << 16)
def derived_forms(word: str) -> frozenset[str]:
    """Words made of a (lower-cased) word that neither Snowball's roots (:func:`root`) nor a place's stems
    (:func:`place_stems`) meet: a people's adjective from its name in the plural (:data:`PEOPLE_ADJECTIVE_ENDINGS`:
    "celts" gives "celtic", "huns" "hunnic", "jews" "jewish"), and a field's adjective and practitioner from its
    name (:data:`SCIENCE_ENDINGS`: "pseudoscience" gives "pseudoscientific"). :func:`holds` reads them both ways,
    so "Celtic" is held by "the Celts" too. Only whole words are made, so a short name meets no other by chance."""
    if len(word) < MIN_DERIVED:
        return frozenset()
    forms: set[str] = set()
    if word.endswith("s") and not word.endswith(PLURAL_LOOKALIKES):
        singular = word[:-1]
        forms |= {f"{base}{end}" for base in (singular, singular + singular[-1]) for end in PEOPLE_ADJECTIVE_ENDINGS}
    for ending, derived in SCIENCE_ENDINGS.items():
        if word.endswith(ending):
            forms |= {word.removesuffix(ending) + other for other in derived}
    return frozenset(forms)


def name_share(question: str, text: str) -> float:
    """The share of :func:`asked_names` that ``text`` :func:`holds` (1 when the question names nothing); unlike
    :func:`~selfrag_langchain.judging.signals.name_coverage`, which the judge reads, it also reads names typed
    in lower case and finds a name in any form of it."""
    return _share(asked_names(question), _held(text), first_names(question))


def _share(names: list[str], held: _Held, first: frozenset[str]) -> float:
    return sum(held.holds(name, first) for name in names) / len(names) if names else 1.0


def noun_words(question: str) -> list[str]:
    """The question's content words other than its names that English's lexicon knows only as nouns, or does not
    know at all (LemmInflect's word lists): a question names what it asks about in lower case too ("Where does
    the axolotl live in Mexico?", "Which nuts go into Turkish baklava?"), where
    :func:`~selfrag_langchain.judging.signals.name_words` sees no name. A word the lexicon also knows as a verb
    or a modifier ("overthrew", "ageing", "corkscrew") is left out: it may describe rather than name."""
    names = set(asked_names(question))
    return [word for word in content_words(folded(question))
            if word not in names and lexical(word) and parts_of_speech(word) <= {"NOUN"} and not _mistyped(word)]


_ASKING = frozenset({"which", "what"})
"""The words that open a phrase naming what kind of thing the answer is ("which carmaker", "what nuts")."""
_LEADING_TEXT = ("in on at from of for by to with during under into near after before since until about through "
                 "across within over between among")
_LEADING = frozenset(_LEADING_TEXT.split())
"""The words a "which" or "what" phrase may follow and still open the question ("In which city ...")."""
_MODIFIERS = frozenset({"ADJ", "NOUN", "PROPN"})
"""What the lexicon may know a word between "which" and its noun as ("which ancient city")."""


def _modifies(known: frozenset[str], *, leading: bool) -> bool:
    """Whether a word the lexicon knows as ``known`` can stand in an asked phrase: known only as a modifier or a
    noun, or, ``leading`` (before the phrase's first noun), as an adjective or a noun too ("which sour liquid
    condiment": "sour" is also a verb; "which age of prehistory": "age" too; not "first" in "Which German
    chemist first isolated caffeine?")."""
    return bool(known) and (known <= _MODIFIERS or (leading and not known.isdisjoint({"ADJ", "NOUN"})))


def _opens_asked_phrase(words: Sequence[str], i: int) -> bool:
    """Whether the (lower-cased) ``words[i]`` is a "which" or "what" that opens a sentence's question phrase, at its
    start or after a preposition ("In which city ..."), not one within it ("Do you know what ...")."""
    return words[i] in _ASKING and (i == 0 or words[i - 1] in _LEADING)


def kind_nouns(question: str) -> list[str]:
    """The :func:`noun_words` that say what kind of thing the answer is: the last noun of the phrase a sentence
    opens with "which" or "what" (after a preposition or none), over names and words the lexicon knows only as
    modifiers, adjectives or nouns ("Which carmaker took ...": "carmaker"; "Which landmasses were named after Amerigo
    Vespucci?": "landmasses"; "Which axolotl species ...": "species", not "axolotl"), and the noun of the phrase
    after "of" that goes on from it ("What system of bondage ...": "system", "bondage"). A passage that answers
    need not use them: it names the Americas. A "what" within a sentence ("Do you know what axolotls eat?") opens
    no such phrase."""
    nouns, names = set(noun_words(question)), set(asked_names(question))
    kinds: list[str] = []
    for sentence in SENTENCE_BREAK.split(folded(question)):
        words = [word.lower() for word in _TOKEN.findall(sentence)]
        for i, word in enumerate(words):
            if not _opens_asked_phrase(words, i):
                continue
            phrase = _noun_phrase(words, i + 1, nouns, names)
            if not phrase:
                continue
            end = i + 1 + len(phrase)
            kinds += [word for word in phrase[-1:] if word in nouns]
            if end < len(words) and words[end] == "of" and (phrase[-1] in nouns
                                                            or "NOUN" in parts_of_speech(phrase[-1])):
                kinds += [word for word in _noun_phrase(words, end + 1, nouns, names)[-1:] if word in nouns]
    return kinds


def _noun_phrase(words: Sequence[str], start: int, nouns: set[str], names: set[str]) -> list[str]:
    """The words from ``words[start]`` that make one noun phrase of the question: its names, its nouns and the
    words that modify them (:func:`_modifies`), up to a function word or any other word."""
    phrase: list[str] = []
    for word in words[start:]:
        leading = not any(w in nouns for w in phrase)
        if word in STOPWORDS or not (word in nouns or word in names
                                     or _modifies(parts_of_speech(word), leading=leading)):
            break
        phrase.append(word)
    return phrase


def rare_terms(question: str) -> list[str]:
    """The question's rare names (:func:`asked_names`) and rare :func:`noun_words` other than its
    :func:`kind_nouns`, each once: words a passage that answers it has to hold."""
    kinds = set(kind_nouns(question))
    return [word for word in dict.fromkeys([*asked_names(question), *noun_words(question)])
            if rare(word) and word not in kinds]


def holds(word: str, text: str) -> bool:
    """Whether ``text`` holds ``word``: as it is, in another form of it ("narwhals" for "narwhal", "Croatia" for
    "croatian": :func:`place_stems`, "Celtic" for "Celts" and "pseudoscientific" for "pseudoscience":
    :func:`derived_forms`, "the United States" for "Americans":
    :func:`~selfrag_langchain.chains.peoples.other_names`, "romanized" for "romanization": :func:`root`, "No. 9"
    for "ninth": :func:`number_forms`, "fibers" for "fibres": its other spelling, British or American,
    :func:`~selfrag_langchain.text.spelling.american_spelling`), as the two words of a compound ("chess" and
    "board" for "chessboard"; the words anywhere in the text, each of at least three letters), or as an acronym
    the text spells
    (:func:`acronyms`: "us" in "the United States"), and a short form for its word and the word for it
    (:data:`SHORT_FORMS`: "television" for "TV"), a unit's or a temperature scale's name by its symbol
    (:func:`unit_names`: "pascal" by "101325 Pa", "Celsius" by "20 °C"), and a popular name by its formal one
    (:data:`FORMAL_NAMES`: "Oscars" by "Academy Awards")."""
    return _held(text).holds(word)


def missing_rare_terms(question: str, text: str) -> list[str]:
    """The question's :func:`rare_terms` that ``text`` does not hold."""
    return _missing(question, _held(text))


def _missing(question: str, held: _Held) -> list[str]:
    first = first_names(question)
    return [term for term in rare_terms(question) if not held.holds(term, first)]


def name_coverages(question: str, passages: Sequence[str | None], minimum: float) -> list[float | None] | None:
    """Each passage's share of the question's names (None for a branch without one), for the selection
    constraint; None, so that nothing is dropped for its names, when the rule is off or no passage holds
    ``minimum`` of them. Passages are given as the models read them (title and text, neutralised), so that
    text the boundary removes cannot change a decision."""
    if minimum <= 0.0:
        return None
    shares = [name_share(question, p) if p is not None else None for p in passages]
    if not any(share is not None and share >= minimum for share in shares):
        return None
    return shares


_TOKEN = re.compile(r"\w+|[^\w\s'’.-]")
"""A word, or a mark that ends a name (a comma, a colon, a quotation mark, a bracket, a question mark; not a
hyphen, an apostrophe or an initial's full stop: "Moby-Dick", "John F. Kennedy")."""


def name_runs(question: str) -> list[list[str]]:
    """The question's :func:`asked_names` grouped as it writes them: words next to each other form one name
    ("Who wrote the Percy Jackson novels?": ["percy", "jackson"]; "Is the Eiffel Tower older than Big Ben?":
    ["eiffel", "tower"] and ["big", "ben"]); a punctuation mark or a possessive ends a name ("Brazil, Argentina or
    Chile", "Paris's Eiffel Tower"), and a number ("the 1975 Bollywood film", "the 1970s") and each name not
    placed so are a run of their own."""
    names = asked_names(question)
    asked = set(names)
    runs: list[list[str]] = []
    for sentence in SENTENCE_BREAK.split(folded(question)):
        run: list[str] = []
        for token in [*(t.lower() for t in _TOKEN.findall(sentence)), ""]:
            if token in asked and not token[0].isdigit():
                run.append(token)
                continue
            if run:
                runs.append(run)
                run = []
    placed = {word for run in runs for word in run}
    return runs + [[name] for name in dict.fromkeys(names) if name not in placed]


def first_names(question: str) -> frozenset[str]:
    """The question's popular names of :data:`FORMAL_NAMES` that open a name of several words: a first name ("Oscar
    Robertson", "Oscar Wilde"), which the formal name does not hold; the award's "Oscars" ends its name ("Best
    Actress Oscars")."""
    return frozenset(word for run in name_runs(question) for word in run[:-1] if noun_lemma(word) in FORMAL_NAMES)


def names_found(question: str, passages: Iterable[str | None], minimum: float) -> bool:
    """Whether the passages together hold at least ``minimum`` of the question's names and every one of its
    :func:`rare_terms` (always, when the rule is off or there is no passage). The words of a name of several
    words (:func:`name_runs`) count only as the one passage that holds most of them holds them, and only when it
    holds at least ``minimum`` of them: "Percy" in a passage about Shelley and "Jackson" in one about Michael
    Jackson make nothing of "Percy Jackson", however many passages are read, while a passage that says "Jack
    Sparrow" holds two of "Captain Jack Sparrow"'s three words."""
    texts = [p for p in passages if p is not None]
    if minimum <= 0.0 or not texts:
        return True
    helds = [_held(text) for text in texts]
    together = _held("\n".join(texts))  # the rare terms may come from any passage
    runs = name_runs(question)
    first = first_names(question)
    held = sum(_run_held(run, helds, minimum, first) for run in runs)
    share = held / sum(map(len, runs)) if runs else 1.0
    return share >= minimum and not _missing(question, together)


def _run_held(run: list[str], helds: list[_Held], minimum: float, first: frozenset[str]) -> int:
    """How many words of one name count as held: those of the passage that holds most of them, if at least
    ``minimum`` of them (:func:`names_found`)."""
    best = max(sum(held.holds(word, first) for word in run) for held in helds)
    return best if best >= minimum * len(run) else 0


def names_enough(question: str, passage: str | None, found: Sequence[str | None], minimum: float) -> bool:
    """Whether a claim written from ``passage`` may stand for the question's names: the passages ``found`` hold
    them (:func:`names_found`), and its own passage holds at least ``minimum`` of them or none found does
    (always, when the rule is off or there is no passage)."""
    if minimum <= 0.0 or passage is None:
        return True
    if not names_found(question, found, minimum):
        return False
    return name_share(question, passage) >= minimum or name_coverages(question, found, minimum) is None


_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_ASKED_YEAR = re.compile(
    r"(?:\b(?:in|since|from|until|till|during|around|circa|before|after|between|and|year|"
    + "|".join(_MONTHS) + r")\s+|[-–]|\b(?:the|of|by)\s+(?=\d{4}(?:\s+(?-i:[A-Z])|\s*[-–?,.]|$)))(1\d{3}|20\d{2})\b",
    re.IGNORECASE)
"""A year as a question names it: after a word that dates ("in 1993", "May 1914", "of 1609–1618"), or after "the",
"of" or "by" before a name or the question's end ("the 2003 Nobel Prize"); not a quantity ("over 1000 goals",
"of 1500 metres") nor a title ("Who wrote 1984?")."""


def asked_years(question: str) -> list[str]:
    """The years the question dates (:data:`_ASKED_YEAR`)."""
    return [m.group(1) for m in _ASKED_YEAR.finditer(folded(question))]


def speaks_of_asked(question: str, quote: str, passage: str, title: str | None) -> bool:
    """Whether a quote speaks of what the question names: the quote, its passage's ``title`` and the passage's first
    sentence (an article's opening sentence, which says what it is about, when the passage opens it), with any later
    sentence that gives the subject's other names (:data:`_GIVES_NAMES`), hold every one of the question's
    :func:`rare_terms` (one of them, when the question offers alternatives: "... or ..."), or, when it has none, one
    of its names, and every name it numbers with a Roman numeral with its number ("Mary I":
    :func:`~selfrag_langchain.chains.regnal.regnal_names`; one of them, offered as alternatives), and whose passage
    holds every year the question dates (:func:`asked_years`), or its decade ("Konrad Lorenz shared the 1973 Nobel
    Prize ..." does not speak of the 2003 one; "the mid-1990s" speaks of 1993), as every answerable list question's
    article does (144 of 144); a term counts as
    well written as one word with the question's word beside it ("kiwi fruit" as "Kiwifruit") or at the end of a
    longer word ("benzylpenicillin"), and a rare common noun that describes the subject rather than names it
    ("hadith" in "The hadith scholar known as Imam Muslim ...") as held by any sentence of the passage, when the
    quote, the title or the first sentence holds one of the question's names (:func:`asked_names`): an article's
    opening says who its subject is, not every word a question may describe it by. Always, when the question names
    nothing, or the passage has no title: an untitled chunk's first sentence need not say what it is about, and
    :func:`names_enough` reads it whole. ``passage``: as the models read it
    (:func:`~selfrag_langchain.prompts.format_passage`). Dagestan's article names Chechnya among its neighbours, so
    it holds enough of "What is the capital of Chechnya?", but "Makhachkala is the republic's capital" speaks of
    Dagestan; Kabul's article opens "Kabul is the capital ... of Afghanistan", so its later sentences speak of "the
    Afghan capital"."""
    return quotes_speaking_of_asked(question, [quote], passage, title)[0]


def quotes_speaking_of_asked(question: str, quotes: Sequence[str], passage: str, title: str | None) -> list[bool]:
    """:func:`speaks_of_asked` for each of one passage's ``quotes``, its first sentence split once."""
    rare = rare_terms(question)
    names = asked_names(question)
    terms = rare or names
    numbered_names = regnal_names(question)
    first = first_names(question)
    if not (terms or numbered_names) or not title:
        return [True] * len(quotes)
    whole = _held(passage)
    if not all(whole.holds(year) or f"{year[:3]}0s" in whole.words for year in asked_years(question)):
        return [False] * len(quotes)
    body = passage_body(passage, title)
    sentences = split_sentences(body) or [""]
    lead = " ".join([sentences[0], *(s for s in sentences[1:] if _GIVES_NAMES.search(s))])
    compounds = list(itertools.pairwise(content_words(folded(question))))
    either = _ALTERNATIVES.search(question) is not None
    every = bool(rare) and not either
    descriptors = [term for term in rare if term not in names]
    elsewhere = _held(body) if descriptors and names else None

    def found(term: str, held: _Held) -> bool:
        return held.holds(term, first) or _written_as_one(term, compounds, held, rare=bool(rare))

    def described(term: str, held: _Held) -> bool:
        """Whether ``term`` describes a subject that ``held`` names and the passage holds it elsewhere."""
        return (elsewhere is not None and term in descriptors and elsewhere.holds(term, first)
                and any(found(name, held) for name in names))

    speaking = []
    for quote in quotes:
        text = "\n".join((title, quote, lead))
        held = _held(text)
        held_terms = (found(term, held) or described(term, held) for term in terms)
        held_numbered = (holds_regnal(name, text) for name in numbered_names)
        speaks_of_terms = all(held_terms) if every else (any(held_terms) or not terms)
        speaks_of_numbered = not numbered_names or (any(held_numbered) if either else all(held_numbered))
        speaking.append(speaks_of_terms and speaks_of_numbered)
    return speaking


_GIVES_NAMES = re.compile(r"\b(?:common|other|alternative|popular|vernacular) names?\b"
                          r"|\b(?:also|commonly|popularly|usually|often|sometimes) (?:called|known as|named)\b",
                          re.IGNORECASE)
"""A later sentence that gives the article's subject its other names ("Various common names including daffodil,
narcissus, and jonquil, are used ..."), which says what the article is about as its first sentence does."""
_ALTERNATIVES = re.compile(r"\bor\b", re.IGNORECASE)
"""A question that offers alternatives ("Which is older, Tashkent or Samarkand?"), each of which one passage may
speak of alone: :func:`speaks_of_asked` then asks one of its terms, not every one."""
MIN_ENDING = 5
"""The fewest letters a rare term has to count at the end of a longer word ("penicillin" in "benzylpenicillin")."""


def _written_as_one(term: str, pairs: Sequence[tuple[str, str]], held: _Held, *, rare: bool) -> bool:
    """Whether ``held`` writes ``term`` as one word with a word beside it in the question ("kiwi fruit" as
    "Kiwifruit", of ``pairs``), or, a ``rare`` term of at least :data:`MIN_ENDING` letters, as the end of a longer
    word ("penicillin" in "benzylpenicillin"; not a name: "milton" in "Hamilton")."""
    return (any(term in pair and "".join(pair) in held.words for pair in pairs)
            or (rare and len(term) >= MIN_ENDING and any(word.endswith(term) for word in held.words)))


NAMES_DECLINED = "the passages found hold too few of the question's names: the answer is declined"
"""Why no branch is written when declining is on and the passages found together hold too few names."""


def moot_reasons(question: str, passages: Sequence[str | None], minimum: float, *, declining: bool
                 ) -> list[str | None]:
    """For each passage (as the models read it; None for a branch without one), why a branch written from it
    could not change the answer to an open question, or None when it could: every branch when ``declining`` and
    the passages together hold too few of the question's names (the answer is declined whatever they say,
    :func:`names_enough`: :data:`NAMES_DECLINED`), else each branch that selection drops for its passage's names
    (:func:`name_coverages`). Such a branch need not be written."""
    if declining and any(p is not None for p in passages) and not names_found(question, passages, minimum):
        return [NAMES_DECLINED] * len(passages)
    shares = name_coverages(question, passages, minimum)
    if shares is None:
        return [None] * len(passages)
    return [f"its passage holds {share:.0%} of the question's names: it could not be chosen"
            if share is not None and share < minimum else None for share in shares]
