"""One place that builds a Self-RAG pipeline from settings: generator, judge, retriever, and the Runnables.

:class:`PipelineSettings` is every choice the command line offers (``selfrag ask --help``), as one typed,
validated value with the command line's defaults. The builders turn it into objects; models load at first
use. The command line parses its flags into these settings once and calls the same builders, so Python and
the terminal build the same pipeline.

Example:
    .. code-block:: python

        from selfrag_langchain.pipeline import PipelineSettings, build_long_form, build_selfrag

        rag = build_selfrag(PipelineSettings(k=3, reflector="critic"))
        rag.invoke("Who painted the Mona Lisa?").answer

        settings = PipelineSettings(backend="openai", model="selfrag/selfrag_llama2_7b",
                                    backend_options={"base_url": "http://gpu-box:8000/v1"},
                                    critic_backend="transformers", reflector="critic", critic="smollm2-135m-instruct")
        long_form = build_long_form(settings.with_changes(max_depth=3))
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import AliasChoices, ConfigDict, Field, field_validator, model_validator

from selfrag_langchain.chains.controls import BeamSettings, LoopSettings
from selfrag_langchain.files.paths import store_location
from selfrag_langchain.llms.model_loading import DEFAULT_MODEL
from selfrag_langchain.prompts import CRITIC_PROMPT_SETS
from selfrag_langchain.scoring import RetrieveMode

if TYPE_CHECKING:
    from langchain_core.language_models import BaseLLM
    from langchain_core.retrievers import BaseRetriever

    from selfrag_langchain.chains.long_form import SelfRAGLongForm
    from selfrag_langchain.chains.quotes import PassageQuoter
    from selfrag_langchain.chains.short_form import SelfRAG
    from selfrag_langchain.chains.windows import PassageWindow
    from selfrag_langchain.judging import Reflector
    from selfrag_langchain.judging.reader import SentenceReader

REFLECTORS = ("calibrated", "entailment", "learned", "critic", "inline")
"""The judges :attr:`PipelineSettings.reflector` chooses from (see :func:`build_reflector`)."""

_OWN_FIELDS = ("model", "max_new_tokens")
"""Settings of their own, never backend options."""


class PipelineSettings(LoopSettings, BeamSettings):
    """Everything that decides a Self-RAG pipeline: generator, judge, store, control loop and long-form search.

    Field names are the command line's flags (``w_sup`` is ``--w-sup``; ``backend_options`` holds the backend
    flags such as ``--device`` and ``--base-url``), and the defaults are its defaults. A value the pipeline
    cannot use is refused when the settings are made, with a message naming the field.

    Example:
        .. code-block:: python

            from selfrag_langchain.pipeline import PipelineSettings, build_selfrag

            settings = PipelineSettings(k=3, reflector="critic", mode="always")
            rag = build_selfrag(settings)
            PipelineSettings(threshold=1.5)  # ValidationError: threshold must be in [0, 1], got 1.5

    Raises:
        pydantic.ValidationError: for a value out of range, an unknown backend, a backend option that neither
            the generator's nor the critic's backend takes, or an unknown field.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    # ---------------------------------------------------------------- generator
    backend: str = "transformers"
    """Where the generator runs: ``transformers``, ``vllm``, ``openai`` or ``llamacpp``."""
    model: str = DEFAULT_MODEL
    """The generator: hub id, local directory, ``.gguf`` file, or the served model's name on ``openai``."""
    backend_options: dict[str, Any] = Field(default_factory=dict)
    """Options of the backends (``device``, ``base_url``, ``tensor_parallel_size``, ...): each model gets those
    its backend takes (docs/backends.md); None values are left out."""

    # ---------------------------------------------------------------- judge
    reflector: Literal["calibrated", "entailment", "learned", "critic", "inline"] = "calibrated"
    """``calibrated``: signals calibrated on GPT-4 critic labels, no extra model; ``entailment``: those signals
    and a sentence reader's (which passage sentence answers the question, which entails or contradicts the
    output's claims; the quoter shares its reader); ``learned``: a cross-encoder on the shipped
    MiniLM trained on critic labels and synthetic contrasts; ``critic``: a critic model judges; ``inline``: a
    Self-RAG generator judges itself."""
    calibration: Path | None = Field(default=None, validation_alias=AliasChoices("calibration", "judge"))
    """Calibrated, entailment and learned judges: a calibration written by ``selfrag train judge`` (the learned
    judge reads Retrieve from it; the entailment judge's is fitted with ``--reader``); None: the shipped one.
    ``judge``, its former name, is still taken for one release."""
    reader: Path | None = None
    """The sentence reader of the entailment judge and of :attr:`quote_reader`: a directory written by ``selfrag
    train reader``; None: the one shipped with the package."""
    answer_finder: Path | None = None
    """The answer finder of :attr:`quote_reader`: a directory written by ``selfrag train answer-finder``; None: the
    one shipped with the package."""
    judge_encoder: Path | None = None
    """Learned judge: a directory written by ``selfrag train judge-encoder``; None: the shipped one."""
    critic: str | None = None
    """Critic judge: the critic model; None: the generator's model (then the generator itself when it runs on
    the same backend)."""
    critic_backend: str | None = None
    """Critic judge: the critic's backend; None: :attr:`backend`."""
    critic_prompts: Literal["zero_shot", "paper"] = "zero_shot"
    """Critic judge: ``zero_shot`` for instruct models, ``paper`` for trained Self-RAG critics."""
    relevance: Literal["auto", "labels", "question_likelihood"] = "auto"
    """Critic judge: how IsRel is judged; ``auto`` follows :attr:`critic_prompts` (:attr:`resolved_relevance`)."""

    # ---------------------------------------------------------------- store
    store: Path | str | None = None
    """Chroma store directory, or a Chroma server's URL (``http://host:port``); None: the default store once
    ``selfrag index`` filled it, else the demo corpus (:func:`uses_demo_corpus`)."""

    # ---------------------------------------------------------------- passages (the control loop's knobs come
    # from LoopSettings, the long-form search's from BeamSettings)
    window_sentences: int = Field(default=0, ge=0)
    """The generator reads each passage's title and this many consecutive sentences, those nearest the question
    (:class:`~selfrag_langchain.chains.windows.PassageWindow`), instead of or beside (:attr:`keep_whole`) the
    whole passage; 0: whole passages only, as the paper does. Not the default: on the lists it was chosen
    on it helped, on a fresh list and on PopQA it lost."""
    quote: bool = True
    """Answer with the cited passage's sentence that states what the generator wrote (each long-form segment's
    likewise), the generation kept in the trace (:class:`~selfrag_langchain.chains.quotes.PassageQuoter`);
    off: the generation itself, as the paper does. On by default: on the list settings are chosen on, short
    form was right for 35 of 40 questions quoted against 26 as generated, long form 35 against 28."""
    quote_reader: bool = True
    """With :attr:`quote`: the quoted sentence is also chosen by the sentence reader's probability that it answers
    the question (:class:`~selfrag_langchain.judging.reader.SentenceReader`, :attr:`reader`), so that of the
    sentences the generation points at, the one that states what was asked wins; off: by what the generation
    points at alone. On by default: on the list settings are chosen on, top-1 RAG quoted was right for 39 of 40
    questions with it against 36 without, Self-RAG for 38 against 35. With it each quote is also read by the
    answer finder (:class:`~selfrag_langchain.judging.finder.AnswerFinder`, :attr:`answer_finder`), which
    declining reads, and the probability that a sentence answers is the mean of the reader's and the finder's
    (:attr:`~selfrag_langchain.chains.quotes.PassageQuoter.finder_share`)."""
    quote_read_alone: bool = False
    """With :attr:`quote_reader`: each sentence is also read without its passage's title, its reading the lower of
    the two (:attr:`~selfrag_langchain.chains.quotes.PassageQuoter.read_alone`), for questions that ask
    an attribute of the entity their passages' title names (PopQA's); off: after the title only."""
    keep_whole: bool = False
    """With :attr:`window_sentences`: the whole passages stay branches beside their windows (up to ``2 k``
    branches, about 1.7 times the generation), the judge choosing between them."""

    @field_validator("store", mode="before")
    @classmethod
    def _store_location(cls, value: Any) -> Any:
        return store_location(value) if isinstance(value, str) else value

    @field_validator("backend", "critic_backend")
    @classmethod
    def _known_backend(cls, value: str | None) -> str | None:
        from selfrag_langchain.llms.factory import backend_class

        if value is not None:
            backend_class(value)  # ConfigurationError naming the backends
        return value

    @field_validator("backend_options")
    @classmethod
    def _options_given(cls, value: dict[str, Any]) -> dict[str, Any]:
        for name in _OWN_FIELDS:
            if name in value:
                msg = f"{name} is a setting of its own: pass {name}=..., not backend_options={{'{name}': ...}}"
                raise ValueError(msg)
        return {name: option for name, option in value.items() if option is not None}

    @model_validator(mode="after")
    def _options_apply(self) -> PipelineSettings:
        """Both backends exist, every backend option is taken by the generator's or the critic's backend, and an
        option that changes only what a model writes is taken by the generator's."""
        from selfrag_langchain.llms.factory import GENERATION_OPTIONS, backend_options

        backends = sorted({self.backend, self.resolved_critic_backend})
        accepted = set().union(*(backend_options(b) for b in backends))
        for name in self.backend_options:
            if name not in accepted:
                msg = f"{name} does not apply to backend {' or '.join(backends)}"
                raise ValueError(msg)
            if name in GENERATION_OPTIONS and name not in backend_options(self.backend):
                msg = (f"{name} changes what the generator writes, and the generator's backend {self.backend} does "
                       f"not take it (the critic only reads)")
                raise ValueError(msg)
        return self

    @property
    def resolved_critic_backend(self) -> str:
        """The critic's backend: :attr:`critic_backend`, else the generator's."""
        return self.critic_backend or self.backend

    @property
    def resolved_relevance(self) -> str:
        """The critic's IsRel judgement, ``auto`` resolved for :attr:`critic_prompts`."""
        from selfrag_langchain.judging.critic import resolve_relevance

        return resolve_relevance(self.relevance, CRITIC_PROMPT_SETS[self.critic_prompts])

    def options_for(self, backend: str) -> dict[str, Any]:
        """The :attr:`backend_options` that ``backend`` takes (each model gets only its own backend's)."""
        from selfrag_langchain.llms.factory import backend_options

        accepted = backend_options(backend)
        return {name: value for name, value in self.backend_options.items() if name in accepted}

    def with_changes(self, **changes: Any) -> PipelineSettings:
        """A copy with ``changes``, validated again (``model_copy(update=...)`` would not check them)."""
        return type(self).model_validate({**self.model_dump(), **changes})

    def loop_settings(self) -> dict[str, Any]:
        """The control-loop fields both Runnables take (:class:`~selfrag_langchain.chains.controls.SelfRAGControls`)."""
        return self.model_dump(include=set(LoopSettings.model_fields))

    def long_form_settings(self) -> dict[str, Any]:
        """The beam-search fields of :class:`~selfrag_langchain.chains.long_form.SelfRAGLongForm`."""
        return self.model_dump(include=set(BeamSettings.model_fields))


