"""Other names: a sentence that opens with the question's subject and another name, joined by "or", answers a
question asking another name, one that spells out an abbreviation answers what it stands for, and the quoter
reads them so."""

from __future__ import annotations

import pytest

from selfrag_langchain.chains.aliases import (
    asks_full_name,
    asks_other_name,
    gives_asked_name,
    gives_expansion,
    gives_full_name,
    in_full,
)
from selfrag_langchain.chains.quotes import PassageQuoter
from tests.fakes.bag_of_words import BagOfWords

ELEVATOR = "What other name is an elevator known by?"


@pytest.mark.parametrize(("question", "asks"), [
    ("What is another name for an abacus?", True),
    ("By what other name is the Iraq War of 2003 to 2011 known?", True),
    ("What is Muay Thai also called?", True),
    ("Sesame is also known by what other name?", True),
    ("What else is the Jade Emperor called?", True),
    ("What is the capital of France?", False),
    ("Which Greek god was known as the herald of the gods?", False),  # a name asked for a description
    ("What was the name of Columbus's flagship?", False),
])
def test_a_question_asks_another_name_in_the_words_people_use_for_it(question: str, asks: bool) -> None:
    assert asks_other_name(question) is asks


@pytest.mark.parametrize(("question", "sentence"), [
    (ELEVATOR, "Elevator: An elevator or lift is a machine that vertically transports people."),  # titled
    ("What is another name for binoculars?", "Binoculars or field glasses are two refracting telescopes."),
    ("What is another name for an antibody?", "An antibody (Ab), or immunoglobulin (Ig), is a large protein."),
    ("What is another name for a floodplain?", "A floodplain or flood plain or bottomlands is an area of land."),
    ("What is another name for a lift?", "An elevator or lift is a machine."),  # asked by the second name
    ("What is Muay Thai also called?", "Muay Thai or Muaythai, sometimes referred to as Thai boxing, is a sport."),
    # a list of names, the last after a hedge; the question's longer name is another of them, spelt the British way
    ("What's another name for the gravity assist manoeuvre spacecraft use?",
     "A gravity assist, gravity assist maneuver, swing-by, or generally a gravitational slingshot in orbital "
     "mechanics, is a type of spaceflight flyby."),
    ("What is another name for a narrative?", "A narrative, story, or tale is any account of connected events."),
    ("What is another name for a train station?",
     "A train station, railroad station, or railway station is a railway facility."),
    # a hyphened name whose first part opens phrases elsewhere ("Near Paris, ...")
    ("What is another name for a near-death experience?", "Near-death experience or NDE is a personal experience."),
])
def test_an_opening_with_the_subject_or_another_name_gives_the_asked_name(question: str, sentence: str) -> None:
    assert gives_asked_name(question, sentence)


@pytest.mark.parametrize(("question", "sentence"), [
    ("What is the capital of France?", "Paris or Lutetia is the capital of France."),  # no other name asked
    ("What is another name for a goat?", "An elevator or lift is a machine."),  # neither name is the subject's
    (ELEVATOR, "An elevator or elevators are machines."),  # no name the question lacks
    (ELEVATOR, "In most buildings, an elevator or lift is a machine."),  # not the sentence's opening
    (ELEVATOR, "In most buildings, an elevator, or lift, is a machine."),
    ("What is another name for an embargo?", "Unlike sanctions or an embargo, a blockade is physical."),
    (ELEVATOR, "An elevator is a machine, or a lift, that moves people."),  # the "or" comes after the verb
    (ELEVATOR, ""),
    # the question's subject is a longer name than the sentence's
    ("What other name is the diesel engine known by?", "An engine or motor is a machine."),
    ("What is another name for an elevator shaft?", "An elevator or lift is a machine."),
    ("What is another name for a story arc?", "A narrative, story, or tale is any account of connected events."),
    # "or" within a clause that names the subject and goes on to say something of it
    ("What is another name for an antibody?", "Each individual antibody recognizes one or more antigens, and more."),
])
def test_other_sentences_give_no_asked_name(question: str, sentence: str) -> None:
    assert not gives_asked_name(question, sentence)


