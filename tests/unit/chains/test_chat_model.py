"""ChatSelfRAG on scripted models: citation annotations at the right offsets, the trace in response_metadata,
follow-ups made standalone from the earlier messages, segment-by-segment streaming, async, callbacks that see
the Self-RAG steps under the chat model's run, and clear errors for what a chat model here cannot do."""

from __future__ import annotations

import json
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.chat_history import InMemoryChatMessageHistory
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.output_parsers import StrOutputParser
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables.history import RunnableWithMessageHistory

from selfrag_langchain import ChatSelfRAG, LongFormResult, SelfRAGConversation, SelfRAGResult
from selfrag_langchain.errors import InputError
from tests.fakes.mona_lisa_chat import FIRST, FOLLOW_UP, MONA_LISA, STANDALONE, chat_model, short_form_chat


def _citations(message: BaseMessage) -> list[dict[str, Any]]:
    (block,) = message.content_blocks
    assert block["type"] == "text"
    return [{k: v for k, v in note.items() if k != "id"} for note in block.get("annotations", [])]


# ---------------------------------------------------------------------- invoke: text, annotations, trace


def test_invoke_answers_with_one_text_block_whose_citations_point_at_each_segment_and_its_marker() -> None:
    model, _, _ = chat_model()
    message = model.invoke([HumanMessage(FIRST)])
    assert isinstance(message, AIMessage)
    text = "Leonardo da Vinci painted it [1]. He was an Italian painter [2]."
    assert message.text == text
    first, second = _citations(message)
    assert text[first["start_index"]:first["end_index"]] == "Leonardo da Vinci painted it [1]."
    assert text[second["start_index"]:second["end_index"]] == "He was an Italian painter [2]."
    assert [text[c["extras"]["marker_start"]:c["extras"]["marker_end"]] for c in (first, second)] == ["[1]", "[2]"]
    assert first == {"type": "citation", "title": "Mona Lisa", "url": "https://en.wikipedia.org/wiki/Mona_Lisa",
                     "start_index": 0, "end_index": 33, "cited_text": MONA_LISA.page_content,
                     "extras": {"citation": 1, "source": "https://en.wikipedia.org/wiki/Mona_Lisa",
                                "marker_start": 29, "marker_end": 32, "segment_id": "0.0", "support": "supported"}}
    assert "url" not in second and second["title"] == "Leonardo" and second["extras"]["citation"] == 2


def test_a_source_that_is_no_url_stays_in_extras() -> None:
    model, _, _ = chat_model()
    message = model.invoke([HumanMessage(FIRST), AIMessage("..."), HumanMessage(STANDALONE)])
    louvre = _citations(message)
    assert [c["title"] for c in louvre] == ["Louvre", "Louvre"]  # one annotation per citing segment
    assert all("url" not in c and c["extras"]["source"] == "museums.txt" for c in louvre)


def test_response_metadata_holds_the_whole_result_as_json() -> None:
    model, _, _ = chat_model()
    message = model.invoke(FIRST)
    meta = json.loads(json.dumps(message.response_metadata))  # JSON-serialisable as it is
    assert meta["model_name"] == "ScriptedLongFormLLM"
    assert meta["selfrag"]["question"] == meta["selfrag"]["standalone_question"] == FIRST
    result = LongFormResult.model_validate(meta["selfrag"]["result"])
    assert result.answer == message.text and [d.metadata["title"] for d in result.citations] == ["Mona Lisa",
                                                                                                 "Leonardo"]
    assert result.retrievals == 2 and result.candidates


def test_short_form_cites_its_passage_over_the_whole_answer_in_one_chunk() -> None:
    model = short_form_chat()
    message = model.invoke(FIRST)
    assert message.text == "Leonardo da Vinci painted it."
    (only,) = _citations(message)
    assert (only["start_index"], only["end_index"]) == (0, len(message.text))
    assert only["title"] == "Mona Lisa" and "marker_start" not in only["extras"]
    assert SelfRAGResult.model_validate(message.response_metadata["selfrag"]["result"]).answer == message.text
    chunks = list(model.stream(FIRST))
    assert [c.text for c in chunks] == [message.text] and chunks[0].chunk_position == "last"
    assert _citations(chunks[0]) == [{**only, "extras": only["extras"]}]


