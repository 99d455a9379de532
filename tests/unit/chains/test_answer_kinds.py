"""A question that asks for a year is answered only by a claim that gives a number, one that asks for a share only
by a claim that gives a quantity, one that asks in which town, city or state, or who wrote, founded or discovered
something, only by a claim that names something besides the question's names, one that asks a birth or real name
only by a claim that holds a name the question lacks, one that asks a species' scientific name only by a claim that
writes one, one that asks where or how someone died only by a claim that speaks of a death, one that asks where
someone is buried only by a claim that speaks of a burial, and one that asks someone's wife or husband only by a claim
that speaks of a marriage."""

from __future__ import annotations

import pytest

from selfrag_langchain.chains.answer_kinds import (
    asks_agent,
    asks_birth_name,
    asks_birthplace,
    asks_burial,
    asks_death,
    asks_nickname,
    asks_place,
    asks_relative,
    asks_scientific_name,
    asks_share,
    asks_spouse,
    asks_year,
    gives_asked_kind,
    names_another,
    names_beyond,
    speaks_of_birth,
    speaks_of_burial,
    speaks_of_death,
    speaks_of_marriage,
)


@pytest.mark.parametrize(("question", "asks"), [
    ("Roughly what share of Denmark's people live on the island of Zealand?", True),
    ("What percentage of the Earth's surface is water?", True),
    ("what proportion of adults smoke", True),  # as typed
    ("Which fraction of the vote did the party win?", True),
    ("What may share a radical without being meaningful?", False),  # "share" as a verb
    ("What ideal proportion did Alberti promote?", False),  # a proportion, not a part of a whole
    ("How many people live in Denmark?", False),  # "how many" may be answered "every one of them"
])
def test_a_question_asks_for_a_share_when_it_asks_what_part_of_a_whole_something_is(question: str,
                                                                                    asks: bool) -> None:
    assert asks_share(question) is asks


@pytest.mark.parametrize(("claim", "gives"), [
    ("Feldspars make up about 60% of the Earth's crust.", True),
    ("About a third of the population lives on Zealand.", True),
    ("The majority of Danes live on the islands.", True),
    ("Sea ice covers seven per cent of the surface.", True),
    ("The city is situated mainly on the island of Zealand (Sjælland).", False),
])
def test_a_share_question_is_answered_only_by_a_claim_with_a_quantity(claim: str, gives: bool) -> None:
    assert gives_asked_kind("What share of Denmark's people live on Zealand?", claim) is gives


@pytest.mark.parametrize(("question", "asks"), [
    ("In what year was NBC founded?", True),
    ("in which year did the war end", True),  # as typed
    ("What year was the Eiffel Tower built?", True),
    ("By what year will the bridge be finished?", True),
    ("¿In which year was it built?", True),
    ("When was Jane Austen born?", False),  # "when" may be answered "in spring"
    ("What yearly festival is held in Cannes?", False),
    ("How many years did Ramesses II rule?", False),
    ("Which film of that year won the award?", False),
])
def test_a_question_asks_for_a_year_when_it_opens_by_asking_what_year(question: str, asks: bool) -> None:
    assert asks_year(question) is asks


@pytest.mark.parametrize(("claim", "gives"), [
    ("The Federal District was created in 1824.", True),
    ("The operation ended in the 1980s.", True),
    ("The war began in the 5th century BC.", True),
    ("NBC is the first and oldest major broadcast network in the United States.", False),
    ("Maputo was formerly named Lourenço Marques.", False),
])
def test_a_year_question_is_answered_only_by_a_claim_with_a_number(claim: str, gives: bool) -> None:
    assert gives_asked_kind("In what year did it happen?", claim) is gives
    assert gives_asked_kind("How did it end?", claim)  # other kinds of question are not checked