def test_the_quoter_quotes_and_reads_as_holding_the_answer_a_sentence_that_opens_with_both_names() -> None:
    from tests.fakes.table_finder import TableFinder
    from tests.fakes.table_reader import TableReader

    passage = ("An elevator or lift is a machine that vertically transports people or freight between levels. "
               "Elevators are typically powered by electric motors.")
    # the models read the opening as one name, as the shipped finder does (0.002)
    reader = TableReader(answering=lambda q, s: 0.2 if "motors" in s else 0.1)
    finder = TableFinder(odds=lambda q, s: -6.0)
    quoter = PassageQuoter(embeddings=BagOfWords(), reader=reader, finder=finder)
    found = quoter.find(ELEVATOR, [("Elevators are powered by motors.", passage)], titles=["Elevator"])[0]
    assert found is not None and found.text.startswith("An elevator or lift is")
    assert found.holds_answer == 1.0
    assert quoter.best_holding(ELEVATOR, [(passage, "Elevator")]) == [1.0]
    # asked something else, the models' reading stands
    other = "What powers elevators?"
    assert quoter.best_holding(other, [(passage, "Elevator")]) == [pytest.approx(1 / (1 + 2.718281828 ** 6), rel=1e-3)]


LED = "What does the abbreviation LED stand for?"


@pytest.mark.parametrize(("question", "sentence", "gives"), [
    (LED, "A light-emitting diode (LED) is an electronic component that emits light.", True),
    ("What does the Java programming language slogan WORA stand for?",
     "Java is intended to let programmers write once, run anywhere (WORA), meaning that compiled code runs.", True),
    ("what is HTML short for", "Hypertext Markup Language (HTML; from 1993) is a markup language.", True),
    ("Of what is NATO an abbreviation for?", "The North Atlantic Treaty Organization (NATO) is an alliance.", True),
    ("What does NASA mean?", "The National Aeronautics and Space Administration (NASA) is an agency.", True),
    ("what is the full form of NATO", "The North Atlantic Treaty Organization (NATO) is an alliance.", True),
    # the abbreviation not in brackets after the words it stands for
    (LED, "LED lighting is efficient.", False),
    (LED, "Diodes (see LEDs) emit light.", False),
    # another abbreviation in brackets
    (LED, "An organic light-emitting diode (OLED) is a kind of LED.", False),
    # a question that asks something else of the abbreviation
    ("What French phrase lies behind the abbreviation UTC?", "Coordinated Universal Time (UTC) is the standard.",
     False),
    ("Who invented the LED?", "A light-emitting diode (LED) is an electronic component.", False),
    ("What is the mean temperature in NYC?", "New York City (NYC) is the most populous city.", False),
    # a name's initials spelt out: a word for each, in order, then the surname (a nickname between allowed)
    ("What did the initials in the name of the historian A. J. P. Taylor stand for?",
     "Alan John Percivale Taylor was an English historian.", True),
    ("What did the initials D. H. stand for in the writer D. H. Lawrence's name?",
     "David Herbert Lawrence was an English novelist.", True),
    ("What did J.R.R. Tolkien's initials stand for?", "John Ronald Reuel Tolkien was an English writer.", True),
    ("What do the initials in T. E. Lawrence stand for?",
     'Thomas Edward "Lawrence of Arabia" Lawrence was a British Army officer.', True),
    # another person's full name, the initials alone, or no meaning asked
    ("What did the initials D. H. stand for in the writer D. H. Lawrence's name?",
     "Thomas Edward Lawrence was a British Army officer.", False),
    ("What did the initials D. H. stand for in the writer D. H. Lawrence's name?",
     "D. H. Lawrence was an English novelist.", False),
    ("Who was D. H. Lawrence's wife?", "David Herbert Lawrence was an English novelist.", False),
])
def test_a_sentence_spelling_out_the_abbreviation_gives_what_it_stands_for(question: str, sentence: str,
                                                                            gives: bool) -> None:
    assert gives_expansion(question, sentence) is gives


