"""The names rule: selection drops a branch whose passage holds too few of the question's names (unless none
holds enough), and an answer is declined when the passages found hold too few of them together, in short
form, in long form and when an evaluation re-selects from a trace."""

from __future__ import annotations

import asyncio

import pytest

from selfrag_langchain import InlineReflector, SelfRAGLongForm
from selfrag_langchain.chains.controls import LoopSettings
from selfrag_langchain.chains.declining import DECLINED
from selfrag_langchain.chains.names import (
    NAMES_DECLINED,
    acronyms,
    asked_names,
    asked_years,
    describing_words,
    first_names,
    holds,
    initials,
    kind_nouns,
    missing_rare_terms,
    moot_reasons,
    name_coverages,
    name_runs,
    name_share,
    names_enough,
    names_found,
    noun_words,
    place_stems,
    rare,
    rare_terms,
    root,
    speaks_of_asked,
    unit_names,
)
from selfrag_langchain.eval.examples import EvalExample
from selfrag_langchain.eval.rescoring import reselect
from selfrag_langchain.eval.tasks import get_task
from selfrag_langchain.scoring import HardConstraints, ScoringWeights
from tests.fakes.eiffel import eiffel_rag
from tests.fakes.scripted_long_form import FULL, NOSUP, PART, REL, RecordingRetriever, ScriptedLongFormLLM, judged
from tests.fakes.scripted_long_form import doc as passage

# Passages as the models read them: the title, then the text.
GARBO = "Greta Garbo\nGreta Garbo was a Swedish actress."
THUNBERG = "Greta Thunberg\nGreta Thunberg is a Swedish climate activist."
ROME = "Rome\nRome is the capital of Italy."
PARIS = "Paris\nParis is the capital of France."


def test_each_passage_share_of_the_question_names() -> None:
    question = "When was Greta Thunberg born?"
    assert name_coverages(question, [GARBO, THUNBERG, None], 0.6) == [0.5, 1.0, None]
    # No passage holds enough: nothing is dropped for its names.
    assert name_coverages(question, [GARBO], 0.6) is None
    assert name_coverages(question, [GARBO, THUNBERG], 0.0) is None  # the rule off


def test_the_passages_together_hold_the_names_of_a_question_that_compares() -> None:
    question = "Which is older, Rome or Paris?"
    assert names_found(question, [ROME, PARIS], 0.6)
    assert not names_found(question, [ROME], 0.6)  # half of the names
    assert not names_found("When was Greta Thunberg born?", [GARBO, PARIS], 0.6)
    assert names_found("When was Greta Thunberg born?", [GARBO, PARIS], 0.0)
    assert names_found("What is the capital?", [GARBO], 0.6)  # a question that names nothing
    assert names_found("When was Greta Thunberg born?", [None], 0.6)  # no passage: nothing to judge


def test_a_name_of_several_words_is_read_as_one() -> None:
    assert name_runs("Who wrote the Percy Jackson novels?") == [["percy", "jackson"]]
    assert name_runs("Is the Eiffel Tower older than Big Ben?") == [["eiffel", "tower"], ["big", "ben"]]
    assert name_runs("Who was the first President of the United States?") == [["president"], ["united", "states"]]
    assert name_runs("who was otto von bismarck's wife") == [["otto", "von", "bismarck"]]
    assert name_runs("Who built Paris's Eiffel Tower?") == [["paris"], ["eiffel", "tower"]]
    assert name_runs("Who directed the 1975 Bollywood film Sholay?") == [["bollywood"], ["sholay"], ["1975"]]
    assert name_runs("Which is the largest, Brazil, Argentina or Chile?") == [["brazil"], ["argentina"], ["chile"]]
    assert name_runs("Who was John F. Kennedy's wife?") == [["john", "f", "kennedy"]]
    assert name_runs("What ended the 1970s Disco era?") == [["disco"], ["1970s"]]
    assert name_runs("What is the capital?") == []


def test_the_words_of_one_name_found_in_different_passages_do_not_make_it() -> None:
    question = "Who is the author of the Percy Jackson novels?"
    shelley = "Percy Bysshe Shelley\nPercy Bysshe Shelley was an English Romantic poet."
    michael = "Michael Jackson\nMichael Jackson was an American singer."
    jackson = "Percy Jackson\nPercy Jackson is a series of fantasy novels by Rick Riordan."
    assert not names_found(question, [shelley, michael], 0.6)  # each word, but never the name
    assert names_found(question, [shelley, michael], 0.0)  # the rule off
    assert names_found(question, [shelley, michael, jackson], 0.6)
    # Names of their own may still come from passages of their own.
    eiffel = "Eiffel Tower\nThe Eiffel Tower is a tower in Paris."
    ben = "Big Ben\nBig Ben is the clock tower of the Palace of Westminster."
    assert names_found("Is the Eiffel Tower older than Big Ben?", [eiffel, ben], 0.6)
    assert not names_found("Is the Eiffel Tower older than Big Ben?", [eiffel, michael], 0.6)
    # A name whose passage leaves out a word of it still counts, if that passage holds enough of its words.
    depp = "Johnny Depp\nJohnny Depp played Jack Sparrow in the Pirates of the Caribbean films."
    assert names_found("Who played Captain Jack Sparrow?", [depp], 0.6)
    assert not names_found("Who played Captain Jack Sparrow?", [michael], 0.6)
    # Each country of a list is a name of its own, each in a passage of its own.
    countries = ["Brazil\nBrazil is a country.", "Argentina\nArgentina is a country.", "Chile\nChile is a country."]
    assert names_found("Which is the largest, Brazil, Argentina or Chile?", countries, 0.6)


def test_a_rare_name_no_passage_holds_means_the_sources_do_not_name_the_subject() -> None:
    # "Mahomes" is rare (MiniLM's vocabulary splits it); "Kansas" and "City" are common words.
    assert rare("mahomes") and not rare("english") and not rare("1998")
    question = "Which team did Patrick Mahomes join in Kansas City?"
    kansas = "Kansas City\nKansas City is a city in Missouri. Patrick Henry visited it."
    assert missing_rare_terms(question, kansas) == ["mahomes"]
    assert name_coverages(question, [kansas], 0.6) == [0.75]  # three of its four names: enough for selection
    assert not names_found(question, [kansas], 0.6)  # but the passages found never name Mahomes
    assert names_found(question, [kansas], 0.0)
    mahomes = "Patrick Mahomes\nPatrick Mahomes plays for a team in Kansas City."
    assert names_found(question, [kansas, mahomes], 0.6)
    assert names_enough(question, mahomes, [kansas, mahomes], 0.6)
    assert not names_enough(question, kansas, [kansas], 0.6)