@pytest.mark.parametrize(("question", "asks"), [
    ("In which Norwegian town was Henrik Ibsen born?", True),
    ("In what US state is Yellowstone National Park?", True),
    ("in which city was she born", True),  # as typed
    ("From which port did the Mayflower sail?", True),
    ("At what village did the battle start?", True),
    ("Which city is the capital of France?", False),  # the place is what is asked about, not where
    ("In which country was Ibsen born?", False),  # a nationality may answer it
    ("Where was Ibsen born?", False),  # "at sea"
    ("In what year was the city founded?", False),
])
def test_a_question_asks_for_a_place_when_it_opens_by_asking_in_which_town_city_or_state(question: str,
                                                                                        asks: bool) -> None:
    assert asks_place(question) is asks


@pytest.mark.parametrize(("question", "claim", "names"), [
    # The subject's own name, however long, and a nationality are no place.
    ("In which Norwegian town was Henrik Ibsen born?", "Henrik Johan Ibsen was a Norwegian playwright.", False),
    ("In which US state was George Washington Carver born?",
     "George Washington Carver was an American agricultural scientist and inventor.", False),
    ("In which city was George Balanchine born?",
     "George Balanchine was a Russian-American ballet choreographer of Georgian descent.", False),
    ("In which city was the Chinese leader Jiang Zemin born?",
     "Jiang Zemin was a Chinese politician who led the Chinese Communist Party.", False),
    ("In which town was the painter Jackson Pollock born?", "Paul Jackson Pollock was an American painter.", False),
    ("In which city was Agnes Varda born?", "Agnes Varda was a Belgian-born French filmmaker.", False),
    ("In which city does the firm work?", "It is a London-based firm.", True),  # a place, not a nationality
    ("In which city was Greta Garbo born?", "Greta Garbo was a Swedish and American film actress.", False),
    ("In which city was the firm founded?", "Its offices in Milan and Turin opened later.", True),
    ("In which city was the firm founded?", "It was founded in Milan and Italian banks funded it.", True),
    ("In which city was Vermeer born?", "The painter was born in the seventeenth century.", False),
    # A place, wherever it stands in the sentence.
    ("In which Norwegian town was Henrik Ibsen born?", "Ibsen was born in Skien, a port town in Telemark.", True),
    ("In which county is Moncks Corner located?", "The area includes Berkeley County, Moncks Corner.", True),
    ("In what city is the Passage located?", "In St. Petersburg The Passage has been popular since 1840.", True),
    ("In which city did the emperor reside?", "Milan also served as the capital of the western empire.", True),
    ("In which town was Leonardo da Vinci born?", "Leonardo da Vinci was born in Vinci.", True),
    ("In which city is West End theatre staged?", "It is staged in and near the West End of London.", True),
    # not a name that only goes on with "of": it names no place the subject is in
    ("In which city was Henry VIII born?", "Henry VIII of England was born in 1491.", False),
    ("Who founded the Royal Society?", "The Royal Society of London is a learned society.", False),
    ("In which city is West End theatre staged?", "West End theatre is mainstream professional theatre.", False),
    ("In which town was Catherine of Aragon born?", "Catherine of Aragon was a queen consort.", False),  # asked
    # Any other name counts (what the rule leaves to the reader; a birthplace asks a birth as well).
    ("In which city did Jiang Zemin study?", "Jiang Zemin led the Chinese Communist Party.", True),
])
def test_a_claim_names_beyond_when_it_names_something_besides_the_asked_subject(question: str, claim: str,
                                                                                  names: bool) -> None:
    assert names_beyond(question, claim) is names
    assert gives_asked_kind(question, claim) is names
    assert gives_asked_kind("Who was Ibsen?", claim)  # other kinds of question are not checked


@pytest.mark.parametrize(("question", "asks"), [
    ("Who discovered the element scandium?", True),
    ("who wrote middlemarch", True),  # as typed
    ("Who first introduced the potato to Ireland?", True),
    ("Who won the first Rugby World Cup?", True),
    ("Who was Henrik Ibsen?", False),  # a description answers it
    ("Who were the Normans?", False),
    ("Whose novel is Middlemarch?", False),
    ("By whom was Middlemarch written?", False),
])
def test_a_question_asks_for_an_agent_when_it_opens_by_asking_who_made_found_or_won_something(question: str,
                                                                                            asks: bool) -> None:
    assert asks_agent(question) is asks