# ---------------------------------------------------------------------- the conversation


def test_a_follow_up_is_made_standalone_from_the_earlier_messages_and_the_system_message_is_ignored() -> None:
    model, retriever, condense = chat_model()
    first = model.invoke([HumanMessage(FIRST)])
    retriever.queries.clear()
    reply = model.invoke([SystemMessage("You are a pirate."), HumanMessage(FIRST), first, HumanMessage(FOLLOW_UP)])
    (prompt,) = condense.prompts
    assert f"User: {FIRST}\nAssistant: Leonardo da Vinci painted it. He was an Italian painter." in prompt
    assert "pirate" not in prompt and prompt.endswith(f"Last question: {FOLLOW_UP}\nRewritten question:")
    assert retriever.queries[0] == STANDALONE
    assert reply.response_metadata["selfrag"]["standalone_question"] == STANDALONE
    assert reply.text == "It hangs in the Louvre [1]. The Louvre is in Paris [1]."


def test_the_subject_fallback_reads_the_cited_title_from_the_earlier_answers_annotations() -> None:
    model, retriever, _ = chat_model(rewrites=["Leonardo da Vinci painted it."])  # not a question: fall back
    first = model.invoke(FIRST)
    retriever.queries.clear()
    model.invoke([HumanMessage(FIRST), first, HumanMessage(FOLLOW_UP)])
    assert retriever.queries[0] == "Where is Mona Lisa shown?"
    model.invoke([HumanMessage(FIRST), AIMessage(first.text), HumanMessage(FOLLOW_UP)])  # annotations lost
    assert retriever.queries[2] == f"{FIRST} {FOLLOW_UP}"  # nothing cited: the questions joined


def test_the_subject_travels_with_the_replies_past_an_answer_that_cites_another_article() -> None:
    model, _, _ = chat_model()
    first = model.invoke(FIRST)
    second = model.invoke([HumanMessage(FIRST), first, HumanMessage(FOLLOW_UP)])  # answered from the Louvre
    assert second.response_metadata["selfrag"]["subject"] == "Mona Lisa"
    subject_only, retriever, _ = chat_model(rewrite=False)
    subject_only.invoke([HumanMessage(FIRST), first, HumanMessage(FOLLOW_UP), second,
                         HumanMessage("When was it made?")])
    assert retriever.queries[0] == "When was Mona Lisa made?"


def test_the_questions_fallback_builds_on_the_standalone_question_of_the_previous_reply() -> None:
    model, retriever, _ = chat_model(rewrites=[STANDALONE, "no"], fallback="questions")
    first = model.invoke(FIRST)
    second = model.invoke([HumanMessage(FIRST), first, HumanMessage(FOLLOW_UP)])
    retriever.queries.clear()
    model.invoke([HumanMessage(FIRST), first, HumanMessage(FOLLOW_UP), second, HumanMessage("When was it made?")])
    assert retriever.queries[0] == f"{STANDALONE} When was it made?"  # not "Where is it shown? When was ..."


def test_knob_defaults_are_selfrag_chats() -> None:
    for knob in ("condense_llm", "rewrite", "fallback", "history_turns", "condense_max_tokens"):
        assert ChatSelfRAG.model_fields[knob].default == SelfRAGConversation.model_fields[knob].default, knob


def test_works_under_runnable_with_message_history_and_after_a_prompt() -> None:
    model, retriever, _ = chat_model()
    prompt = ChatPromptTemplate.from_messages([("system", "Answer with sources."), MessagesPlaceholder("history"),
                                               ("human", "{question}")])
    store: dict[str, InMemoryChatMessageHistory] = {}
    chat = RunnableWithMessageHistory(prompt | model, lambda sid: store.setdefault(sid, InMemoryChatMessageHistory()),
                                      input_messages_key="question", history_messages_key="history")
    config = {"configurable": {"session_id": "s"}}
    chat.invoke({"question": FIRST}, config)
    reply = chat.invoke({"question": FOLLOW_UP}, config)
    assert reply.text == "It hangs in the Louvre [1]. The Louvre is in Paris [1]."
    assert STANDALONE in retriever.queries
    assert [m.type for m in store["s"].messages] == ["human", "ai", "human", "ai"]
    assert (prompt | model | StrOutputParser()).invoke({"question": FIRST, "history": []}) == (
        "Leonardo da Vinci painted it [1]. He was an Italian painter [2].")