def test_what_a_question_asks_about_in_lower_case_is_a_noun() -> None:
    assert noun_words("Where does the axolotl live in Mexico's wild?") == ["axolotl"]  # "wild" is also a modifier
    assert noun_words("What illness is the drug velostamine used by Anna to treat?") == ["illness", "velostamine"]
    # Without a capitalised name, a word the lexicon does not know is the question's name instead.
    assert asked_names("What illness is the drug velostamine used to treat?") == ["velostamine"]
    # Not a verb or a modifier, nor a word also known as one, nor a name (names are names).
    assert noun_words("Who did Catherine the Great overthrew in a coup?") == ["coup"]
    assert noun_words("Who is the ageing salesman in the play?") == ["salesman"]
    assert noun_words("Who painted the Mona Lisa?") == []
    assert rare_terms("where does the axolotl live in the wild?") == ["axolotl"]
    assert rare_terms("Which team did Patrick Mahomes join?") == ["mahomes"]


def test_a_question_typed_without_capitals_still_names_what_it_asks_about() -> None:
    assert asked_names("Who was Otto von Bismarck's wife?") == ["otto", "bismarck"]  # "von": not capitalised
    assert asked_names("who was otto von bismarck's wife") == ["otto", "von", "bismarck"]
    assert asked_names("when was greta thunberg born in 2003") == ["greta", "thunberg", "2003"]
    curie = "Pierre Curie\nPierre Curie was a French physicist. His wife was Marie Curie."
    assert not names_found("who was otto von bismarck's wife", [curie], 0.6)
    assert names_found("who was pierre curie's wife", [curie], 0.6)
    assert name_coverages("when was greta thunberg born", [GARBO.lower(), THUNBERG], 0.6) == [0.5, 1.0]
    # Only the first letter capitalised: still no name capitalised, so the lexicon names them.
    assert asked_names("Who was otto von bismarck's wife?") == ["otto", "von", "bismarck"]
    assert not names_found("Who was otto von bismarck's wife?", [curie], 0.6)
    # A script without case names nothing this way (such a question was never declined for its names).
    assert asked_names("毛泽东是谁") == []
    assert names_found("毛泽东是谁", [curie], 0.6)
    # Typed quickly: a function word without its apostrophe is no name, a possessive without one is the name.
    assert asked_names("whats the capital of benin") == ["benin"]
    assert asked_names("youre sure benin isnt in asia") == ["benin", "asia"]
    assert noun_words("Where do ants live?") == ["ants"]  # a word, not a contraction
    # Function and number words the lexicon does not list are no names either, nor the pieces of a contraction.
    assert asked_names("What three-letter abbreviation is used for assembly language?") == []
    assert asked_names("the studio system era ran from 1927 until what year") == ["1927"]
    assert asked_names("Germany doesn't have an imperialistic past until when?") == ["germany"]
    assert asked_names("which church is based on martin luthers beliefs") == ["luthers"]  # a martin is a bird
    luther = "Martin Luther\nMartin Luther was a German priest whose beliefs founded Lutheranism."
    assert names_found("which church is based on martin luthers beliefs", [luther], 0.6)


def test_a_preposition_opening_the_question_before_a_name_is_no_name() -> None:
    question = "Besides London, where did the poet William Blake spend a few years of his life?"
    assert asked_names(question) == ["london", "william", "blake"]
    assert name_runs(question) == [["london"], ["william", "blake"]]
    blake = ("William Blake\nWilliam Blake was an English poet. While he lived in London his entire life, except "
             "for three years spent in Felpham, he produced a diverse collection of works.")
    assert names_found(question, [blake], 0.6)
    assert asked_names("Unlike Mars, which planet has a thick atmosphere?") == ["mars"]
    # a name that opens the question is still one, and a title that opens with such a word, without the comma
    # that ends an opening phrase
    assert asked_names("Mona Lisa was painted by whom?") == ["mona", "lisa"]
    assert asked_names("Inside Out was produced by which studio?") == ["inside"]
    assert asked_names("Per Gessle is a member of which band?") == ["per", "gessle"]
    # the opening word only, and whether or not the lexicon knows it
    assert asked_names("Following Christopher Nolan's Following, what film did he make?") == [
        "christopher", "nolan", "following"]
    assert asked_names("Despite Brexit, is London still a financial centre?") == ["brexit", "london"]


def test_a_function_or_naming_word_typed_a_letter_wrong_is_no_name() -> None:
    ketchup = "Ketchup\nKetchup or catsup is a table condiment with a sweet and sour flavor."
    assert asked_names("whats anothr name for ketchup") == []
    assert rare_terms("whats anothr name for ketchup") == ["ketchup"]
    assert names_found("whats anothr name for ketchup", [ketchup], 0.6)
    assert asked_names("what were the three kingdoms of korea caled") == ["korea"]
    assert rare_terms("what is the study of puzzles calld") == []
    assert asked_names("wich country borders guinea-bissau to the north") == ["bissau"]
    # An adverb typed with a letter left out is no name either, and a question naming nothing else names nothing.
    assert asked_names("what year did the cold war finaly end") == []
    assert asked_names("who actualy carried out the rutherford scattering experiments") == ["rutherford"]
    # A name one letter from a content word is still a name, and so is a short one one letter from a stop word,
    # and a name one letter from an adverb that does not end as one does ("quite", "soon", "thrice", "fairly") or
    # changes one of its letters ("vastly", "nicely", "soberly").
    assert asked_names("who voices shrek") == ["shrek"]
    for name in ("quito", "solon", "thrace", "fairey", "newlyn", "soong", "vasily", "cicely", "moberly", "barkly"):
        assert asked_names(f"what is {name} known for") == [name]
    assert asked_names("who founded rolex") == ["rolex"]
    assert "hoi" in asked_names("whats the old japanese covered bridge in hoi an called")


def test_the_noun_that_says_what_kind_of_thing_is_asked_need_not_be_held() -> None:
    question = "Which landmasses were named after the navigator Amerigo Vespucci?"
    assert kind_nouns(question) == ["landmasses"]
    assert "landmasses" not in rare_terms(question)  # the passage that answers names the Americas
    vespucci = "Amerigo Vespucci\nAmerigo Vespucci was an explorer after whom the Americas are named."
    assert names_found(question, [vespucci], 0.6)
    assert kind_nouns("In which ancient city was the axolotl first described?") == ["city"]
    assert kind_nouns("Where does the axolotl live?") == []  # what it asks about is no kind
    assert kind_nouns("Which axolotl species lives in Xochimilco?") == ["species"]  # the phrase's last noun
    assert kind_nouns("Do you know what axolotls eat?") == []  # "what" within a sentence opens no kind
    # an adjective the lexicon also knows as a verb ("sour") stands before the kind as well
    assert kind_nouns("Acetic acid is the active component of which sour liquid condiment?") == ["condiment"]
    # the noun of the phrase that "of" goes on with says what kind of thing is asked as well
    assert kind_nouns("What system of bondage did Tsar Alexander II of Russia abolish in 1861?") == ["system",
                                                                                                   "bondage"]
    assert kind_nouns("To which age of prehistory did the Indus Valley Civilisation belong?") == ["prehistory"]
    assert kind_nouns("Which city of Canada is the largest?") == ["city"]  # a name after "of" is no kind
    assert "axolotl" in rare_terms("In which ancient city was the axolotl first described?")