@pytest.mark.parametrize(("question", "claim", "names"), [
    ("Who discovered the element scandium?", "Scandium was discovered in 1879 by spectral analysis.", False),
    ("Who composed the score for Hitchcock's Vertigo?",
     "Vertigo is a 1958 American thriller film directed by Alfred Hitchcock.", False),
    ("Who succeeded Eisaku Sato as prime minister of Japan?",
     "Eisaku Sato was a Japanese politician who served as prime minister of Japan.", False),
    ("Who discovered the element scandium?", "Lars Fredrik Nilson discovered scandium in 1879.", True),
    ("Who wrote the Divine Comedy?", "Dante Alighieri's Divine Comedy is an Italian poem.", True),
    # A name that shares a word with the subject's is another name: the subject's last word makes it the subject.
    ("Who designed the Eiffel Tower?", "It is named after the engineer Gustave Eiffel, whose company built it.", True),
    ("Who designed the Eiffel Tower?", "The Eiffel Tower is a wrought-iron lattice tower.", False),
    ("who designed the eiffel tower", "The Eiffel Tower is a wrought-iron lattice tower.", False),  # as typed
])
def test_an_agent_question_is_answered_only_by_a_claim_that_names_someone_besides_its_subject(
        question: str, claim: str, names: bool) -> None:
    assert gives_asked_kind(question, claim) is names


@pytest.mark.parametrize(("question", "asks"), [
    ("Who was Gian Lorenzo Bernini's father, himself a sculptor?", True),
    ("Who was the first wife of King Edward I of England?", True),
    ("What was the name of Pierre-Simon Laplace's wife?", True),
    ("What was Franz Schubert's father called?", True),
    ("Who was the Chilean dictator Augusto Pinochet married to?", True),
    ("whom did kanye west marry", True),
    ("To whom was Marie Antoinette married?", True),
    ("Who married Prince Albert in 1840?", True),
    ("Who officiated when Charles married Diana?", False),  # another person at the wedding
    ("Who was the priest who married them?", False),
    ("who was otto von bismarcks wife", False),  # typed without the possessive: no relative read
    ("Who founded the Sons of Liberty?", False),  # a name, not a relative
    ("What did Bernini's father sculpt?", False),  # asks what, not who
])
def test_a_question_asks_for_a_relative_when_it_asks_who_someones_relative_was(question: str, asks: bool) -> None:
    assert asks_relative(question) is asks


@pytest.mark.parametrize(("claim", "gives"), [
    ("Gian Lorenzo Bernini was an Italian sculptor, architect, painter and city planner.", False),
    ("Baron Augustin-Louis Cauchy was a French mathematician, engineer, and physicist.", False),
    ("Bernini was born in Naples on 7 December 1598.", False),
    ("Bernini was born in Naples to Pietro Bernini, a Mannerist sculptor.", True),
    ("His father, Pietro Bernini, was a sculptor from Florence.", True),
    ("In 1254 Edward married Eleanor of Castile.", True),
    ("Bernini was born to Angelica Galante and the sculptor Pietro Bernini.", True),
    ("Bernini was sired by Pietro Bernini, as Pegasus was by Poseidon.", True),  # a parent's verb
])
def test_a_relative_question_is_answered_only_by_a_claim_that_speaks_of_a_family(claim: str, gives: bool) -> None:
    assert gives_asked_kind("Who was Gian Lorenzo Bernini's father?", claim) is gives


