"""The configuration of each ``selfrag train`` step that does not run ``transformers.Trainer`` (data making,
judging, fitting the calibrated judge), and what every step shares; the steps that train a model build on
``TrainingArguments`` in :mod:`selfrag_langchain.trainer.training_config`.

A command line is one of these parsed from flags or a YAML/JSON file (``--config``, see
:mod:`selfrag_langchain.trainer.arguments`); Python callers build them directly. Importing this module
loads neither torch nor transformers.

Examples:
    selfrag train judge --data critic_train.jsonl --out judge.json
    selfrag train judge --config judge.yaml --folds 10          # flags override the file
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.llms.model_loading import DEFAULT_MODEL
from selfrag_langchain.tokens import Group

CONFIG_DIR = Path(__file__).parent / "configs"
"""DeepSpeed and accelerate configuration files shipped with the package."""

DEEPSPEED_PRESETS = {"zero2": CONFIG_DIR / "zero2.json", "zero3": CONFIG_DIR / "zero3.json"}
"""Names ``--deepspeed`` accepts besides a path to a DeepSpeed JSON file."""

TASK_GROUPS: dict[str, Group] = {
    "retrieval": Group.RETRIEVE,
    "relevance": Group.ISREL,
    "groundedness": Group.ISSUP,
    "utility": Group.ISUSE,
}
"""The ``task`` values of critic data and the reflection group each one judges."""

CRITIC_TASKS = tuple(TASK_GROUPS)

SYNTHETIC_TASKS = tuple(task for task, group in TASK_GROUPS.items() if group is not Group.RETRIEVE)
"""The tasks `selfrag train judge-data` makes rows for: a passage decides them, so a contrast can be built."""

CRITIC_DATA_HELP = ("JSON Lines or CSV (.csv) rows, in the released critic format (instruction, input, output, task) "
                    "or plain (question, passage, title, output, label)")
"""What every command reading labelled critic data takes (:mod:`~selfrag_langchain.trainer.critic_rows`)."""


def described(text: str, **extra: object) -> dict[str, object]:
    """A field's metadata as the command line reads it: its help, and argparse keywords such as ``choices``
    or ``aliases``. A field without a default is required, as a flag or in the ``--config`` file."""
    return {"help": text, **extra}


CRITIC_PROMPTS_HELP = described("critic prompt set: paper for trained critics, zero_shot for instruct models",
                                choices=("paper", "zero_shot"))
"""The ``--prompts`` of every command that asks a critic model its labels."""

COLLECTION_GROUPS = ("retrieval", "retrieval_preceding", "relevance", "groundedness", "utility")
"""What critic-data collection can ask the teacher (paper Appendix D, Tables 8-12)."""


def as_lists(config: object, *names: str) -> None:
    """Let a list field be given as one string (a single file from Python or a config file)."""
    for name in names:
        if isinstance(getattr(config, name), str):
            setattr(config, name, [getattr(config, name)])


@dataclass(kw_only=True)
class CriticDataConfig:
    """Critic data collection: a teacher LM behind an OpenAI-compatible API labels (x, y) pairs."""

    input: str = field(metadata=described(
        "JSON Lines of items: instruction (required), input, output, evidence (or ctxs), preceding, id"))
    out: str = field(metadata=described("critic data to append to (JSON Lines: instruction, input, output, "
                                                "task, id); a re-run skips items already there"))
    model: str = field(metadata=described("the teacher model's name on the server"))
    base_url: str | None = field(default=None, metadata=described(
        "OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (default: $OPENAI_BASE_URL or OpenAI's)"))
    api_key: str | None = field(default=None, metadata=described("API key (default: $OPENAI_API_KEY)"))
    groups: list[str] = field(default_factory=lambda: list(COLLECTION_GROUPS), metadata=described(
        "what to ask: retrieval (Table 8), retrieval_preceding (Table 9), relevance (Table 10), "
        "groundedness (Table 11), utility (Table 12); an item is asked only the groups its fields allow",
        choices=COLLECTION_GROUPS))
    temperature: float = field(default=1.0, metadata=described("sampling temperature (the paper: 1)"))
    max_tokens: int = field(default=200, metadata=described("answer budget in tokens (the paper: 200)"))
    max_retries: int = field(default=5, metadata=described("retries of a request after a timeout, connection error "
                                                       "or HTTP 429/5xx, with exponential backoff"))
    timeout: float = field(default=60.0, metadata=described("seconds per request"))
    concurrency: int = field(default=1, metadata=described("requests in flight"))
    limit: int | None = field(default=None, metadata=described("ask about only the first N items"))

    def __post_init__(self) -> None:
        check_choices("groups", self.groups, COLLECTION_GROUPS)
        for name in ("max_tokens", "concurrency"):
            if getattr(self, name) < 1:
                msg = f"{name} must be >= 1, got {getattr(self, name)}"
                raise ConfigurationError(msg)
        if self.max_retries < 0 or self.timeout <= 0 or self.temperature < 0:
            msg = "max_retries must be >= 0, timeout > 0 and temperature >= 0"
            raise ConfigurationError(msg)


@dataclass(kw_only=True)
class CriticEvalConfig:
    """Judge evaluation: agreement with held-out labels, per task, beside the majority-label baseline. Without
    --model it evaluates the default judge (the calibrated judge, or --calibration FILE) exactly as SelfRAG uses it."""

    data: str = field(metadata=described("held-out critic data: " + CRITIC_DATA_HELP))
    model: str = field(default="", metadata=described(
        "a critic model: a trained critic directory (full or LoRA adapter), hub id, .gguf file, or the embedded "
        "default (default: no model, evaluate the calibrated judge)"))
    calibration: str | None = field(default=None, metadata=described(
        "without --model: a judge calibration written by `selfrag train judge` (default: the shipped one; --judge "
        "is its former name)", aliases=("--judge",)))
    prompts: str = field(default="paper", metadata=CRITIC_PROMPTS_HELP)
    label_bias: bool = field(default=True, metadata=described(
        "read a trained critic with the label bias saved beside it (`selfrag train critic-bias`), as SelfRAG does; "
        "--no-label-bias reads it without"))
    out: str | None = field(default=None, metadata=described("JSON file for the table and per-example predictions "
                                                         "(default: print only)"))
    limit: int | None = field(default=None, metadata=described("evaluate only the first N rows"))
    device: str = field(default="cpu", metadata=described("torch device"))

    def __post_init__(self) -> None:
        if self.limit is not None and self.limit < 1:
            msg = f"limit must be >= 1, got {self.limit}"
            raise ConfigurationError(msg)
        if self.model and self.calibration:
            msg = "--calibration evaluates a calibrated judge and --model a critic model: give one of them"
            raise ConfigurationError(msg)


@dataclass(kw_only=True)
class CriticBiasConfig:
    """Label bias for a trained critic: one log-weight per label, fitted on labelled rows it never trained on
    so that its lines between labels fall where those rows put them; saved in the critic's directory, where
    SelfRAG and critic-eval find it."""

    model: str = field(metadata=described("a trained critic directory (written by `selfrag train "
                                                      "critic`)"))
    data: list[str] = field(metadata=described(
        "labelled rows of the kind the critic will judge, one or more files: " + CRITIC_DATA_HELP + "; rows the "
        "critic trained on are skipped"))
    prompts: str = field(default="paper", metadata=CRITIC_PROMPTS_HELP)
    folds: int = field(default=5, metadata=described("cross-validation folds: a group keeps its bias only when it "
                                                 "raises the balanced accuracy on rows it was not fitted on"))
    min_rows: int = field(default=10, metadata=described("rows of a label at least for its weight to be fitted"))
    seed: int = field(default=0, metadata=described("seed of the fold split"))
    device: str = field(default="cpu", metadata=described("torch device"))

    def __post_init__(self) -> None:
        as_lists(self, "data")
        if self.folds < 2:
            msg = f"folds must be >= 2, got {self.folds}"
            raise ConfigurationError(msg)
        if self.min_rows < 2:
            msg = f"min_rows must be >= 2 (a label's rows are split across folds), got {self.min_rows}"
            raise ConfigurationError(msg)


@dataclass(kw_only=True)
class JudgeConfig:
    """Calibrated judge: one logistic regression per reflection group over embedding and word-overlap signals,
    fitted to labelled critic data, one or more files (the package ships the fit on Self-RAG's
    critic_train.jsonl)."""

    data: list[str] = field(metadata=described(
        "labelled critic data, one or more files: " + CRITIC_DATA_HELP))
    out: str = field(metadata=described("JSON file for the calibration (tens of kilobytes)"))
    per_label: int | None = field(default=None, metadata=described(
        "rows of one (task, label) at most, drawn with the seed, so one large file cannot decide a group "
        "(default: all)"))
    folds: int = field(default=5, metadata=described("cross-validation folds for choosing regularisation and class "
                                                 "weights"))
    reader: str | None = field(default=None, metadata=described(
        "fit the entailment judge: add a sentence reader's signals (answer sentences, claim-by-claim entailment); "
        "'shipped' or a directory written by `selfrag train reader` (default: none, the calibrated judge)"))
    seed: int = field(default=0, metadata=described("seed of the fold split and of the per-label draw"))

    def __post_init__(self) -> None:
        as_lists(self, "data")
        if self.folds < 2:
            msg = f"folds must be >= 2, got {self.folds}"
            raise ConfigurationError(msg)
        if self.per_label is not None and self.per_label < 1:
            msg = f"per_label must be >= 1, got {self.per_label}"
            raise ConfigurationError(msg)


@dataclass(kw_only=True)
class JudgeDataConfig:
    """Synthetic judgements for the judge (swapped facts, neighbouring entities, added claims), made
    with a fixed seed from training-side passages: critic files' evidence and eval files' passages, never their
    questions or answers."""

    critic: list[str] = field(metadata=described(
        "critic files (JSON Lines): their evidence passages and group instructions are read"))
    out: str = field(metadata=described("JSON Lines file for the synthetic rows (critic format)"))
    passages: list[str] = field(default_factory=list, metadata=described(
        "eval files in Self-RAG's format whose passages (ctxs) are read; each row's own subject is skipped"))
    per_kind: int = field(default=400, metadata=described("rows of each kind at most"))
    seed: int = field(default=0, metadata=described("seed of every choice"))
    tasks: list[str] = field(default_factory=lambda: list(SYNTHETIC_TASKS), metadata=described(
        "tasks whose rows are written; the rows kept are the same as in a file of every task",
        choices=SYNTHETIC_TASKS))

    def __post_init__(self) -> None:
        as_lists(self, "critic", "passages", "tasks")
        if self.per_kind < 1:
            msg = f"per_kind must be >= 1, got {self.per_kind}"
            raise ConfigurationError(msg)
        check_choices("tasks", self.tasks, SYNTHETIC_TASKS)


@dataclass(kw_only=True)
class GeneratorPairsConfig:
    """(x, y) pairs for generator data, made with a fixed seed from training-side files: critic rows' whole
    outputs, and questions about passages' entities answered by a sentence of the passage that names them."""

    critic: list[str] = field(metadata=described(
        "critic files (JSON Lines) on the training side: their instructions, outputs and evidence are read"))
    out: str = field(metadata=described("JSON Lines file for the pairs (instruction, output, id, "
                                                    "dataset_name)"))
    passages: list[str] = field(default_factory=list, metadata=described(
        "eval files in Self-RAG's format whose passages (ctxs) are read too; each row's own subject is skipped"))
    passages_out: str | None = field(default=None, metadata=described(
        "also write the passages as JSON Lines (title, text) for `selfrag index`"))
    per_kind: int = field(default=600, metadata=described("pairs of each kind (critic, entity) at most"))
    max_words: int = field(default=60, metadata=described("critic outputs longer than this are left out"))
    seed: int = field(default=0, metadata=described("seed of every choice"))

    def __post_init__(self) -> None:
        as_lists(self, "critic", "passages")
        for name in ("per_kind", "max_words"):
            if getattr(self, name) < 1:
                msg = f"{name} must be >= 1, got {getattr(self, name)}"
                raise ConfigurationError(msg)


