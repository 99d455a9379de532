"""Reflection-token strings, parsing and stripping."""

from __future__ import annotations

from selfrag_langchain import tokens as t


def test_the_fifteen_strings_in_checkpoint_order() -> None:
    assert t.CHECKPOINT_TOKEN_ORDER == (
        "[No Retrieval]", "[Retrieval]", "[Continue to Use Evidence]", "[Irrelevant]", "[Relevant]",
        "<paragraph>", "</paragraph>", "[Utility:1]", "[Utility:2]", "[Utility:3]", "[Utility:4]",
        "[Utility:5]", "[Fully supported]", "[Partially supported]", "[No support / Contradictory]",
    )
    assert len(set(t.CHECKPOINT_TOKEN_ORDER)) == 15


def test_groups_partition_the_reflection_tokens() -> None:
    assert sorted(tok for g in t.Group for tok in g.tokens) == sorted(t.REFLECTION_TOKENS)
    assert t.TOKEN_GROUP["[Utility:3]"] is t.Group.ISUSE
    assert t.TOKEN_GROUP["[Continue to Use Evidence]"] is t.Group.RETRIEVE


def test_parse_short_form_branch() -> None:
    text = "[Relevant]Paris is the capital.[Fully supported][Utility:5]"
    parsed = t.parse_generation(text)
    assert len(parsed.segments) == 1
    seg = parsed.segments[0]
    assert (seg.relevance, seg.text, seg.support) == ("[Relevant]", "Paris is the capital.", "[Fully supported]")
    assert parsed.utility == "[Utility:5]"
    assert parsed.answer == "Paris is the capital."


def test_parse_long_form_with_passages_and_continue() -> None:
    text = (
        "[Retrieval]<paragraph>Doc one</paragraph>[Relevant]First.[Partially supported]"
        "[Continue to Use Evidence]Second.[Fully supported]"
        "[Retrieval]<paragraph>Doc two</paragraph>[Irrelevant]Third.[No support / Contradictory][Utility:4]"
    )
    parsed = t.parse_generation(text)
    assert [s.text for s in parsed.segments] == ["First.", "Second.", "Third."]
    assert [s.passage for s in parsed.segments] == ["Doc one", None, "Doc two"]
    assert [s.retrieve for s in parsed.segments] == ["[Retrieval]", "[Continue to Use Evidence]", "[Retrieval]"]
    assert [s.support for s in parsed.segments] == [
        "[Partially supported]", "[Fully supported]", "[No support / Contradictory]"]
    assert parsed.first(t.Group.ISREL) == "[Relevant]"
    assert parsed.utility == "[Utility:4]"
    assert parsed.answer == "First. Second. Third."


def test_parse_no_retrieval_and_plain_text() -> None:
    parsed = t.parse_generation("[No Retrieval]Two plus two is four.[Utility:5]")
    assert parsed.segments[0].retrieve == "[No Retrieval]"
    assert parsed.answer == "Two plus two is four."
    plain = t.parse_generation("Just text.")
    assert plain.answer == "Just text." and plain.utility is None


def test_unclosed_paragraph_runs_to_end() -> None:
    parsed = t.parse_generation("[Retrieval]<paragraph>cut off passage")
    assert parsed.segments[0].passage == "cut off passage"
    assert parsed.answer == ""


def test_strip_removes_passages_and_tokens() -> None:
    text = "[Retrieval]<paragraph>Title\nbody [Relevant]</paragraph>[Relevant]Answer  here.[Fully supported]"
    assert t.strip_reflection_tokens(text) == "Answer here."