@pytest.mark.parametrize(("question", "asks"), [
    ("Where was Gerolamo Cardano born?", True),
    ("where was w e b du bois born", True),  # as typed
    ("In which Scottish village was David Livingstone born?", True),
    ("In what country was John Lofting born?", True),
    ("What was the writer Jack London's birth name?", False),  # a lead gives it without saying "born"
    ("In what year was Jane Austen born?", False),  # a year, asked of a number
    ("Which city was C. S. Lewis born in?", True),  # the preposition last
    ("what country was she born in", True),
    ("Which city was the festival born in the 1960s held in?", False),
    ("Which city was C. S. Lewis born?", False),
    ("When was Jane Austen born?", False),
    ("Where did Ibsen live?", False),
    ("Who was born in Pisa?", False),
    ("Where did the German-born physicist Albert Einstein work?", False),  # "-born" describes, it is not asked
    ("Where is the composer born in Vienna buried?", False),
    ("Where did the first-born son of Henry VIII die?", False),
])
def test_a_question_asks_for_a_birthplace_when_it_asks_where_someone_was_born(question: str, asks: bool) -> None:
    assert asks_birthplace(question) is asks


@pytest.mark.parametrize(("question", "claim", "gives"), [
    ("In which town was Pierre de Fermat born?", "Fermat was born in Beaumont-de-Lomagne, France.", True),
    ("where was w e b du bois born", "Born in Great Barrington, Massachusetts, Du Bois grew up there.", True),
    ("In what country was John Lofting born?", "The pump was invented by John Lofting (b. Netherlands 1659).", True),
    ("In which city was Zaha Hadid born?", "Zaha Hadid was a Baghdad native who studied in Beirut.", True),
    # an initial or a people is no birth
    ("where was w e b du bois born", "W. E. B. Du Bois was an American sociologist and historian.", False),
    ("Where was Sitting Bull born?", "Sitting Bull was a Native American leader.", False),
    # a place the person is known for, not where they were born
    ("In which town was Pierre de Fermat born?", "Fermat was also a lawyer at the parlement of Toulouse, France.",
     False),
    ("where was gerolamo cardano born", "Gerolamo Cardano was an Italian polymath and physician.", False),
])
def test_a_birthplace_question_is_answered_only_by_a_claim_that_speaks_of_a_birth(question: str, claim: str,
                                                                                  gives: bool) -> None:
    assert speaks_of_birth(claim) is gives
    assert gives_asked_kind(question, claim) is gives


@pytest.mark.parametrize(("question", "claim", "gives"), [
    ("In what town was Michael Foot born?", "In 1945, Plymouth-born Michael Foot was elected MP for Devonport.", True),
    ("In which state was Lee Harvey Oswald born?", "Oswald was a Louisiana-born former Marine.", True),
    ("In which Scottish town was John Muir born?", "John Muir was born in Dunbar and was a Scottish-born naturalist.",
     True),
    # a people's birth names no town, nor does a word the question already holds
    ("In which Scottish town was John Muir born?",
     'John Muir, known as "Father of the National Parks", was a Scottish-born American naturalist.', False),
    ("In which city was Piet Mondrian born?", "Piet Mondrian was a Dutch-born painter who worked in Paris.", False),
    ("In which city was Albert Einstein born?", "Einstein was a German-born physicist who found relativity.", False),
    ("In which US state was Jane Doe born?", "Jane Doe is a US-born actor of the Actors Studio.", False),
    ("In which city was Jane Doe born?", "Jane Doe is a South African-born writer of the Cape.", False),
    # a place whose name ends as a people's adjective does is still a place
    ("In which city was Zhang Wei born?", "Zhang Wei is a Dalian-born footballer who plays for Shanghai Port.", True),
    ("In which town was Jane Doe born?", "Jane Doe is a Varese-born cyclist who rode for Team Sky.", True),
])
def test_a_birth_given_by_a_people_does_not_answer_which_town(question: str, claim: str, gives: bool) -> None:
    assert speaks_of_birth(claim)
    assert gives_asked_kind(question, claim) is gives
    assert gives_asked_kind(question.replace("In which Scottish town", "Where").replace("In which city", "Where")
                            .replace("In what town", "Where").replace("In which town", "Where")
                            .replace("In which US state", "Where"), claim)