# ---------------------------------------------------------------------- streaming and async


def test_stream_yields_each_segment_then_a_last_chunk_with_the_citations_and_trace() -> None:
    model, _, _ = chat_model()
    chunks = list(model.stream([HumanMessage(FIRST)]))
    assert [c.text for c in chunks] == ["Leonardo da Vinci painted it [1].", " He was an Italian painter [2].", ""]
    assert [c.chunk_position for c in chunks] == [None, None, "last"]
    assert [bool(_citations(c)) for c in chunks] == [False, False, True]
    assert [bool(c.response_metadata.get("selfrag")) for c in chunks] == [False, False, True]
    full = chunks[0]
    for chunk in chunks[1:]:
        full = full + chunk
    invoked = model.invoke([HumanMessage(FIRST)])
    assert full.text == invoked.text and _citations(full) == _citations(invoked)
    assert full.response_metadata["selfrag"]["result"]["answer"] == invoked.text


def test_stream_through_a_string_parser_yields_the_segments() -> None:
    model, _, _ = chat_model()
    assert list((model | StrOutputParser()).stream(FIRST)) == [
        "Leonardo da Vinci painted it [1].", " He was an Italian painter [2].", ""]


async def test_async_invoke_and_stream_match_the_sync_ones() -> None:
    model, _, _ = chat_model()
    sync = model.invoke(FIRST)
    message = await model.ainvoke(FIRST)
    chunks = [c async for c in model.astream(FIRST)]
    assert message.text == sync.text and _citations(message) == _citations(sync)
    assert [c.text for c in chunks] == ["Leonardo da Vinci painted it [1].", " He was an Italian painter [2].", ""]
    assert isinstance(chunks[-1], AIMessageChunk) and _citations(chunks[-1]) == _citations(sync)


class Runs(BaseCallbackHandler):
    """Records every run's name and parent."""

    run_inline: bool = True

    def __init__(self) -> None:
        self.parents: dict[UUID, UUID | None] = {}
        self.names: dict[UUID, str] = {}
        self.tokens: list[str] = []

    def _start(self, name: str, run_id: UUID, parent_run_id: UUID | None) -> None:
        self.parents[run_id], self.names[run_id] = parent_run_id, name

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: UUID, parent_run_id: UUID | None = None,
                            **kwargs: Any) -> None:
        self._start("chat_model", run_id, parent_run_id)

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID, parent_run_id: UUID | None = None,
                       **kwargs: Any) -> None:
        self._start(kwargs.get("name") or "chain", run_id, parent_run_id)

    def on_retriever_start(self, serialized: Any, query: str, *, run_id: UUID, parent_run_id: UUID | None = None,
                           **kwargs: Any) -> None:
        self._start("retriever", run_id, parent_run_id)

    def on_llm_new_token(self, token: Any, *, chunk: Any = None, **kwargs: Any) -> None:
        self.tokens.append(chunk.message.text)

    def ancestors(self, name: str) -> list[str]:
        """The names from the first run called ``name`` up to the root."""
        run: UUID | None = next(r for r, n in self.names.items() if n == name)
        chain = []
        while run is not None:
            chain.append(self.names.get(run, "?"))
            run = self.parents.get(run)
        return chain