@pytest.mark.parametrize(("question", "describing", "names"), [
    ("In which European state was the tuba invented?", {"european"}, []),
    ("Which American architect was mentored by Louis Sullivan?", {"american"}, ["louis", "sullivan"]),
    ("Which Swedish company makes Minecraft?", {"swedish"}, ["minecraft"]),
    # with the part of the world before it
    ("Sodium nitrate is nicknamed after which South American country?", {"south", "american"}, []),
    ("Which South Pole explorer died first?", set(), ["south", "pole"]),
    ("Which Batman film did Tim Burton direct?", set(), ["batman", "tim", "burton"]),
    ("Which Henri Rousseau painting shows a lion?", set(), ["henri", "rousseau"]),
    ("Which Milan club won the 1994 final?", set(), ["milan", "1994"]),
    ("Which Bohemian Rhapsody singer was born in Zanzibar?", set(), ["bohemian", "rhapsody", "zanzibar"]),
    ("Which Austro-Hungarian emperor built Schönbrunn?", set(), ["austro", "hungarian", "schonbrunn"]),
    ("Which Elton John song won an Oscar?", set(), ["elton", "john", "oscar"]),
    ("Who was the first European to reach India by sea?", set(), ["european", "india"]),  # not what is asked
    # the language of an asked name, unless the question names it elsewhere
    ("What is xiangqi usually called in English?", {"english"}, ["xiangqi"]),
    ("What was Beijing known in Latin as?", {"latin"}, ["beijing"]),
    ("By what Greek name is İzmir still called in English?", {"english"}, ["greek", "izmir"]),
    ("What was the peregrine falcon called in North America?", set(), ["north", "america"]),  # a place
    ("What is the Latin word for wolf, known in Latin as lupus?", set(), ["latin", "latin"]),
])
def test_a_nationality_or_language_describing_what_is_asked_for_is_no_name_the_passage_must_hold(
        question: str, describing: set[str], names: list[str]) -> None:
    assert describing_words(question) == describing
    assert asked_names(question) == names


def test_the_passage_that_answers_is_not_dropped_for_a_nationality_it_need_not_say() -> None:
    question = "In which European state was the tuba invented?"
    tuba = "Tuba\nThe tuba was invented in Prussia by Wilhelm Wieprecht."
    volga = "Volga Bulgaria\nVolga Bulgaria was a state in what is now European Russia."
    assert name_coverages(question, [tuba, volga], 0.6) == [1.0, 1.0]


def test_a_passage_holds_a_term_in_another_form_or_as_the_words_of_a_compound() -> None:
    assert holds("narwhal", "Narwhals live in the Arctic.")
    assert holds("zulus", "The Zulu War")
    assert holds("chessboard", "Chess is played on a square board.")
    assert not holds("chessboard", "Chess is played on squares.")
    assert not holds("axolotl", "Salamanders of Mexico")


def test_a_passage_holds_a_word_derived_from_the_question_s_and_short_roots_join_nothing() -> None:
    beijing = "Beijing\nBeijing, formerly romanized as Peking, is the capital of China."
    assert holds("romanization", beijing)
    assert names_found("what was beijing called in the older romanization", [beijing], 0.6)
    assert holds("constitutional", "The constitution of Japan")
    assert root("caring") == "" and not holds("caring", "A car.")  # "care" is shorter than MIN_ROOT
    assert not holds("romania", "The Roman Empire.")


def test_a_noun_and_its_collective_in_ry_meet_by_their_roots() -> None:
    freemasonry = "Freemasonry\nFreemasonry consists of fraternal groups that trace their origins to medieval guilds."
    assert holds("freemasons", freemasonry) and holds("forestry", "The forests of Finland")
    assert names_found("where do freemasons trace there origins back to", [freemasonry], 0.6)
    assert not holds("poets", "Poetry is an art.")  # "poet" is shorter than MIN_ROOT
    assert not holds("chemistry", "The chemical elements")  # "chemic" and "chemistri": not an ending of "-ry"


def test_a_long_word_is_held_by_the_same_word_with_another_ending() -> None:
    hypothermia = "Hypothermia\nHypothermia is defined as a body core temperature below 35.0 °C."
    assert holds("hypothermic", hypothermia) and holds("prehistory", "The prehistoric period")
    assert names_found("Below what core body temperature is a person considered hypothermic?", [hypothermia], 0.6)
    assert not holds("alexander", "Alexandria is a city in Egypt.")  # they share "alexand", two short of "alexander"
    assert not holds("mexican", "Mexicali is a city.")  # shorter than MIN_ENDED


def test_a_number_is_held_written_another_way() -> None:
    ninth = "Symphony No. 9 (Beethoven)\nThe Symphony No. 9 in D minor is a choral symphony by Ludwig van Beethoven."
    assert holds("ninth", ninth) and holds("ninth", "his symphony no.9") and holds("ninth", "The 9th Symphony")
    assert names_found("In which city was Beethoven's Ninth Symphony first performed?", [ninth], 0.6)
    assert holds("second", "World War II was a global conflict.")
    assert holds("ii", "the Second World War") and holds("viii", "Henry the 8th")  # and the other way round
    assert not holds("i", "the first war") and not holds("v", "the fifth")  # a one-letter numeral is any "I"
    assert not holds("13", "In the thirteenth century") and not holds("13", "the 13th")  # figures as written
    assert not holds("ninth", "the 9 muses") and not holds("ninth", "Op. 9")  # a figure alone is not an ordinal
    assert not holds("first", "World War I")  # a one-letter numeral is any "I"
    assert not holds("21", "the twenty-first") and not holds("1066", "the Norman conquest")


def test_a_temperature_scale_is_held_by_its_symbol() -> None:
    sound = "Speed of sound\nIn dry air at 20 °C (68°F), the speed of sound is 343 metres per second."
    assert holds("celsius", sound) and holds("fahrenheit", sound) and holds("celsius", "It melts at 5℃.")
    assert names_found("How fast does sound travel through air at 20 degrees Celsius?", [sound], 0.6)
    assert not holds("celsius", "Vitamin C and F-16") and not holds("celsius", "at 5 °Cx")  # a letter is no scale
    assert not holds("fahrenheit", "It melts at 5 °C.")


def test_a_unit_named_after_a_person_is_held_by_its_symbol_after_a_number() -> None:
    atmosphere = ("Standard atmosphere (unit)\nThe standard atmosphere is a unit of pressure defined as 101325 Pa. It "
                  "is sometimes used as a reference pressure or standard pressure.")
    assert names_found("How many pascals is one standard atmosphere defined as?", [atmosphere], 0.6)
    assert holds("megawatts", "the 1,770\N{NO-BREAK SPACE}MW Arabelle turbine") and holds("joules", "about 58 kJ/mol")
    assert holds("gigahertz", "between 300 MHz and 300 GHz") and holds("kelvins", "absolute zero is 0 K")
    assert holds("volts", "between 2 kV and 33 kV")
    assert not holds("pascal", "Pa. Ubu") and not holds("volts", "Henry V") and not holds("watts", "W. B. Yeats")
    assert not holds("kelvin", "Ring of 12 Kings") and not holds("hertz", "a 5 Hzx filter")  # a word is no symbol
    for code in ("in 4K resolution", "since Y2K", "the MiG-29K", "the C-27J Spartan", "a 2005 TV series",
                 "In 1937 J. R. R. Tolkien"):  # a model, a code or an initial is no unit
        assert not unit_names(code), code