def test_a_birth_given_by_a_people_does_not_answer_which_town_however_the_question_is_worded() -> None:
    claim = 'John Muir, known as "Father of the National Parks", was a Scottish-born American naturalist.'
    assert not gives_asked_kind("Which town was John Muir born in?", claim)
    assert not gives_asked_kind("What Scottish town was John Muir born in?", claim)


@pytest.mark.parametrize(("question", "asks"), [
    ("What was the writer Jack London's birth name?", True),
    ("Under what name was the singer Charles Aznavour born?", True),
    ("What surname was Alfred Tarski born with?", True),
    ("What was Cary Grant's name at birth?", True),
    ("what was george orwells real name", True),  # as typed
    ("What was the original name of the Korean alphabet?", True),
    ("What was Marie Curie's maiden name?", True),
    ("Where was Jack London born?", False),  # a birthplace
    ("What is the name of Jack London's best-known novel?", False),
    ("Who was born in Paris in 1802?", False),
    ("What is Lady Gaga's nickname?", False),  # another name, not the first one
])
def test_a_question_asks_for_a_birth_name_when_it_asks_the_name_someone_had_first(question: str, asks: bool) -> None:
    assert asks_birth_name(question) is asks


@pytest.mark.parametrize(("question", "claim", "gives"), [
    ("What was the writer Jack London's birth name?",
     "John Griffith London, better known as Jack London, was an American novelist.", True),  # the surname shared
    ("what was george orwells real name",
     "Eric Arthur Blair, better known by his pen name George Orwell, was an English novelist.", True),
    ("What was the original name of the Korean alphabet?", "The alphabet was first called Hunminjeongeum.", True),
    # nothing named but the question's own names and nationalities
    ("Under what name was the singer Charles Aznavour born?",
     "Charles Aznavour was a French and Armenian singer-songwriter, actor, and diplomat.", False),
    ("What surname was Alfred Tarski born with?", "Alfred Tarski was a Polish-American logician and mathematician.",
     False),
    ("What was Cary Grant's name at birth?", "Grant was an English-American actor.", False),
])
def test_a_birth_name_question_is_answered_only_by_a_claim_holding_a_name_the_question_lacks(
        question: str, claim: str, gives: bool) -> None:
    assert names_another(question, claim) is gives
    assert gives_asked_kind(question, claim) is gives
    assert gives_asked_kind("Who was Charles Aznavour?", claim)  # other kinds of question are not checked


@pytest.mark.parametrize(("question", "asks"), [
    ("What is the scientific name of the red fox?", True),
    ("whats the scientific name for the common toad", True),  # as typed
    ("scientific name of the olive tree?", True),
    ("What is the walrus's Latin species name?", True),
    ("What is the botanical name for garlic?", True),
    ("What is the scientific name of the family that herons belong to?", False),  # a family, not a species
    ("What is the genus name of the olive?", False),
    ("What does the species name sapiens mean?", False),
    ("Which naturalist gave the walrus its species name?", False),  # who, not what
    ("What is the Latin name for London?", False),  # a Latin name, not a scientific one
    ("What is the red fox's name in French?", False),
    ("How many species names are there?", False),
])
def test_a_question_asks_for_a_scientific_name_when_it_asks_a_species_name(question: str, asks: bool) -> None:
    assert asks_scientific_name(question) is asks


