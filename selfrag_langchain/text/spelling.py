"""British and American spellings of one word written alike, so that a question's "fibres" finds a passage's
"fibers" and its "color" a passage's "colour".

:func:`american_spelling` writes a lower-cased word the American way by the regular patterns that tell the two
apart ("-our" "-or", "-re" "-er", "-ise" "-ize", "-yse" "-yze", "-ogue" "-og", "ae" and "oe" "e") and a few
words of their own ("aluminium", "grey", "sulphur"). Both sides of a comparison go through it, so a pattern need
not be right for every word, only never make two different words one: "-ll-" ("travelled") is left out, as it
would write "filled" as "filed", and "oe" is read only in the stems that have it ("foetus", "manoeuvre"), as "canoe"
would become "cane". "ae" is read only in words English's lexicon knows, so that a name ("Michael") stays as it is.
"""

from __future__ import annotations

import functools
import re

from selfrag_langchain.text.lexicon import noun_lemma, parts_of_speech

__all__ = ["american_noun", "american_spelling"]

_WORDS = {"aluminium": "aluminum", "grey": "gray", "greys": "grays", "plough": "plow", "ploughs": "plows",
          "programme": "program", "programmes": "programs", "mould": "mold", "moulds": "molds", "moult": "molt",
          "tyre": "tire", "tyres": "tires", "pyjamas": "pajamas", "jewellery": "jewelry", "artefact": "artifact",
          "artefacts": "artifacts", "sceptic": "skeptic", "sceptical": "skeptical", "ageing": "aging",
          "defence": "defense", "offence": "offense", "licence": "license", "pretence": "pretense"}
"""Words whose two spellings no regular pattern tells apart."""
_PATTERNS = (
    (re.compile(r"^sulph"), "sulf"),  # sulphur, sulphate, sulphuric
    (re.compile(r"(?<=\w\w)our(?=s?$|ed$|ing$|ite|ful|able|hood|er|ism|ist|less|ly$|isation|ization|ize|ise)"), "or"),
    (re.compile(r"(?<=\w\w[b-df-hj-np-tv-z])re(?=s?$)"), "er"),  # fibre, centres, theatre; not "are", "acre", "pre"
    (re.compile(r"(?<=\w\w\w)is(?=e$|es$|ed$|ing$|ation|ations$|er$|ers$)"), "iz"),  # organise, civilisation
    (re.compile(r"(?<=\w)ys(?=e$|es$|ed$|ing$)"), "yz"),  # analyse, paralysed
    (re.compile(r"(?<=\w{4})ogue(?=s?$)"), "og"),  # catalogue, dialogue, analogue; not "rogue", "vogue"
    (re.compile(r"^(foet|oestr|oesoph|oedem|manoeuv|amoeb|diarrhoe|coeliac|homoeo)"),
     lambda m: m.group().replace("oe", "e")),
)
_AE = re.compile(r"(?<=\w)ae(?=\w)")
"""An "ae" inside a word ("palaeontology", "haemoglobin", "encyclopaedia"), written "e" in words the lexicon
knows."""


@functools.lru_cache(maxsize=1 << 14)
def american_spelling(word: str) -> str:
    """``word`` (lower-cased) spelt the American way by the patterns of the module's docstring; the word itself
    when none applies."""
    if word in _WORDS:
        return _WORDS[word]
    spelt = word
    for pattern, replacement in _PATTERNS:
        spelt = pattern.sub(replacement, spelt)
    if _AE.search(spelt) and parts_of_speech(word):  # a word the lexicon knows, not a name
        spelt = _AE.sub("e", spelt)
    return spelt


def american_noun(word: str) -> str:
    """``word`` (lower-cased) read as a noun in its dictionary form and spelt the American way, so that nouns
    compare alike however they are inflected and spelt ("organisations" and "organization", "elevators" and
    "elevator")."""
    return american_spelling(noun_lemma(word))
