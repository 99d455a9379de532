"""Self-RAG behind LangChain's chat-model interface: an app built around a chat model gets retrieval on
demand, critique and citations by swapping the model."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManager, CallbackManagerForLLMRun
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.language_models import BaseChatModel, LanguageModelInput
from langchain_core.language_models.base import LangSmithParams
from langchain_core.messages import AIMessage, AIMessageChunk, BaseMessage, HumanMessage
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.runnables import Runnable, RunnableConfig, ensure_config
from pydantic import BaseModel

from selfrag_langchain.chains.annotations import added_text, annotations_for, cited_sources, text_block
from selfrag_langchain.chains.chat import ChatAnswer, SelfRAGConversation
from selfrag_langchain.chains.follow_ups import FollowUpSettings
from selfrag_langchain.chains.long_form import SelfRAGLongForm
from selfrag_langchain.chains.short_form import SelfRAG
from selfrag_langchain.errors import InputError
from selfrag_langchain.results import CitedSegment

RESULT_KEY = "selfrag"
"""``response_metadata[RESULT_KEY]``: the question, the standalone question Self-RAG answered, and the whole
result with its trace as JSON (``result``)."""


def chat_input(messages: Sequence[BaseMessage]) -> dict[str, Any]:
    """``SelfRAGConversation``'s input for a conversation: the last message is the question, the earlier user and
    assistant messages its history. System and tool messages are left out: Self-RAG's prompts are the
    paper's own, and a persona would move the judge off what it was calibrated on.

    Raises:
        InputError: when the last user or assistant message is not the user's, or the question is not text.
    """
    turns = [m for m in messages if m.type in ("human", "ai")]
    if not turns or turns[-1].type != "human":
        last = turns[-1].type if turns else "no user message"
        msg = f"ChatSelfRAG answers the user's last message: end the conversation with a HumanMessage (got {last})"
        raise InputError(msg)
    other = sorted({b["type"] for b in turns[-1].content_blocks} - {"text"})
    if other:
        msg = (f"ChatSelfRAG reads text only; the question has {', '.join(other)} content: "
               "ask in words, or use a multimodal chat model")
        raise InputError(msg)
    return {"question": turns[-1].text, "history": _history(turns[:-1])}


def _history(turns: Sequence[BaseMessage]) -> list[BaseMessage]:
    """The earlier turns as ``SelfRAGConversation`` writes them: an answer's cited titles (from its annotations)
    and, when ChatSelfRAG answered it, the standalone question it answered and the conversation's subject."""
    history: list[BaseMessage] = []
    for i, message in enumerate(turns):
        if message.type == "ai":
            history.append(AIMessage(message.text, additional_kwargs={"citations": cited_sources(message)}))
            continue
        reply = turns[i + 1] if i + 1 < len(turns) and turns[i + 1].type == "ai" else None
        answered = (reply.response_metadata.get(RESULT_KEY) or {}) if reply is not None else {}
        asked = {key: answered[key] for key in ("standalone_question", "subject") if answered.get(key)}
        history.append(HumanMessage(message.text, additional_kwargs=asked))
    return history


def _no_history(session_id: str) -> BaseChatMessageHistory:
    msg = "ChatSelfRAG passes the conversation with every call and keeps no history of its own"
    raise RuntimeError(msg)


@dataclass(frozen=True)
class _Call:
    """A ``stream``/``invoke`` call as ``_stream`` needs it: langchain-core does not hand ``_stream`` the chat
    model's run manager (by design, langchain#23500), so the Self-RAG steps are parented from this."""

    model: int
    run_id: uuid.UUID
    config: RunnableConfig


_CALL: ContextVar[_Call | None] = ContextVar("chat_selfrag_call", default=None)


class _Chunks:
    """Turns ``SelfRAGConversation``'s stream (segments, then the answer) into chat chunks whose texts concatenate to
    the answer; the last one carries the annotations and the trace. Shared by ``_stream`` and ``_astream``."""

    def __init__(self, metadata: Callable[[ChatAnswer], dict[str, Any]]) -> None:
        self._metadata = metadata
        self._segments: list[CitedSegment] = []
        self._sent = ""

    def add(self, item: CitedSegment | ChatAnswer) -> ChatGenerationChunk:
        if isinstance(item, CitedSegment):
            piece = added_text(self._segments, item)
            self._segments.append(item)
            self._sent += piece
            return ChatGenerationChunk(message=AIMessageChunk(content=[text_block(piece, index=0)]))
        if not item.answer.startswith(self._sent):
            msg = f"streamed segments {self._sent!r} disagree with the answer {item.answer!r}"
            raise RuntimeError(msg)
        block = text_block(item.answer[len(self._sent):], annotations_for(item.result), index=0)
        return ChatGenerationChunk(message=AIMessageChunk(content=[block], response_metadata=self._metadata(item),
                                                          chunk_position="last"))