@pytest.mark.parametrize(("claim", "gives"), [
    ("The red fox (Vulpes vulpes) is the largest of the true foxes.", True),
    ("The olive, Olea europaea, is a small tree.", True),
    ("V. vulpes is found across the Northern Hemisphere.", True),
    ("Brown algae, or Phaeophyceae, are a large group of seaweeds.", True),  # a group's name for the group
    ("The red fox is a fox of the family Canidae.", False),  # only the family it belongs to
    ("It is a frog in the genus Rana, which is widespread.", False),
    ("The common toad, or European toad, is a toad in the family Bufonidae.", False),  # no binomial: "European toad"
    ("The red fox lives across the Northern Hemisphere.", True),  # names no rank: a term may be what is asked
    ("The gray wolf (Canis lupus) is a canine of the family Canidae.", True),  # in brackets, an English epithet
    ("The western gorilla (Gorilla gorilla) is an ape of the family Hominidae.", True),
    ("Tyrannosaurus rex is the type species of the genus Tyrannosaurus.", True),  # an unknown genus, a noun epithet
    ("The rhesus macaque is a monkey in the Macaca genus.", False),  # the rank after the group
    ("The European badger is a badger in the family Mustelidae native to Europe.", False),
])
def test_a_scientific_name_question_is_answered_only_by_a_claim_that_writes_one(claim: str, gives: bool) -> None:
    assert gives_asked_kind("What is the scientific name of the red fox?", claim) is gives
    assert gives_asked_kind("Where does the red fox live?", claim)  # other kinds of question are not checked


def test_a_scientific_term_that_is_no_species_name_is_not_declined() -> None:
    assert gives_asked_kind("What is the scientific name for the kneecap?",
                            "The patella, also known as the kneecap, is a bone that moves in order to guard the knee.")
    assert gives_asked_kind("What is the scientific name for cell division?",
                            "Mitosis (i.e., cell division) is a part of the cell cycle.")  # ranks as plain words


@pytest.mark.parametrize(("question", "asks"), [
    ("What nickname was the sprinter Usain Bolt given?", True),
    ("what was babe ruths nickname", True),  # typed carelessly, no apostrophe
    ("What was the boxer Muhammad Ali's famous nickname?", True),
    ("By what epithet is the Frankish king Pepin known?", True),
    ("By what sobriquet was the painter Tintoretto known?", True),
    ("What honorific title is Gandhi known by in India?", True),
    ("By what title is Saladin remembered in the West?", True),
    ("Besides the Great, what nickname was Peter I given?", True),  # after an opening clause
    ("What is the nickname of the city of Chicago?", True),
    ("What is Babe Ruth nicknamed?", True),
    ("What does the nickname Bolt mean?", False),  # what it means
    ("What is the origin of New York's nickname?", False),
    ("What does Chicago's nickname refer to?", False),
    ("Which journalist gave Usain Bolt his nickname?", False),  # who gave it
    ("Which newspaper coined the nickname Iron Lady?", False),
    ("Which city has the nickname the Big Apple?", False),  # a city asked, the nickname given
    ("Who was nicknamed the Iron Lady?", False),
    ("What year was the nickname coined?", False),
    ("What is an epithet?", False),  # a definition
    ("What title did Napoleon hold before he became emperor?", False),  # an office, not a name called by
    ("What is the title of Tolstoy's longest novel?", False),
])
def test_a_question_asks_for_a_nickname_when_it_asks_what_something_is_called_by(question: str, asks: bool) -> None:
    assert asks_nickname(question) is asks


@pytest.mark.parametrize(("claim", "gives"), [
    ("He is often called the Lightning Bolt for his speed.", True),
    ("Bolt, known as the fastest man alive, won eight Olympic golds.", True),
    ('His fans dubbed him "Lightning".', True),
    ("He is regarded as the greatest sprinter of all time.", True),
    ("Bolt, also known familiarly as Lightning, is a sprinter.", True),
    ("He was known to his fans as Lightning Bolt.", True),
    ("He earned the name Lightning Bolt in 2008.", True),
    ("Bolt, a.k.a. Lightning Bolt, is a sprinter.", True),
    ("He was the 'Lightning Bolt' of Jamaican athletics.", True),  # in single quotation marks
    ("Bolt is best known for his world records in the 100 metres.", False),  # known for, not known as
    ("Usain St Leo Bolt is a Jamaican retired sprinter.", False),  # who he is, not what he is called
    ("Bolt won the 100 metres at three Olympic Games.", False),
    ("It's Jamaica's best-known sprint club.", False),  # an apostrophe is no quotation mark
])
def test_a_nickname_question_is_answered_only_by_a_claim_that_gives_a_name_it_is_called_by(claim: str,
                                                                                          gives: bool) -> None:
    assert gives_asked_kind("What nickname was the sprinter Usain Bolt given?", claim) is gives
    assert gives_asked_kind("Where does Usain Bolt train?", claim)  # other kinds of question are not checked


