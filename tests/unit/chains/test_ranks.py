"""Ranks: a sentence that states another rank than the question asks does not answer it, and the quoter reads it
so; sentences that state the asked rank, or no rank of what is asked, are left alone."""

from __future__ import annotations

import pytest

from selfrag_langchain.chains.quotes import PassageQuoter
from selfrag_langchain.chains.ranks import Rank, stated_ranks, states_other_rank
from tests.fakes.bag_of_words import BagOfWords

LONGEST = "What is the longest river in Africa?"
SATURN = "What is the largest moon of Saturn?"
SECOND = "What is the second largest city in France?"
TALLEST = "Which is the tallest mountain in Africa?"


@pytest.mark.parametrize(("question", "sentence"), [
    (LONGEST, "The Niger is the 14th-longest river in the world, and the third-longest river in Africa."),
    (LONGEST, "The Zambezi is the fourth-longest river in Africa, the longest east-flowing river in Africa."),
    (SATURN, "Enceladus is the sixth-largest moon of Saturn and the 18th largest in the Solar System."),
    (SECOND, "Paris is the capital and largest city of France."),
    (TALLEST, "Mount Kenya is the second highest mountain in Africa."),
    ("What is the most populous country in Africa?", "Ethiopia is the second-most populous country in Africa."),
    ("What was Jane Austen's first novel?", "Written when she was aged 20–21, it was her third novel."),
    ("Who was the first person to walk on the Moon?", "Buzz Aldrin was the second person to walk on the Moon."),
    # the asked place, but where the question does not ask
    ("Which Canadian city has the largest population?", "Calgary is the largest city in the province of Alberta."),
    ("What is the largest city in Canada?", "The largest city in Alberta is Calgary."),
    ("What is Australia's most populous city?",
     "Melbourne is the capital and most populous city of the Australian state of Victoria."),
    (SATURN, "Ganymede is the largest moon in the Solar System."),
    # where the next rank begins, the place of the one before ends
    ("What is Australia's most populous city?", "Melbourne is the capital and most populous city of the Australian "
     "state of Victoria and the second-most populous city in Australia."),
    # a name in the possessive before the rank says where it holds
    ("Which city has the largest population in the United States?",
     "Pennsylvania's most populous city is Philadelphia."),
    # superlatives joined with "and" rank the same noun, there
    ("What is the largest planet in the Solar System?",
     "Eris is the most massive and second-largest-known dwarf planet in the Solar System."),
    # the other end of the asked scale
    ("What is the smallest species of bat?", "The largest bats are the flying foxes, reaching a weight of 1.5 kg."),
    ("Which is the least populous state of the United States?", "California is the most populous state."),
    ("Which is the tallest building in Dubai?", "It is the shortest of the city's skyscrapers."),
    # a place narrowed to a part of it, where the question does not narrow it
    ("Which is the smallest country in Africa?", "The Gambia is the smallest country in continental Africa."),
    ("Which star is the second brightest in the night sky?", "Vega is the fifth-brightest star in the night sky, "
     "and the second-brightest star in the northern celestial hemisphere, after Arcturus."),
    # an ordinal in words past the twentieth is read whole
    ("Who was the twenty-second president of the United States?",
     "John Adams was the second president of the United States."),
    # an ordinal of a narrower phrase, higher than the asked one: the eighth studio album is no first album
    ("What was the title of the Beatles' first album?",
     "Sgt. Pepper's Lonely Hearts Club Band is the eighth studio album by the English rock band the Beatles."),
    ("Which Ethiopian emperor made Gondar his capital in the 17th century?",
     "The Songhai Empire was a state located in the western part of the Sahel during the 15th and 16th centuries."),
])
def test_a_sentence_stating_another_rank_and_not_the_asked_one_does_not_answer(question: str, sentence: str) -> None:
    assert states_other_rank(question, sentence)