class _FromSettings(Enum):
    STORE = "the store the settings name"


FROM_SETTINGS = _FromSettings.STORE
"""Default of the builders' ``retriever``: the store the settings name (:func:`build_retriever`)."""


def build_generator(settings: PipelineSettings | None = None) -> BaseLLM:
    """The generator on :attr:`~PipelineSettings.backend`, with the backend options it takes (loads at first use).

    Example:
        ``build_generator(PipelineSettings(backend="vllm", backend_options={"tensor_parallel_size": 2}))``
    """
    from selfrag_langchain.llms.factory import build_llm

    settings = settings or PipelineSettings()
    return build_llm(settings.backend, settings.model, max_new_tokens=settings.max_new_tokens,
                     **settings.options_for(settings.backend))


def build_reflector(settings: PipelineSettings | None = None, generator: BaseLLM | None = None) -> Reflector:
    """The judge the settings name.

    The calibrated and learned judges need no language model; the inline judge is ``generator``; the critic runs on
    :attr:`~PipelineSettings.critic_backend` and is ``generator`` itself when it is the same model on the same
    backend. A ``generator`` that is needed and not given is built from the settings. A trained critic is read
    through the label bias saved beside it for these prompts (``selfrag train critic-bias``), when it has one.

    Example:
        ``build_reflector(PipelineSettings(reflector="critic", critic="./critic", critic_prompts="paper"))``
    """
    from selfrag_langchain.judging import CriticReflector, InlineReflector, load_label_bias
    from selfrag_langchain.llms.factory import build_llm

    settings = settings or PipelineSettings()
    if settings.reflector == "calibrated":
        from selfrag_langchain.judging import CalibratedReflector

        return CalibratedReflector(settings.calibration)
    if settings.reflector == "entailment":
        from selfrag_langchain.judging.entailment import EntailmentReflector

        return EntailmentReflector(settings.calibration, reader=settings.reader)
    if settings.reflector == "learned":
        from selfrag_langchain.judging.learned import LearnedReflector

        return LearnedReflector(settings.judge_encoder, calibration=settings.calibration)
    if settings.reflector == "inline":
        return InlineReflector(generator if generator is not None else build_generator(settings))
    backend = settings.resolved_critic_backend
    if backend == settings.backend and settings.critic in (None, settings.model):
        critic = generator if generator is not None else build_generator(settings)
    else:
        critic = build_llm(backend, settings.critic or settings.model, **settings.options_for(backend))
    return CriticReflector(critic, prompts=settings.critic_prompts, relevance=settings.resolved_relevance,
                           label_bias=load_label_bias(settings.critic or settings.model, settings.critic_prompts))