@pytest.mark.parametrize(("question", "asks"), [
    ("where did francis bacon die", True),  # as typed
    ("In which town was Thomas Müntzer executed?", True),
    ("How did Hermann Göring die?", True),
    ("In which English town did Napoleon III die in exile?", True),  # a short phrase after the verb
    ("At which battle was the Visigothic king Theodoric I killed?", True),
    ("Where did the first-born son of Henry VIII die?", True),
    ("In what year did Ivan the Great die?", False),  # a time: a year answers (asks_year)
    ("When did Krum the Fearsome die?", False),
    ("How old was Mozart when he died?", False),  # an amount
    ("On what charge was Thomas More executed?", False),  # a reason
    ("Where are the remains of the soldiers who died in the Korean War?", False),  # a relative clause
    ("On average, what share of people die in Ebola outbreaks?", False),  # no one's death is asked
    ("Which disease killed most elm trees in Europe?", False),
    ("Who was the first person to be executed in the electric chair?", False),
    ("What was the code name of the US raid that killed Osama bin Laden?", False),
    ("Where is Anton Bruckner buried?", False),  # a burial
])
def test_a_question_asks_where_or_how_someone_died_when_its_death_is_what_it_asks(question: str, asks: bool) -> None:
    assert asks_death(question) is asks


@pytest.mark.parametrize(("question", "asks"), [
    ("Where is Anton Bruckner buried?", True),
    ("In which cemetery is Joan Miró buried?", True),
    ("Where was Napoleon first interred?", True),
    ("In what year was Napoleon buried at Les Invalides?", False),  # a time
    ("Who is buried in Grant's Tomb?", False),  # who, not where
    ("Where did Francis Bacon die?", False),
    ("Where is the memorial to the firefighters who were buried?", False),  # a relative clause
])
def test_a_question_asks_where_someone_is_buried(question: str, asks: bool) -> None:
    assert asks_burial(question) is asks


@pytest.mark.parametrize(("question", "claim", "gives"), [
    ("Where did Hugo Grotius die?", "Hugo Grotius died in Rostock in 1645 after a shipwreck.", True),
    ("In which town was Thomas Müntzer executed?", "Müntzer was tortured and beheaded at Mühlhausen in 1525.", True),
    ("How did Jan Hus die?", "He was burned at the stake in Constance in 1415.", True),
    ("How was Michael Collins killed?", "He died in an ambush in August 1922.", True),
    ("At which battle did Yohannes IV die?", "He was emperor until his death in 1889 at the Battle of Gallabat.", True),
    ("Where was Gary Gilmore executed?", "The moratorium ended with the shooting of Gary Gilmore in Utah.", True),
    ("Where did Muhammad die?", "Islam emerged in Arabia in the lifetime of Muhammad (d. 632).", True),
    # a birth, a life or a career is no death
    ("Where did Hugo Grotius die?", "A teenage prodigy, Hugo Grotius was born in Delft and studied at Leiden.", False),
    ("where did basava die", "Basava's influence peaked during the reign of King Bijjala II in Karnataka, India.",
     False),
    ("In which town was Thomas Müntzer executed?",
     "Thomas Müntzer was a German preacher and theologian of the early Reformation.", False),
])
def test_a_death_question_is_answered_only_by_a_claim_that_speaks_of_a_death(question: str, claim: str,
                                                                             gives: bool) -> None:
    assert speaks_of_death(claim) is gives
    assert gives_asked_kind(question, claim) is gives


