"""What kind of value a question asks for, and whether a claim gives one.

A question that asks for a year ("In what year was NBC founded?") is not answered by a sentence that holds no number
("NBC is the first and oldest major broadcast network in the United States."), however much of the question's subject it
names, nor one that asks what share of a whole something is ("Roughly what share of Denmark's people live on the island
of Zealand?") by a sentence that gives no quantity ("The city is situated mainly on the island of Zealand (Sjælland)
..."). Nor is a question that asks where, down to a town or a state ("In which Norwegian town was Henrik Ibsen born?"),
answered by a sentence that names no place but the subject's own ("Henrik Johan Ibsen was a Norwegian playwright."), nor
one that asks where someone died by one that says where they were born ("A teenage prodigy, Hugo Grotius was born in
Delft and studied at Leiden University."), or one that asks who wrote, founded, discovered or won something ("Who
succeeded Eisaku Sato as prime minister of Japan?") by a sentence that names no one but the subject ("Eisaku Sato was a
Japanese politician who served as prime minister of Japan."), or one that asks who someone's father, wife or other
relative was ("Who was Gian Lorenzo Bernini's father?") by a sentence that says nothing of a family ("Gian Lorenzo
Bernini was an Italian sculptor, architect, painter and city planner."), nor one that asks whom someone married by one
that names only a parent ("Jayavarman VII was the son of King Dharanindravarman II"), or one that asks the name someone
was born with ("Under what name was Charles Aznavour born?") by a sentence that names no one but them ("Charles Aznavour
was a French and Armenian singer-songwriter."), or one that asks a species' scientific name ("What is the scientific
name of the housefly?") by a sentence that gives only the family or genus it belongs to ("The housefly is a fly of the
suborder Cyclorrhapha."), or one that asks what someone is nicknamed ("What nickname has Franz Boas been given?") by a
sentence that gives no name they are called by ("Franz Uri Boas was a German-American anthropologist ..."): the reader
reads such a sentence as answering, since it is about exactly what was asked. Declining
(:mod:`~selfrag_langchain.chains.declining`) reads such an answer as one that does not answer, and the quoter
(:class:`~selfrag_langchain.chains.quotes.PassageQuoter`) reads a sentence giving no nickname as answering no nickname
question, so that it quotes the one that does ("... who has been called the 'Father of American Anthropology'").

The evidence, from SQuAD's training questions whose answer lies in one sentence of their paragraph (``python
benchmarks/answer_kinds.py``): of the 2,366 that ask "what year" or "which year", the answer sentence holds a digit
for all but one; of the 814 that ask what share, percentage, proportion or fraction of something, it gives a
quantity (a figure, "%", a fraction or number word, "most", "the majority") for 812, against 65% of the same
paragraphs' other sentences; of the 30 that ask where someone was born ("Where was ... born?", "In which town ...
born?", "Which city ... born in?"), it speaks of a birth ("born", a birthplace, "a native of":
:func:`speaks_of_birth`) for all 30, against 11% of the same paragraphs' other sentences (a lead that names where
someone worked, "a lawyer at the parlement of Toulouse", names a place but does not say they were born there);
of the 13 answer sentences of such questions that ask a town, city or state (SQuAD 1.1 train and dev), the 10 that
speak of a birth still do when a birth given only by a people ("a Scottish-born naturalist",
:func:`speaks_of_birth_below_country`, :func:`~selfrag_langchain.chains.peoples.names_a_people`) is read as naming
no town (a place's own name, "Plymouth-born Michael Foot", still does); of
the 51 that ask where or how someone died, was killed or executed (not when: a year answers), it speaks of a death
(:func:`speaks_of_death`) for 50, against 18% of the same paragraphs' other sentences (the other one gives where the
dead lie); of the 14 that ask where someone is buried, it speaks of a burial (:func:`speaks_of_burial`) for all 14,
against 24%; of the other 171 that open "In / At / Near / From which (or what) city, town, village, state, county,
province, borough, municipality, suburb or port", it names a place for 169 (the other two ask a state of matter or of
mind);
of the 742 that open "Who" and one of :data:`AGENT_VERBS`, it names someone or something besides the question's
names for 737; of the 46 that ask who someone's wife, husband or consort was or whom someone married, it speaks of a
marriage (:func:`speaks_of_marriage`) for 43, against 28% of the same paragraphs' other sentences (a family, which a
parent or a child gives too, 44 and 41%); of the other 147 that ask who (or the name of) someone's relative (a birth
name asked of a relative counted as a birth name), it speaks of a family (:func:`speaks_of_family`: a relative, a
marriage, a birth to someone) for 141, against 26% of the same paragraphs' other sentences (the others: a metaphor,
"the father of ASCII", or a relative named without the word); of the 41 that ask a birth, real, original or maiden
name, it holds a name the question lacks (:func:`names_another`) for 39 (the other two's names are the question's
own words, "SPECTRE" for Spectre's original name), against 86% of the same paragraphs' other sentences; of the 102
that ask a nickname, an epithet, a sobriquet or an honorific (:func:`asks_nickname`), it gives a name as one its
subject is called by (a word of naming or quotation marks, :func:`gives_nickname`) for 96, against 24% of the same
paragraphs' other sentences (the other six: a name in brackets, "Antoine Lavoisier (Father of Modern Chemistry)",
"ALS, or Lou Gehrig's Disease", an appositive, "his son Edward, the Black Prince", two teams named in passing, and an
answer that is no nickname). The place,
agent and birth-name rules are narrow: 87%, 82% and 86% of the same paragraphs' other sentences name something too,
so they only catch a sentence naming nothing but its subject, which is what a lead section that does not state the
asked detail gives. SQuAD holds one question read as asking a scientific name, and it asks a term ("the
scientific name for cell division", "mitosis"), so a sentence that names no rank at all is not declined; the
lists' 19 unanswerable such questions, of which Self-RAG had answered eight with the family or genus, are what the
rule was read against. Questions of other kinds are not checked: "when" may be answered "in spring", "how many" by
"every one of them", "which country" by a nationality ("a Norwegian playwright"), "where" by "at sea", and "who"
with other verbs by "the innocent" or "its founder" (94% of SQuAD's "who" questions name someone, too few to decline
on).
"""