def test_the_quoter_reads_a_sentence_spelling_out_the_asked_abbreviation_as_holding_the_answer() -> None:
    from tests.fakes.table_finder import TableFinder
    from tests.fakes.table_reader import TableReader

    passage = ("A light-emitting diode (LED) is an electronic component that uses a semiconductor to emit light. "
               "LEDs are used in lighting.")
    reader = TableReader(answering=lambda q, s: 0.1)
    finder = TableFinder(odds=lambda q, s: -5.0)  # the shipped finder reads the opening at 0.014
    quoter = PassageQuoter(embeddings=BagOfWords(), reader=reader, finder=finder)
    assert quoter.best_holding(LED, [(passage, "Light-emitting diode")]) == [1.0]
    assert quoter.best_holding("Who invented the LED?", [(passage, "Light-emitting diode")]) == [
        pytest.approx(1 / (1 + 2.718281828 ** 5), rel=1e-3)]


@pytest.mark.parametrize(("question", "sentence", "gives"), [
    ("What was Cary Grant's real name?", "Archibald Alexander Leach, known as Cary Grant, was an actor.", False),
    ("What is Bette Davis's full name?", "Ruth Elizabeth Davis, known as Bette, was an actress.", False),  # no Bette
    ("What is Bette Davis's full name?", "Ruth Elizabeth \"Bette\" Davis was an American actress.", True),
    ("What was Humphrey Bogart's middle name?", "Humphrey DeForest Bogart was an American actor.", True),
    ("What is Humphrey Bogart's full name?", "Humphrey Bogart: Humphrey DeForest Bogart was an actor.", True),
    ("What was Humphrey Bogart's middle name?", "Humphrey Bogart was an American actor.", False),  # no more name
    ("What is Vincent van Gogh's full name?", "Vincent van Gogh was a Dutch painter.", False),  # "van" is his
    ("What was Humphrey Bogart's father's first name?", "Humphrey DeForest Bogart was an American actor.", False),
    ("At what age did Bogart choose a middle name?", "Humphrey DeForest Bogart was an American actor.", False),
    ("Who was Humphrey Bogart?", "Humphrey DeForest Bogart was an American actor.", False),
    # a word before the name that is no name, a name that goes on, another's name, another's name asked
    ("What was Humphrey Bogart's middle name?", "Actor Humphrey Bogart was born in New York.", False),
    ("What was Humphrey Bogart's middle name?", "When Humphrey Bogart was ten, he moved.", False),
    ("What was Humphrey Bogart's middle name?", "Legendary Humphrey Bogart died in 1957.", False),
    ("What was Humphrey Bogart's middle name?", "Humphrey Bogart Jr. was his son.", False),
    ("What was George Washington's middle name?", "George Washington Carver was an American scientist.", False),
    ("What was the first name of the Titanic's captain?", "RMS Titanic was a British passenger liner.", False),
    ("What was Lenin's real name?", "Vladimir Lenin was a Russian revolutionary.", False),  # a pen name's fuller form
])
def test_a_sentence_opening_with_the_person_s_fuller_name_gives_the_asked_name(question: str, sentence: str,
                                                                              gives: bool) -> None:
    assert gives_full_name(question, sentence) is gives
    assert asks_full_name("What was Humphrey Bogart's actual first name?")


def test_the_quoter_reads_a_sentence_opening_with_the_asked_fuller_name_as_holding_the_answer() -> None:
    from tests.fakes.table_finder import TableFinder
    from tests.fakes.table_reader import TableReader

    passage = "Humphrey DeForest Bogart was an American actor. He starred in Casablanca."
    reader = TableReader(answering=lambda q, s: 0.1)
    finder = TableFinder(odds=lambda q, s: -5.0)  # the shipped finder reads such an opening as holding no name
    quoter = PassageQuoter(embeddings=BagOfWords(), reader=reader, finder=finder)
    assert quoter.best_holding("What was Humphrey Bogart's middle name?", [(passage, "Humphrey Bogart")]) == [1.0]
    assert quoter.best_holding("Where was Humphrey Bogart born?", [(passage, "Humphrey Bogart")]) == [
        pytest.approx(1 / (1 + 2.718281828 ** 5), rel=1e-3)]


MIT = ("The Massachusetts Institute of Technology (MIT) is a private research university in Cambridge. "
       'Founded in 1861 to advance "useful knowledge", the university has played a significant role in science.')