def uses_demo_corpus(settings: PipelineSettings | None = None) -> bool:
    """Whether :func:`build_retriever` answers from the demo corpus: no store named and none indexed yet.

    The library prints nothing; a caller that wants to tell its user (the command line does) asks this.
    """
    from selfrag_langchain.corpus.answering import answers_from_demo

    return answers_from_demo((settings or PipelineSettings()).store)


def build_retriever(settings: PipelineSettings | None = None) -> BaseRetriever:
    """A retriever of :attr:`~PipelineSettings.k` passages from the store the settings name:
    :func:`~selfrag_langchain.corpus.answering.answering_store` (the named store, else the default store once
    ``selfrag index`` filled it, else the demo corpus, indexed on first use).

    Raises:
        StoreError: if the named directory holds no store, or a store cannot be read.
    """
    from selfrag_langchain.corpus.answering import answering_store

    settings = settings or PipelineSettings()
    return answering_store(settings.store).as_retriever(search_kwargs={"k": settings.k})


def _roles(settings: PipelineSettings, generator: BaseLLM | None, reflector: Reflector | None,
           retriever: BaseRetriever | _FromSettings | None) -> dict[str, Any]:
    """Generator, judge and retriever of a Runnable: the given ones, the rest built from the settings."""
    generator = generator if generator is not None else build_generator(settings)
    if retriever is FROM_SETTINGS:
        retriever = None if settings.mode == RetrieveMode.NEVER else build_retriever(settings)
    reflector = reflector if reflector is not None else build_reflector(settings, generator)
    return {"generator": generator, "reflector": reflector, "retriever": retriever,
            "passage_window": build_passage_window(settings),
            "quoter": build_quoter(settings, reader=getattr(reflector, "reader", None))}