from __future__ import annotations

import itertools
import re

from selfrag_langchain.chains.names import NATIONALITY_ENDINGS
from selfrag_langchain.chains.peoples import names_a_people
from selfrag_langchain.judging.signals import STOPWORDS
from selfrag_langchain.text.lexicon import noun_lemma, parts_of_speech

__all__ = ["asks_agent", "asks_birth_name", "asks_birthplace", "asks_burial", "asks_death", "asks_nickname",
           "asks_place", "asks_relative", "asks_scientific_name", "asks_share", "asks_spouse", "asks_year",
           "gives_asked_kind", "gives_nickname", "gives_scientific_name", "gives_spouse", "misses_asked_event",
           "names_another", "names_beyond", "speaks_of_birth", "speaks_of_birth_below_country", "speaks_of_burial",
           "speaks_of_death", "speaks_of_family", "speaks_of_marriage"]

_ASKS_YEAR = re.compile(
    r"^\W*(?:(?:in|by|during|from|since|until|before|after|around) )?(?:what|which) year\b", re.IGNORECASE)
_NUMBER = re.compile(r"\d")
_ASKS_SHARE = re.compile(
    r"\b(?:what|which)\s+(?:[a-z-]+\s+)?(?:percentage|percent|share|proportion|fraction)\s+of\b", re.IGNORECASE)
"""A question asking what part of a whole something is ("Roughly what share of Denmark's people live on Zealand?",
"What percentage of the Earth's surface is water?")."""
_QUANTITY = re.compile(
    r"\d|%|\b(?:half|halves|thirds?|quarters?|fifths?|tenths?|majority|minority|most|all|none|per\s?cent|percentage|"
    r"one|two|three|four|five|six|seven|eight|nine|ten|twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety|"
    r"hundred)\b", re.IGNORECASE)
"""A quantity, in figures or words ("40%", "about a third", "the majority", "three in four")."""

_ASKS_SCIENTIFIC_NAME = re.compile(
    r"^(?!\W*(?:how|who|whom|when|where|why)\b)\W*(?:what(?:['’]?s|\s+(?:is|was|are|were))?\s+)?"
    r"(?:[\w-]+['’]?s?\s+){0,6}?"
    r"(?:scientific|binomial|botanical|zoological|species|latin\s+(?:species|scientific|binomial))\s+names?\b",
    re.IGNORECASE)
"""A question asking what a species' scientific name is ("What is the scientific name of the housefly?", "What
is the turbot's Latin species name?", "scientific name of the mango tree?")."""
_ASKS_HIGHER_RANK = re.compile(
    r"\b(?:family|families|genus|genera|order|orders|class|classes|phylum|subfamily|tribe|kingdom|mean|means|"
    r"meaning|who|whom|which)\b", re.IGNORECASE)
"""A question that asks a name above a species ("the scientific name of the family that auks make up"), what a
name means, or who gave it: not a species' name."""
RANKS = ("genus", "family", "subfamily", "superfamily", "order", "suborder", "infraorder", "class", "subclass",
         "phylum", "division", "tribe", "kingdom", "clade", "species", "subspecies")
"""The ranks a sentence names a group by ("the family Dasyuridae", "in the Macaca genus")."""
_NAMES_RANK = re.compile(rf"\b(?:{'|'.join(RANKS)})\s+[A-Z]|\b[A-Z][a-z]+\s+(?:genus|family)\b")
"""A rank named as one: before a capitalised group ("the family Canidae") or after it ("the Macaca genus"), not
"cell division" or "in order to"."""
_AFTER_RANK = re.compile(rf"\b(?:{'|'.join(RANKS)})\s+$", re.IGNORECASE)
"""A rank just before a name: the name is the group something belongs to ("the family Mustelidae native to ...")."""
_BINOMIAL = re.compile(r"(\()?\b([A-Z][a-z]{2,}|[A-Z]\.)\s+([a-z]{3,})\b(\))?")
"""A genus and an epithet ("Scophthalmus maximus", "M. indica"), in brackets or not ("(Canis lupus)")."""
_GROUP_NAME = re.compile(r"\b[A-Z][a-z]+(?:idae|inae|aceae|ales|phyta|phyceae|mycota|mycetes|oidea|formes|opsida)\b")
"""A group's scientific name ("Rhodophyta", "Dasyuridae")."""

PLACE_UNITS = ("city", "town", "village", "state", "county", "province", "borough", "municipality", "suburb",
               "port")
"""The places a question can ask for by name, below a country (a country may be given as a nationality)."""


def _unit_asked(units: tuple[str, ...]) -> str:
    """A pattern for "which" or "what", up to two words, and one of ``units`` ("which Norwegian town")."""
    return r"(?:which|what) (?:[a-z.-]+ ){0,2}?(?:" + "|".join(units) + r")\b"