def test_a_popular_name_is_held_by_the_formal_name_of_several_words_but_not_as_a_first_name() -> None:
    wilder = ("Billy Wilder\nBilly Wilder was an Austrian and American film director and screenwriter. He received "
              "seven Academy Awards, a BAFTA Award and the Palme d'Or.")
    assert names_found("How many Oscars did Billy Wilder win?", [wilder], 0.6)
    assert holds("oscar", "She was nominated for an Academy Award.")
    assert not holds("oscars", "He founded an academy and later won an award.")  # the words apart name nothing
    assert not names_found("How many Oscars did Billy Wilder win?",
                           ["Billy Wilder\nBilly Wilder was an Austrian and American film director."], 0.6)
    robertson = "Cliff Robertson\nCliff Robertson was an American actor who won the Academy Award for Best Actor."
    assert first_names("Where was Oscar Robertson born?") == {"oscar"}
    assert not names_found("Where was Oscar Robertson born?", [robertson], 0.6)  # another Robertson's award
    assert name_share("Where was Oscar Robertson born?", robertson) == 0.5
    hepburn = ("Katharine Hepburn\nKatharine Hepburn was an American actress. Her accolades include a record four "
               "Academy Awards for Best Actress.")
    assert names_found("How many Best Actress Oscars did Katharine Hepburn win?", [hepburn], 0.6)


def test_latin_before_a_scientific_name_says_the_asked_name_s_language() -> None:
    assert "latin" in describing_words("What is the walrus's Latin species name?")
    assert "latin" in describing_words("What is the Latin name of the walrus?")
    assert asked_names("What is the walrus's Latin species name?") == []
    assert asked_names("What are the Latin names of the planets?") == []
    assert "latin" not in describing_words("From which Latin word does the word walrus come?")  # a word, not a name
    assert "latin" not in describing_words("Which Latin poet wrote the Aeneid?")


def test_a_decade_is_held_by_a_year_within_it() -> None:
    burma = ("Sino-Burmese War\nThe Qing under the Qianlong Emperor launched four invasions of Burma between 1765 "
             "and 1769.")
    assert holds("1760s", burma) and holds("1760s", "in the 1760s")
    assert names_found("Which Chinese emperor launched the Qing invasions of Burma in the 1760s?", [burma], 0.6)
    assert holds("1800s", "It was built in 1850.")  # the hundreds span their century, as people use them
    assert not holds("1760s", "It was founded in 1775.") and not holds("1760s", "It was 1,765 metres long.")
    assert not holds("1800s", "It was rebuilt in 1905.") and not holds("1760s", "the 176th")


def test_a_century_is_held_written_another_way() -> None:
    typist = ("Typewriter\nBy the end of the 19th century, the term 'typewriter' was also applied to a person who "
              "used such a device.")
    assert holds("1800s", typist) and holds("1800s", "in the nineteenth century")  # its hundreds by its ordinal
    assert names_found("By the late 1800s, what was a person who used a typewriter called?", [typist], 0.6)
    assert holds("1800s", "the 19th and early 20th centuries") and holds("1900s", "20th-century art")
    assert not holds("1800s", "He was the 19th President. He lived for nearly a century.")  # not beside "century"
    assert not holds("1000s", "the 11th century")  # "1000s" is as often thousands
    assert not holds("18th", "in the 1700s")  # "the 18th President" is no century


def test_an_ordinal_in_figures_is_held_by_its_word() -> None:
    assert holds("18th", "the eighteenth century") and holds("4th", "the fourth")
    assert not holds("1st", "the first to climb it") and not holds("3rd", "a third of the land")  # everyday words
    assert not holds("11th", "Xi Jinping") and not holds("4th", "an IV drip")  # a numeral is also a word or a name
    assert not holds("21st", "the twenty-first") and not holds("08th", "the eighth")
    assert not holds("13", "the 13th") and not holds("13", "the thirteenth")


def test_a_decade_without_its_century_is_held_by_that_decade() -> None:
    pc = ('Personal computer\nThe term "home computer" has also been used, primarily in the late 1970s and 1980s.')
    assert holds("80s", pc) and holds("80s", "the 1880s")
    assert names_found("what other name was used for personal computers in the late 1970s and 80s", [pc], 0.6)
    assert not holds("60s", pc) and not holds("80s", "It was built in 1985.")  # a year does not say its decade
    assert not holds("80s", "It has 80 rooms.")


def test_a_round_year_is_held_by_the_decade_it_opens() -> None:
    reality = ("Reality television\nReality television achieved prominence in the early 2000s with the success of "
               "the series Survivor, Idol, and Big Brother.")
    assert holds("2000", reality) and holds("1990", "the 1990s") and holds("2000", "in 2000")
    assert names_found("Which TV shows turned reality television into a worldwide hit around the year 2000?",
                       [reality], 0.6)
    assert not holds("2003", reality) and not holds("1990", reality)  # a decade does not say its other years
    assert not holds("1900", "the 1990s") and not holds("2000", "the 20th century")


def test_a_rare_lower_case_subject_no_passage_holds_means_the_sources_do_not_answer() -> None:
    question = "In the wild, where does the axolotl live?"
    salamander = "Salamander\nSalamanders are amphibians that live in the wild near water."
    assert missing_rare_terms(question, salamander) == ["axolotl"]
    assert not names_found(question, [salamander], 0.6)
    assert names_found(question, [salamander], 0.0)  # the rule off
    axolotl = "Axolotl\nThe axolotls live in lakes near Mexico City."
    assert names_found(question, [salamander, axolotl], 0.6)


def test_the_constraint_names_its_reason() -> None:
    constraints = HardConstraints(min_name_coverage=0.6)
    assert constraints.violation(None, None, 0.5) == "dropped: the passage holds 50% of the question's names"
    assert constraints.violation(None, None, 1.0) is None
    assert constraints.violation(None, None, None) is None
    assert HardConstraints().violation(None, None, 0.0) is None


def test_the_default_asks_for_more_than_half_of_the_names() -> None:
    assert LoopSettings().min_name_coverage == 0.6
    assert LoopSettings().constraints().min_name_coverage == 0.6


# ---------------------------------------------------------------------- short form


def test_selection_drops_the_branch_whose_passage_names_another_thing() -> None:
    # With only the sequence term, the likelier Louvre branch wins unless the names rule drops it.
    off = eiffel_rag(w_rel=0.0, w_sup=0.0, w_use=0.0, decline=False).invoke("Who built the Eiffel Tower?")
    on = eiffel_rag(w_rel=0.0, w_sup=0.0, w_use=0.0, decline=False, min_name_coverage=0.6).invoke(
        "Who built the Eiffel Tower?")
    assert off.answer == "It was built by Louis XIV."
    assert on.answer == "Gustave Eiffel's company built it." and not on.declined
    louvre = next(b for b in on.branches if b.passage.metadata["title"] == "Louvre")
    assert louvre.dropped == "dropped: the passage holds 0% of the question's names"
    assert on.settings["min_name_coverage"] == 0.6


