"""The configuration of each training step: one dataclass per command, each field documented.

A command line is one of these parsed from flags or a YAML/JSON file (``--config``, see
:mod:`selfrag_langchain.trainer.arguments`); Python callers build them directly. Importing this module
loads neither torch nor transformers, so ``selfrag train --help`` stays fast.

Examples:
    selfrag train critic --data critic_train.jsonl --out critic --lora --per-group 100
    selfrag train critic --config critic.yaml --epochs 2          # flags override the file
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


def _help(text: str, **extra: object) -> dict[str, object]:
    return {"help": text, **extra}


CRITIC_PROMPTS_HELP = _help("critic prompt set: paper for trained critics, zero_shot for instruct models",
                            choices=("paper", "zero_shot"))
"""The ``--prompts`` of every command that asks a critic model its labels."""

COLLECTION_GROUPS = ("retrieval", "retrieval_preceding", "relevance", "groundedness", "utility")
"""What critic-data collection can ask the teacher (paper Appendix D, Tables 8-12)."""


def _as_lists(config: object, *names: str) -> None:
    """Let a list field be given as one string (a single file from Python or a config file)."""
    for name in names:
        if isinstance(getattr(config, name), str):
            setattr(config, name, [getattr(config, name)])


def _required(text: str) -> dict[str, object]:
    """Metadata of a field the command line must get (as a flag or in the ``--config`` file)."""
    return {"help": text, "required": True}


@dataclass
class TrainingConfig:
    """What every training run takes: data, base model, optimisation, LoRA, scale, checkpoints."""

    data: list[str] = field(default_factory=list, metadata=_required("training data, JSON Lines (one or more files)"))
    out: str = field(default="", metadata=_required("output directory: the trained model (or adapter), checkpoints "
                                                "under out/checkpoints, the loss log"))
    base: str = field(default=DEFAULT_MODEL, metadata=_help("base causal LM: hub id, local directory, .gguf file "
                                                            "or the embedded default"))
    epochs: float = field(default=1.0, metadata=_help("training epochs (the paper: 3)"))
    max_steps: int = field(default=-1, metadata=_help("stop after this many optimiser steps (-1: run the epochs)"))
    learning_rate: float | None = field(default=None, metadata=_help("peak learning rate (default: 2e-4 with "
                                                                     "--lora, 2e-5 without, the paper's)"))
    batch_size: int = field(default=1, metadata=_help("examples per device per forward pass"))
    gradient_accumulation_steps: int = field(default=8, metadata=_help(
        "forward passes per optimiser step (effective batch = batch_size x this x devices; the paper: 128)"))
    max_length: int = field(default=1024, metadata=_help("tokens per example, longer ones are cut (the paper: "
                                                         "2048 for 7B)"))
    warmup_ratio: float = field(default=0.03, metadata=_help("share of steps with linear warm-up, then linear "
                                                             "decay"))
    weight_decay: float = field(default=0.0, metadata=_help("AdamW weight decay"))
    lora: bool = field(default=False, metadata=_help("train a LoRA adapter (peft) instead of all weights"))
    lora_r: int = field(default=16, metadata=_help("LoRA rank"))
    lora_alpha: int = field(default=32, metadata=_help("LoRA scaling alpha"))
    lora_dropout: float = field(default=0.05, metadata=_help("LoRA dropout"))
    lora_target: str = field(default="all-linear", metadata=_help("LoRA target modules: all-linear or "
                                                                  "comma-separated module names"))
    merge: bool = field(default=False, metadata=_help("with --lora: save the base with the adapter merged in "
                                                      "(a full model) instead of the adapter alone"))
    token_learning_rate: float = field(default=1e-2, metadata=_help(
        "with --lora: learning rate of the added reflection tokens' embedding rows; they start at the mean "
        "embedding and must move far, which steps of the LoRA learning rate do not do in a short run"))
    bf16: bool | None = field(default=None, metadata=_help("bfloat16 mixed precision (default: on when a CUDA "
                                                           "GPU supports it)"))
    deepspeed: str | None = field(default=None, metadata=_help("DeepSpeed config: zero2, zero3 (shipped in "
                                                               "trainer/configs) or a JSON path"))
    gradient_checkpointing: bool = field(default=False, metadata=_help("recompute activations to save memory"))
    resume: bool = field(default=False, metadata=_help("resume from the latest checkpoint under out/checkpoints"))
    save_steps: int = field(default=200, metadata=_help("save a checkpoint every N optimiser steps"))
    save_total_limit: int = field(default=2, metadata=_help("checkpoints kept"))
    logging_steps: int = field(default=10, metadata=_help("log the loss every N optimiser steps"))
    limit: int | None = field(default=None, metadata=_help("use only the first N examples"))
    seed: int = field(default=42, metadata=_help("random seed (data order, LoRA init)"))
    device: str | None = field(default=None, metadata=_help("cpu forces the CPU (default: the GPU if there is one)"))

    def __post_init__(self) -> None:
        _as_lists(self, "data")
        positive = {"batch_size": self.batch_size, "gradient_accumulation_steps": self.gradient_accumulation_steps,
                    "max_length": self.max_length, "lora_r": self.lora_r, "save_steps": self.save_steps,
                    "logging_steps": self.logging_steps, "save_total_limit": self.save_total_limit}
        for name, value in positive.items():
            if value < 1:
                msg = f"{name} must be >= 1, got {value}"
                raise ConfigurationError(msg)
        if self.epochs <= 0 and self.max_steps <= 0:
            msg = f"epochs must be > 0 (or set max_steps), got {self.epochs}"
            raise ConfigurationError(msg)
        for name in ("learning_rate", "token_learning_rate"):
            if getattr(self, name) is not None and getattr(self, name) <= 0:
                msg = f"{name} must be > 0, got {getattr(self, name)}"
                raise ConfigurationError(msg)
        if not 0.0 <= self.warmup_ratio < 1.0:
            msg = f"warmup_ratio must be in [0, 1), got {self.warmup_ratio}"
            raise ConfigurationError(msg)
        if not 0.0 <= self.lora_dropout < 1.0:
            msg = f"lora_dropout must be in [0, 1), got {self.lora_dropout}"
            raise ConfigurationError(msg)
        if self.limit is not None and self.limit < 1:
            msg = f"limit must be >= 1, got {self.limit}"
            raise ConfigurationError(msg)
        if self.merge and not self.lora:
            msg = "merge applies only with lora: a full fine-tune is saved as a full model anyway"
            raise ConfigurationError(msg)
        if self.merge and self.deepspeed:
            msg = "merge is not available under DeepSpeed (the weights are sharded): save the adapter, which loads " \
                  "as a model directory as it is"
            raise ConfigurationError(msg)

    @property
    def peak_learning_rate(self) -> float:
        if self.learning_rate is not None:
            return self.learning_rate
        return 2e-4 if self.lora else 2e-5

    def deepspeed_file(self) -> str | None:
        """The DeepSpeed JSON the ``deepspeed`` field names, checked to exist."""
        if self.deepspeed is None:
            return None
        path = DEEPSPEED_PRESETS.get(self.deepspeed, Path(self.deepspeed).expanduser())
        if not path.is_file():
            msg = f"deepspeed config {self.deepspeed} not found: give zero2, zero3 or a JSON file"
            raise ConfigurationError(msg)
        return str(path)


@dataclass
class CriticConfig(TrainingConfig):
    """Critic training (paper Eq. 1): (instruction, input) -> label, loss on the label only."""

    data: list[str] = field(default_factory=list, metadata=_required(
        "labelled critic data, one or more files: " + CRITIC_DATA_HELP))

    add_tokens: bool = field(default=False, metadata=_help(
        "add the 15 reflection tokens as special tokens, so every label is one token (the released critic "
        "predicts them as plain text)"))
    per_group: int | None = field(default=None, metadata=_help(
        "balanced subset: at most N examples per task (retrieval, relevance, groundedness, utility)"))
    per_label: int | None = field(default=None, metadata=_help(
        "class-balanced subset: at most N examples of each (task, label), drawn with the seed, so the critic "
        "cannot do well by answering a group's most frequent label"))
    tasks: list[str] = field(default_factory=lambda: list(CRITIC_TASKS), metadata=_help(
        "tasks to train on", choices=CRITIC_TASKS))

    def __post_init__(self) -> None:
        super().__post_init__()
        for name in ("per_group", "per_label"):
            if getattr(self, name) is not None and getattr(self, name) < 1:
                msg = f"{name} must be >= 1, got {getattr(self, name)}"
                raise ConfigurationError(msg)
        _check_choices("tasks", self.tasks, CRITIC_TASKS)


@dataclass
class GeneratorConfig(TrainingConfig):
    """Generator training (paper Eq. 2): output and reflection tokens, passages masked out of the loss."""

    held_out: int = field(default=0, metadata=_help(
        "the last N rows of each data file stay out of training, for checking the generator on rows it did not see"))

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.held_out < 0:
            msg = f"held_out must be >= 0, got {self.held_out}"
            raise ConfigurationError(msg)


@dataclass
class CriticDataConfig:
    """Critic data collection: a teacher LM behind an OpenAI-compatible API labels (x, y) pairs."""

    input: str = field(default="", metadata=_required(
        "JSON Lines of items: instruction (required), input, output, evidence (or ctxs), preceding, id"))
    out: str = field(default="", metadata=_required("critic data to append to (JSON Lines: instruction, input, output, "
                                                "task, id); a re-run skips items already there"))
    model: str = field(default="", metadata=_required("the teacher model's name on the server"))
    base_url: str | None = field(default=None, metadata=_help(
        "OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1 (default: $OPENAI_BASE_URL or OpenAI's)"))
    api_key: str | None = field(default=None, metadata=_help("API key (default: $OPENAI_API_KEY)"))
    groups: list[str] = field(default_factory=lambda: list(COLLECTION_GROUPS), metadata=_help(
        "what to ask: retrieval (Table 8), retrieval_preceding (Table 9), relevance (Table 10), "
        "groundedness (Table 11), utility (Table 12); an item is asked only the groups its fields allow",
        choices=COLLECTION_GROUPS))
    temperature: float = field(default=1.0, metadata=_help("sampling temperature (the paper: 1)"))
    max_tokens: int = field(default=200, metadata=_help("answer budget in tokens (the paper: 200)"))
    max_retries: int = field(default=5, metadata=_help("retries of a request after a timeout, connection error "
                                                       "or HTTP 429/5xx, with exponential backoff"))
    timeout: float = field(default=60.0, metadata=_help("seconds per request"))
    concurrency: int = field(default=1, metadata=_help("requests in flight"))
    limit: int | None = field(default=None, metadata=_help("ask about only the first N items"))

    def __post_init__(self) -> None:
        _check_choices("groups", self.groups, COLLECTION_GROUPS)
        for name in ("max_tokens", "concurrency"):
            if getattr(self, name) < 1:
                msg = f"{name} must be >= 1, got {getattr(self, name)}"
                raise ConfigurationError(msg)
        if self.max_retries < 0 or self.timeout <= 0 or self.temperature < 0:
            msg = "max_retries must be >= 0, timeout > 0 and temperature >= 0"
            raise ConfigurationError(msg)


@dataclass
class CriticEvalConfig:
    """Judge evaluation: agreement with held-out labels, per task, beside the majority-label baseline. Without
    --model it evaluates the default judge (the calibrated judge, or --calibration FILE) exactly as SelfRAG uses it."""

    data: str = field(default="", metadata=_required("held-out critic data: " + CRITIC_DATA_HELP))
    model: str = field(default="", metadata=_help("a critic model: a trained critic directory (full or LoRA adapter), "
                                                  "hub id, .gguf file, or the embedded default (default: no model, "
                                                  "evaluate the calibrated judge)"))
    calibration: str | None = field(default=None, metadata=_help(
        "without --model: a judge calibration written by `selfrag train judge` (default: the shipped one; --judge "
        "is its former name)", aliases=("--judge",)))
    prompts: str = field(default="paper", metadata=CRITIC_PROMPTS_HELP)
    label_bias: bool = field(default=True, metadata=_help(
        "read a trained critic with the label bias saved beside it (`selfrag train critic-bias`), as SelfRAG does; "
        "--no-label-bias reads it without"))
    out: str | None = field(default=None, metadata=_help("JSON file for the table and per-example predictions "
                                                         "(default: print only)"))
    limit: int | None = field(default=None, metadata=_help("evaluate only the first N rows"))
    device: str = field(default="cpu", metadata=_help("torch device"))

    def __post_init__(self) -> None:
        if self.limit is not None and self.limit < 1:
            msg = f"limit must be >= 1, got {self.limit}"
            raise ConfigurationError(msg)
        if self.model and self.calibration:
            msg = "--calibration evaluates a calibrated judge and --model a critic model: give one of them"
            raise ConfigurationError(msg)


@dataclass
class CriticBiasConfig:
    """Label bias for a trained critic: one log-weight per label, fitted on labelled rows it never trained on
    so that its lines between labels fall where those rows put them; saved in the critic's directory, where
    SelfRAG and critic-eval find it."""

    model: str = field(default="", metadata=_required("a trained critic directory (written by `selfrag train "
                                                      "critic`)"))
    data: list[str] = field(default_factory=list, metadata=_required(
        "labelled rows of the kind the critic will judge, one or more files: " + CRITIC_DATA_HELP + "; rows the "
        "critic trained on are skipped"))
    prompts: str = field(default="paper", metadata=CRITIC_PROMPTS_HELP)
    folds: int = field(default=5, metadata=_help("cross-validation folds: a group keeps its bias only when it "
                                                 "raises the balanced accuracy on rows it was not fitted on"))
    min_rows: int = field(default=10, metadata=_help("rows of a label at least for its weight to be fitted"))
    seed: int = field(default=0, metadata=_help("seed of the fold split"))
    device: str = field(default="cpu", metadata=_help("torch device"))

    def __post_init__(self) -> None:
        _as_lists(self, "data")
        if self.folds < 2:
            msg = f"folds must be >= 2, got {self.folds}"
            raise ConfigurationError(msg)
        if self.min_rows < 2:
            msg = f"min_rows must be >= 2 (a label's rows are split across folds), got {self.min_rows}"
            raise ConfigurationError(msg)


@dataclass
class JudgeConfig:
    """Calibrated judge: one logistic regression per reflection group over embedding and word-overlap signals,
    fitted to labelled critic data, one or more files (the package ships the fit on Self-RAG's
    critic_train.jsonl)."""

    data: list[str] = field(default_factory=list, metadata=_required(
        "labelled critic data, one or more files: " + CRITIC_DATA_HELP))
    out: str = field(default="", metadata=_required("JSON file for the calibration (tens of kilobytes)"))
    per_label: int | None = field(default=None, metadata=_help(
        "rows of one (task, label) at most, drawn with the seed, so one large file cannot decide a group "
        "(default: all)"))
    folds: int = field(default=5, metadata=_help("cross-validation folds for choosing regularisation and class "
                                                 "weights"))
    reader: str | None = field(default=None, metadata=_help(
        "fit the entailment judge: add a sentence reader's signals (answer sentences, claim-by-claim entailment); "
        "'shipped' or a directory written by `selfrag train reader` (default: none, the calibrated judge)"))
    seed: int = field(default=0, metadata=_help("seed of the fold split and of the per-label draw"))

    def __post_init__(self) -> None:
        _as_lists(self, "data")
        if self.folds < 2:
            msg = f"folds must be >= 2, got {self.folds}"
            raise ConfigurationError(msg)
        if self.per_label is not None and self.per_label < 1:
            msg = f"per_label must be >= 1, got {self.per_label}"
            raise ConfigurationError(msg)


@dataclass
class JudgeDataConfig:
    """Synthetic judgements for the judge (swapped facts, neighbouring entities, added claims), made
    with a fixed seed from training-side passages: critic files' evidence and eval files' passages, never their
    questions or answers."""

    critic: list[str] = field(default_factory=list, metadata=_required(
        "critic files (JSON Lines): their evidence passages and group instructions are read"))
    out: str = field(default="", metadata=_required("JSON Lines file for the synthetic rows (critic format)"))
    passages: list[str] = field(default_factory=list, metadata=_help(
        "eval files in Self-RAG's format whose passages (ctxs) are read; each row's own subject is skipped"))
    per_kind: int = field(default=400, metadata=_help("rows of each kind at most"))
    seed: int = field(default=0, metadata=_help("seed of every choice"))
    tasks: list[str] = field(default_factory=lambda: list(SYNTHETIC_TASKS), metadata=_help(
        "tasks whose rows are written; the rows kept are the same as in a file of every task",
        choices=SYNTHETIC_TASKS))

    def __post_init__(self) -> None:
        _as_lists(self, "critic", "passages", "tasks")
        if self.per_kind < 1:
            msg = f"per_kind must be >= 1, got {self.per_kind}"
            raise ConfigurationError(msg)
        _check_choices("tasks", self.tasks, SYNTHETIC_TASKS)


@dataclass
class GeneratorPairsConfig:
    """(x, y) pairs for generator data, made with a fixed seed from training-side files: critic rows' whole
    outputs, and questions about passages' entities answered by a sentence of the passage that names them."""

    critic: list[str] = field(default_factory=list, metadata=_required(
        "critic files (JSON Lines) on the training side: their instructions, outputs and evidence are read"))
    out: str = field(default="", metadata=_required("JSON Lines file for the pairs (instruction, output, id, "
                                                    "dataset_name)"))
    passages: list[str] = field(default_factory=list, metadata=_help(
        "eval files in Self-RAG's format whose passages (ctxs) are read too; each row's own subject is skipped"))
    passages_out: str | None = field(default=None, metadata=_help(
        "also write the passages as JSON Lines (title, text) for `selfrag index`"))
    per_kind: int = field(default=600, metadata=_help("pairs of each kind (critic, entity) at most"))
    max_words: int = field(default=60, metadata=_help("critic outputs longer than this are left out"))
    seed: int = field(default=0, metadata=_help("seed of every choice"))

    def __post_init__(self) -> None:
        _as_lists(self, "critic", "passages")
        for name in ("per_kind", "max_words"):
            if getattr(self, name) < 1:
                msg = f"{name} must be >= 1, got {getattr(self, name)}"
                raise ConfigurationError(msg)


