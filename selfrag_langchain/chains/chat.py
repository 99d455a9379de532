"""A chat with citations: follow-up questions made standalone, answered by Self-RAG, history kept."""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Callable, Iterator, Mapping, Sequence
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForChainRun, CallbackManagerForChainRun
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.documents import Document
from langchain_core.language_models import BaseLanguageModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda, RunnableSerializable
from pydantic import BaseModel, ConfigDict, Field

from selfrag_langchain.chains.branches import generation_inputs, generation_kwargs
from selfrag_langchain.chains.follow_ups import (
    CITATION_MARKER,
    FollowUpSettings,
    adds_nothing,
    asks_unnamed,
    conversation_subject,
    described_subject,
    keeps_question,
    names_subject,
    previous_question,
    referent,
    refers_back,
    turn_subject,
    with_description,
    with_subject,
    with_topic,
)
from selfrag_langchain.chains.long_form import SelfRAGLongForm
from selfrag_langchain.chains.short_form import SelfRAG
from selfrag_langchain.chains.streaming import ItemStreaming
from selfrag_langchain.errors import InputError
from selfrag_langchain.history import SQLChatMessageHistory
from selfrag_langchain.results import CitedSegment, LongFormResult, SelfRAGResult
from selfrag_langchain.text.boundary import Boundary, boundary_for
from selfrag_langchain.text.sentences import split_sentences

CONDENSE_PROMPT = (
    "Rewrite the last question so that it can be understood without the conversation: replace words like "
    "\"it\", \"he\" or \"there\" with what they refer to. Reply with the rewritten question only.\n\n"
    "Conversation:\n{conversation}\n\nLast question: {question}\nRewritten question:"
)
"""How the generator is asked to make a follow-up standalone (``{conversation}``, ``{question}``)."""


class ChatAnswer(BaseModel):
    """One turn of the chat: the question, the standalone question Self-RAG answered, the cited answer."""

    question: str
    standalone_question: str
    subject: str | None = None
    """The title of the article the conversation is about after this turn (see ``SelfRAGConversation.fallback``)."""
    answer: str
    """The answer with its ``[n]`` markers (long form) or the short-form answer."""
    citations: list[Document]
    """The numbered passages, ``metadata["citation"] = n``."""
    session_id: str | None
    """The session the turn was stored in; None when the caller passed the history."""
    result: LongFormResult | SelfRAGResult
    """The whole Self-RAG result and trace."""

    def __str__(self) -> str:
        return self.answer


def default_history(session_id: str) -> BaseChatMessageHistory:
    """The persistent default: the SQLite file under ``SELFRAG_HOME``."""
    return SQLChatMessageHistory(session_id)


