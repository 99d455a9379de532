"""Follow-ups made standalone by putting the conversation's subject in place of their pronoun."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage

from selfrag_langchain.chains.declining import DECLINED
from selfrag_langchain.chains.follow_ups import (
    adds_nothing,
    asked_nouns,
    asks_unnamed,
    conversation_subject,
    conversation_subjects,
    described_subject,
    keeps_question,
    named_title,
    names_subject,
    reference,
    referent,
    refers_back,
    subject_description,
    turn_subject,
    with_description,
    with_subject,
    with_topic,
)
from selfrag_langchain.judging.finder import AnswerSpan


@pytest.mark.parametrize(("question", "expected"), [
    ("When was it painted?", "When was Mona Lisa painted?"),
    ("What is its height?", "What is Mona Lisa's height?"),
    ("Where was he born?", "Where was Mona Lisa born?"),
    ("Who married her?", "Who married Mona Lisa?"),
    ("What did her husband do?", "What did Mona Lisa's husband do?"),
    ("Who owned it before it was stolen?", "Who owned Mona Lisa before it was stolen?"),  # the first pronoun only
    ("What language is spoken there?", "What language is spoken in Mona Lisa?"),
    ("Is there a guard? Who pays him?", "Is there a guard? Who pays Mona Lisa?"),  # existential "there" skipped
    ("How tall is the tower?", "How tall is the tower?"),
    ("Italy's capital? Itinerary?", "Italy's capital? Itinerary?"),  # whole words only
    ("When was that painting restored?", "When was Mona Lisa restored?"),  # a demonstrative and its noun
    ("How large is that at its widest?", "How large is Mona Lisa at its widest?"),  # a demonstrative alone
    ("What is the other epic besides that one?", "What is the other epic besides Mona Lisa?"),
    ("What is the largest one ever sold?", "What is the largest Mona Lisa ever sold?"),  # "one" for its kind
    ("Are old ones worth more?", "Are old Mona Lisa worth more?"),
    ("Who was the first one to copy it?", "Who was the first one to copy Mona Lisa?"),  # "first one" is someone
    ("Is one of them a copy?", "Is one of Mona Lisa a copy?"),  # "one of" is no reference
])
def test_with_subject(question: str, expected: str) -> None:
    assert with_subject(question, "Mona Lisa") == expected


def test_refers_back() -> None:
    assert refers_back("Where is it shown?")
    assert not refers_back("Where is the Mona Lisa shown?")
    assert not refers_back("Are there museums in Paris?")
    assert refers_back("Which lake is that city on?") and refers_back("What is the largest one?")
    assert not refers_back("Which is the river that flows through Paris?")  # "that" opens a clause
    assert not refers_back("Is the story true that cats purr?")  # "true that cats": no thing pointed at
    assert not refers_back("Which one is older?") and not refers_back("How many are left in the world?")
    for said in ("Is that true?", "Why is that?", "When did that happen?", "What happened after that?",
                 "How much does that cost?", "What was Paris like at that time?", "Did the tower take one year?",
                 "Was the one who designed the bridge French?"):
        assert not refers_back(said), said  # what was said, a time, a verb, a number, someone


@pytest.mark.parametrize(("question", "kind", "noun"), [
    ("When did that emperor abdicate?", "demonstrative", "emperor"),
    ("How wide is that at its maximum?", "demonstrative", None),
    ("What abbreviation are residential ones called by?", "one", None),
    ("When was she born?", "pronoun", None),
    ("Who founded that city?", "demonstrative", "city"),  # after a verb, as its object
    ("Who built that bridge in 1890?", "demonstrative", "bridge"),
    ("What order does that suborder belong to?", "demonstrative", "suborder"),  # a term the lexicon lacks
    ("Who said that people like it?", "pronoun", None),  # "that" opening a clause after a verb
    ("what kind of music is this", "demonstrative", None),  # asks what it is
    ("What are the same composer's best-known pieces?", "demonstrative", "composer"),  # "the same" and its noun
    ("What was the same man's trade before he became an apostle?", "demonstrative", "man"),  # before the pronoun
])
def test_the_kind_of_reference(question: str, kind: str, noun: str | None) -> None:
    found = reference(question)
    assert found is not None and (found.kind, found.noun) == (kind, noun)


def test_the_subject_is_the_first_citation_of_the_latest_cited_answer() -> None:
    messages = [
        HumanMessage("Who painted the Mona Lisa?"),
        AIMessage("Leonardo [1].", additional_kwargs={"citations": [{"citation": 1, "title": "Mona Lisa"}]}),
        HumanMessage("Where is the Louvre?"),
        AIMessage("In Paris [1] [2].", additional_kwargs={"citations": [{"citation": 1, "title": "Louvre"},
                                                                      {"citation": 2, "title": "Paris"}]}),
        HumanMessage("Hello?"),
        AIMessage("(no answer)", additional_kwargs={"citations": []}),
    ]
    assert conversation_subject(messages) == "Louvre"
    assert conversation_subject(messages[:2]) == "Mona Lisa"
    assert conversation_subject([HumanMessage("hi"), AIMessage("hello")]) is None


def test_a_rewrite_must_keep_every_word_of_the_follow_up() -> None:
    assert keeps_question("Which ship did Charles Darwin sail on?", "Which ship did he sail on?")
    assert not keeps_question("Who was Charles Darwin?", "Which ship did he sail on?")
    assert keeps_question("Why did Leonardo paint the Mona Lisa?", "Why?")  # nothing to lose


def test_named_title_is_the_longest_title_the_question_names() -> None:
    titles = ["Red Fort", "Taj Mahal", "Mahal", "Agra"]
    assert named_title("Where is the Taj Mahal?", titles) == "Taj Mahal"
    assert named_title("Where is the palace?", titles) is None
    # a name before a longer title that is a kind of thing
    assert named_title("At the foothills of which mountain range is Monterrey located?",
                       ["Mountain range", "Monterrey"]) == "Monterrey"
    # a kind of thing written only before "of" says what of something else is asked
    assert named_title("How many extant species of molluscs are recognized?", ["Species", "Mollusca"]) is None
    assert named_title("What is the general formula of pyroxenes?", ["Formula", "Pyroxene"]) is None
    assert named_title("Which species is the largest?", ["Species", "Crab"]) == "Species"
    assert named_title("What is the capital of France?", ["Capital"]) is None


def test_turn_subject() -> None:
    # Named by the question, though the answer cited another article.
    assert turn_subject("Where is the Taj Mahal?", "Where is the Taj Mahal?", None, ["Red Fort", "Taj Mahal"],
                        ["Red Fort"]) == "Taj Mahal"
    # A follow-up keeps what it inherited.
    assert turn_subject("Where is it shown?", "Where is it shown?", "Mona Lisa", ["Louvre"], ["Louvre"]) == "Mona Lisa"
    # A new question that names no retrieved title: what its answer cited.
    assert turn_subject("Who built the pyramids?", "Who built the pyramids?", "Mona Lisa", ["Giza"],
                        ["Giza"]) == "Giza"
    species = "How many extant species of molluscs are recognized?"
    assert turn_subject(species, species, None, ["Species", "Mollusca"], ["Mollusca"]) == "Mollusca"


def test_a_recorded_subject_wins_over_later_citations() -> None:
    messages = [
        HumanMessage("Who painted the Mona Lisa?", additional_kwargs={"subject": "Mona Lisa"}),
        AIMessage("Leonardo [1].", additional_kwargs={"citations": [{"citation": 1, "title": "Mona Lisa"}]}),
        HumanMessage("Where is it shown?", additional_kwargs={"subject": "Mona Lisa"}),
        AIMessage("In the Louvre [1].", additional_kwargs={"citations": [{"citation": 1, "title": "Louvre"}]}),
    ]
    assert conversation_subject(messages) == "Mona Lisa"


class _Finder:
    """A stand-in for ``AnswerFinder.find`` that points at one phrase, keeping the pairs it was asked to read."""

    def __init__(self, text: str, probability: float = 0.99) -> None:
        self.span = AnswerSpan(text, math.log(probability / (1 - probability)))
        self.read: list[tuple[str, str]] = []

    def __call__(self, pairs: Sequence[tuple[str, str]]) -> list[AnswerSpan]:
        self.read.extend(pairs)
        return [self.span for _ in pairs]


def _history(question: str, answer: str, standalone: str | None = None) -> list[BaseMessage]:
    return [HumanMessage(question, additional_kwargs={"standalone_question": standalone or question}),
            AIMessage(answer)]


def test_a_demonstrative_stands_for_the_name_the_previous_answer_gave() -> None:
    history = _history("In which city did his family settle?", "They settled in Cleveland, Ohio [1].",
                       "In which city did Rockefeller's family settle?")
    find = _Finder("Cleveland, Ohio")
    assert referent("Which lake is that city on?", history, "John D. Rockefeller", find) == "Cleveland, Ohio"
    assert find.read == [("In which city did Rockefeller's family settle?", "They settled in Cleveland, Ohio.")]
    assert referent("How wide is that at its widest?", history, "John D. Rockefeller", find) == "Cleveland, Ohio"
    # a noun neither the name holds nor the question asked for, no finder, a declined answer: stands for nothing
    assert referent("How tall are those antennas?", history, "John D. Rockefeller", find) is None
    assert referent("Which lake is that city on?", history, "John D. Rockefeller", None) is None
    declined = _history("In which city did he settle?", f"{DECLINED} Closest: Ohio [1].")
    assert referent("Which lake is that city on?", declined, "John D. Rockefeller", find) is None
    # a noun of the subject's own title keeps to the subject, unless the previous question asked for one of its kind
    assert referent("When was that tower built?", history, "Eiffel Tower", find) == "Eiffel Tower"
    typified = _history("Aromatic compounds have a chemistry typified by which compound?",
                        "Aromatic compounds have a chemistry typified by benzene [1].")
    formula = "What is the molecular formula of that compound?"
    assert referent(formula, typified, "Aromatic compound", _Finder("benzene")) == "benzene"
    assert referent(formula, typified, "Aromatic compound", None) == "Aromatic compound"  # no name answered
    capitalised = _history("Aromatic compounds have a chemistry typified by which compound?",
                           "Aromatic Compounds are typified by benzene [1].")
    assert referent(formula, capitalised, "Aromatic compound", _Finder("benzene")) == "benzene"
    tallest = _history("Which tower in Paris is the tallest?", "The Eiffel Tower is the tallest [1].")
    assert referent("When was that tower built?", tallest, "Eiffel Tower", _Finder("Eiffel Tower")) == "Eiffel Tower"
    flows = _history("Which ocean does it flow into?", "It flows into the Atlantic Ocean [1].")
    unread = _Finder("Atlantic Ocean")
    assert referent("How long is that river?", flows, "Amazon River", unread) == "Amazon River"
    assert unread.read == []  # the previous question asked for another kind: the answer is not read
    longest = _history("Which river is the longest?", "The Nile is the longest river [1].")
    assert referent("How big is that river basin?", longest, "Amazon River", _Finder("The Nile")) == "The Nile basin"


def test_a_demonstrative_noun_ending_a_compound_stands_for_what_it_names_else_the_first_noun_does() -> None:
    official = _history("Apart from Turkey, which country has it as one of its official languages?",
                        "Turkish is the national language of Turkey and an official language of Cyprus [1].")
    question = "which sea is that island country in"
    assert (reference(question).noun, reference(question).modifier) == ("country", "island")
    assert referent(question, official, "Turkish language", _Finder("Cyprus")) == "Cyprus"  # the country asked for
    assert with_subject(question, "Cyprus") == "which sea is Cyprus in"
    drains = _history("Which river drains the region?", "The region is drained by the Amazon River [1].")
    assert referent("How big is that river basin?", drains, "Amazonia", _Finder("Amazon River")) == \
        "Amazon River basin"  # the compound's first noun, its noun kept
    # a first noun of the subject's title keeps to the subject
    basin = _history("Which country holds most of the basin?", "Most of it lies in Brazil [1].")
    assert referent("How big is that river basin?", basin, "Amazon River", _Finder("Brazil")) == "Amazon River basin"
    # a verb, a participle, a particle or a predicate after the noun is no compound
    assert reference("When did that war end?").noun == "war"
    assert reference("Where was the first degree program in that field set up?").noun == "field"
    assert reference("Where was that film shot?").noun == "film" and reference("How is that virus spread?").noun == \
        "virus"
    assert reference("Was that king head of the church?").noun == "king"
    assert reference("Is that city capital?").noun == "city"
    assert reference("What is that island country known for?").noun == "country"
    assert with_subject("What is that island country's capital?", "Cyprus") == "What is Cyprus's capital?"


def test_a_thing_of_a_kind_stands_for_what_its_noun_names_else_the_kind_asked_else_a_subject_that_is_a_kind() -> None:
    question = "Where did this type of poem originate?"
    found = reference(question)
    assert (found.noun, found.kind_word, question[found.start:found.end]) == ("poem", "type", "this type of poem")
    assert with_subject(question, "Ode") == "Where did Ode originate?"
    parts = _history("What are the three major parts of a classic ode?", "They are the strophe, ... [1].")
    assert referent(question, parts, "Ode", _Finder("strophe")) == "Ode"  # no poem named: the subject, a kind
    # a subject that is one named thing is not the kind: nothing the conversation names
    written = _history("When was it written?", "Ozymandias was written in 1817 [1].")
    assert referent(question, written, "Ozymandias", _Finder("1817")) is None
    galaxy = _history("What type of galaxy does it sit at the centre of?",
                      "It sits at the centre of a giant elliptical galaxy [1].")
    assert referent("Who described that type of galaxy?", galaxy, "3C 273", _Finder("giant elliptical galaxy")) == \
        "giant elliptical galaxy"  # the thing of that kind the answer named, after a verb too
    # the word of kind the previous question asked for, when the noun finds nothing
    government = _history("What form of government does it have?", "It is a constitutional monarchy [1].")
    assert referent("Which other countries have that form of government?", government, "United Kingdom",
                    _Finder("constitutional monarchy")) == "constitutional monarchy"
    # a compound after "of", before a verb too
    engine = reference("When was this type of steam engine invented?")
    assert (engine.noun, engine.modifier) == ("engine", "steam")
    assert reference("How common is this type of power plant?").noun == "plant"
    assert reference("What does that branch of medicine deal with?").noun == "medicine"  # "deal" is its verb
    assert reference("Who invented That Style Of Music?").noun == "Music"
    # a noun of what happened after "of" is none: the word of kind is read as before
    assert reference("Is that kind of thing common?") is None
    assert reference("How many people speak this form of Chinese?").noun == "form"


def test_he_or_she_stands_for_the_name_only_after_asking_who_did_something() -> None:
    wrote = _history("Who wrote Pride and Prejudice?", "It is a novel by Jane Austen [1].")
    assert referent("When was she born?", wrote, "Pride and Prejudice", _Finder("Jane Austen")) == "Jane Austen"
    assert referent("When was it published?", wrote, "Pride and Prejudice", _Finder("Jane Austen")) == \
        "Pride and Prejudice"
    who_is = _history("Who was Charles Darwin?", "Darwin, like Gregor Mendel, studied heredity [1].")
    assert referent("Where was he born?", who_is, "Charles Darwin", _Finder("Gregor Mendel")) == "Charles Darwin"
    married = _history("Who did he marry?", "Charles Darwin married Emma Wedgwood [1].",
                       "Who did Charles Darwin marry?")
    assert referent("When did he die?", married, "Charles Darwin", _Finder("Emma Wedgwood")) == "Charles Darwin"
    # a name sharing a word with the subject is another person: only one within the other is the subject's
    wed = _history("Who did George Washington marry?", "He married Martha Washington [1].")
    assert referent("When did she die?", wed, "George Washington", _Finder("Martha Washington")) == \
        "Martha Washington"
    assert referent("When did she die?", wed, "George Washington", _Finder("George Washington")) == \
        "George Washington"


def test_the_latest_answer_is_read_with_the_question_it_answered() -> None:
    history = [*_history("Who designed the Sydney Opera House?", "Jørn Utzon designed it [1]."),
               HumanMessage("hello?")]  # a question left unanswered
    find = _Finder("Jørn Utzon")
    assert referent("When was he born?", history, "Sydney Opera House", find) == "Jørn Utzon"
    assert find.read[0][0] == "Who designed the Sydney Opera House?"


def test_one_stands_for_the_subject_only_when_the_subject_is_a_kind_of_thing() -> None:
    assert referent("What is the largest one ever found?", [], "Emerald", None) == "Emerald"
    assert referent("Are wild ones dangerous?", [], "Hammerhead shark", None) == "Hammerhead shark"
    assert referent("What is the tallest one in the world?", [], "Eiffel Tower", None) is None


def test_a_demonstrative_stands_for_the_name_the_previous_answer_gives_its_noun() -> None:
    history = _history("Which suborder do damselflies belong to?",
                       "Damselflies are flying insects of the suborder Zygoptera in the order Odonata [1].")
    assert referent("What order does that suborder belong to?", history, "Damselfly", None) == "Zygoptera"
    assert referent("How old is that order?", history, "Damselfly", None) == "Odonata"
    family = _history("Which family does the watermelon belong to?", "It belongs to the Cucurbitaceae family [1].")
    assert referent("How many species are in that family?", family, "Watermelon", None) == "Cucurbitaceae"
    empire = _history("Which empire was proclaimed?", "The Meiji Restoration proclaimed the Empire of Japan [1].")
    assert referent("When did that empire end?", empire, "Emperor Meiji", None) == "Empire of Japan"
    city = _history("Where did they settle?", "They settled in the city of Cleveland, Ohio [1].")
    assert referent("Which lake is that city on?", city, "John D. Rockefeller", None) == "Cleveland"
    telugu = _history("Where is it spoken?", "It is spoken in the Indian states of Andhra Pradesh and Telangana [1].")
    assert referent("What is that state's capital?", telugu, "Telugu language", None) == "Andhra Pradesh"
    indian = _history("Where is it spoken?", "It is spoken in two Indian states [1].")
    assert referent("What is that state's capital?", indian, "Telugu language", None) is None
    largest = _history("Which city is largest?", "It is the largest city of Mexico [1].")
    assert referent("Who founded that city?", largest, "Monterrey", None) is None
    # the noun spelt the British way in the follow-up and the American way in the answer, or the other way
    who = _history("For how long does the WHO recommend exclusive breastfeeding?",
                   "The World Health Organization (WHO) recommends six months of exclusive breastfeeding [1].")
    assert referent("Where is that organisation based?", who, "Breastfeeding", None) == "World Health Organization"
    british = _history("Which body runs it?", "It is run by the Football Association, a national organisation [1].")
    assert referent("When was that organization founded?", british, "Football", None) is None
    centre = _history("Where is it studied?", "It is studied at the Lancaster Environment Centre [1].")
    assert referent("Who funds that center?", centre, "Ecology", None) == "Lancaster Environment Centre"
    # the noun alone opening a sentence is no name
    film = _history("What is it?", "Family is a film [1].")
    assert referent("Who directed that family?", film, "The Godfather", None) is None


def test_a_demonstrative_whose_noun_the_conversation_defines_the_subject_by_stands_for_it() -> None:
    genus = _history("What is Colchicum?",
                     "Colchicum is a genus of perennial flowering plants containing around 160 species [1].")
    assert referent("About how many species does this genus contain?", genus, "Colchicum", None) == "Colchicum"
    fungi = _history("What are chanterelles?",
                     "Chanterelle is the common name of several species of fungi in the genera Cantharellus [1].")
    assert referent("Which genera are these fungi in?", fungi, "Chanterelle", None) == "Chanterelle"
    city = _history("Where is Monterrey?", "Monterrey is the capital and largest city of Nuevo León, Mexico [1].")
    assert referent("Who founded that city?", city, "Monterrey", None) == "Monterrey"
    # past the definition: a participle, a clause, or another sentence's subject
    assert referent("How many are in those species?", genus, "Colchicum", None) is None
    other = _history("Where is it?", "Monterrey lies near Linares, which is a city of Nuevo León [1].")
    assert referent("Who founded that city?", other, "Monterrey", None) is None
    music = _history("Which genre is it based on?", "It is based on the Son Cubano [1].")
    assert referent("what kind of music is this", music, "Salsa music", _Finder("Son Cubano")) == "Salsa music"
    assert referent("How wide is that at its widest?", music, "Salsa music", _Finder("Son Cubano")) == "Son Cubano"
    for not_asking in ("Why is this?", "Is this true?"):
        assert not refers_back(not_asking), not_asking
    declined = _history("What is Colchicum?", f"{DECLINED} Closest: Colchicum is a genus [1].")
    assert referent("How many species does this genus contain?", declined, "Colchicum", None) is None


def test_a_follow_up_that_names_nothing_asks_about_the_subject() -> None:
    for unnamed in ("And the colour?", "What about the population?", "And what's the opposite called?"):
        assert asks_unnamed(unnamed), unnamed
    for named_or_referring in ("Who built the Louvre?", "When was it painted?", "Which lake is that city on?"):
        assert not asks_unnamed(named_or_referring), named_or_referring
    assert with_topic("And the colour? ", "Properties of water") == "And the colour? (Properties of water)"
    assert with_topic("And the colour?", "Puya (plant)") == "And the colour? (Puya)"  # without the qualifier
    assert adds_nothing("And the colour?", "and the colour") and not adds_nothing("What colour is water?",
                                                                                   "And the colour?")


def test_a_turn_keeps_its_subject_when_its_question_names_a_title_only_by_a_word() -> None:
    # the subject in brackets and a title that is one of the question's words: the subject, not "Species"
    assert turn_subject("And how many species?", "And how many species? (Malvaceae)", "Malvaceae",
                        ["Species", "Malvaceae"], ["Species"]) == "Malvaceae"
    assert turn_subject("And how tall?", "And how tall? (Puya)", "Puya (plant)", ["Plant"], ["Puya (plant)"]) == \
        "Puya (plant)"
    # a follow-up asked as it was, its reference unread: its words name "Family", its subject is kept
    assert turn_subject("Which order is that family in?", "Which order is that family in?", "Malvaceae",
                        ["Family"], ["Family"]) == "Malvaceae"
    # a longer title the question names is a new subject
    assert turn_subject("What about the Louvre Pyramid?", "What about the Louvre Pyramid?", "Louvre",
                        ["Louvre Pyramid", "Louvre"], []) == "Louvre Pyramid"


def test_a_new_question_that_names_nothing_is_no_follow_up() -> None:
    for new in ("How does photosynthesis work?", "What causes rainbows?", "Which planet is the largest?",
                "What is the theory that explains gravity?", "Thanks!"):
        assert not asks_unnamed(new), new
    for going_on in ("How is that measured in biology?", "How long does one last?", "What are those like?"):
        assert asks_unnamed(going_on), going_on


def test_the_same_points_back_but_not_at_a_time_nor_before_as() -> None:
    for not_back in ("Did the war end at the same time?", "Was Venus the same size as Mars?",
                     "Was the tower built the same year?", "Does Saturn have the same number of moons as Uranus?",
                     "Is Venus about the same size and mass as Earth?", "Does the same hold true for Venus?",
                     "Was it designed by the same architect who built the Tuileries?", "Does the same go for ethanol?",
                     "Did the same thing happen in Atlanta?"):
        found = reference(not_back)
        assert found is None or found.word != "the same", not_back
    history = _history("Which era of music did Felix Mendelssohn belong to?",
                       "Felix Mendelssohn was a German composer of the early Romantic period [1].")
    asked = "What are the same composer's best-known solo piano pieces?"
    assert referent(asked, history, "Felix Mendelssohn", None) == "Felix Mendelssohn"
    assert with_subject(asked, "Felix Mendelssohn") == "What are Felix Mendelssohn's best-known solo piano pieces?"


def test_the_word_term_or_name_asked_without_saying_whose_asks_about_the_subject() -> None:
    for unnamed in ("Which language does the word come from?", "Who came up with the name?",
                    "Is the term only used for planets?", "Which Latin word does the term come from?",
                    "What is the name's origin?", "Who coined the term?", "When was the name changed?"):
        assert asks_unnamed(unnamed), unnamed
    for said in ("What is the term for a baby kangaroo?", "What is the name of its capital?",
                 'What does the word "zoology" mean?', "Where does the name Paris come from?",
                 "Who was Latin America's first president?", "What does the word photosynthesis mean?",
                 "Who coined the term biodiversity?", "What does the word 'zoology' mean?",
                 "What is the term to describe a baby kangaroo?", "What's the word meaning fear of spiders?",
                 "And did Linnaeus name the genus?", "So where does the Google name come from?"):
        assert not asks_unnamed(said), said


def test_a_noun_after_a_prefix_is_no_name() -> None:
    for unnamed in ("And the superfamily?", "What about the wingspan?"):
        assert asks_unnamed(unnamed), unnamed
    for named in ("and where was bismarck born", "And what about Bismarck's wife?", "And the SI unit?",
                  "What about kyoto?", "And Zürich?", "What about Beyoncé?"):
        assert not asks_unnamed(named), named


def test_a_word_that_may_be_a_verb_is_a_demonstrative_noun_before_a_verb() -> None:
    for asked, noun in (("Which Latin verb does that word come from?", "word"),
                        ("How long does that process take?", "process")):
        found = reference(asked)
        assert found is not None and found.noun == noun, asked
    for verb in ("How much does that cost?", "Why does that matter so much?", "How does that work exactly?"):
        assert reference(verb) is None, verb


def test_names_the_answers_give_a_noun_are_names_not_descriptions() -> None:
    for answer, follow_up in (("Many cities grew fast [1].", "How big is that city?"),
                              ("He was a Dutch painter [1].", "Who taught that painter?"),
                              ("Civil war broke out [1].", "When did that war end?"),
                              ("It is spoken in the Indian states [1].", "What is that state's capital?")):
        assert referent(follow_up, _history("Who?", answer), "Rembrandt", None) is None, answer
    film = _history("Which film?", "She starred in the film Gone with the Wind [1].")
    assert referent("Who directed that film?", film, "Vivien Leigh", None) == "Gone with the Wind"
    city = _history("Where did he die?", "He died in the city of St. Louis [1].")
    assert referent("How big is that city?", city, "Dred Scott", None) == "St. Louis"
    # the finder's name for what the previous question asked comes first
    born = _history("In which city was Einstein born?", "He was born in Ulm, but the family moved to the city of "
                    "Munich [1].")
    assert referent("How big is that city?", born, "Albert Einstein", _Finder("Ulm")) == "Ulm"


def test_a_definition_says_what_the_subject_is_not_where_or_whose() -> None:
    for answer, follow_up in (("Albert Einstein was born in a small city in Germany [1].", "What is that city?"),
                              ("Albert Einstein's teacher was a painter [1].", "Who was that painter?"),
                              ("Albert Einstein is not a country [1].", "What is that country?")):
        assert referent(follow_up, _history("Who?", answer), "Albert Einstein", None) is None, answer


def test_a_name_or_a_time_after_a_demonstrative_is_no_reference_to_the_subject() -> None:
    assert not refers_back("Is this Einstein's theory?") and not refers_back("Is that Paris?")
    assert referent("What year was this?", [], "Marie Curie", None) is None


def test_a_demonstrative_alone_before_a_verb_stands_for_what_the_answer_named() -> None:
    for asked in ("What's that also called?", "Which suborder do those belong to?", "What does that mean?",
                  "Where are those found?"):
        found = reference(asked)
        assert found is not None and found.kind == "demonstrative" and found.noun is None, asked
    for not_a_thing in ("Is that true?", "Is that right?", "When did that happen?", "Who said that people care?",
                        "What did that lead to?", "Does that seem right?", "Why was that stolen?", "Is that even true?",
                        "Was that time different?", "When did that take place?", "Who's that married to?"):
        assert not refers_back(not_a_thing), not_a_thing
    # a thing of a kind the answer gives in lower case, after its article; not a list nor the subject's own words
    relation = _history("Incest is between people in what kind of relation?",
                        "Incest is sexual activity between people in a relation of consanguinity [1].")
    assert referent("What does that mean?", relation, "Incest", _Finder("consanguinity")) == "consanguinity"
    assert referent("What does that mean?", relation, "Incest", _Finder("the consanguinity")) == "consanguinity"
    for span in ("granites, pegmatites, and schists", "granites and schists", "very large", "incest", "short-horned",
                 "struck an iceberg", "speeds up reactions", "relation"):
        assert referent("What does that mean?", relation, "Incest", _Finder(span)) is None, span
    # with a noun, only a name counts, or a thing of the kind the previous question asked for
    assert referent("What does that bond mean?", relation, "Incest", _Finder("consanguinity")) is None
    assert referent("What does that relation mean?", relation, "Incest", _Finder("consanguinity")) == "consanguinity"


def test_a_noun_before_an_adverb_and_a_verb_is_the_demonstratives() -> None:
    found = reference("What does that process permanently transfer from the parents?")
    assert found is not None and found.noun == "process"


def test_a_turn_is_not_about_the_kind_of_thing_it_asks_for() -> None:
    assert named_title("Who invented the printing press in Germany?", ["Printing press", "Germany"]) == \
        "Printing press"
    assert named_title("Which mountain range runs through China?", ["Mountain range", "China"]) == "China"
    # the thing asked of, not what is asked, whatever the retrieval order, hyphens and possessives read as words
    for titles in (["Chemical formula", "Ethane"], ["Ethane", "Chemical formula"]):
        assert named_title("What is the chemical formula of ethane?", titles) == "Ethane"
    assert named_title("What is the half-life of uranium-235?", ["Half-life", "Uranium-235"]) == "Uranium-235"
    assert named_title("What is the population density of Martha's Vineyard?",
                       ["Population density", "Martha's Vineyard"]) == "Martha's Vineyard"
    # a title within a longer one it names does not count
    assert named_title("When was the Battle of Hastings?", ["Battle", "Hastings", "Battle of Hastings"]) == \
        "Battle of Hastings"
    # "of" after the kind of thing asked for: not what the question is about, whatever the order
    for titles in (["South Asia", "Sikh Empire"], ["South Asia", "Region", "Sikh Empire"]):
        assert named_title("In which region of South Asia was the Sikh Empire based?", titles) == "Sikh Empire"


def test_a_follow_up_that_refers_back_does_not_take_its_own_words_for_a_new_subject() -> None:
    assert turn_subject("How is that defined in biology?", "How is infertility defined in biology?", "Fertility",
                        ["Biology", "Fertility"], ["Biology"]) == "Fertility"
    assert turn_subject("How is that defined in biology?", "How is infertility defined in biology?", "Fertility",
                        ["Biology", "Infertility"], ["Biology"]) == "Infertility"  # what it referred to


def _turn(question: str, answer: str, subject: str) -> list[BaseMessage]:
    return [HumanMessage(question, additional_kwargs={"subject": subject}), AIMessage(answer)]


def _described(question: str, messages: Sequence[BaseMessage]) -> str | None:
    return with_description(question, described_subject(question, messages))


PLANT = _turn("What is horseradish?", "Horseradish is a perennial plant of the family Brassicaceae [1].", "Horseradish")


def test_a_follow_up_may_call_the_subject_by_the_kind_the_conversation_defines_it_as() -> None:
    assert _described("where is the plant itself from", PLANT) == "where is Horseradish itself from"
    assert _described("When was the plant's root first used?", PLANT) == "When was Horseradish's root first used?"
    shark = _turn("What is a hammerhead?", "Hammerheads have wide heads [1].", "Hammerhead shark")
    assert _described("How big does the shark get?", shark) == "How big does Hammerhead shark get?"  # its title
    assert _described("How do the sharks hunt?", shark) is None  # another number
    water = _turn("Is water a solvent?", "Water is a polar solvent [1].", "Properties of water")
    assert _described("What is the water cycle?", water) is None  # a title that names no kind
    city = _turn("Where is Monterrey?",
                 "Monterrey is the capital and largest city of the northeastern state of Nuevo León [1].", "Monterrey")
    assert _described("Who founded the city?", city) == "Who founded Monterrey?"
    port = _turn("Where is Veracruz?", "Veracruz is a major port city and municipality on the Gulf of Mexico [1].",
                 "Veracruz")
    assert _described("How far is the city from Xalapa?", port) == "How far is Veracruz from Xalapa?"
    assert _described("What is the capital of the state?", city) is None  # "state" is not the definition's head
    for another in ("What is the largest plant in the world?",  # another word before the noun
                    "What is the plant of the year?", "Which is the plant that grows fastest?",  # which one it says
                    "Which is the plant with the hottest root?", "What is the plant used for wasabi?",
                    "Is the plant family large?", "Is the plant Wasabi related?",  # it modifies, a name follows
                    "Which plant is the plant eaten with sushi?",  # the question asks which one
                    "How are the plants harvested?",  # another number than the definition's
                    "What is the family called?",  # "of the family ...": not the definition's head
                    "Where does horseradish grow?",  # names the subject
                    "When was the year it was first grown?"):  # a noun of time
        assert subject_description(another, "Horseradish", PLANT) is None, another
    assert names_subject("Where is horseradish from?", "Horseradish (plant)")
    assert not names_subject("Where is the plant from?", "Horseradish")


def test_a_description_may_go_back_to_an_earlier_subject_and_governs_it_after_it() -> None:
    history = [*_turn("Which family does horseradish belong to?",
                      "Horseradish is a perennial plant of the family Brassicaceae [1].", "Horseradish"),
               *_turn("What's that family commonly called?", "Brassicaceae is known as the mustards [1].",
                      "Brassicaceae")]
    assert conversation_subjects(history) == ["Brassicaceae", "Horseradish"]
    assert _described("Back to the plant itself: where is it from?", history) == (
        "Back to Horseradish itself: where is Horseradish from?")
    # another word that refers back after it may be another thing
    assert _described("Where is the plant from and what is that family called?", history) == (
        "Where is Horseradish from and what is that family called?")
    assert _described("Who first grew the plant, and where did he live?", history) == (
        "Who first grew Horseradish, and where did he live?")
    assert _described("Where is it from, the plant?", history) is None  # the pronoun first: referent reads it
    assert _described("Which plants are in the family?", history) is None  # no description of a subject


def test_a_demonstrative_with_the_noun_the_previous_question_asked_for_stands_for_a_thing_in_lower_case() -> None:
    field = _history("Recovering partial ones from a crime scene is important to which field?",
                     "The recovery of partial fingerprints from a crime scene is an important method of forensic "
                     "science [1].")
    find = _Finder("forensic science")
    assert referent("What is that field also called?", field, "Fingerprint", find) == "forensic science"
    assert referent("How old is that technique?", field, "Fingerprint", find) is None  # a noun not asked for
    city = _history("What is the city famous for?", "Monterrey is famous for its steel industry [1].")
    assert referent("When did that city grow?", city, "Monterrey", _Finder("steel industry")) is None  # not asked


@pytest.mark.parametrize(("question", "expected"), [
    ("... important to which field?", {"field"}),
    ("Which plant family does the parsnip belong to?", {"family"}),  # the last noun of what is asked
    ("Which Roman emperor's Praetorian Guard did he join?", {"emperor"}),  # not past a possessive
    ("Which emperors' guards did he join?", {"emperor"}),
    ("Which botanical family is the genus Colchicum a member of?", {"family"}),  # not "genus"
    ("Which plant family Euphorbiaceae is it?", {"family"}),  # not a name
    ("Which French city hosts the race?", {"city"}),  # not the verb after it
    ("Which religion later influenced it?", {"religion"}),  # nor an adverb
    ("What animals live there?", {"animal"}),
    ("What common plant pests attack it?", {"pest"}),
    ("Which other cities are in that state?", {"city"}),
    ("What is the city famous for?", set()),  # what the city is, not the city
    ("what kind of field is it", {"field"}),
    ("What is it?", set()),
    ("Where are the Sioux from?", set()),
])
def test_asked_nouns(question: str, expected: set[str]) -> None:
    assert asked_nouns(question) == expected


def test_a_demonstrative_with_the_noun_the_previous_question_asked_for_stands_for_the_name_the_answer_gave() -> None:
    guard = _history("Which Roman emperor's Praetorian Guard did he join?",
                     "Saint George became a member of the Praetorian Guard for Roman emperor Diocletian [1].",
                     "Which Roman emperor's Praetorian Guard did Saint George join?")
    assert referent("When did that emperor abdicate?", guard, "Saint George", _Finder("Diocletian")) == "Diocletian"
    family = _history("What flowering plant family includes the parsnip?",
                      "The parsnip is a root vegetable of the carrot family Apiaceae [1].")
    # a name the answer gives a thing of that kind before a phrase in lower case
    assert referent("How many species does that family have?", family, "Parsnip",
                    _Finder("the carrot family")) == "Apiaceae"


def test_a_demonstrative_with_a_noun_the_previous_question_named_but_did_not_ask_for_stands_for_that_name() -> None:
    genus = _history("Which botanical family is the genus Colchicum a member of?",
                     "Colchicum is a genus of perennial flowering plants in the family Colchicaceae [1].")
    find = _Finder("Colchicaceae")
    assert referent("About how many species does this genus contain?", genus, "Colchicum", find) == "Colchicum"
    assert referent("How many genera does that family hold?", genus, "Colchicum", find) == "Colchicaceae"
    albums = _history("Which of the Beatles albums sold the most copies?", "Abbey Road sold the most [1].")
    assert referent("When was that album recorded?", albums, "The Beatles", _Finder("Abbey Road")) == "Abbey Road"
    army = _history("Which battle did the army of Napoleon lose in 1815?", "It lost the Battle of Waterloo [1].")
    assert referent("How large was that army?", army, "Napoleon", _Finder("Battle of Waterloo")) != "Napoleon"


def test_a_demonstrative_with_a_noun_of_place_stands_for_the_place_the_previous_question_asked_where() -> None:
    sioux = _history("Where are the Sioux from?", "The Sioux are a group of Native American tribes of the Great "
                     "Plains [1].")
    find = _Finder("Great Plains")
    assert referent("Which mountains does that region stretch east of?", sioux, "Sioux", find) == "Great Plains"
    assert referent("How old is that tradition?", sioux, "Sioux", find) is None  # no place
    # a definition of the subject as a thing of that kind first: the city asked where is the city itself
    city = _history("Where is Monterrey?", "Monterrey is the capital and largest city of the northeastern Mexican "
                    "state of Nuevo León [1].")
    assert referent("What is that city famous for?", city, "Monterrey", _Finder("Nuevo León")) == "Monterrey"
    # "where" that opens no question asks no place
    born = _history("What is the town where Lincoln was born famous for?", "It is known for its cheese [1].")
    assert referent("How old is that town?", born, "Abraham Lincoln", _Finder("its cheese")) is None


def test_a_description_is_read_when_the_question_asks_for_another_noun_it_modifies() -> None:
    for question in ("What common plant pests attack the plant?", "What flowering plant family includes the plant?"):
        assert subject_description(question, "Horseradish", PLANT) is not None, question