_ASKS_PLACE = re.compile(r"^\W*(?:in|at|near|from) " + _unit_asked(PLACE_UNITS), re.IGNORECASE)
AGENT_VERBS = ("wrote", "created", "designed", "founded", "co-founded", "developed", "discovered", "invented",
               "directed", "composed", "painted", "sculpted", "published", "introduced", "won", "succeeded")
"""What a question asks someone to have done when its answer is a name ("Who wrote ...?", "Who won ...?")."""
_ASKS_AGENT = re.compile(r"^\W*who (?:first )?(?:" + "|".join(AGENT_VERBS) + r")\b", re.IGNORECASE)
KINSHIP = ("father", "mother", "parent", "parents", "son", "sons", "daughter", "daughters", "child", "children",
           "wife", "wives", "husband", "spouse", "brother", "brothers", "sister", "sisters", "sibling", "siblings",
           "grandfather", "grandmother", "grandson", "granddaughter", "uncle", "aunt", "nephew", "niece", "cousin")
"""The relatives a question can ask for by name ("Who was Franz Schubert's father?")."""
_KIN = "|".join(KINSHIP)
BIRTHPLACE_UNITS = (*PLACE_UNITS, "country", "place", "region", "area", "part")
"""The places a question can ask someone was born in ("In which country was ... born?")."""
_PLACE_ASKED = _unit_asked(BIRTHPLACE_UNITS)
_WAS_BORN = r"[^?]*\b(?:was|were)\b[^?]*(?<![\w-])born"
_ASKS_BIRTHPLACE = re.compile(
    rf"^\W*(?:(?:where\b|(?:in|at|near|from) {_PLACE_ASKED}){_WAS_BORN}|{_PLACE_ASKED}{_WAS_BORN} (?:in|at|near))\W*$",
    re.IGNORECASE)
"""A question asking where someone was born, its preposition first or last ("In which town was ... born?",
"Which city was C. S. Lewis born in?")."""
DEATH_VERBS = ("die", "died", "killed", "executed", "assassinated", "murdered", "slain", "beheaded", "hanged")
"""The words a question asks how or where someone's life ended by ("Where did Francis Bacon die?")."""
BURIAL_VERBS = ("buried", "interred", "entombed")
"""The words a question asks where someone lies by ("Where is Karl Marx buried?")."""
_TIME_OR_AMOUNT = (r"(?:years?|date|day|time|hour|month|decade|century|age|old|long|many|much|often|far|soon|dynasty|"
                   r"reign|charges?|grounds|crimes?|reasons?|cause)\b")
"""What a "how" or "in which" asks besides a place or a manner: a time, an amount, a reason ("On what charge ...")."""
_PLACE_OR_MANNER = (rf"(?:where\b|how\b(?!\s+{_TIME_OR_AMOUNT})|(?:in|at|near|on|during) (?:what|which)\b"
                    rf"(?!\s+{_TIME_OR_AMOUNT})|{_PLACE_ASKED})")
"""What a question asking where or how opens with: not a time or an amount ("In what year ...", "How old ...")."""
_NO_CLAUSE = r"(?:(?!\b(?:who|whom|that|which)\b)[^?])*"
"""Words up to the question mark that open no relative clause."""


def _asks_ending(verbs: tuple[str, ...]) -> re.Pattern[str]:
    """A question asking where or how someone died or lies in one of ``verbs``, the verb last or before a short
    phrase ("Where did Francis Bacon die?", "In which English town did Napoleon III die in exile?"), and not in a
    relative clause ("Where is the memorial to the firefighters who were killed?" asks a memorial's place)."""
    return re.compile(rf"^\W*{_PLACE_OR_MANNER}{_NO_CLAUSE}\b(?:did|was|were|is|are)\b{_NO_CLAUSE}"
                      rf"\b(?:{'|'.join(verbs)})(?:\s+(?:in|at|on|near|by|after|during|while|from)\b[^?,;]{{0,30}})?"
                      r"\W*$", re.IGNORECASE)


_ASKS_DEATH = _asks_ending(DEATH_VERBS)
_ASKS_BURIAL = _asks_ending(BURIAL_VERBS)
_DEATH = re.compile(
    r"\b(?:die[sd]?|dying|death|deaths|dead|deceased|kill(?:ed|ing)?|slain|execut(?:ed|ions?)|beheaded|hang(?:ed|ing)|"
    r"assassinat\w*|murder\w*|perished|succumbed|suicide|drowned|martyr\w*|fell in battle|passed away|"
    r"lost (?:his|her|their) li(?:fe|ves)|shot|shooting|firing squad|burn(?:ed|t) at the stake|fatally|mortally|"
    r"guillotined|poisoned|strangled|stabbed|lynched|crucified)\b|\bd\.\s?\d", re.IGNORECASE)
"""A death, in words ("until his death in 1505", "where he was killed", "committed suicide", "burned at the
stake", "(d. 632)")."""
_BURIAL = re.compile(r"\b(?:buried|burial|interred|interment|entombed|tomb|grave|cemetery|mausoleum|"
                     r"resting place|laid to rest)\b", re.IGNORECASE)
"""A burial, in words ("is buried in", "his tomb", "the cemetery of")."""
_ASKS_MARRIAGE = re.compile(
    r"^\W*(?:to )?(?:who|whom) (?:(?:was|were|is|are|did|does|had|has) (?:(?!\bwho\b)[^?])*?\b)?"
    r"(?:married|marry|marries|wed)\b", re.IGNORECASE)