def test_short_form_declines_when_the_passages_hold_too_few_names() -> None:
    # The Eiffel Tower's passage is judged relevant and supporting, but it names only "tower" of "Tokyo Tower".
    question = "Who built the Tokyo Tower?"
    declined = eiffel_rag(min_name_coverage=0.6).invoke(question)
    answered = eiffel_rag(min_name_coverage=0.0).invoke(question)
    assert declined.declined and declined.answer.startswith(DECLINED)
    assert not answered.declined and answered.answer == "Gustave Eiffel's company built it."


def test_the_branches_the_names_rule_settles_before_they_are_written() -> None:
    question = "When was Greta Thunberg born?"
    # Selection would drop the Garbo branch: it need not be written; the Thunberg branch must be.
    reasons = moot_reasons(question, [GARBO, THUNBERG], 0.6, declining=True)
    assert reasons[0] == "its passage holds 50% of the question's names: it could not be chosen"
    assert reasons[1] is None
    # Together the passages hold too few of the names: the answer is declined, so nothing need be written,
    # unless declining is off (then no passage holds enough, and nothing is dropped).
    assert moot_reasons(question, [GARBO, PARIS], 0.6, declining=True) == [
        "the passages found hold too few of the question's names: the answer is declined"] * 2
    assert moot_reasons(question, [GARBO, PARIS], 0.6, declining=False) == [None, None]
    assert moot_reasons(question, [GARBO, THUNBERG], 0.0, declining=True) == [None, None]  # the rule off


def test_short_form_writes_only_the_branches_that_could_be_chosen() -> None:
    rag = eiffel_rag(w_rel=0.0, w_sup=0.0, w_use=0.0, decline=False, min_name_coverage=0.6)
    result = rag.invoke("Who built the Eiffel Tower?")
    assert result.answer == "Gustave Eiffel's company built it."
    assert rag.generator.prompts_seen and all("Louvre" not in p for p in rag.generator.prompts_seen)
    louvre = next(b for b in result.branches if b.passage.metadata["title"] == "Louvre")
    assert not louvre.written and louvre.raw_generation == ""
    assert louvre.notes == ["not written: its passage holds 0% of the question's names: it could not be chosen"]
    assert louvre.dropped == "dropped: the passage holds 0% of the question's names"
    # Its IsRel is still read, as the scripted model would have opened the branch.
    assert louvre.distributions["IsRel"] == pytest.approx({"[Relevant]": 0.2, "[Irrelevant]": 0.8})
    assert all(b.written for b in result.branches if b is not louvre)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_short_form_declines_without_writing_when_the_passages_hold_too_few_names(mode: str) -> None:
    rag = eiffel_rag(min_name_coverage=0.6)
    question = "Who built the Tokyo Tower?"
    result = rag.invoke(question) if mode == "sync" else asyncio.run(rag.ainvoke(question))
    assert result.declined and rag.generator.calls == 0
    # The closest passages are still ranked by their IsRel: the Eiffel Tower's (0.9) before the Louvre's.
    assert result.answer == f"{DECLINED} Closest: Eiffel Tower [1]. Louvre [2]."
    assert not any(b.written for b in result.branches)
    assert "no branch was written: the passages found hold too few of the question's names" in result.notes


def test_reselecting_never_chooses_a_branch_the_run_left_unwritten() -> None:
    task = get_task("popqa")
    example = EvalExample(key="q", line=1, question="Who built the Eiffel Tower?", answers=("Gustave Eiffel",))
    recorded = eiffel_rag(mode="always", w_rel=0.0, w_sup=0.0, w_use=0.0, min_name_coverage=0.6).invoke(
        task.runnable_input(example))
    assert [b.written for b in recorded.branches] == [False, True]  # the Louvre's, then the Eiffel Tower's
    # With the rule off the Louvre branch is no longer dropped; were its passage judged the more relevant, it
    # would win on IsRel alone. Still it wrote nothing, so the written branch answers.
    recorded.branches[0].distributions["IsRel"] = {"[Relevant]": 0.99, "[Irrelevant]": 0.01}
    weights = ScoringWeights(1.0, 0.0, 0.0, use_sequence_probability=False)
    assert reselect(recorded, task, example, weights=weights, constraints=HardConstraints()) == (
        "Gustave Eiffel's company built it.")


def test_reselecting_from_a_trace_applies_the_same_rule() -> None:
    task = get_task("popqa")
    for question in ("Who built the Eiffel Tower?", "Who built the Tokyo Tower?"):
        example = EvalExample(key="q", line=1, question=question, answers=("Gustave Eiffel",))
        recorded = eiffel_rag(mode="always", w_rel=0.0, w_sup=0.0, w_use=0.0).invoke(task.runnable_input(example))
        regenerated = eiffel_rag(mode="always", w_rel=0.0, w_sup=0.0, w_use=0.0, min_name_coverage=0.6).invoke(
            task.runnable_input(example))
        again = reselect(recorded, task, example, weights=ScoringWeights(0.0, 0.0, 0.0),
                         constraints=HardConstraints(min_name_coverage=0.6))
        assert again == (DECLINED if regenerated.declined else regenerated.answer)


# ---------------------------------------------------------------------- long form

QUESTION = "Tell me about the Eiffel Tower."


def _long(passages: list[str], minimum: float) -> SelfRAGLongForm:
    retriever = RecordingRetriever(results={QUESTION: [passage(t) for t in passages]})
    llm = ScriptedLongFormLLM(script={(0, t): judged(f"{t} is worth a visit.", REL, FULL) for t in passages})
    return SelfRAGLongForm(generator=llm, reflector=InlineReflector(llm), retriever=retriever, k=len(passages),
                           max_depth=1, min_name_coverage=minimum)


def test_long_form_declines_when_no_passage_found_names_the_question_subject() -> None:
    items = list(_long(["Paris", "Wrought iron"], 0.6).stream(QUESTION))
    *segments, result = items
    assert result.declined and segments[0].text == DECLINED  # nothing claimed before the decline
    assert not _long(["Paris", "Wrought iron"], 0.0).invoke(QUESTION).declined


def test_long_form_keeps_the_segment_whose_passage_names_the_subject() -> None:
    result = _long(["Paris", "Eiffel Tower"], 0.6).invoke(QUESTION)
    assert not result.declined
    assert [s.text for s in result.segments] == ["Eiffel Tower is worth a visit."]
    dropped = [c for c in result.candidates if c.dropped]
    assert [c.passage.metadata["title"] for c in dropped] == ["Paris"]