class SelfRAGConversation(ItemStreaming, FollowUpSettings, RunnableSerializable[Any, ChatAnswer]):
    """A conversation answered by Self-RAG, with citations and a history that survives a restart.

    Each turn: the history of the session is read; a follow-up is rewritten into a standalone question
    by the generator (skipped on the first turn); Self-RAG (long or short form) answers it; the question
    and the answer are appended to the history once the answer is complete, so an interrupted turn
    leaves the history as it was.

    Setup:
        .. code-block:: python

            from selfrag_langchain import CalibratedReflector, TransformersLLM
            from selfrag_langchain.chains.chat import SelfRAGConversation
            from selfrag_langchain.chains.long_form import SelfRAGLongForm

            llm = TransformersLLM()
            rag = SelfRAGLongForm(generator=llm, reflector=CalibratedReflector(), retriever=retriever, max_depth=3)
            chat = SelfRAGConversation(rag=rag)                      # history in SQLite under SELFRAG_HOME

    Invoke and stream:
        .. code-block:: python

            chat.invoke({"question": "Who painted the Mona Lisa?", "session_id": "alice"}).answer
            for item in chat.stream({"question": "Where is it displayed?", "session_id": "alice"}):
                print(item.marked() if isinstance(item, CitedSegment) else item.citations)

    With ``RunnableWithMessageHistory``: pass the messages as ``history`` in the input; the chat then reads
    them and stores nothing itself.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    rag: SelfRAGLongForm | SelfRAG
    """Answers the standalone question."""
    history_factory: Callable[[str], BaseChatMessageHistory] = default_history
    """Session id -> its history (default: :class:`SQLChatMessageHistory` under ``SELFRAG_HOME``)."""
    session_id: str = "default"
    """The session when the input names none."""
    name: str | None = Field(default="SelfRAGConversation")

    # ------------------------------------------------------------------ pure steps

    def _parse(self, input: Any, config: RunnableConfig) -> tuple[str, str | None, list[BaseMessage] | None]:
        """(question, session id or None, messages passed with the input or None)."""
        given: list[BaseMessage] | None = None
        session = (config.get("configurable") or {}).get("session_id") or self.session_id
        if isinstance(input, str):
            question = input
        elif isinstance(input, Mapping) and "question" in input:
            question = str(input["question"])
            session = input.get("session_id") or session
            if input.get("history") is not None:
                given = list(input["history"])
        else:
            msg = "chat input must be a question string or a dict with 'question' (and 'session_id' or 'history')"
            raise InputError(msg)
        question = self._boundary().clean(question).strip()
        if not question:
            msg = "the question is empty: ask something"
            raise InputError(msg)
        return question, (None if given is not None else str(session)), given

    def _boundary(self) -> Boundary:
        """Where the user's question and the history are neutralised, for every model that reads them."""
        return boundary_for(self._llm(), self.rag.generator, self.rag.reflector)

    def _neutral(self, messages: Sequence[BaseMessage]) -> list[BaseMessage]:
        """The history as this turn reads it: every text in it (messages, recorded standalone questions,
        subjects and cited titles) neutralised; the stored history is left as it was."""
        clean = self._boundary()
        neutral = []
        for m in messages:
            extra = {k: clean(v) if isinstance(v, str) else v for k, v in m.additional_kwargs.items()}
            if isinstance(extra.get("citations"), list):
                extra["citations"] = [{**c, "title": clean(str(c.get("title") or ""))} if isinstance(c, dict) else c
                                      for c in extra["citations"]]
            neutral.append(m.model_copy(update={"content": clean(m.text), "additional_kwargs": extra}))
        return neutral

    def condense_prompt(self, question: str, messages: Sequence[BaseMessage]) -> str:
        """The rewrite request for ``question`` after ``messages`` (the last ``history_turns`` turns)."""
        clean = self._boundary()  # the history and the question are the user's and a model's text
        lines = []
        for m in list(messages)[-2 * self.history_turns:]:
            who = "User" if m.type == "human" else "Assistant"
            lines.append(f"{who}: {CITATION_MARKER.sub('', clean(str(m.content))).strip()}")
        return CONDENSE_PROMPT.format(conversation="\n".join(lines), question=clean(question))

    def _described(self, question: str, messages: Sequence[BaseMessage]) -> tuple[str, re.Match[str]] | None:
        """The subject the follow-up calls by its kind, and where (:func:`~selfrag_langchain.chains.follow_ups.
        described_subject`), read once a turn: the rewrite, the fallback and the turn's subject all use it."""
        return described_subject(question, messages) if self.fallback == "subject" and messages else None

    def _standalone(self, question: str, generated: str, messages: Sequence[BaseMessage],
                    described: tuple[str, re.Match[str]] | None = None) -> str:
        """The rewritten question when it is one; otherwise the previous turn's standalone question and this
        one together, which still retrieves for what the conversation is about (small models often echo the
        answer). Chained follow-ups keep the last ``history_turns`` + 1 questions, so the subject of the
        conversation survives "Where is it shown?" then "Who painted it?"."""
        line = next((ln.strip() for ln in generated.splitlines() if ln.strip()), "")
        line = re.sub(r"^(rewritten question|question)\s*:\s*", "", line, flags=re.I).strip().strip('"')
        standalone = (not refers_back(question) or not refers_back(line)) and keeps_question(line, question)
        echoed = asks_unnamed(question) and adds_nothing(line, question)  # still names nothing
        unnamed = described is not None and not names_subject(line, described[0])  # "the plant" still
        if line.endswith("?") and len(line) <= 3 * len(question) + 60 and standalone and not (echoed or unnamed):
            return line
        return self._fallback(question, messages, described)

    def _fallback(self, question: str, messages: Sequence[BaseMessage],
                  described: tuple[str, re.Match[str]] | None = None) -> str:
        """The follow-up made standalone without the rewrite (see ``fallback``); ``described``: what
        :meth:`_described` read."""
        subject = conversation_subject(messages) if self.fallback == "subject" else None
        if subject is not None:
            rewritten = with_description(question, described)
            if rewritten is not None:  # "the plant" for a subject defined as one
                return rewritten
            finder = self.rag.quoter.finder if self.rag.quoter is not None else None
            meant = referent(question, messages, subject, finder.find if finder is not None else None)
            if meant is not None:
                return with_subject(question, meant)
            # its reference stands for nothing the conversation names, or it names nothing: the subject in brackets
            return with_topic(question, subject) if refers_back(question) or asks_unnamed(question) else question
        previous = previous_question(messages)
        return " ".join(split_sentences(f"{previous} {question}")[-(self.history_turns + 1):])

    def _llm(self) -> BaseLanguageModel:
        return self.condense_llm or self.rag.generator

    def _answer(self, question: str, standalone: str, session: str | None, result: Any,
                messages: Sequence[BaseMessage], described: tuple[str, re.Match[str]] | None = None) -> ChatAnswer:
        traces = result.branches if isinstance(result, SelfRAGResult) else result.candidates
        retrieved = list(dict.fromkeys(str(t.passage.metadata.get("title") or "") for t in traces if t.passage))
        # A declined answer's passages are the closest found, not what the turn was about.
        cited = [] if result.declined else [str(d.metadata.get("title") or "") for d in result.citations]
        # a follow-up that went back to an earlier subject by its kind ("the plant") inherits that one
        inherited = described[0] if described is not None else conversation_subject(messages)
        subject = turn_subject(question, standalone, inherited, retrieved, cited)
        return ChatAnswer(question=question, standalone_question=standalone, subject=subject, answer=result.answer,
                          citations=list(result.citations), session_id=session, result=result)

    @staticmethod
    def _turn(answer: ChatAnswer) -> list[BaseMessage]:
        sources = [{"citation": d.metadata.get("citation"), "title": d.metadata.get("title")}
                   for d in answer.citations]
        asked = {"standalone_question": answer.standalone_question, "subject": answer.subject}
        return [HumanMessage(answer.question, additional_kwargs=asked),
                AIMessage(answer.answer, additional_kwargs={"citations": sources})]

    # ------------------------------------------------------------------ sync

    def _condense(self, question: str, messages: list[BaseMessage], config: RunnableConfig,
                  described: tuple[str, re.Match[str]] | None) -> str:
        if not messages:
            return question
        if not self.rewrite:
            return RunnableLambda(lambda q: self._fallback(q, messages, described), name="condense_question").invoke(
                question, config)

        def rewrite(prompt: str, config: RunnableConfig) -> str:
            llm = self._llm()
            out = llm.generate(generation_inputs(llm, [prompt]), callbacks=config.get("callbacks"),
                               **generation_kwargs(llm, self.condense_max_tokens))
            return self._standalone(question, out.generations[0][0].text, messages, described)

        return RunnableLambda(rewrite, name="condense_question").invoke(self.condense_prompt(question, messages),
                                                                        config)

    def _items(self, input: Any, config: RunnableConfig, run_manager: CallbackManagerForChainRun
               ) -> Iterator[CitedSegment | ChatAnswer]:
        """One turn: long-form segments as they come, then the answer."""
        question, session, given = self._parse(input, config)
        history = self.history_factory(session) if session is not None else None
        messages = self._neutral(given if given is not None else history.messages)  # type: ignore[union-attr]
        described = self._described(question, messages)
        standalone = self._condense(question, messages, config, described)
        result: Any = None
        if isinstance(self.rag, SelfRAGLongForm):
            for item in self.rag.stream(standalone, config):
                if isinstance(item, CitedSegment):
                    yield item
                else:
                    result = item
        else:
            result = self.rag.invoke(standalone, config)
        answer = self._answer(question, standalone, session, result, messages, described)
        if history is not None:
            history.add_messages(self._turn(answer))  # only a finished turn is stored
        yield answer

    # ------------------------------------------------------------------ async

    async def _acondense(self, question: str, messages: list[BaseMessage], config: RunnableConfig,
                         described: tuple[str, re.Match[str]] | None) -> str:
        if not messages:
            return question
        if not self.rewrite:
            return await RunnableLambda(lambda q: self._fallback(q, messages, described),
                                        name="condense_question").ainvoke(
                question, config)

        async def rewrite(prompt: str, config: RunnableConfig) -> str:
            llm = self._llm()
            out = await llm.agenerate(generation_inputs(llm, [prompt]), callbacks=config.get("callbacks"),
                                      **generation_kwargs(llm, self.condense_max_tokens))
            # the fallback may read the previous answer with the answer finder: a model, off the event loop
            return await asyncio.to_thread(self._standalone, question, out.generations[0][0].text, messages,
                                           described)

        return await RunnableLambda(rewrite, name="condense_question").ainvoke(
            self.condense_prompt(question, messages), config)

    async def _aitems(self, input: Any, config: RunnableConfig, run_manager: AsyncCallbackManagerForChainRun
                      ) -> AsyncIterator[CitedSegment | ChatAnswer]:
        question, session, given = self._parse(input, config)
        history = self.history_factory(session) if session is not None else None
        messages = self._neutral(given if given is not None else await history.aget_messages())  # type: ignore[union-attr]
        described = self._described(question, messages)
        standalone = await self._acondense(question, messages, config, described)
        result: Any = None
        if isinstance(self.rag, SelfRAGLongForm):
            async for item in self.rag.astream(standalone, config):
                if isinstance(item, CitedSegment):
                    yield item
                else:
                    result = item
        else:
            result = await self.rag.ainvoke(standalone, config)
        answer = self._answer(question, standalone, session, result, messages, described)
        if history is not None:
            await history.aadd_messages(self._turn(answer))
        yield answer


SelfRAGChat = SelfRAGConversation
"""The former name of :class:`SelfRAGConversation` (beside :class:`~selfrag_langchain.chains.chat_model.
ChatSelfRAG`, the chat model, it read as the same thing), kept for one release."""