"""A question asking whom someone married ("Who was Augusto Pinochet married to?", "Whom did Kanye West marry?",
"To whom was Marie Antoinette married?", "Who married Prince Albert?"); not one asking another person at a wedding
("Who officiated when Charles married Diana?", "Who was the priest who married them?")."""
_ASKS_BIRTH_NAME = re.compile(
    r"\b(?:birth|real|original|maiden) (?:sur)?name\b|\b(?:sur)?name at birth\b|\bwhat (?:sur)?name\b[^?]*\bborn\b"
    r"|\bborn (?:with|as|under)\b", re.IGNORECASE)
"""A question asking the name someone or something had first, or has behind another ("What was Jack London's birth
name?", "Under what name was Charles Aznavour born?", "What was the real name of George Eliot?", "What was the
original name of the Korean alphabet?")."""
_BIRTH = re.compile(r"\b(?:born|birth\w*|natives? (?:of|to))\b|(?-i:\bb\.\s)|(?-i:\b[A-Z][\w-]* native\b)",
                    re.IGNORECASE)
"""A birth, in words ("was born in", "his birthplace", "a native of", "a Baghdad native", "b. Netherlands 1659"; not
an initial, "W. E. B. Du Bois", nor "Native American")."""
_BORN_IN_A_PEOPLE = re.compile(r"\b((?:[A-Z][\w'’]* )?[A-Z][\w'’]*)-born\b")
"""A birth given by a people or a place's name ("a Scottish-born naturalist", "South African-born",
"Plymouth-born")."""
_TOWN_ASKED = re.compile(r"\b" + _unit_asked(PLACE_UNITS), re.IGNORECASE)
"""A question asking for a place below a country ("Which town ...", "In what US state ...")."""
_NICKNAME = r"(?:nick-?names?|epithets?|sobriquets?|honou?rifics?)"
"""The words a question asks a nickname by."""
_AUXILIARY = r"(?:is|was|are|were|do|does|did|has|had|have)"
_OPENING = r"(?:^|[,;]\s*)\W*"
"""Where a question's asking starts: its beginning, or after an opening clause ("Besides the Prudent, what ...")."""
_ASKS_NICKNAME = re.compile(
    rf"{_OPENING}(?:(?:by|under)\s+)?(?:what|which)\s+(?:(?!{_AUXILIARY}\b)[\w'’-]+\s+){{0,3}}?{_NICKNAME}"
    rf"(?:\s+titles?)?\s*(?:,[^,?]*,\s*)?{_AUXILIARY}\b"
    rf"|{_OPENING}what(?:['’]?s|\s+(?:is|was|are|were))\s+(?:[\w.'’-]+\s+){{0,8}}?[\w.-]*(?:['’]s?|s)\s+"
    rf"(?:[\w-]+\s+)?{_NICKNAME}\W*$"
    rf"|{_OPENING}what(?:['’]?s|\s+(?:is|was|are|were))\s+(?:the|an?|its|his|her|their)\s+(?:[\w-]+\s+){{0,2}}?"
    rf"{_NICKNAME}\s+(?:of|for|given|that|which)\b"
    rf"|{_OPENING}what\s+(?:is|was|are|were)\b[^?]*\bnicknamed\W*$"
    r"|^\W*(?:by|under)\s+what\s+(?:[\w'’-]+\s+)?titles?\b.*\b(?:known|remembered)\b", re.IGNORECASE)
"""A question whose answer is a nickname: the nickname is what it asks for ("What nickname has Franz Boas been
given?", "By what epithet is Basil II known?", "What was al capones nickname", "What is the nickname of Fuzhou?",
"What is Babe Ruth nicknamed?", "By what title are Cyril and Methodius known?"), not a thing it names ("Which city
has the nickname the Big Apple?", "Which newspaper coined the nickname Iron Lady?", "What is an epithet?") nor what a
nickname means or where it comes from (:data:`_ABOUT_THE_NAME`)."""
_ABOUT_THE_NAME = re.compile(
    r"\b(?:mean|means|meant|meaning|origins?|refers?|referred|language|inspired?|coined?|derived?|derives)\b"
    r"|\b(?:comes?|came) from\b", re.IGNORECASE)
"""A question asking about a nickname rather than for it ("What does Chicago's nickname refer to?", "What is the
origin of New York's nickname?")."""
_CALLED_BY = re.compile(
    r"\b(?:call(?:ed|s|ing)?|known\s+(?:[\w'’-]+\s+){0,3}?(?:as|by|under)|nick-?named|dubbed|named|"
    r"(?:the|a|by|his|her|its|their)\s+(?:[\w-]+\s+)?names?|referred|referring|termed|terms?|titled?|styled|hailed|"
    r"regarded|considered|remembered|label(?:l?ed)|coined|alias|a\.?k\.?a|monikers?|byname|cognomen)\b"
    rf"|\b{_NICKNAME}\b|[\"“”«»]|(?<!\w)['‘][A-Z][^'’]{{0,60}}['’](?!\w)", re.IGNORECASE)
"""How a sentence gives something a name it is called by: a word of naming ("has been called the 'Father of American
Anthropology'", "known to his fans as the King", "earned the name Iron Lady", "regarded as the father of optics";
not "best known for") or a name in quotation marks. A weak filter: it passes many sentences that give no nickname
("named after his grandfather", "his second term"); it stops the ones that only say who or what the subject is."""
_ASKS_WHO = re.compile(r"^\W*(?:who|whom)\b", re.IGNORECASE)
_ASKS_NAME = re.compile(r"^\W*what (?:was|were|is|are)\b.*\b(?:names?|called|named)\b", re.IGNORECASE)