@dataclass
class JudgeEncoderConfig:
    """Learned judge: the top layers of the shipped all-MiniLM-L6-v2 and a head, trained as a cross-encoder on
    labelled critic data (IsRel, IsSup and IsUse rows; Retrieve stays with the calibrated judge)."""

    data: list[str] = field(default_factory=list, metadata=_required(
        "labelled critic data, one or more files: " + CRITIC_DATA_HELP))
    out: str = field(default="", metadata=_required(
        "directory for the judge (judge_encoder.safetensors and judge_encoder.json, a few MB) and its "
        "checkpoints (out/checkpoints: a re-run with the same arguments resumes from the last one)"))
    per_label: int | None = field(default=1000, metadata=_help(
        "rows of one (task, label) at most, drawn with the seed, so one large file cannot decide a group"))
    trained_layers: int = field(default=3, metadata=_help("top encoder layers trained (the rest stay the shipped "
                                                          "MiniLM's)"))
    epochs: float = field(default=2.0, metadata=_help("passes over the rows"))
    learning_rate: float = field(default=1e-4, metadata=_help("peak learning rate (linear warm-up, then decay)"))
    batch_size: int = field(default=16, metadata=_help("pairs per optimiser step"))
    max_length: int = field(default=256, metadata=_help("word pieces per pair; the longer text is cut first"))
    support_sentences: int | None = field(default=None, metadata=_help(
        "IsSup reads the passage's title and this many of its sentences, those sharing most words with the output "
        "(default: the whole passage)"))
    mark_unstated: bool = field(default=False, metadata=_help(
        "IsRel and IsSup list, after the question or output, its words that the passage does not state"))
    seed: int = field(default=0, metadata=_help("seed of the per-label draw, the head's initialisation and the "
                                                "order of the rows"))

    def __post_init__(self) -> None:
        _as_lists(self, "data")
        if not 1 <= self.trained_layers <= 6:
            msg = f"trained_layers must be between 1 and 6 (MiniLM's layers), got {self.trained_layers}"
            raise ConfigurationError(msg)
        for name in ("epochs", "learning_rate", "batch_size", "max_length"):
            if getattr(self, name) <= 0:
                msg = f"{name} must be > 0, got {getattr(self, name)}"
                raise ConfigurationError(msg)
        if self.per_label is not None and self.per_label < 1:
            msg = f"per_label must be >= 1, got {self.per_label}"
            raise ConfigurationError(msg)


