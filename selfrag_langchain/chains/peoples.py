"""The names of a place and of its people that do not share a stem.

:func:`~selfrag_langchain.chains.names.place_stems` meets "Croatia" and "Croatian" by their endings; the names
here differ more than an ending ("France" "French", "the Netherlands" "Dutch", "the United States" "American"),
so a question about what "Americans" call rowing would otherwise never find the passage that says "in the United
States"; nor "Earth's longest mountain range" the one "the longest in the world". Each group lists a place's
names and the words for its people and their language or adjective; a word of a group is held by a text that
holds any other of its names (all the words of one of several words).
"""

from __future__ import annotations

import functools

PEOPLES = (
    ("earth", "world"),  # "Earth's longest mountain range" is "the longest in the world"
    ("america", "united states", "us", "usa", "american"),
    ("britain", "great britain", "united kingdom", "uk", "british", "briton"),
    ("england", "english", "englishman"),
    ("scotland", "scottish", "scot", "scots"),
    ("wales", "welsh"),
    ("ireland", "irish", "irishman"),
    ("france", "french", "frenchman"),
    ("netherlands", "holland", "dutch"),
    ("spain", "spanish", "spaniard"),
    ("portugal", "portuguese"),
    ("greece", "greek", "hellenic"),
    ("switzerland", "swiss"),
    ("denmark", "danish", "dane"),
    ("sweden", "swedish", "swede"),
    ("norway", "norwegian"),
    ("finland", "finnish", "finn"),
    ("iceland", "icelandic", "icelander"),
    ("poland", "polish", "pole"),
    ("czechia", "czech republic", "czech"),
    ("slovakia", "slovak"),
    ("turkey", "turkish", "turk"),
    ("thailand", "thai"),
    ("philippines", "filipino", "philippine"),
    ("peru", "peruvian"),
    ("argentina", "argentine", "argentinian"),
    ("lebanon", "lebanese"),
    ("cyprus", "cypriot"),
    ("madagascar", "malagasy"),
    ("monaco", "monegasque"),
    ("flanders", "flemish"),
    ("new zealand", "new zealander"),
    ("afghanistan", "afghan"),
    ("uzbekistan", "uzbek"),
    ("kazakhstan", "kazakh"),
    ("tajikistan", "tajik"),
    ("kyrgyzstan", "kyrgyz"),
    ("turkmenistan", "turkmen"),
    ("rome", "roman"),
    ("athens", "athenian"),
    ("venice", "venetian"),
    ("naples", "neapolitan"),
    ("florence", "florentine"),
    ("moscow", "muscovite"),
    ("troy", "trojan"),
    ("carthage", "carthaginian"),
    ("byzantium", "byzantine"),
)
"""Each place's names and its people's words, in lower case, a name of several words with a space."""


@functools.cache
def _groups() -> dict[str, tuple[tuple[str, ...], ...]]:
    forms: dict[str, tuple[tuple[str, ...], ...]] = {}
    for group in PEOPLES:
        for name in group:
            forms[name] = tuple(tuple(other.split()) for other in group if other != name)
    return forms


def other_names(word: str) -> tuple[tuple[str, ...], ...]:
    """The other names of the place or people a (lower-cased) word names, each as its words (("france",) for
    "french"; ("united", "states") among those for "american"); empty for a word in no group of
    :data:`PEOPLES`."""
    return _groups().get(word, ())