def _kin_of(relatives: str) -> str:
    """A relative of someone among ``relatives`` (alternatives), in lower case: after a possessive, a word between
    ("Schubert's father", "Taejo of Joseon's second queen"), or before "of" ("the first wife of")."""
    return rf"['’]s? (?:[a-z-]+ )?(?:{relatives})\b|\b(?:{relatives}) of\b"


_RELATIVE = re.compile(_kin_of(_KIN))
"""A relative of someone, in lower case ("Schubert's father", "the first wife of"; not "the Sons of Liberty")."""
_WEDDING_WORDS = "married|marriage|marry|marries|wed|wedded|widow|widower"
"""The words of a marriage that speak of a family too."""
_FAMILY = re.compile(rf"\b(?:{_KIN}|grandparents?|stepfather|stepmother|offspring|{_WEDDING_WORDS}|family|sired|"
                     rf"fathered|mothered|begat|begot|begotten|born(?: [\w ]{{1,30}}?)? to)\b",
                     re.IGNORECASE)
"""Words that speak of someone's family: a sentence naming a relative says how they are related ("born in Naples
to Pietro Bernini", "sired by Poseidon")."""
SPOUSES = ("wife", "wives", "husband", "husbands", "spouse", "spouses", "consort", "consorts")
"""The relatives a question asks by marriage ("Who was Jayavarman VII's wife?")."""
_ROYAL_SPOUSE = re.compile(r"['’]s? (?:[a-z-]+ )?(?:queens?|empress(?:es)?)\b")
"""A spouse asked by a royal title ("Louis XVI's queen"), which may be a ruler in her own right ("Egypt's last
queen")."""
_SPOUSE = re.compile(f"{_kin_of('|'.join(SPOUSES))}|{_ROYAL_SPOUSE.pattern}")
"""A spouse of someone, in lower case ("Laplace's wife", "the first wife of", "Taejo of Joseon's second queen")."""
_OTHER_KIN = re.compile(_kin_of("|".join(kin for kin in KINSHIP if kin not in SPOUSES)))
"""A relative besides a spouse: "the father of Henry VIII's second wife" asks a father."""
_ROYAL = re.compile(r"\b(?:queens?|empress(?:es)?|consorts?)\b", re.IGNORECASE)
"""A queen, an empress or a consort, of any case: what answers a spouse asked by a royal title."""
_MARRYING = (rf"(?:{'|'.join(SPOUSES)}|{_WEDDING_WORDS}|marriages|marrying|wedding|widowed|bride|betrothed|"
              r"divorced?)")
_MARRIAGE = re.compile(rf"\b{_MARRYING}\b|^\W*(?i:{_MARRYING})\b")
"""Words that speak of a marriage ("his second wife", "married Anne Boleyn", "queen consort"), in lower case but at
the sentence's start: a capitalised one is a title's ("Dona Flor and Her Two Husbands")."""
_WORD = re.compile(r"[\w'’-]+")
_POSSESSIVE = re.compile(r"['’]s?$")
"""A possessive ending ("Hitchcock's", "Jones'"): it ends a name, and names are compared without it."""
_FUNCTION_WORDS = frozenset((
    "the", "a", "an", "in", "at", "on", "it", "he", "she", "they", "his", "her", "its", "their", "this", "that",
    "these", "those", "there", "however", "although", "after", "before", "during", "since", "when", "while", "as",
    "by", "for", "from", "with", "of", "to", "and", "but", "or", "also", "today", "then", "near"))
"""Words capitalised at a sentence's start that name nothing."""
_QUESTION_WORDS = frozenset(("who", "whom", "whose", "what", "which", "where", "when", "why", "how"))
"""A question's opening word, capitalised but no name."""
NAME_JOINERS = frozenset(("of", "de", "del", "la", "von", "van", "da", "der", "di", "do", "dos", "bin", "ibn", "ben"))
"""Lower-case words inside a name ("Federico del Sagrado Corazón", "Vincent van Gogh")."""
_LOCATING = frozenset(("in", "at", "near", "from"))
"""Words before a name that make it a place even when the question names it ("born in Vinci")."""
_DEMONYM = re.compile(r"(?:an|ese|ish|ic|i|ch)$")
"""How a nationality ends ("Norwegian", "Lebanese", "Scottish", "Icelandic", "Iraqi", "Dutch")."""
_NOT_A_NOUN = frozenset(("is", "was", "are", "were", "has", "had", "have", "will", "would", "became", "becomes",
                         "remains", "lies", "also", "and", "or", "in", "on", "at", "of", "to", "for", "with",
                         "from", "by", "as", "which", "where", "that"))
"""Words after a capitalised word that make it a noun ("Milan is", "Tehran also") rather than an adjective."""


def _bare(word: str) -> str:
    """A word as names are compared: lower case, without a possessive ("Hitchcock's" is "hitchcock")."""
    return _POSSESSIVE.sub("", word.lower())


def asks_year(question: str) -> bool:
    """Whether ``question`` opens by asking for a year ("In what year ...", "Which year ...")."""
    return bool(_ASKS_YEAR.search(question))


def asks_share(question: str) -> bool:
    """Whether ``question`` asks what share, percentage, proportion or fraction of a whole something is."""
    return bool(_ASKS_SHARE.search(question))


def asks_place(question: str) -> bool:
    """Whether ``question`` opens by asking in (at, near, from) which town, city, state ... something is or
    happened ("In which Norwegian town was Henrik Ibsen born?", "In what US state is Yellowstone?")."""
    return bool(_ASKS_PLACE.search(question))