@pytest.mark.parametrize(("question", "sentence"), [
    (LONGEST, "The Nile is the longest river in Africa."),
    (SATURN, "Titan is the largest moon of Saturn and the second-largest natural satellite in the Solar System."),
    (SATURN, "Enceladus is about a tenth of the size of Saturn's largest moon, Titan."),
    (SECOND, "Marseille is the second-most populous city proper in France, after Paris."),
    (SECOND, "Marseille is best known for its port."),  # another measure's first rank says nothing of the second
    # another superlative of the first rank states it ("highest" for "tallest")
    (TALLEST, "Kilimanjaro is the highest mountain in Africa and the fourth most prominent peak on Earth."),
    ("Which city is the largest in Brazil?", "São Paulo is the largest city in Brazil."),
    ("Which city is the largest in Brazil?", "São Paulo is one of the largest cities in the world."),
    ("Which city is the largest in Brazil?", "It has at least 12 million people."),
    ("What was Jane Austen's first novel?", "Pride and Prejudice is a novel by English author Jane Austen."),
    ("What was the first novel of Charles Dickens?", "A Christmas Carol is a novella, first published in 1843."),
    ("In which year did the First World War end?", "It ended before the Second World War began."),  # names
    # the asked place by another of its names: "World War II" for "the Second World War"
    ("What was the longest unbroken military campaign of the Second World War?",
     "The Battle of the Atlantic, the longest continuous military campaign in World War II, ran from 1939 to 1945."),
    ("Who wrote Hamlet?", "Hamlet is the longest play by Shakespeare and the third most performed."),  # no rank asked
    # the asked place of the asked measure, whatever noun it ranks, is no other rank
    ("What is the highest peak of the Zagros Mountains?", "The highest point is Mount Dena, at 4,409 metres."),
    ("What is the giraffe's closest living relative?", "Its closest extant relative is the okapi."),
    ("In which year did China become the world's second-largest film market?",
     "In 2012 the country became the second-largest market in the world."),
    # "the next brightest" is a place after another's, not the first
    ("Which star is the second brightest in the night sky?",
     "Sirius is twice as bright as Canopus, the next brightest star."),
    # where the rank holds: the question's place, one of the places the sentence joins, another name of it, or
    # its acronym; the ranked noun the kind of thing asked for ("city" for "the largest population")
    ("Which Canadian city has the largest population?",
     "It is the most populous city in Canada and the fourth most populous city in North America."),
    ("What is the highest mountain in Western Europe?",
     "Mont Blanc is the highest mountain in the Alps and Western Europe."),
    ("Which American city is the largest?", "New York City is the most populous city in the United States."),
    ("What is the largest city in the US?", "New York City is the most populous city in the United States."),
    # a place is no other where the question asks which, nor a name after the rank that says by whom or in what
    ("The ancient site of Knossos on Crete was the largest centre of which civilisation?",
     "It became the largest and best-known centre of the Minoan civilisation."),
    ("Which dynasty built the most famous sections of the Great Wall of China?",
     "The best-known sections were built by the Ming dynasty."),
    ("Which 1935 house is the best-known example of Frank Lloyd Wright's organic architecture?",
     "Fallingwater has been called the best all-time work of American architecture."),
    # a question that names no place reads no place in the sentence: "in the Solar System" answers "the largest"
    ("What is the largest planet?", "Jupiter is the fifth planet from the Sun and the largest in the Solar System."),
    # two ends of different scales, and the asked end stated beside the other
    ("Which is the longest river in Asia?", "The Yangtze is the longest river in Asia and has its lowest reach in "
     "Shanghai."),
    ("What is the least populous US state?", "Wyoming is the least populous state and the 10th largest by area."),
    ("Which is the tallest mountain?", "Everest is the tallest mountain; the Dead Sea shore is the lowest land."),
    # a narrowed place the question narrows alike
    ("What is the brightest star in the northern celestial hemisphere?",
     "Arcturus is the brightest star in the northern celestial hemisphere."),
    ("What is the largest city in northern Italy?", "Milan is the largest city in northern Italy."),
    # a word that narrows the kind of thing ranked, not its place; a question that asks where
    ("What is the brightest star in Auriga?", "Capella is the brightest star in the northern constellation of "
     "Auriga."),
    ("In which constellation is Capella the brightest star?",
     "Capella is the brightest star in the northern constellation of Auriga."),
    ("In which part of Africa is the Gambia the smallest country?",
     "The Gambia is the smallest country in continental Africa."),
    # the rank opens the sentence and a verb carries it on to the answer, which is no place the rank holds in
    ("What is the largest city in Canada?", "The largest city in Canada is Toronto."),
    (SATURN, "The largest moon of Saturn is Titan, which has a thick atmosphere."),
    ("What's the earliest known version of the Cinderella story?",
     "The earliest known version of the Cinderella story is usually considered to be the Greek story of Rhodopis."),
    ("What is the highest mountain in Africa?", "The highest mountain in Africa was first climbed in 1889."),
    # a place in initials, read to its last full stop
    ("What is the largest city in the United States?", "New York City is the most populous city in the U.S."),
    # "one of" before a possessive states no rank either
    (SECOND, "Marseille, one of France's largest cities, is a port."),
    ("What is the largest tea producer?", "Kenya is one of the world's largest producers of tea."),
    # ordinals joined with "and" rank the noun after the last
    ("Who was the 22nd president of the United States?",
     "Grover Cleveland was the 22nd and 24th president of the United States."),
    ("Who was the twenty-fourth president of the United States?",
     "Grover Cleveland was the twenty-second and twenty-fourth president."),
    # a lower place of a narrower phrase leaves the asked place open: the first female president may be the 11th
    ("Of which country was Corazon Aquino the 11th president?",
     "The first female president in Philippine history, Aquino was the most prominent figure of the revolution."),
    ("Who was the third president of the United States?", "He served as the second vice president under Adams."),
    # an ordinal hyphened to a word ranks that word: a second-generation weapon is no second weapon
    ("Who built the second nuclear weapon?", "A hydrogen bomb is a second-generation nuclear weapon."),
])
def test_a_sentence_stating_the_asked_rank_or_no_rank_of_it_is_left_alone(question: str, sentence: str) -> None:
    assert not states_other_rank(question, sentence)