@pytest.mark.parametrize(("question", "claim", "gives"), [
    ("Where is Karl Marx buried?", "Marx was buried in Highgate Cemetery in London.", True),
    ("Where is Abbas the Great buried?", "His tomb stands in Kashan.", True),
    ("Where is Ghalib buried?", "He was laid to rest in Nizamuddin, Delhi.", True),
    # where someone died or lived is not where they lie
    ("Where is Karl Marx buried?", "Marx died stateless in London in 1883.", False),
    ("Where is Anton Bruckner buried?", "Anton Bruckner was an Austrian composer and organist.", False),
])
def test_a_burial_question_is_answered_only_by_a_claim_that_speaks_of_a_burial(question: str, claim: str,
                                                                               gives: bool) -> None:
    assert speaks_of_burial(claim) is gives
    assert gives_asked_kind(question, claim) is gives


@pytest.mark.parametrize(("question", "asks"), [
    ("Who was Jayavarman VII's wife?", True),
    ("Who was the first wife of King Edward I of England?", True),
    ("What was the name of Taejo of Joseon's second queen?", True),
    ("What was the name of Emperor Wu of Han's second empress?", True),
    ("Whom did Martin Luther marry?", True),
    ("who was pierre trudeau married to", True),  # as typed
    ("Who was Franz Schubert's father?", False),  # a relative by birth
    ("Who was the Queen of England in 1600?", False),  # a queen, not someone's
    ("Who was the father of Henry VIII's second wife?", False),  # a father, asked of a spouse
    ("Who was the son of Napoleon's second wife?", False),
    ("Who officiated when Charles married Diana?", False),
])
def test_a_question_asks_for_a_spouse_when_it_asks_whom_someone_married(question: str, asks: bool) -> None:
    assert asks_spouse(question) is asks


@pytest.mark.parametrize(("question", "claim", "gives"), [
    ("Who was Henry VIII's second wife?", "Anne Boleyn was Queen of England as the second wife of Henry VIII.", True),
    ("Whom did Stephen I of Hungary marry?", "He married Gisela of Bavaria, a scion of the Ottonian dynasty.", True),
    ("Who was Hera's husband?", "She is queen among the Olympians, sister and wife of Zeus.", True),
    # a parent or a child is a family, not a marriage
    ("Who was Jayavarman VII's wife?", "Jayavarman VII was the son of King Dharanindravarman II.", False),
    ("What was the name of Jorge Amado's wife?",  # a title's word
     "Jorge Amado's work was popularized in film, including Dona Flor and Her Two Husbands in 1976.", False),
    ("What was the name of Mozart's wife?", "Mozart composed The Marriage of Figaro in 1786.", False),
    ("Who was Hera's husband?", "Husband of Hera, Zeus was the king of the gods.", True),
    ("What was the name of Taejo of Joseon's second queen?",
     "Taejo, personal name Yi Songgye, was the founder and first monarch of Joseon.", False),
])
def test_a_spouse_question_is_answered_only_by_a_claim_that_speaks_of_a_marriage(question: str, claim: str,
                                                                                gives: bool) -> None:
    assert speaks_of_marriage(claim) is gives
    assert gives_asked_kind(question, claim) is gives


@pytest.mark.parametrize(("question", "claim", "gives"), [
    # a queen or an empress asked may be one in her own right, or a consort
    ("Who was Egypt's last queen?", "Cleopatra VII was Queen of the Ptolemaic Kingdom of Egypt.", True),
    ("Who was Louis XVI's queen?", "Marie Antoinette was the last queen of France before the Revolution.", True),
    ("What was the name of Shah Jahan's empress?", "Mumtaz Mahal was the Empress Consort of the Mughal Empire.", True),
    ("What was the name of Taejo of Joseon's second queen?", "Taejo was the founder of Joseon.", False),
    # a relative of a spouse is a family's
    ("Who was the father of Henry VIII's second wife?", "Thomas Boleyn was the father of Anne Boleyn.", True),
])
def test_a_spouse_asked_by_a_royal_title_is_given_by_a_queen_or_a_consort(question: str, claim: str,
                                                                         gives: bool) -> None:
    assert gives_asked_kind(question, claim) is gives