def asks_agent(question: str) -> bool:
    """Whether ``question`` opens by asking who made, found or won something ("Who discovered scandium?", "Who
    wrote Middlemarch?"), which a name answers."""
    return bool(_ASKS_AGENT.search(question))


def _asks_who(question: str) -> bool:
    """Whether ``question`` asks who someone is, or their name."""
    return bool(_ASKS_WHO.search(question) or _ASKS_NAME.search(question))


def asks_relative(question: str) -> bool:
    """Whether ``question`` asks who a relative of someone was ("Who was Franz Schubert's father?", "Who was the
    first wife of Edward I?", "What was Laplace's wife called?", "Who was Augusto Pinochet married to?"), which a
    sentence speaking of that family answers."""
    return bool((_asks_who(question) and _RELATIVE.search(question)) or _ASKS_MARRIAGE.search(question))


def asks_spouse(question: str) -> bool:
    """Whether ``question`` asks who someone's wife, husband or consort was, or whom someone married ("Who was
    Jayavarman VII's wife?", "What was the name of Taejo of Joseon's second queen?"), which a sentence speaking of a
    marriage answers: a sentence naming a parent or a child speaks of a family, not of a marriage."""
    return bool((_asks_who(question) and _SPOUSE.search(question) and not _OTHER_KIN.search(question))
                or _ASKS_MARRIAGE.search(question))


def asks_birthplace(question: str) -> bool:
    """Whether ``question`` asks where someone was born ("Where was Gerolamo Cardano born?", "In which Scottish
    village was David Livingstone born?"), which a sentence speaking of that birth answers. Not the name someone
    was born with: a lead gives it without saying "born" ("John Griffith London, better known as Jack London")."""
    return bool(_ASKS_BIRTHPLACE.search(question))


def asks_death(question: str) -> bool:
    """Whether ``question`` asks where or how someone died, was killed or executed ("Where did Francis Bacon die?",
    "In which town was Thomas Müntzer executed?", "How did Hermann Göring die?"), which a sentence speaking of that
    death answers; not when (a year answers: :func:`asks_year`), nor a death that is not the question's subject's
    ("What share of people die in Ebola outbreaks?")."""
    return bool(_ASKS_DEATH.search(question))


def asks_burial(question: str) -> bool:
    """Whether ``question`` asks where someone is buried ("Where is Anton Bruckner buried?", "In which cemetery is
    Joan Miró buried?"), which a sentence speaking of a burial answers."""
    return bool(_ASKS_BURIAL.search(question))


def speaks_of_death(claim: str) -> bool:
    """Whether ``claim`` speaks of a death: "died", "his death", "was killed", "executed", "committed suicide"."""
    return bool(_DEATH.search(claim))


def speaks_of_burial(claim: str) -> bool:
    """Whether ``claim`` speaks of a burial: "buried", "interred", a tomb, a grave, a cemetery."""
    return bool(_BURIAL.search(claim))


def asks_birth_name(question: str) -> bool:
    """Whether ``question`` asks the name something had at birth, first, or behind another (a birth, real,
    original or maiden name), which a sentence naming nothing but what the question names does not give ("Charles
    Aznavour was a French and Armenian singer-songwriter." for the name Aznavour was born with)."""
    return bool(_ASKS_BIRTH_NAME.search(question))


def asks_nickname(question: str) -> bool:
    """Whether ``question`` asks what someone or something is nicknamed (:data:`_ASKS_NICKNAME`), which a sentence
    that gives no name as one it is called by (:func:`gives_nickname`) does not answer."""
    return bool(_ASKS_NICKNAME.search(question)) and not _ABOUT_THE_NAME.search(question)


def gives_nickname(claim: str) -> bool:
    """Whether ``claim`` gives a name something is called by (:data:`_CALLED_BY`)."""
    return bool(_CALLED_BY.search(claim))


def asks_scientific_name(question: str) -> bool:
    """Whether ``question`` asks a species' scientific name ("What is the scientific name of the housefly?"), which
    a sentence giving only the family it belongs to ("The housefly is a fly of the suborder Cyclorrhapha.") does
    not answer; not a family's or genus's name, what a name means, who gave it, nor a group's name asked in the
    plural ("the scientific name for seed plants", answered "gymnosperms")."""
    asked = _ASKS_SCIENTIFIC_NAME.search(question)
    return bool(asked) and not _ASKS_HIGHER_RANK.search(question) and not _names_plural(question[asked.end():])


_NAMED = re.compile(r"^\s+(?:of|for)\s+(?:(?:the|an?)\s+)?([a-z -]+)", re.IGNORECASE)


def _names_plural(rest: str) -> bool:
    """Whether what follows "name" asks about a plural ("for seed plants", "for trees like the oak"): a word
    before the first function word is a noun in the plural, "species" aside."""
    named = _NAMED.match(rest)
    words = itertools.takewhile(lambda word: word not in STOPWORDS, named.group(1).lower().split() if named else ())
    return any(word != "species" and word.endswith(("s", "ae")) and noun_lemma(word) != word for word in words)


def gives_scientific_name(claim: str) -> bool:
    """Whether ``claim`` does not stop at the rank something belongs to: it writes a scientific name, a genus and
    an epithet (:func:`_binomial`) or a group's name standing for the group ("Red algae, or Rhodophyta, ..."), or it
    names no rank at all (a term asked as a scientific name, "mitosis (i.e., cell division)", "The patella, also
    known as the kneecap, ..."); not "The housefly is a fly of the suborder Cyclorrhapha."."""
    if any(_binomial(*match.groups()) for match in _BINOMIAL.finditer(claim)):
        return True
    if any(not _AFTER_RANK.search(claim, 0, m.start()) for m in _GROUP_NAME.finditer(claim)):
        return True
    return not _NAMES_RANK.search(claim)


