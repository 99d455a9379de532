"""The names of a place and of its people that do not share a stem.

:func:`~selfrag_langchain.chains.names.place_stems` meets "Croatia" and "Croatian" by their endings; the names
here differ more than an ending ("France" "French", "the Netherlands" "Dutch", "the United States" "American"),
so a question about what "Americans" call rowing would otherwise never find the passage that says "in the United
States"; nor "Earth's longest mountain range" the one "the longest in the world". Each group lists a place's
names and the words for its people and their language or adjective; a word of a group is held by a text that
holds any other of its names (all the words of one of several words). Where one of a people's words also names
their language, the group says which: "called in French" names the language of an asked name, not a place
(:func:`~selfrag_langchain.chains.names.describing_words`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass


@dataclass(frozen=True)
class People:
    """A place's names and its people's words, in lower case, a name of several words with a space, and the
    word among them that also names their language, if one does."""

    names: tuple[str, ...]
    language: str | None = None

    def __post_init__(self) -> None:
        if self.language is not None and self.language not in self.names:
            raise ValueError(f"{self.language!r} names no word of {self.names}")


PEOPLES = (
    People(("earth", "world")),  # "Earth's longest mountain range" is "the longest in the world"
    People(("america", "united states", "us", "usa", "american")),
    People(("britain", "great britain", "united kingdom", "uk", "british", "briton")),
    People(("england", "english", "englishman"), language="english"),
    People(("scotland", "scottish", "scot", "scots")),
    People(("wales", "welsh"), language="welsh"),
    People(("ireland", "irish", "irishman"), language="irish"),
    People(("france", "french", "frenchman"), language="french"),
    People(("netherlands", "holland", "dutch"), language="dutch"),
    People(("spain", "spanish", "spaniard"), language="spanish"),
    People(("portugal", "portuguese"), language="portuguese"),
    People(("greece", "greek", "hellenic"), language="greek"),
    People(("switzerland", "swiss")),
    People(("denmark", "danish", "dane"), language="danish"),
    People(("sweden", "swedish", "swede"), language="swedish"),
    People(("norway", "norwegian"), language="norwegian"),
    People(("finland", "finnish", "finn"), language="finnish"),
    People(("iceland", "icelandic", "icelander")),
    People(("poland", "polish", "pole"), language="polish"),
    People(("czechia", "czech republic", "czech"), language="czech"),
    People(("slovakia", "slovak")),
    People(("turkey", "turkish", "turk"), language="turkish"),
    People(("thailand", "thai"), language="thai"),
    People(("philippines", "filipino", "philippine")),
    People(("peru", "peruvian")),
    People(("argentina", "argentine", "argentinian")),
    People(("lebanon", "lebanese")),
    People(("cyprus", "cypriot")),
    People(("madagascar", "malagasy")),
    People(("monaco", "monegasque")),
    People(("flanders", "flemish"), language="flemish"),
    People(("new zealand", "new zealander")),
    People(("afghanistan", "afghan")),
    People(("uzbekistan", "uzbek")),
    People(("kazakhstan", "kazakh")),
    People(("tajikistan", "tajik")),
    People(("kyrgyzstan", "kyrgyz")),
    People(("turkmenistan", "turkmen")),
    People(("rome", "roman")),
    People(("athens", "athenian")),
    People(("venice", "venetian")),
    People(("naples", "neapolitan")),
    People(("florence", "florentine")),
    People(("moscow", "muscovite")),
    People(("troy", "trojan")),
    People(("carthage", "carthaginian")),
    People(("byzantium", "byzantine")),
)
"""Each place's names and its people's words."""
OTHER_LANGUAGES = ("latin", "arabic", "hebrew", "hindi", "urdu", "basque", "gaelic", "sanskrit", "swahili", "maori",
                   "norse", "tamil", "bengali")
"""Languages that name no place of :data:`PEOPLES`."""
LANGUAGES = frozenset((*(people.language for people in PEOPLES if people.language), *OTHER_LANGUAGES))
"""The (lower-cased) languages the table and :data:`OTHER_LANGUAGES` name; not every people's language is
among them ("icelandic", "slovak" are not)."""


ADJECTIVES_SHARING_A_STEM = frozenset((
    "german", "italian", "russian", "chinese", "japanese", "korean", "indian", "canadian", "australian", "austrian",
    "hungarian", "mexican", "brazilian", "cuban", "kenyan", "nigerian", "egyptian", "iranian", "persian", "syrian",
    "belgian", "romanian", "bulgarian", "serbian", "croatian", "slovenian", "bosnian", "albanian", "ukrainian",
    "belarusian", "latvian", "lithuanian", "estonian", "israeli", "palestinian", "jordanian", "saudi", "iraqi",
    "yemeni", "omani", "kuwaiti", "pakistani", "bangladeshi", "nepali", "nepalese", "tibetan", "mongolian",
    "taiwanese", "vietnamese", "burmese", "cambodian", "laotian", "malaysian", "indonesian", "singaporean",
    "sri lankan", "african", "south african", "european", "asian", "jamaican", "haitian", "dominican",
    "puerto rican", "chilean", "colombian", "venezuelan", "bolivian", "ecuadorian", "paraguayan", "uruguayan",
    "guatemalan", "panamanian", "ethiopian", "eritrean", "somali", "sudanese", "ugandan", "tanzanian", "rwandan",
    "ghanaian", "senegalese", "cameroonian", "congolese", "angolan", "zambian", "zimbabwean", "moroccan",
    "algerian", "tunisian", "libyan", "armenian", "georgian", "azerbaijani", "maltese", "prussian", "bavarian",
    "bohemian", "moravian", "catalan", "basque", "galician", "corsican", "sicilian", "sardinian", "cornish",
    "yugoslav", "soviet", "ottoman"))
"""Peoples' adjectives that share a stem with their place's name, so that :data:`PEOPLES` leaves them out
("German", "Italian", "Kenyan"), with a continent's and a former state's."""


def names_a_people(word: str) -> bool:
    """Whether a (lower-cased) word names a people or the place of one: a word of :data:`PEOPLES` (a city's
    among them: "Florentine" says the city only by its people's word) or :data:`ADJECTIVES_SHARING_A_STEM`; not a
    place whose name ends as an adjective does ("Dalian", "Varese")."""
    return word in _groups() or word in ADJECTIVES_SHARING_A_STEM


@functools.cache
def _groups() -> dict[str, tuple[tuple[str, ...], ...]]:
    forms: dict[str, tuple[tuple[str, ...], ...]] = {}
    for people in PEOPLES:
        for name in people.names:
            forms[name] = tuple(tuple(other.split()) for other in people.names if other != name)
    return forms


def other_names(word: str) -> tuple[tuple[str, ...], ...]:
    """The other names of the place or people a (lower-cased) word names, each as its words (("france",) for
    "french"; ("united", "states") among those for "american"); empty for a word in no group of
    :data:`PEOPLES`."""
    return _groups().get(word, ())