@dataclass(kw_only=True)
class GeneratorDataConfig:
    """Generator data creation (paper Algorithm 3): a critic inserts reflection tokens and passages."""

    input: str = field(metadata=described("JSON Lines of (instruction, output) pairs, optional input, "
                                                      "id"))
    out: str = field(metadata=described("generator data to append to (instruction, input, output, id); a "
                                                "re-run skips items already there"))
    critic: str = field(default=DEFAULT_MODEL, metadata=described(
        "the critic model (a trained critic directory, ...)"))
    critic_prompts: str = field(default="paper", metadata=described(
        "critic prompt set", choices=("paper", "zero_shot")))
    calibration: str | None = field(default=None, metadata=described(
        "judge with the calibrated judge instead of a critic model: 'shipped' (the embedded default's) or a file "
        "written by `selfrag train judge`"))
    store: str | None = field(default=None, metadata=described(
        "Chroma store to retrieve from (default: the store `selfrag index` fills, else the demo corpus)"))
    k: int = field(default=3, metadata=described("passages retrieved per sentence"))
    retrieve_threshold: float = field(default=0.5, metadata=described(
        "retrieve for an item when p([Retrieval]) exceeds this"))
    limit: int | None = field(default=None, metadata=described("process only the first N items"))
    seed: int = field(default=42, metadata=described("seed of the random passage choice when none is relevant"))
    device: str = field(default="cpu", metadata=described("torch device of the critic"))

    def __post_init__(self) -> None:
        if self.k < 1:
            msg = f"k must be >= 1, got {self.k}"
            raise ConfigurationError(msg)
        if not 0.0 <= self.retrieve_threshold <= 1.0:
            msg = f"retrieve_threshold must be in [0, 1], got {self.retrieve_threshold}"
            raise ConfigurationError(msg)
        if self.limit is not None and self.limit < 1:
            msg = f"limit must be >= 1, got {self.limit}"
            raise ConfigurationError(msg)


def check_choices(name: str, values: list[str], allowed: tuple[str, ...]) -> None:
    unknown = [v for v in values if v not in allowed]
    if unknown or not values:
        msg = f"unknown {name} {', '.join(unknown) or '(none given)'}: choose from {', '.join(allowed)}"
        raise ConfigurationError(msg)
