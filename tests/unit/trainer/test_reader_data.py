"""The sentence reader's data: seeded, labelled as each source means it, HaluEval's length shortcut removed,
SQuAD questions read only where one sentence holds the answer, and no pair on both sides of the held-out line."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from selfrag_langchain.errors import ConfigurationError, InputError
from selfrag_langchain.judging.reader import HEAD_LABELS, Reading
from selfrag_langchain.trainer.reader_data import (
    Paragraph,
    answer_kind,
    answer_sentence,
    answering_pairs,
    asked_name,
    build,
    contrast_pairs,
    halueval_pairs,
    held_out_article,
    lead_pairs,
    lead_sentence,
    question_names,
    ranked,
    selqa_pairs,
    split_by_title,
    swapped_pairs,
    unanswerable_pairs,
)
from selfrag_langchain.trainer.training_config import ReaderConfig
from tests.fakes.reader_data import CONTEXTS, write_reader_data


@pytest.fixture
def data_dirs(tmp_path: Path) -> tuple[Path, Path]:
    return write_reader_data(tmp_path)


def _build(dirs: tuple[Path, Path], seed: int = 0, **extra):
    return build(*dirs, seed=seed, snli=20, squad_paragraphs=12, contrasts_per_kind=50, held_mnli=5,
                 held_halueval=2, **extra)


def _one_row(tmp_path: Path, name: str, row: str) -> Path:
    """A file of one JSON line, for the tests of a malformed row."""
    path = tmp_path / name
    path.write_text(row + "\n", encoding="utf-8")
    return path


def test_the_same_seed_makes_the_same_pairs_and_another_seed_other_ones(data_dirs):
    first, again, other = _build(data_dirs), _build(data_dirs), _build(data_dirs, seed=1)
    assert first.train == again.train and first.held_out == again.held_out
    assert first.train != other.train


def test_no_pair_is_both_trained_on_and_held_out(data_dirs):
    data = _build(data_dirs)
    held = {(p.first, p.second) for pairs in data.held_out.values() for p in pairs}
    assert held, "the held-out slices are empty"
    assert not held & {(p.first, p.second) for p in data.train}
    assert {p.source for p in data.held_out["counterfactual_test"]} == {"counterfactual"}
    assert len(data.held_out["mnli"]) == 5


def test_the_counterfactual_test_split_is_held_out_whole(data_dirs):
    data = _build(data_dirs)
    test_rows = {f"A man rides {i}." for i in range(2, 30, 3)}
    assert {p.first for p in data.held_out["counterfactual_test"]} == test_rows
    assert not test_rows & {p.first for p in data.train}


def test_halueval_keeps_only_items_whose_two_answers_are_short_and_labels_them():
    rows = [{"knowledge": "K.", "question": "Q?", "right_answer": "Paris", "hallucinated_answer": "Lyon"},
            {"knowledge": "K.", "question": "Q2?", "right_answer": "Paris",
             "hallucinated_answer": "The capital is probably the city of Lyon."}]
    pairs = halueval_pairs(rows)
    assert [(p.first, p.label_name) for p in pairs] == [("Q? Paris", "entailment"), ("Q? Lyon", "contradiction")]
    assert all(p.second == "K." and p.reading is Reading.ENTAILMENT for p in pairs)


def test_an_answer_in_two_sentences_or_in_none_is_not_guessed():
    para = Paragraph("T", ("It began in 1846.", "By 1846 it was over.", "Nothing here."), ())
    assert answer_sentence(para, ["1846"]) is None
    assert answer_sentence(para, ["2001"]) is None
    assert answer_sentence(para, ["over", "By 1846"]) == 1


def test_answering_pairs_mark_the_answer_sentence_and_only_it():
    paras = [Paragraph(t, tuple(c.split(". ")), tuple((q, tuple(a)) for q, a in qs)) for t, c, qs in CONTEXTS]
    pairs = answering_pairs(paras, random.Random(0))
    positives = [p for p in pairs if p.label_name == "answers"]
    assert positives and all(p.reading is Reading.ANSWERING for p in pairs)
    answers = {q: a for _, _, qs in CONTEXTS for q, a in qs}
    for p in pairs:
        sentence = p.second.split(": ", 1)[-1]  # after the title, when it is given
        holds = any(a in sentence for a in answers[p.first])
        assert holds == (p.label_name == "answers"), p


def test_hard_negatives_share_the_questions_words_and_come_from_the_paragraph_the_article_and_elsewhere():
    nile = (("The Nile is the longest river in Africa.", "The Nile flows north into the Mediterranean Sea.",
             "Cairo lies on the Nile."), (("Into which sea does the Nile flow?", ("Mediterranean Sea",)),))
    paras = [Paragraph("Nile", *nile),
             Paragraph("Nile", ("The Nile delta is wide.", "The Nile was sacred to the Egyptians."), ()),
             Paragraph("Amazon", ("Rain falls daily.", "The Amazon does not flow into a sea."), ())]
    pairs = answering_pairs(paras, random.Random(0), same_paragraph=1)
    by_source = {p.source: p.second.split(": ", 1)[-1] for p in pairs if p.first.startswith("Into which sea")}
    assert by_source["squad"] == "The Nile flows north into the Mediterranean Sea."
    assert by_source["squad:paragraph"] in ("The Nile is the longest river in Africa.", "Cairo lies on the Nile.")
    assert by_source["squad:article"] in ("The Nile delta is wide.", "The Nile was sacred to the Egyptians.")
    assert by_source["squad:elsewhere"] == "The Amazon does not flow into a sea."  # the one sharing its words


def test_no_hard_negative_holds_the_answer_in_any_case():
    para = Paragraph("Nile", ("The Nile flows into the Mediterranean Sea.", "the mediterranean sea is warm."),
                     (("Into which sea does the Nile flow?", ("Mediterranean Sea",)),))
    other = Paragraph("Nile", ("The Nile reaches the MEDITERRANEAN SEA at Alexandria.", "The Nile is long."), ())
    pairs = answering_pairs([para, other], random.Random(0))
    negatives = [p.second for p in pairs if p.label_name == "does not answer"]
    assert negatives == ["Nile: The Nile is long."] or negatives == ["The Nile is long."]


def test_unanswerable_questions_are_read_against_their_nearest_sentence():
    para = Paragraph("Nile", ("The Nile is the longest river in Africa.", "It flows north."),
                     (("Who renamed the Nile river in 1999?", ()), ("Where does it flow?", ("north",))))
    pairs = unanswerable_pairs([para])
    assert [(p.first, p.second, p.label_name) for p in pairs] == [
        ("Who renamed the Nile river in 1999?", "Nile: The Nile is the longest river in Africa.", "does not answer"),
        ("Where does it flow?", "Nile: It flows north.", "answers")]


def test_contrasts_change_one_value_of_the_claim_or_of_the_passage():
    paras = [Paragraph(t, tuple(s + "." for s in c.rstrip(".").split(". ")), tuple((q, tuple(a)) for q, a in qs))
             for t, c, qs in CONTEXTS]
    pairs = contrast_pairs(paras, random.Random(0), per_kind=20)
    kinds = {p.source for p in pairs}
    assert {"contrast:copy", "contrast:claim_changed", "contrast:passage_changed", "contrast:rank"} <= kinds
    for p in pairs:
        if p.source == "contrast:copy":
            assert p.first == p.second and p.label_name == "entailment"
        elif p.source in ("contrast:claim_changed", "contrast:passage_changed", "contrast:rank"):
            assert p.first != p.second and p.label_name == "contradiction"
            assert len(p.first.split()) - len(p.second.split()) in (-3, -2, -1, 0, 1, 2, 3)
        else:
            assert p.label_name == "neutral"


def test_a_rank_and_its_superlative_are_told_apart_both_ways():
    rng = random.Random(0)
    assert ranked("It is the fourth-largest planet.", rng) == "It is the largest planet."
    made = ranked("The Nile is the longest river in Africa.", rng)
    assert made is not None and made != "The Nile is the longest river in Africa." and made.endswith(
        "-longest river in Africa.")
    assert ranked("Paris is a city.", rng) is None


@pytest.mark.parametrize(("answer", "kind"), [("1846", "year"), ("8,849 metres", "number"),
                                              ("Johann Galle", "name"), ("eleven countries", None)])
def test_answer_kinds(answer, kind):
    assert answer_kind(answer) == kind


def test_the_held_out_half_of_the_articles_is_fixed_by_title_alone():
    paras = [Paragraph(f"Article {i}", ("S.",), ()) for i in range(40)]
    train, held = split_by_title(paras)
    assert train and held and not {p.title for p in train} & {p.title for p in held}
    assert all(held_out_article(p.title) for p in held)


def test_every_label_index_points_at_its_reading():
    assert HEAD_LABELS[:3] == ("entailment", "neutral", "contradiction")
    assert HEAD_LABELS[3:] == ("answers", "does not answer")


def test_missing_files_are_named(tmp_path):
    with pytest.raises(InputError, match=r"snli_dev_test\.jsonl is missing"):
        build(tmp_path, tmp_path)


@pytest.mark.parametrize(("field", "value", "message"), [("trained_layers", 7, "between 1 and 6"),
                                                         ("max_length", 0, "max_length must be >= 1"),
                                                         ("held_mnli", -1, "held_mnli must be >= 0"),
                                                         ("selqa_dev", -1, "selqa_dev must be >= 0"),
                                                         ("replay", 0, "replay must be > 0")])
def test_the_config_refuses_values_out_of_range(field, value, message):
    with pytest.raises(ConfigurationError, match=message):
        ReaderConfig(nli="n", squad="s", out="o", **{field: value})


def test_your_own_pairs_of_either_reading_join_the_training_pairs(data_dirs, tmp_path):
    from selfrag_langchain.trainer.reader_data import own_pairs

    mine = tmp_path / "mine.csv"
    mine.write_text("premise,hypothesis,label,question,sentence\n"
                    "The shop opens at nine.,The shop opens at ten.,contradiction,,\n"
                    ",,answers,When does the shop open?,The shop opens at nine.\n", encoding="utf-8")
    pairs = own_pairs(mine)
    assert [(p.first, p.second, p.label_name, p.reading) for p in pairs] == [
        ("The shop opens at ten.", "The shop opens at nine.", "contradiction", Reading.ENTAILMENT),
        ("When does the shop open?", "The shop opens at nine.", "answers", Reading.ANSWERING)]
    data = build(*data_dirs, seed=0, snli=20, squad_paragraphs=12, contrasts_per_kind=50, held_mnli=5,
                 held_halueval=2, own=[mine])
    assert sorted(p.first for p in data.train if p.source == "own") == sorted(p.first for p in pairs)


@pytest.mark.parametrize(("row", "message"), [
    ('{"premise": "P.", "hypothesis": "H.", "label": "answers"}', "label must be one of entailment"),
    ('{"question": "Q?", "sentence": "S.", "label": "entailment"}', "label must be one of answers"),
    ('{"text": "T.", "label": "entailment"}', "needs premise, hypothesis and label"),
])
def test_a_row_of_your_own_that_is_neither_reading_is_named(tmp_path, row, message):
    from selfrag_langchain.trainer.reader_data import own_pairs

    with pytest.raises(InputError, match=rf"mine\.jsonl.*1.*{message}"):
        own_pairs(_one_row(tmp_path, "mine.jsonl", row))


def _selqa_file(tmp_path: Path) -> Path:
    import json

    path = tmp_path / "selqa_dev.jsonl"
    rows = [{"question": "Which river flows through the old town?", "article": "Oldtown", "section": "Geography",
             "topic": "PLACE", "candidates": ["Oldtown was founded in 1200.",
                                              "The river Elm flows through the old town.",
                                              "The old town has a market.", "Its mayor is elected.",
                                              "The town hosts a fair.", "Trains stop there.", "It rains often."],
             "answers": [1]},
            {"question": "Nobody answers this?", "article": "Nowhere", "section": "Lead", "topic": "PLACE",
             "candidates": ["A sentence."], "answers": []}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_selqa_pairs_mark_every_answering_sentence_and_read_the_nearest_non_answer_first(tmp_path):
    path = _selqa_file(tmp_path)
    pairs = selqa_pairs(path, random.Random(0), negatives=3)
    answers = [p for p in pairs if p.label_name == "answers"]
    others = [p for p in pairs if p.label_name == "does not answer"]
    assert [p.second.split(": ")[-1] for p in answers] == ["The river Elm flows through the old town."]
    assert len(others) == 3 and all("river Elm" not in p.second for p in others)
    assert others[0].second.endswith("The old town has a market.")  # shares "old town" with the question
    assert {p.reading for p in pairs} == {Reading.ANSWERING}
    assert all(p.first == "Which river flows through the old town?" for p in pairs)  # the unanswered one is skipped
    assert pairs == selqa_pairs(path, random.Random(0), negatives=3)


def test_selqa_dev_is_read_as_many_times_as_asked_beside_the_replayed_pairs(data_dirs):
    plain = _build(data_dirs)
    both = _build(data_dirs, selqa_dev=2, replay=10)
    selqa = [p for p in both.train if p.source.startswith("selqa")]
    assert selqa and len(selqa) == 2 * len(set(selqa))
    rest = [p for p in both.train if not p.source.startswith("selqa")]
    assert len(rest) == 10 and set(rest) <= set(plain.train)
    assert both.held_out == plain.held_out


def test_selqa_is_not_read_unless_asked(data_dirs):
    (data_dirs[1] / "selqa_dev.jsonl").unlink()
    assert not any(p.source.startswith("selqa") for p in _build(data_dirs).train)
    with pytest.raises(InputError, match=r"selqa_dev\.jsonl is missing"):
        _build(data_dirs, selqa_dev=1)


_WIND = [
    Paragraph("Gone with the Wind (film)", ("Gone with the Wind is a 1939 American epic historical romance film.",
                                            "It was produced by David O. Selznick."),
              (("Who produced Gone with the Wind?", ("David O. Selznick",)),
               ("In what year did Gone with the Wind come out?", ("1939",)))),
    Paragraph("Gone with the Wind (film)", ("Filming began in January 1939.", "It was directed by Victor Fleming."),
              (("Who directed Gone with the Wind?", ("Victor Fleming",)),
               ("In what year was Gone with the Wind a film?", ("1939",)))),
]


@pytest.mark.parametrize(("title", "opening", "lead"), [
    ("Gone with the Wind (film)", "Gone with the Wind is a 1939 American epic film.", True),
    ("The Beatles", "The Beatles were an English rock band.", True),
    ("Airport", "An airport is an aerodrome with facilities for flights.", True),
    ("ASCII", "Originally based on the English alphabet, ASCII encodes 128 characters.", False),
    ("Adolescence", "A thorough understanding of adolescence depends on many perspectives.", False),
])
def test_a_lead_sentence_names_the_title_first_and_says_what_it_is(title, opening, lead):
    assert (lead_sentence(title, Paragraph(title, (opening, "More."), ())) == opening) is lead


def test_lead_pairs_read_a_later_answer_against_the_lead_and_the_leads_own_answer_against_its_neighbour():
    pairs = lead_pairs({"Gone with the Wind (film)": _WIND}, random.Random(0), questions=10)
    directed, came_out = "Who directed Gone with the Wind?", "In what year did Gone with the Wind come out?"
    assert [(p.first, p.label_name) for p in pairs] == [(directed, "answers"), (directed, "does not answer"),
                                                         (came_out, "answers"), (came_out, "does not answer")]
    lead = "Gone with the Wind is a 1939 American epic historical romance film."
    assert pairs[0].second.endswith("It was directed by Victor Fleming.") and pairs[1].second.endswith(lead)
    assert pairs[2].second.endswith(lead) and pairs[3].second.endswith("It was produced by David O. Selznick.")
    assert {p.reading for p in pairs} == {Reading.ANSWERING} and {p.source for p in pairs} == {"squad:lead"}
    assert [p.first for p in lead_pairs({"Gone with the Wind (film)": _WIND}, random.Random(0), questions=0)] == [
        came_out, came_out]  # the lead's own answers are always read


@pytest.mark.parametrize(("question", "names"), [
    ("When did the Apollo program end?", ["Apollo"]),
    ("In which year was the Old Town of Tallinn listed by UNESCO?", ["Old Town of Tallinn", "UNESCO"]),
    ("Who painted Leonardo's Mona Lisa?", ["Leonardo's Mona Lisa"]),  # kept whole across a possessive
    ("what is the capital of peru", []),
])
def test_a_questions_names_are_its_capitalised_runs_past_its_first_word_in_order(question, names):
    assert question_names(question) == names


_SITES = [Paragraph("Kraków", ("Kraków's Old Town was made a World Heritage Site in 1978.", "It is old."),
                    (("When was Kraków's Old Town made a World Heritage Site?", ("1978",)),)),
          Paragraph("Tikal", ("Tikal National Park was listed by UNESCO in 1979.",),
                    (("When was Tikal National Park listed by UNESCO?", ("1979",)),))]


def test_the_asked_name_is_the_one_the_title_shares_else_the_first_held_as_whole_words():
    assert asked_name("When was Kraków's Old Town made a World Heritage Site?", "Kraków", _SITES[0].sentences[0],
                      ["1978"]) == "Kraków's Old Town"  # not the longer "World Heritage Site"
    assert asked_name("When did the US join?", "USSR", "The USSR joined in 1975.", ["1975"]) is None  # no "US"
    assert asked_name("When did Apollo 11 land?", "Moon", "Apollo 11 landed in 1969.", ["Apollo 11"]) is None


def test_swapped_pairs_change_the_asked_name_in_the_sentence_and_its_title():
    pairs = swapped_pairs(_SITES, random.Random(3), questions=10)
    assert pairs and {p.source for p in pairs} == {"squad:swapped"} and len(pairs) % 2 == 0
    for answering, swapped in zip(pairs[::2], pairs[1::2], strict=True):
        assert answering.first == swapped.first and answering.label_name == "answers"
        assert swapped.label_name == "does not answer"
        para = next(p for p in _SITES if p.questions[0][0] == answering.first)
        name = asked_name(answering.first, para.title, para.sentences[0], para.questions[0][1])
        assert answering.second.endswith(para.sentences[0])
        assert name in answering.second and name not in swapped.second
        assert swapped.second.endswith(para.questions[0][1][0] + ".")  # the year stays
        assert swapped.second.replace(":", "").split()[0] != para.title  # a title is changed with it, or left out
    kraków = [p.second for p in pairs if p.first.startswith("When was Kraków")]
    assert kraków and all("World Heritage Site" in text for text in kraków)  # only the subject changed


def test_swapped_questions_join_the_training_pairs_only_when_asked(data_dirs):
    plain, swapped = _build(data_dirs), _build(data_dirs, swapped_questions=20)
    assert not any(p.source == "squad:swapped" for p in plain.train)
    assert {p.label_name for p in swapped.train if p.source == "squad:swapped"} == {"answers", "does not answer"}
    assert swapped.held_out == plain.held_out


def test_lead_questions_join_the_training_pairs_only_when_asked(data_dirs):
    plain, led = _build(data_dirs), _build(data_dirs, lead_questions=50)
    assert not any(p.source == "squad:lead" for p in plain.train)
    lead = [p for p in led.train if p.source == "squad:lead"]
    assert lead and {p.label_name for p in lead} == {"answers", "does not answer"}
    assert led.held_out == plain.held_out


@pytest.mark.parametrize(("row", "message"), [
    ('{"question": "Q?", "article": "A", "candidates": "one sentence", "answers": [0]}', "must be lists"),
    ('{"question": "Q?", "article": "A", "candidates": ["S."], "answers": [3]}', "must be indices of candidates"),
])
def test_a_malformed_selqa_row_is_named_by_file_and_line(tmp_path, row, message):
    with pytest.raises(InputError, match=rf"selqa_dev\.jsonl:1: .*{message}"):
        selqa_pairs(_one_row(tmp_path, "selqa_dev.jsonl", row), random.Random(0))