def build_passage_window(settings: PipelineSettings | None = None) -> PassageWindow | None:
    """The passage window the settings ask for (MiniLM embeddings, as the retriever's), or None for whole
    passages."""
    from selfrag_langchain.chains.windows import PassageWindow
    from selfrag_langchain.embeddings import MiniLMEmbeddings

    settings = settings or PipelineSettings()
    if settings.window_sentences == 0:
        return None
    return PassageWindow(embeddings=MiniLMEmbeddings(), sentences=settings.window_sentences,
                         keep_whole=settings.keep_whole)


def build_quoter(settings: PipelineSettings | None = None, *, reader: SentenceReader | None = None
                 ) -> PassageQuoter | None:
    """The quoter the settings ask for (MiniLM embeddings, as the retriever's), or None: answers as generated.
    With :attr:`~PipelineSettings.quote_reader` it also reads which sentence answers the question, with
    ``reader`` (the entailment judge's own, so each pair is read once) or the one the settings name."""
    from selfrag_langchain.chains.quotes import PassageQuoter
    from selfrag_langchain.embeddings import MiniLMEmbeddings

    settings = settings or PipelineSettings()
    if not settings.quote:
        return None
    if not settings.quote_reader:
        return PassageQuoter(embeddings=MiniLMEmbeddings())
    if reader is None:
        from selfrag_langchain.judging.reader import SentenceReader

        reader = SentenceReader(settings.reader)
    from selfrag_langchain.judging.finder import AnswerFinder

    return PassageQuoter(embeddings=MiniLMEmbeddings(), reader=reader, finder=AnswerFinder(settings.answer_finder),
                         read_alone=settings.quote_read_alone)