@pytest.mark.parametrize("call", ["invoke", "stream", "ainvoke", "astream"])
async def test_callbacks_see_the_selfrag_steps_under_the_chat_model_run(call: str) -> None:
    model, _, _ = chat_model()
    runs = Runs()
    config = {"callbacks": [runs]}
    if call == "invoke":
        model.invoke(FIRST, config)
    elif call == "ainvoke":
        await model.ainvoke(FIRST, config)
    elif call == "stream":
        list(model.stream(FIRST, config))
    else:
        [c async for c in model.astream(FIRST, config)]
    ancestry = runs.ancestors("retriever")
    assert ancestry[-1] == "chat_model" and ancestry[-3:-1] == ["SelfRAGLongForm", "SelfRAGConversation"]
    assert list(runs.parents.values()).count(None) == 1  # one root: the chat model's run
    assert {"retrieve_decision", "retrieve", "generate_segments", "critique"} <= set(runs.names.values())


async def test_astream_events_report_the_steps_and_the_segments() -> None:
    model, _, _ = chat_model()
    events = [e async for e in model.astream_events(FIRST, version="v2")]
    streamed = [e["data"]["chunk"].text for e in events if e["event"] == "on_chat_model_stream"]
    assert streamed[:2] == ["Leonardo da Vinci painted it [1].", " He was an Italian painter [2]."]
    names = {e["name"] for e in events if e["event"] == "on_chain_start"}
    assert {"SelfRAGConversation", "retrieve", "critique"} <= names
    (end,) = [e for e in events if e["event"] == "on_chat_model_end"]
    assert end["data"]["output"].text == "Leonardo da Vinci painted it [1]. He was an Italian painter [2]."


def test_invoke_on_the_streaming_path_streams_segments_and_keeps_the_steps_under_the_model() -> None:
    """What LangGraph's ``stream_mode="messages"`` does: invoke, with streaming asked for."""
    model, _, _ = chat_model()
    runs = Runs()
    message = model.invoke(FIRST, {"callbacks": [runs]}, stream=True)
    assert runs.tokens == ["Leonardo da Vinci painted it [1].", " He was an Italian painter [2].", ""]
    assert message.text == "Leonardo da Vinci painted it [1]. He was an Italian painter [2]."
    assert _citations(message) == _citations(model.invoke(FIRST))
    assert runs.ancestors("retriever")[-1] == "chat_model"


# ---------------------------------------------------------------------- what it does not do


@pytest.mark.parametrize(("messages", "match"), [
    ([], "end the conversation with a HumanMessage"),
    ([HumanMessage(FIRST), AIMessage("Leonardo.")], r"got ai\)"),
    ([SystemMessage("Be brief.")], "got no user message"),
    ([HumanMessage(content=[{"type": "text", "text": "What is this?"},
                            {"type": "image", "url": "https://example.com/a.png"}])], "text only.*image"),
])
def test_conversations_it_cannot_answer_are_input_errors(messages: list[BaseMessage], match: str) -> None:
    model, _, _ = chat_model()
    with pytest.raises(InputError, match=match):
        model.invoke(messages)


def test_tool_messages_in_the_history_are_left_out() -> None:
    model, _, condense = chat_model()
    model.invoke([HumanMessage(FIRST), ToolMessage("42", tool_call_id="t"), AIMessage("Leonardo."),
                  HumanMessage(FOLLOW_UP)])
    assert "42" not in condense.prompts[0]


def test_tools_and_structured_output_are_refused_with_a_way_out() -> None:
    model, _, _ = chat_model()
    with pytest.raises(NotImplementedError, match=r"does not call tools.*Self-RAG as one of its tools"):
        model.bind_tools([])
    with pytest.raises(NotImplementedError, match=r"not structured output.*response_metadata"):
        model.with_structured_output(dict)


def test_tracing_names_the_provider_and_the_generator() -> None:
    model, _, _ = chat_model()
    params = model._get_ls_params()
    assert (params["ls_provider"], params["ls_model_name"], params["ls_model_type"]) == (
        "selfrag", "ScriptedLongFormLLM", "chat")
    assert model._get_ls_params(model="other")["ls_model_name"] == "other"
    identifying = json.loads(json.dumps(model._identifying_params))
    assert identifying["rag"] == "SelfRAGLongForm" and identifying["settings"]["max_depth"] == 2