def test_long_form_writes_only_the_candidates_that_could_be_kept() -> None:
    rag = _long(["Paris", "Eiffel Tower"], 0.6)
    result = rag.invoke(QUESTION)
    assert [s.text for s in result.segments] == ["Eiffel Tower is worth a visit."]
    assert len(rag.generator.calls) == 1 and all("Paris\n" not in p for p in rag.generator.calls[0])
    paris = next(c for c in result.candidates if c.passage.metadata["title"] == "Paris")
    assert not paris.written and paris.raw_generation == ""
    assert paris.dropped == "not written: its passage holds 0% of the question's names: it could not be chosen"
    assert paris.distributions["IsRel"] is not None  # judged for IsRel alone


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_long_form_declines_at_its_first_step_without_writing_when_no_passage_names_the_subject(mode: str) -> None:
    rag = _long(["Paris", "Wrought iron"], 0.6)
    result = rag.invoke(QUESTION) if mode == "sync" else asyncio.run(rag.ainvoke(QUESTION))
    assert result.declined and result.segments[0].text == DECLINED
    assert rag.generator.calls == []  # nothing generated
    assert [c.written for c in result.candidates] == [False, False]
    assert all(c.distributions["IsRel"] is not None for c in result.candidates)
    assert f"nothing was written: {NAMES_DECLINED}" in result.notes


def test_a_segment_stands_only_from_a_passage_that_names_the_subject_once_one_is_found() -> None:
    # Depth 0 finds the Eiffel Tower's article, whose segment is judged unsupported; depth 1 finds only Paris
    # (alone in its step: nothing dropped), whose segment is judged supported. Once a passage naming the
    # subject is found, the Paris segment alone does not let the answer stand.
    retriever = RecordingRetriever(results={QUESTION: [passage("Eiffel Tower")],
                                            f"{QUESTION} The tower is made of cheese.": [passage("Paris")]})
    llm = ScriptedLongFormLLM(script={(0, "Eiffel Tower"): judged("The tower is made of cheese.", REL, NOSUP),
                                      (1, "Paris"): judged("Paris is lovely.", REL, FULL)})
    rag = SelfRAGLongForm(generator=llm, reflector=InlineReflector(llm), retriever=retriever, k=1, beam_width=1,
                          max_depth=2)
    assert rag.invoke(QUESTION).declined
    assert asyncio.run(rag.ainvoke(QUESTION)).declined
    unnamed = rag.model_copy(update={"min_name_coverage": 0.0})
    assert not unnamed.invoke(QUESTION).declined, "declined for another reason than the names"


def test_long_form_drops_by_names_across_the_whole_step_not_beam_by_beam() -> None:
    retriever = RecordingRetriever(results={
        QUESTION: [passage("Eiffel Tower"), passage("Eiffel Tower lift")],
        f"{QUESTION} The Eiffel Tower is in Paris.": [passage("Paris"), passage("Seine")],
        f"{QUESTION} The Eiffel Tower has lifts.": [passage("Eiffel Tower history"), passage("Wrought iron")],
    })
    llm = ScriptedLongFormLLM(script={
        (0, "Eiffel Tower"): judged("The Eiffel Tower is in Paris.", REL, FULL),
        (0, "Eiffel Tower lift"): judged("The Eiffel Tower has lifts.", REL, PART),
        (1, "Paris"): judged("Paris is lovely.", REL, FULL),
        (1, "Seine"): judged("The Seine is long.", REL, FULL),
        (1, "Eiffel Tower history"): judged("It opened in 1889.", REL, FULL),
        (1, "Wrought iron"): judged("Iron rusts.", REL, FULL),
    })
    result = SelfRAGLongForm(generator=llm, reflector=InlineReflector(llm), retriever=retriever, k=2,
                             beam_width=2, max_depth=2, answer_first=False).invoke(QUESTION)
    dropped = {c.passage.metadata["title"] for c in result.candidates if c.depth == 1 and c.dropped}
    assert dropped == {"Paris", "Seine", "Wrought iron"}  # Paris and Seine had no naming sibling in their beam
    kept = {c.passage.metadata["title"] for c in result.candidates if c.depth == 1 and not c.dropped}
    assert kept == {"Eiffel Tower history"}


def test_a_question_with_answer_choices_is_not_judged_by_names() -> None:
    # The Louvre branch (the likelier) names nothing of the question, yet with choices nothing is dropped.
    result = eiffel_rag(w_rel=0.0, w_sup=0.0, w_use=0.0, min_name_coverage=0.6).invoke(
        {"question": "Who built the Eiffel Tower?", "choices": {"A": "Louis XIV", "B": "Gustave Eiffel"}})
    assert all(b.dropped is None for b in result.branches) and not result.declined
    assert result.answer == "A"


def test_short_form_declines_by_names_asynchronously_too() -> None:
    declined = asyncio.run(eiffel_rag(min_name_coverage=0.6).ainvoke("Who built the Tokyo Tower?"))
    answered = asyncio.run(eiffel_rag(min_name_coverage=0.0).ainvoke("Who built the Tokyo Tower?"))
    assert declined.declined and declined.answer.startswith(DECLINED)
    assert not answered.declined, "declined for another reason than the names"


def test_a_name_given_as_an_acronym_is_held_by_the_words_it_stands_for() -> None:
    question = "In which ocean does the US state of Hawaii lie?"
    assert name_share(question, "Hawaii is an island state of the United States, in the Pacific Ocean.") == 1.0
    assert name_share(question, "Hawaii lies 2,000 miles southwest of the U.S. mainland.") == 1.0
    assert name_share(question, "Hawaii is an island state in the Pacific Ocean.") == 0.5
    assert acronyms("The United States of America") == {"us", "sa", "usa"}
    assert "us" not in acronyms("They told us about the United nations.")  # lower case spells nothing


def test_a_question_that_opens_with_its_subject_names_it() -> None:
    question = "Semarang is the capital of which Indonesian province?"
    assert asked_names(question) == ["semarang"]  # "Indonesian" describes the province asked for
    palembang = "Palembang\nPalembang is the capital city of the Indonesian province of South Sumatra."
    semarang = "Semarang\nSemarang is the capital of Central Java province in Indonesia."
    assert name_coverages(question, [palembang, semarang], 0.6) == [0.0, 1.0]
    # A first word English's lexicon knows is no name; the next word capitalised still makes it one.
    assert asked_names("Apart from swimming, which sport did Johnny Weissmuller play?") == ["johnny", "weissmuller"]
    assert asked_names("Mona Lisa was painted by whom?") == ["mona", "lisa"]
    assert asked_names("Which river? Zagreb lies on it.") == ["zagreb"]


def test_a_place_adjective_is_held_by_the_place_and_the_place_by_its_adjective() -> None:
    zagreb = "Zagreb\nZagreb is the capital and largest city of Croatia, along the Sava River."
    assert name_share("Along which river does the Croatian capital Zagreb lie?", zagreb) == 1.0
    assert holds("italian", "Rome is the capital of Italy.")
    assert holds("chinese", "Beijing is the capital of China.")
    assert holds("mexico", "The Mexican Revolution began in 1910.")
    assert holds("germany", "He was a German priest.")
    assert not holds("austria", "He was an Australian cricketer.")
    assert not holds("romania", "The Roman Empire.")
    assert place_stems("croatian") & place_stems("croatia") == {"croati", "croatia"}
    # "-lese" after a vowel and "-i" make adjectives too.
    mbuji_mayi = ("Mbuji-Mayi\nMbuji-Mayi is a city and the capital of Kasai-Oriental Province in the south-central "
                  "Democratic Republic of Congo.")
    assert name_share("Mbuji-Mayi is the capital of which Congolese province?", mbuji_mayi) == 1.0
    assert holds("iraqi", "Nineveh was located in the modern-day city of Mosul in northern Iraq.")
    assert holds("pakistani", "Lahore is the capital of the province of Punjab in Pakistan.")
    assert holds("togo", "He was a Togolese footballer.")
    assert not holds("iraqi", "Tehran is the capital of Iran.")
    assert all(len(stem) >= 4 for stem in place_stems("roman"))