def build_selfrag(settings: PipelineSettings | None = None, *, generator: BaseLLM | None = None,
                  reflector: Reflector | None = None,
                  retriever: BaseRetriever | _FromSettings | None = FROM_SETTINGS) -> SelfRAG:
    """The short-form :class:`~selfrag_langchain.chains.short_form.SelfRAG` Runnable the settings describe.

    Args:
        settings: the choices; None: the defaults (``selfrag ask`` with no flags).
        generator: a generator to use instead of building one (e.g. one already loaded).
        reflector: a judge to use instead of building one.
        retriever: a retriever instead of the store the settings name; None: no store (questions bring their
            own passages). With ``mode="never"`` no store is opened.

    Example:
        .. code-block:: python

            from selfrag_langchain.pipeline import PipelineSettings, build_selfrag

            rag = build_selfrag(PipelineSettings(k=3, reflector="critic"))
            result = rag.invoke("Who painted the Mona Lisa?")
    """
    from selfrag_langchain.chains.short_form import SelfRAG

    settings = settings or PipelineSettings()
    return SelfRAG(**_roles(settings, generator, reflector, retriever), **settings.loop_settings())


def build_long_form(settings: PipelineSettings | None = None, *, generator: BaseLLM | None = None,
                    reflector: Reflector | None = None,
                    retriever: BaseRetriever | _FromSettings | None = FROM_SETTINGS) -> SelfRAGLongForm:
    """The long-form :class:`~selfrag_langchain.chains.long_form.SelfRAGLongForm` Runnable the settings
    describe; arguments as :func:`build_selfrag`.

    Example:
        .. code-block:: python

            from selfrag_langchain.pipeline import PipelineSettings, build_long_form

            rag = build_long_form(PipelineSettings(max_depth=3, beam_width=2))
            for item in rag.stream("Tell me about the Louvre."):
                print(item)  # CitedSegments as they become final, then the LongFormResult
    """
    from selfrag_langchain.chains.long_form import SelfRAGLongForm

    settings = settings or PipelineSettings()
    return SelfRAGLongForm(**_roles(settings, generator, reflector, retriever), **settings.loop_settings(),
                           **settings.long_form_settings())


__all__ = [
    "FROM_SETTINGS",
    "REFLECTORS",
    "PipelineSettings",
    "build_generator",
    "build_long_form",
    "build_passage_window",
    "build_quoter",
    "build_reflector",
    "build_retriever",
    "build_selfrag",
    "uses_demo_corpus",
]