@pytest.mark.parametrize(("question", "title", "passage", "read"), [
    ("What year was MIT founded?", "Massachusetts Institute of Technology", MIT,
     "What year was Massachusetts Institute of Technology founded?"),
    ("What is MIT's motto?", "Massachusetts Institute of Technology", MIT,
     "What is Massachusetts Institute of Technology's motto?"),
    ("How many teams play in the NBA?", "National Basketball Association",
     "The National Basketball Association (NBA) is a professional basketball league.",
     "How many teams play in the National Basketball Association?"),
    # the title's bracketed qualifier is no part of the name
    ("When was the ESA founded?", "European Space Agency (agency)",
     "The European Space Agency (ESA; French: ASE) is an intergovernmental organisation.",
     "When was the European Space Agency founded?"),
    # left as written: another passage's title, a passage that does not spell it out, a Roman numeral, or the
    # meaning of the abbreviation asked
    ("What year was MIT founded?", "Harvard University", "Harvard University (HU) is ...",
     "What year was MIT founded?"),
    ("In which US state was Grant Wood born?", "Unitary state", "A unitary state is governed as one; the US is not.",
     "In which US state was Grant Wood born?"),
    ("Who was Philip II?", "Ismail I", "Ismail I (II) was a shah.", "Who was Philip II?"),
    ("What does MIT stand for?", "Massachusetts Institute of Technology", MIT, "What does MIT stand for?"),
    ("What does MIT mean?", "Massachusetts Institute of Technology", MIT, "What does MIT mean?"),
    ("What is the full name of MIT?", "Massachusetts Institute of Technology", MIT, "What is the full name of MIT?"),
    # a question that already writes the title
    ("Is MIT the same as the Massachusetts Institute of Technology?", "Massachusetts Institute of Technology", MIT,
     "Is MIT the same as the Massachusetts Institute of Technology?"),
    # within a longer name, typed in capitals, or joined to another abbreviation
    ("Who created The IT Crowd?", "Information technology", "Information technology (IT) is the use of computers.",
     "Who created The IT Crowd?"),
    ("Who runs MIT Press?", "Massachusetts Institute of Technology", MIT, "Who runs MIT Press?"),
    ("WHO IS THE HEAD OF THE WHO?", "World Health Organization", "The World Health Organization (WHO) is an agency.",
     "WHO IS THE HEAD OF THE WHO?"),
    ("Who founded AC/DC?", "Alternating current", "Alternating current (AC) is an electric current.",
     "Who founded AC/DC?"),
    ("Where is AT&T based?", "Air Transport", "Air Transport (AT) is carriage by aircraft.", "Where is AT&T based?"),
    # a sentence's first word before it is no part of a name; the title's "The" is the question's own article
    ("Did MIT admit women?", "Massachusetts Institute of Technology", MIT,
     "Did Massachusetts Institute of Technology admit women?"),
    ("When was the OU founded?", "The Open University", "The Open University (OU) is a public university.",
     "When was the Open University founded?"),
])
def test_an_abbreviation_the_passage_spells_out_is_read_as_its_title(question: str, title: str, passage: str,
                                                                     read: str) -> None:
    assert in_full(question, title, passage) == read


def test_the_quoter_reads_the_question_as_the_passage_names_things() -> None:
    from tests.fakes.table_finder import TableFinder
    from tests.fakes.table_reader import TableReader

    # as the shipped models read them: the abbreviation is not the title's name to either
    def odds(question: str, sentence: str) -> float:
        return 4.0 if "1861" in sentence and "Massachusetts" in question else -6.0

    reader = TableReader(answering=lambda q, s: 0.9 if "1861" in s and "Massachusetts" in q else 0.2)
    quoter = PassageQuoter(embeddings=BagOfWords(), reader=reader, finder=TableFinder(odds=odds))
    asked = "What year was MIT founded?"
    title = "Massachusetts Institute of Technology"
    found = quoter.find(asked, [("MIT was founded in 1861.", MIT)], titles=[title])[0]
    assert found is not None and found.text.startswith("Founded in 1861")
    assert found.holds_answer == pytest.approx(1 / (1 + 2.718281828 ** -4), rel=1e-3)
    assert quoter.best_holding(asked, [(MIT, title)]) == [pytest.approx(1 / (1 + 2.718281828 ** -4), rel=1e-3)]
    # a passage that does not spell the abbreviation out is read against the question as asked
    plain = MIT.replace(" (MIT)", "")
    assert quoter.best_holding(asked, [(plain, title)]) == [pytest.approx(1 / (1 + 2.718281828 ** 6), rel=1e-3)]