def _binomial(opening: str | None, genus: str, epithet: str, closing: str | None) -> bool:
    """Whether a capitalised word and a lower-case one make a genus and an epithet: written in brackets ("(Boa
    constrictor)"), the one word twice ("Gorilla gorilla"), an epithet English's lexicon does not know after a
    word that is no function word or people's adjective ("Mangifera indica", not "The housefly" nor "Indian
    myna"), or one it knows only as a noun after a genus it does not know ("Canis lupus", "Tyrannosaurus rex"; not
    "Macaca genus")."""
    lowered = genus.lower().rstrip(".")
    if epithet in STOPWORDS or lowered in STOPWORDS or lowered.endswith(NATIONALITY_ENDINGS):
        return False
    if (opening and closing) or epithet == lowered:
        return True
    known = parts_of_speech(epithet)
    return not known or (known == {"NOUN"} and epithet not in RANKS and not genus.endswith(".")
                         and not parts_of_speech(lowered))


def speaks_of_birth(claim: str) -> bool:
    """Whether ``claim`` speaks of a birth: "born", a birthplace, a native of somewhere, "b."."""
    return bool(_BIRTH.search(claim))


def speaks_of_birth_below_country(question: str, claim: str) -> bool:
    """Whether ``claim`` speaks of a birth that a question asking the town, city or state someone was born in
    ("In which Scottish town was John Muir born?") can read an answer in: a birth given only by a people's or
    the question's own word ("a Scottish-born naturalist") names no town; one given by a place's name
    ("Plymouth-born Michael Foot") may."""
    asked = {word.lower() for word in _WORD.findall(question)}
    peopled = [m for m in _BORN_IN_A_PEOPLE.finditer(claim)
               if (lowered := m.group(1).lower()) in asked or names_a_people(lowered)
               or names_a_people(lowered.split()[-1])]
    return any(not any(p.start() <= m.start() < p.end() for p in peopled) for m in _BIRTH.finditer(claim))


def gives_spouse(question: str, claim: str) -> bool:
    """Whether ``claim`` can name the spouse ``question`` asks (:func:`asks_spouse`): it speaks of a marriage, or,
    for a question asking someone's queen or empress, of a queen, an empress or a consort ("Marie Antoinette was the
    last queen of France")."""
    return speaks_of_marriage(claim) or bool(_ROYAL_SPOUSE.search(question) and _ROYAL.search(claim))


def misses_asked_event(question: str, claim: str) -> bool:
    """Whether ``question`` asks where or how someone died (:func:`asks_death`), where they lie (:func:`asks_burial`)
    or whom they married (:func:`asks_spouse`), and ``claim`` does not speak of it: a sentence that is about the
    person but not the event, which the readers read as answering."""
    return ((asks_death(question) and not speaks_of_death(claim))
            or (asks_burial(question) and not speaks_of_burial(claim))
            or (asks_spouse(question) and not gives_spouse(question, claim)))


def speaks_of_marriage(claim: str) -> bool:
    """Whether ``claim`` speaks of a marriage: a wife, a husband, a consort, "married", a widow."""
    return bool(_MARRIAGE.search(claim))


def speaks_of_family(claim: str) -> bool:
    """Whether ``claim`` speaks of someone's family: a relative ("his father"), a marriage, a birth to someone."""
    return bool(_FAMILY.search(claim))


def _names(text: str, words: list[re.Match[str]]) -> list[list[int]]:
    """The names among ``words`` (the word matches of ``text``), as lists of their indices: runs of capitalised
    words (function words apart) joined by "of", "de", "van" ..., a possessive ending a run ("Dante Alighieri's
    Divine Comedy" is two names)."""
    names: list[list[int]] = []
    for i, word in enumerate(words):
        token = word.group()
        capitalised = token[0].isupper() and token.lower() not in _FUNCTION_WORDS
        joined = (bool(names) and names[-1][-1] == i - 1 and text[words[i - 1].end():word.start()].isspace()
                  and not _POSSESSIVE.search(words[i - 1].group()))
        if capitalised or (joined and token.lower() in NAME_JOINERS):
            if joined:
                names[-1].append(i)
            else:
                names.append([i])
    return names


_COORDINATED = re.compile(r"\s+(?:and|or)\s+([A-Z][\w-]*)\s+([a-z]+)")


def _coordinated_adjective(rest: str) -> bool:
    """Whether the text after a capitalised word joins it to a nationality used as an adjective ("Swedish *and
    American film* actress"), which makes the first one an adjective too."""
    joined = _COORDINATED.match(rest)
    return (joined is not None and joined.group(2) not in _NOT_A_NOUN
            and all(_DEMONYM.search(part) for part in joined.group(1).split("-") if not part.islower()))