class ChatSelfRAG(FollowUpSettings, BaseChatModel):
    """Self-RAG as a LangChain chat model: messages in, an ``AIMessage`` with the cited answer out.

    The last message is the question; the earlier ones make a follow-up standalone exactly as
    :class:`SelfRAGConversation` does (it runs underneath, given the conversation, so ChatSelfRAG stores nothing:
    the caller, ``RunnableWithMessageHistory`` or a LangGraph checkpointer keeps the history). System and
    tool messages are ignored (Self-RAG's prompts are the paper's own); images, tools and structured output
    are not supported.

    Setup:
        .. code-block:: python

            from selfrag_langchain import CalibratedReflector, ChatSelfRAG, SelfRAGLongForm, TransformersLLM

            rag = SelfRAGLongForm(generator=TransformersLLM(), reflector=CalibratedReflector(),
                                  retriever=store.as_retriever(), k=2, max_depth=3)
            model = ChatSelfRAG(rag=rag)               # or rag=SelfRAG(...) for short answers

    Invoke:
        .. code-block:: python

            message = model.invoke([HumanMessage("Who painted the Mona Lisa?")])
            message.text          # 'Leonardo da Vinci painted it [1]. It hangs in the Louvre [2].'
            message.content_blocks[0]["annotations"][0]
            # {'type': 'citation', 'title': 'Mona Lisa', 'start_index': 0, 'end_index': 32,
            #  'cited_text': 'The Mona Lisa is ...', 'extras': {'citation': 1, 'marker_start': 28, ...}}
            message.response_metadata["selfrag"]["result"]   # the whole Self-RAG result and trace (JSON)

    Stream (long form: one chunk per segment as it becomes final; short form: the answer in one chunk; the
    last chunk carries the annotations and the trace):
        .. code-block:: python

            full = None
            for chunk in model.stream("What is a volcano?"):
                print(chunk.text, end="", flush=True)
                full = chunk if full is None else full + chunk

    In a chain:
        .. code-block:: python

            chain = prompt | model | StrOutputParser()     # the answer text, with its [n] markers

    Annotation indices are offsets into the text: a long-form citation spans its segment (marker and final
    punctuation included), ``extras["marker_start"]``/``["marker_end"]`` its ``[n]`` marker; a short-form
    citation spans the whole answer. ``stop`` and sampling parameters are accepted and ignored: Self-RAG
    ends segments and picks among its candidates itself.
    """

    rag: SelfRAGLongForm | SelfRAG
    """Answers the standalone question: long form (cited segments, streamed) or short form."""
    @property
    def _llm_type(self) -> str:
        return "selfrag-chat"

    @property
    def _identifying_params(self) -> dict[str, Any]:
        return {"rag": type(self.rag).__name__, "generator": self._model_name(), "reflector": self.rag.reflector.name,
                "settings": self.rag.settings(), "rewrite": self.rewrite, "fallback": self.fallback,
                "history_turns": self.history_turns}

    def _get_ls_params(self, stop: list[str] | None = None, **kwargs: Any) -> LangSmithParams:
        params = super()._get_ls_params(stop=stop, **kwargs)
        params["ls_provider"] = "selfrag"
        model = kwargs.get("model")
        params["ls_model_name"] = model if isinstance(model, str) else self._model_name()
        return params

    def _model_name(self) -> str:
        """The generator's model, as its own tracing parameters name it."""
        generator = self.rag.generator
        return str(generator._get_ls_params().get("ls_model_name") or type(generator).__name__)

    # ------------------------------------------------------------------ unsupported features

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: str | None = None, **kwargs: Any
                   ) -> Runnable[LanguageModelInput, AIMessage]:
        msg = ("ChatSelfRAG does not call tools: it answers from retrieved passages. Give the agent a tool-calling "
               "model and Self-RAG as one of its tools (examples/agent_tool.py)")
        raise NotImplementedError(msg)

    def with_structured_output(self, schema: dict[str, Any] | type, *, include_raw: bool = False, **kwargs: Any
                               ) -> Runnable[LanguageModelInput, dict[str, Any] | BaseModel]:
        msg = ("ChatSelfRAG returns cited text, not structured output: parse its text, or read the result from "
               f"response_metadata[{RESULT_KEY!r}]")
        raise NotImplementedError(msg)

    # ------------------------------------------------------------------ pure steps shared by every driver

    def _chat(self) -> SelfRAGConversation:
        return SelfRAGConversation(rag=self.rag, **self.follow_up_settings(), history_factory=_no_history)

    def _metadata(self, answer: ChatAnswer) -> dict[str, Any]:
        return {"model_name": self._model_name(),
                RESULT_KEY: {"question": answer.question, "standalone_question": answer.standalone_question,
                             "subject": answer.subject, "result": answer.result.model_dump(mode="json")}}

    def _message(self, answer: ChatAnswer) -> AIMessage:
        return AIMessage(content=[text_block(answer.answer, annotations_for(answer.result))],
                         response_metadata=self._metadata(answer))

    def _inner_config(self, run_manager: CallbackManagerForLLMRun | AsyncCallbackManagerForLLMRun | None
                      ) -> RunnableConfig:
        """The config of the Self-RAG run: a child of this chat model's run, so callbacks see the rewrite,
        the retrieve decisions, retrievals, generations and judgements under it."""
        if run_manager is not None:  # what a chain's ``run_manager.get_child()`` gives, which LLM runs lack
            child = CallbackManager(handlers=[], parent_run_id=run_manager.run_id)
            child.set_handlers(run_manager.inheritable_handlers)
            child.add_tags(run_manager.inheritable_tags)
            child.add_metadata(run_manager.inheritable_metadata)
            return {"callbacks": child}
        call = _CALL.get()
        if call is None or call.model != id(self):
            return ensure_config()  # called outside invoke/stream (``generate``): the surrounding run's config
        manager = CallbackManager.configure(call.config.get("callbacks"), inheritable_tags=call.config.get("tags"),
                                            inheritable_metadata=call.config.get("metadata"))
        manager.parent_run_id = call.run_id
        return {"callbacks": manager}

    @contextmanager
    def _announced(self, config: RunnableConfig | None) -> Iterator[RunnableConfig]:
        """``config`` with a run id, known to ``_stream`` while the call starts."""
        config = ensure_config(config)
        run_id = config.get("run_id") or uuid.uuid4()
        token = _CALL.set(_Call(id(self), run_id, config))
        try:
            yield {**config, "run_id": run_id}
        finally:
            _CALL.reset(token)

    # ------------------------------------------------------------------ sync

    def invoke(self, input: LanguageModelInput, config: RunnableConfig | None = None, *,
               stop: list[str] | None = None, **kwargs: Any) -> AIMessage:
        with self._announced(config) as announced:
            return super().invoke(input, announced, stop=stop, **kwargs)

    def stream(self, input: LanguageModelInput, config: RunnableConfig | None = None, *,
               stop: list[str] | None = None, **kwargs: Any) -> Iterator[AIMessageChunk]:
        with self._announced(config) as announced:
            chunks = super().stream(input, announced, stop=stop, **kwargs)
            first = next(chunks, None)  # ``_stream`` has read the call by now
        if first is not None:
            yield first
            yield from chunks

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        answer = self._chat().invoke(chat_input(messages), self._inner_config(run_manager))
        return ChatResult(generations=[ChatGeneration(message=self._message(answer))])

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        config, turn, chunks = self._inner_config(run_manager), chat_input(messages), _Chunks(self._metadata)
        for item in self._chat().stream(turn, config):
            chunk = chunks.add(item)
            if run_manager is not None:
                run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk

    # ------------------------------------------------------------------ async

    async def ainvoke(self, input: LanguageModelInput, config: RunnableConfig | None = None, *,
                      stop: list[str] | None = None, **kwargs: Any) -> AIMessage:
        with self._announced(config) as announced:
            return await super().ainvoke(input, announced, stop=stop, **kwargs)

    async def astream(self, input: LanguageModelInput, config: RunnableConfig | None = None, *,
                      stop: list[str] | None = None, **kwargs: Any) -> AsyncIterator[AIMessageChunk]:
        with self._announced(config) as announced:
            chunks = super().astream(input, announced, stop=stop, **kwargs)
            first = await anext(chunks, None)
        if first is not None:
            yield first
            async for chunk in chunks:
                yield chunk

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: AsyncCallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        answer = await self._chat().ainvoke(chat_input(messages), self._inner_config(run_manager))
        return ChatResult(generations=[ChatGeneration(message=self._message(answer))])

    async def _astream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                       run_manager: AsyncCallbackManagerForLLMRun | None = None, **kwargs: Any
                       ) -> AsyncIterator[ChatGenerationChunk]:
        config, turn, chunks = self._inner_config(run_manager), chat_input(messages), _Chunks(self._metadata)
        async for item in self._chat().astream(turn, config):
            chunk = chunks.add(item)
            if run_manager is not None:
                await run_manager.on_llm_new_token(chunk.text, chunk=chunk)
            yield chunk