@dataclass
class ReaderConfig:
    """Sentence reader: the shipped all-MiniLM-L6-v2 trained as a cross-encoder on entailment pairs (nli/) and
    answer sentences (squad/), the two readings the entailment judge applies sentence by sentence."""

    nli: str = field(default="", metadata=_required(
        "the folder of entailment pairs (snli_dev_test, snli_counterfactual, mnli_taxinli, halueval_qa .jsonl)"))
    squad: str = field(default="", metadata=_required(
        "the folder of SQuAD files (squad11_train.jsonl, squad20_dev.jsonl)"))
    out: str = field(default="", metadata=_required(
        "directory for the reader (sentence_reader.safetensors and sentence_reader.json, about 20 MB), its "
        "held-out report, and its checkpoints (out/checkpoints: a re-run with the same arguments resumes)"))
    pairs: list[str] = field(default_factory=list, metadata=_help(
        "your own labelled pairs, trained on beside the shared data: JSON Lines or CSV (.csv) rows of premise, "
        "hypothesis, label (entailment, neutral, contradiction) or of question, sentence, label (answers, does not "
        "answer)"))
    init: str | None = field(default=None, metadata=_help(
        "a trained reader's directory to start from (its top layers and head; the same trained_layers), e.g. to "
        "go on training the shipped one on your own pairs; none: the shipped MiniLM with a new head"))
    snli: int = field(default=10_000, metadata=_help("SNLI pairs drawn"))
    hard_negatives: bool = field(default=True, metadata=_help(
        "answer-sentence negatives that share words with the question (of its paragraph, of another paragraph "
        "of its article, of another article) rather than drawn at random"))
    squad_paragraphs: int = field(default=4_000, metadata=_help(
        "SQuAD paragraphs drawn: half give answer sentences, half the changed-value contrasts"))
    contrasts_per_kind: int = field(default=1_500, metadata=_help("contrast pairs of each kind at most"))
    held_mnli: int = field(default=1_000, metadata=_help("MultiNLI rows held out for the report"))
    held_halueval: int = field(default=300, metadata=_help("HaluEval items held out for the report"))
    trained_layers: int = field(default=6, metadata=_help("top encoder layers trained (the embeddings stay the "
                                                          "shipped MiniLM's)"))
    epochs: float = field(default=1.0, metadata=_help("passes over the pairs"))
    learning_rate: float = field(default=5e-5, metadata=_help("peak learning rate (linear warm-up, then decay)"))
    batch_size: int = field(default=32, metadata=_help("pairs per optimiser step"))
    max_length: int = field(default=128, metadata=_help("word pieces per pair; the longer text is cut first"))
    seed: int = field(default=0, metadata=_help("seed of every draw, the head's initialisation and the order of "
                                                "the pairs"))

    def __post_init__(self) -> None:
        _as_lists(self, "pairs")
        if not 1 <= self.trained_layers <= 6:
            msg = f"trained_layers must be between 1 and 6 (MiniLM's layers), got {self.trained_layers}"
            raise ConfigurationError(msg)
        for name in ("epochs", "learning_rate", "batch_size", "max_length", "snli", "squad_paragraphs",
                     "contrasts_per_kind"):
            if getattr(self, name) <= 0:
                msg = f"{name} must be > 0, got {getattr(self, name)}"
                raise ConfigurationError(msg)
        for name in ("held_mnli", "held_halueval"):
            if getattr(self, name) < 0:
                msg = f"{name} must be >= 0, got {getattr(self, name)}"
                raise ConfigurationError(msg)