def names_beyond(question: str, claim: str) -> bool:
    """Whether ``claim`` names something besides what ``question`` names (a place, for a question asking one):
    a capitalised word that is not a function word, not in a name holding the last word of one of the
    question's names ("Henrik Johan Ibsen" for "Henrik Ibsen"; but "Gustave Eiffel" is not "the Eiffel Tower";
    of a question typed in lower case every word counts; a place unit such as "County" does not, and a name
    after "in", "at", "near" or "from" is a place whatever the question names: "born in Vinci"; so is what follows
    the last "of" of the subject's name there, when the question lacks it: "in and near the West End of London"
    for "In which city is West End theatre staged?", not "Henry VIII of England was ..."), and not a nationality
    used as an adjective ("a Norwegian playwright", "a Swedish and American actress")."""
    asked_words = list(_WORD.finditer(question))
    asked = {_bare(w.group()) for w in asked_words}
    heads = {_bare(asked_words[name[-1]].group()) for name in _names(question, asked_words)} - _QUESTION_WORDS
    if not heads:
        heads = set(asked)
    heads -= set(PLACE_UNITS)
    words = list(_WORD.finditer(claim))
    for name in _names(claim, words):
        located = name[0] > 0 and words[name[0] - 1].group().lower() in _LOCATING
        named = {_bare(words[i].group()) for i in name if words[i].group()[0].isupper()}
        if not located and named & heads:
            owner = _after_last_of(words, name) if _located_after_article(words, name) else []
            if owner and not {_bare(words[i].group()) for i in owner} & asked and _names_something(
                    claim, words, owner, True):
                return True  # the place the subject's name is of: "near the West End of London"
            continue  # the asked subject's name, however long
        if _names_something(claim, words, name, located):
            return True
    return False


def _located_after_article(words: list[re.Match[str]], name: list[int]) -> bool:
    """Whether a name (indices into ``words``) follows "in", "at", "near" or "from" and "the" ("near the West End
    of London")."""
    first = name[0]
    return (first > 1 and words[first - 1].group().lower() == "the"
            and words[first - 2].group().lower() in _LOCATING)


def _after_last_of(words: list[re.Match[str]], name: list[int]) -> list[int]:
    """The part of a name (indices into ``words``) after its last "of" ("London" of "West End of London"), empty
    for a name without one."""
    ofs = [k for k, i in enumerate(name) if words[i].group() == "of"]
    return name[ofs[-1] + 1:] if ofs else []


def _names_something(claim: str, words: list[re.Match[str]], name: list[int], located: bool) -> bool:
    """Whether the name ``name`` (indices into ``words``, the word matches of ``claim``) holds a capitalised word
    that is not a nationality used as an adjective ("a Norwegian playwright", "a Russian-American choreographer",
    "a Belgian-born director"); ``located``: it follows "in", "at", "near" or "from" ("in Milan and Turin" is a
    place)."""
    for i in name:
        word = words[i].group()
        if not word[0].isupper():
            continue
        rest = claim[words[i].end():]
        after = re.match(r"\s+([a-z]+)", rest)
        parts = word.split("-")
        compound = len(parts) > 1 and parts[-1].islower()  # "Belgian-born", "London-based"
        adjective = (compound or (after is not None and after.group(1) not in _NOT_A_NOUN)
                     or (not located and _coordinated_adjective(rest)))
        if not (adjective and all(_DEMONYM.search(part) for part in parts if not part.islower())):
            return True
    return False


def names_another(question: str, claim: str) -> bool:
    """Whether ``claim`` holds a name that is not one of ``question``'s: a name with a capitalised word the
    question lacks ("John Griffith London" for "What was Jack London's birth name?"), not a nationality used as an
    adjective. Unlike :func:`names_beyond`, a name sharing the subject's surname counts: a name someone was born
    with often does."""
    asked = {_bare(w.group()) for w in _WORD.finditer(question)}
    words = list(_WORD.finditer(claim))
    for name in _names(claim, words):
        if {_bare(words[i].group()) for i in name if words[i].group()[0].isupper()} <= asked:
            continue  # the question's own name, however arranged
        located = name[0] > 0 and words[name[0] - 1].group().lower() in _LOCATING
        if _names_something(claim, words, name, located):
            return True
    return False


def gives_asked_kind(question: str, claim: str) -> bool:
    """Whether ``claim`` gives the kind of value ``question`` asks for: a number ("1976", "the 1990s", "the 5th
    century BC") when it asks for a year, a quantity ("40%", "a third", "the majority") when it asks what share of a
    whole something is, a birth (:func:`speaks_of_birth`) when it asks where someone was born, a death
    (:func:`speaks_of_death`) when it asks where or how someone died, a burial (:func:`speaks_of_burial`) when it
    asks where someone is buried, a
    name that is not the question's (:func:`names_another`) when it asks a birth, real or original name, a
    name besides the question's (:func:`names_beyond`) when it asks in which town, city or state, or who wrote,
    founded, discovered or won something, a marriage (:func:`speaks_of_marriage`) when it asks someone's wife or
    husband, a family (:func:`speaks_of_family`) when it asks who another relative was, a name it is called by
    (:func:`gives_nickname`) when it asks a nickname; True for a question of any other kind."""
    if asks_year(question):
        return bool(_NUMBER.search(claim))
    if asks_share(question):
        return bool(_QUANTITY.search(claim))
    if asks_birthplace(question) and not (speaks_of_birth_below_country(question, claim)
                                          if _TOWN_ASKED.search(question) else speaks_of_birth(claim)):
        return False
    if asks_birth_name(question) and not names_another(question, claim):
        return False
    if misses_asked_event(question, claim):
        return False
    if asks_place(question) or asks_agent(question):
        return names_beyond(question, claim)
    if asks_spouse(question):
        return True  # a marriage, read above
    if asks_relative(question):
        return speaks_of_family(claim)
    if asks_scientific_name(question):
        return gives_scientific_name(claim)
    if asks_nickname(question):
        return gives_nickname(claim)
    return True