def test_a_doctrine_or_a_group_is_held_by_its_adjective_and_its_people_in_the_plural() -> None:
    mani = "Manichaeism\nManichaeism was a major world religion founded by the Parthian prophet Mani."
    assert names_found("Who was the prophet that started the Manichaean religion?", [mani], 0.6)
    assert holds("buddhist", "Buddhism is an Indian religion.")
    # A short doctrine's follower too: "cub" alone is too short a stem to compare, "cubis" is not.
    cubism = "Cubism\nCubism is an early-20th-century avant-garde art movement which began in Paris."
    assert speaks_of_asked("In which city did the Cubist art movement originate?", cubism.split("\n")[1], cubism,
                           "Cubism")
    assert holds("taoist", "Taoism is a philosophical tradition of Chinese origin.")
    assert not holds("cubist", "A cub is a young lion.")
    bryozoa = "Bryozoa\nThe Bryozoa have a feeding structure called a lophophore."
    assert missing_rare_terms("What do bryozoans use to feed?", bryozoa) == []
    assert holds("croatians", "Zagreb is the capital of Croatia.")
    # A name ending in "s" is no plural of a people: "Solaris" is not held by "solar".
    assert not holds("solaris", "Solar power is energy from the Sun.")


def test_a_people_in_the_plural_is_held_by_its_adjective_and_a_field_by_its_adjective_and_practitioner() -> None:
    celtic = ("Ancient Celtic religion\nAncient Celtic religion, commonly known as Celtic paganism, was the religion "
              "of the ancient Celtic peoples of Europe.")
    assert name_share("What is the religion of the ancient Celts commonly called?", celtic) == 1.0
    assert holds("celtic", "The Celts were a collection of Indo-European peoples.")
    assert holds("huns", "Attila ruled the Hunnic Empire.")
    assert holds("franks", "Charlemagne was a Frankish king.")
    astrology = ("Astrology\nAstrology is a range of divinatory practices, recognized as pseudoscientific since the "
                 "18th century.")
    assert name_share("Since which century has astrology been recognized as a pseudoscience?", astrology) == 1.0
    assert holds("neuroscience", "She was an American neuroscientist.")
    # Only whole words are made: a name in "-s" that is no plural, or a shorter word, meets nothing.
    assert not holds("taurus", "The Tauric Chersonese.")
    assert not holds("celts", "The Celtics are a basketball team.")
    assert not holds("atlantic", "Atlanta is the capital of Georgia.")
    assert not holds("physics", "He was a physician.")


def test_a_short_form_that_spells_no_initials_is_held_by_its_word_and_the_word_by_it() -> None:
    dish = ("Satellite television\nSatellite television is a service that delivers television programming to "
            "viewers by relaying it from a communications satellite to a satellite dish.")
    assert name_share("What's the outdoor antenna for receiving satellite TV usually called?", dish) == 1.0
    assert holds("television", "The TV series ran for six seasons.")
    assert not holds("tv", "The radio station broadcasts news.")


def test_a_people_whose_name_is_not_the_place_s_stem_is_held_by_the_place_and_the_place_by_its_people() -> None:
    rowing = ("Rowing (sport)\nRowing, sometimes called crew in the United States, is the sport of racing boats "
              "using oars.")
    assert name_share("What do Americans often call the sport of rowing?", rowing) == 1.0
    assert holds("french", "Lyon is the third-largest city of France.")
    assert holds("france", "Claude Monet was a French painter.")
    assert holds("dutch", "Amsterdam is the capital of the Netherlands.")
    assert holds("uk", "She was a British actress.")
    assert holds("roman", "Augustus was the first emperor of ancient Rome.")
    andes = ("Andes\nThe Andes are the longest continental mountain range in the world, along the western edge of "
             "South America.")
    assert name_share("What is Earth's longest continental mountain range?", andes) == 1.0
    # A name of several words is held only by its words in a row, and no group meets another.
    assert not holds("american", "The states of Germany are united in a federation.")
    assert not holds("american", "Mexico City is the capital of Mexico.")
    assert not holds("french", "Madrid is the capital of Spain.")
    assert not holds("british", "The kingdom of Thailand.")


IMAM_MUSLIM = ("Muslim ibn al-Hajjaj\nMuslim ibn al-Hajjaj, commonly known as Imam Muslim, was an Islamic scholar from "
               "the city of Nishapur. His hadith collection, known as Sahih Muslim, is one of the six major "
               "collections in Sunni Islam.")
DAGESTAN = ("Dagestan\nDagestan, officially the Republic of Dagestan, is a republic of Russia situated in the North "
            "Caucasus. It shares land borders with the Russian republics of Chechnya (west) and Kalmykia (north). "
            "Makhachkala is the republic's capital and largest city.")
KABUL = ("Kabul\nKabul is the capital and largest city of Afghanistan. Kabul is located high up in a narrow valley "
         "between the Hindu Kush mountains, on the Kabul River.")
WOHLER = "Friedrich Wöhler\nFriedrich Wöhler was a German chemist known for his work."
CAESIUM = ("Caesium\nCaesium is a chemical element; it has symbol Cs. It is a soft alkali metal with a melting point "
           "of 28.5 °C.")


def test_a_passage_that_does_not_hold_the_question_s_year_speaks_of_another_time() -> None:
    question = "Who won the 1998 Tour de France?"
    other = "Tour de France\nThe Tour de France is an annual race. In 1999 Lance Armstrong won it."
    assert not speaks_of_asked(question, "In 1999 Lance Armstrong won it.", other, "Tour de France")
    pantani = "Marco Pantani\nMarco Pantani won the Tour de France in 1998."
    assert speaks_of_asked(question, "Marco Pantani won the Tour de France in 1998.", pantani, "Marco Pantani")
    decade = "Reality television\nReality television became a hit in the early 2000s."
    assert speaks_of_asked("Which shows were a hit around 2000?", "It became a hit in the early 2000s.", decade,
                           "Reality television")  # a round year is held by its decade
    assert speaks_of_asked(question, "It won.", other, None)  # an untitled chunk is left to the names rule
    grunge = "Grunge\nGrunge peaked in the mid-1990s, led by Nirvana."
    assert speaks_of_asked("Which grunge bands were most popular in 1993?", grunge.split("\n")[1], grunge, "Grunge")
    assert asked_years("Which liner sank in May 1914 after a collision?") == ["1914"]
    assert asked_years("Which truce ended the Polish–Russian War of 1609–1618?") == ["1609", "1618"]
    assert asked_years("Which footballers scored over 1000 goals?") == []  # a quantity
    assert asked_years("Who wrote 1984?") == [] and asked_years("a town of 1500 people") == []  # a title, a number