def test_ranks_read_ordinals_in_words_and_figures_before_superlatives_and_nouns() -> None:
    assert stated_ranks("the 14th-longest river and the second-most populous city") == (
        Rank(14, "longest", noun="river"), Rank(2, "most populous", noun="city"))
    assert stated_ranks("the largest of its moons") == (Rank(1, "largest", written=False),)
    assert stated_ranks("her third novel") == (Rank(3, "novel", ordinal_noun=True, phrase=("novel",)),)
    # an ordinal ranks the phrase after it, to its noun; hyphened to a word, that word
    assert stated_ranks("the eighth studio album by the band") == (
        Rank(8, "album", ordinal_noun=True, phrase=("studio", "album")),)
    assert stated_ranks("the first sewing machines, and a 16th-century poet") == (
        Rank(1, "machine", ordinal_noun=True, phrase=("sewing", "machine")),
        Rank(16, "century", ordinal_noun=True, phrase=("century",)))
    assert stated_ranks("the largest city by population in the Canadian province of Alberta, Canada") == (
        Rank(1, "largest", written=False, noun="city", scope=(("canadian", "alberta"),)),)
    assert stated_ranks("Earth's most massive and second-largest-known dwarf planet") == (
        Rank(1, "most massive", written=False, noun="dwarf", scope=(("earth",),)),
        Rank(2, "largest known", noun="dwarf"))
    assert stated_ranks("the twenty-second-largest city and the 22nd and 24th president") == (
        Rank(22, "largest", noun="city"), Rank(22, "president", ordinal_noun=True, phrase=("president",)),
        Rank(24, "president", ordinal_noun=True, phrase=("president",)))
    assert stated_ranks("one of France's largest cities and among Europe's oldest") == ()
    assert stated_ranks("Åland's largest town") == (
        Rank(1, "largest", written=False, noun="town", scope=(("aland",),)),)
    # only the capitalised words just before the possessive name the place
    assert not states_other_rank("Which school of Buddhism is the oldest one still in existence?",
                                 "Theravāda is Buddhism's oldest existing school.")
    assert not states_other_rank("Which lake is the largest in Southeast Asia?",
                                 "It is dominated by the Tonlé Sap, Southeast Asia's largest lake.")
    ile_de_france = "What is the largest city in Île-de-France?"
    assert states_other_rank(ile_de_france, "It is the largest city of Brittany.")
    assert not states_other_rank(ile_de_france, "It is the largest city of Île-de-France.")
    assert stated_ranks("the highest in the Alps and Western Europe") == (
        Rank(1, "highest", written=False, scope=(("alps",), ("western", "europe"))),)
    # neither a word that only ends as a superlative does, nor "most" before a noun, nor a name ranks anything
    assert stated_ranks("The forest is honest; most people saw the Second World War and Best Picture.") == ()


def test_the_quoter_neither_quotes_nor_reads_as_holding_an_answer_a_sentence_of_another_rank() -> None:
    from tests.fakes.table_finder import TableFinder
    from tests.fakes.table_reader import TableReader

    passage = ("The Niger is the main river of West Africa. It is the 14th-longest river in the world, and the "
               "third-longest river in Africa.")
    # both models read the sentence naming the measure as answering, as the shipped ones do
    reader = TableReader(answering=lambda q, s: 0.9 if "longest" in s else 0.1)
    finder = TableFinder(odds=lambda q, s: 3.0 if "longest" in s else -5.0)
    quoter = PassageQuoter(embeddings=BagOfWords(), reader=reader, finder=finder)
    found = quoter.find(LONGEST, [("The Niger is the longest river.", passage)], titles=["Niger"])[0]
    assert found is not None and found.text == "The Niger is the main river of West Africa."
    assert found.holds_answer == pytest.approx(1 / (1 + 2.718281828 ** 5), rel=1e-3)
    assert quoter.best_holding(LONGEST, [(passage, "Niger")]) == [pytest.approx(found.holds_answer)]
    assert quoter.best_answering(LONGEST, [(passage, "Niger")]) == [pytest.approx(0.5 * 0.1 + 0.5 * found.holds_answer)]
    # asked of another rank, the same sentence answers and is read as the models read it
    asked = "Which river is the third-longest in Africa?"
    found = quoter.find(asked, [("The Niger.", passage)], titles=["Niger"])[0]
    assert found is not None and found.text.startswith("The Niger is the 14th-longest")  # its pronoun named
    assert found.holds_answer == pytest.approx(1 / (1 + 2.718281828 ** -3), rel=1e-3)


@pytest.mark.parametrize("sentence", [
    "It is the largest in Lima and, by far, the oldest.",  # a place phrase that ends in "and"
    "", "\x00", "the largest", "Самый большой город — the largest in Москва.", "the largest in , ; and or",
])
def test_any_text_is_read_without_error(sentence: str) -> None:
    assert states_other_rank("What is the largest city in Peru?", sentence) in (True, False)
    assert isinstance(stated_ranks(sentence), tuple)