@dataclass
class GeneratorDataConfig:
    """Generator data creation (paper Algorithm 3): a critic inserts reflection tokens and passages."""

    input: str = field(default="", metadata=_required("JSON Lines of (instruction, output) pairs, optional input, "
                                                      "id"))
    out: str = field(default="", metadata=_required("generator data to append to (instruction, input, output, id); a "
                                                "re-run skips items already there"))
    critic: str = field(default=DEFAULT_MODEL, metadata=_help("the critic model (a trained critic directory, ...)"))
    critic_prompts: str = field(default="paper", metadata=_help("critic prompt set", choices=("paper", "zero_shot")))
    calibration: str | None = field(default=None, metadata=_help(
        "judge with the calibrated judge instead of a critic model: 'shipped' (the embedded default's) or a file "
        "written by `selfrag train judge`"))
    store: str | None = field(default=None, metadata=_help(
        "Chroma store to retrieve from (default: the store `selfrag index` fills, else the demo corpus)"))
    k: int = field(default=3, metadata=_help("passages retrieved per sentence"))
    retrieve_threshold: float = field(default=0.5, metadata=_help(
        "retrieve for an item when p([Retrieval]) exceeds this"))
    limit: int | None = field(default=None, metadata=_help("process only the first N items"))
    seed: int = field(default=42, metadata=_help("seed of the random passage choice when none is relevant"))
    device: str = field(default="cpu", metadata=_help("torch device of the critic"))

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


def _check_choices(name: str, values: list[str], allowed: tuple[str, ...]) -> None:
    unknown = [v for v in values if v not in allowed]
    if unknown or not values:
        msg = f"unknown {name} {', '.join(unknown) or '(none given)'}: choose from {', '.join(allowed)}"
        raise ConfigurationError(msg)