@pytest.mark.parametrize(("question", "quote", "passage", "title", "speaks_of_it"), [
    # another article's sentence, whose passage names the asked thing only in passing
    ("What is the capital of Chechnya?", "Makhachkala is the republic's capital and largest city.", DAGESTAN,
     "Dagestan", False),
    ("At what temperature does the metal gallium melt?",
     "Caesium is a soft alkali metal with a melting point of 28.5 °C.", CAESIUM, "Caesium", False),
    # the asked thing in the quote, the title, or the first sentence, which says what the article is about
    ("What is the capital of Dagestan?", "Makhachkala is the republic's capital and largest city.", DAGESTAN,
     "Dagestan", True),
    ("Which river flows through the Afghan capital?", "Kabul is located ... on the Kabul River.", KABUL, "Kabul",
     True),
    ("Which republic's capital is Makhachkala?", "Makhachkala is the republic's capital and largest city.",
     DAGESTAN, "Dagestan", True),
    ("what's another name for kiwi fruit", "Kiwifruit, or Chinese gooseberry, is the edible berry of a vine.",
     "Kiwifruit\nKiwifruit, or Chinese gooseberry, is the edible berry of a vine.", "Kiwifruit", True),
    # every rare term of the question, not one of its names: a German chemist's article, for caffeine
    ("Which German chemist first isolated caffeine?", "Friedrich Wöhler was a German chemist known for his work.",
     WOHLER, "Friedrich Wöhler", False),
    ("Which German chemist first isolated caffeine?", "Runge first isolated caffeine in 1819.",
     "Friedlieb Ferdinand Runge\nFriedlieb Ferdinand Runge was a German chemist. Runge first isolated caffeine in "
     "1819.",
     "Friedlieb Ferdinand Runge", True),
    # a rare common noun that describes the subject the quote names ("hadith scholar ... Imam Muslim") may be held
    # by any sentence of the passage; not when the quote side holds none of the question's names, nor when no
    # sentence holds it
    ("The hadith scholar known as Imam Muslim came from which city?",
     "Muslim ibn al-Hajjaj, commonly known as Imam Muslim, was an Islamic scholar from the city of Nishapur.",
     IMAM_MUSLIM, "Muslim ibn al-Hajjaj", True),
    ("The hadith scholar known as Imam Muslim came from which city?",
     "Muhammad al-Bukhari was a Persian scholar from Bukhara.",
     "Muhammad al-Bukhari\nMuhammad al-Bukhari was a Persian scholar from Bukhara. His hadith collection is "
     "Sahih al-Bukhari.", "Muhammad al-Bukhari", False),
    ("The hadith scholar known as Imam Muslim came from which city?",
     "Muslim ibn al-Hajjaj, commonly known as Imam Muslim, was an Islamic scholar from the city of Nishapur.",
     IMAM_MUSLIM.replace("His hadith collection", "His collection"), "Muslim ibn al-Hajjaj", False),
    # a rare term at the end of a longer word
    ("In what year did Alexander Fleming discover penicillin?",
     "Fleming's discovery in 1928 of what was later named benzylpenicillin changed medicine.",
     "Alexander Fleming\nSir Alexander Fleming was a Scottish physician and microbiologist. Fleming's discovery in "
     "1928 of what was later named benzylpenicillin changed medicine.", "Alexander Fleming", True),
    # every rare term: a passage about one of two named places does not speak of both, unless the question offers
    # them as alternatives
    ("What river flows through both Tashkent and Samarkand?", "Tashkent lies on the Chirchiq River.",
     "Tashkent\nTashkent is the capital of Uzbekistan. Tashkent lies on the Chirchiq River.", "Tashkent", False),
    ("Which is older, Tashkent or Samarkand?", "Tashkent was founded in the 3rd century BC.",
     "Tashkent\nTashkent is the capital of Uzbekistan. Tashkent was founded in the 3rd century BC.", "Tashkent", True),
    # a name is not found at the end of a longer word, as a rare term is
    ("Which poet wrote about Milton?", "Alexander Hamilton was a statesman.",
     "Alexander Hamilton\nAlexander Hamilton was a statesman.", "Alexander Hamilton", False),
    # a question that names nothing asks of no subject
    ("What is the melting point of the metal?", "Caesium is a soft alkali metal with a melting point of 28.5 °C.",
     CAESIUM, "Caesium", True),
    # an untitled chunk's first sentence need not say what it is about: the names rule reads it whole
    ("What did Acme Corp sell?", "It sold anvils.", "The company was founded in Ohio. Acme Corp grew. It sold anvils.",
     None, True),
])
def test_a_quote_speaks_of_what_the_question_names_in_it_its_title_or_its_articles_first_sentence(
        question: str, quote: str, passage: str, title: str | None, speaks_of_it: bool) -> None:
    assert speaks_of_asked(question, quote, passage, title) is speaks_of_it


NARCISSUS = ("Narcissus (plant)\nNarcissus is a genus of spring flowering perennial plants of the amaryllis family, "
             "Amaryllidaceae. Various common names including daffodil, narcissus, and jonquil, are used to describe "
             "some or all members of the genus. Daffodils grow wild in meadows.")


def test_a_later_sentence_giving_the_subject_s_other_names_says_what_the_article_is_about() -> None:
    lead = "Narcissus is a genus of spring flowering perennial plants of the amaryllis family, Amaryllidaceae."
    assert speaks_of_asked("daffodils are in which plant family", lead, NARCISSUS, "Narcissus (plant)")
    # a later sentence that only mentions the term gives no name: without the naming sentence, no subject
    unnamed = NARCISSUS.replace("Various common names including daffodil, narcissus, and jonquil, are used to "
                                "describe some or all members of the genus. ", "")
    assert not speaks_of_asked("daffodils are in which plant family", lead, unnamed, "Narcissus (plant)")


def test_a_long_content_word_typed_a_letter_wrong_is_held_by_the_word() -> None:
    division = ("Division (mathematics)\nWhat is being divided is called the dividend, which is divided by the "
                "divisor, and the result is called the quotient.")
    assert holds("divison", division) and holds("intergrated", "An integrated circuit is a chip.")
    assert names_found("whats the result of a divison called", [division], 0.6)
    assert not holds("sulfer", "Sulfur is a chemical element.")  # shorter than MIN_TYPED_WRONG: "shrek", "rolex"
    assert not holds("divison", "Multiplication of numbers.")  # the passage must hold a word one letter from it


@pytest.mark.parametrize(("name", "letters"), [
    ("Massachusetts Institute of Technology", "mit"),
    ("National Aeronautics and Space Administration", "nasa"),
    ("Attention deficit hyperactivity disorder", "adhd"),
    ("University of California, Los Angeles", "ucla"),
    ("Paris", ""),
])
def test_a_names_initials_skip_its_joining_words(name: str, letters: str) -> None:
    assert initials(name) == letters
