"""The configuration of each step that trains with ``transformers.Trainer``: ``TrainingArguments`` plus what
the step adds, as trl's ``SFTConfig`` does.

Every ``TrainingArguments`` field is a flag of these steps (``--lr-scheduler-type cosine``, ``--optim
adafactor``, ``--report-to tensorboard``, ...); a field is declared here again only where the step's default
differs from transformers' (its help kept), and the step's own fields follow. Importing this module loads
transformers; :mod:`selfrag_langchain.commands.train` imports it only for the step it runs.

Examples:
    selfrag train critic --data critic_train.jsonl --out critic --lora --per-group 100
    selfrag train generator --config generator.yaml --num-train-epochs 2 --lr-scheduler-type cosine
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from transformers import TrainingArguments

from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.llms.model_loading import DEFAULT_MODEL
from selfrag_langchain.trainer.config import (
    CRITIC_DATA_HELP,
    CRITIC_TASKS,
    DEEPSPEED_PRESETS,
    as_lists,
    check_choices,
    described,
)

CHECKPOINT_DIR = "checkpoints"
"""Where under ``out`` a run keeps its checkpoints (``output_dir`` unless given)."""


def _default(name: str, value: object, **extra: object) -> Any:
    """``TrainingArguments``' field ``name`` with the step's own default; its help is transformers'."""
    metadata = {**TrainingArguments.__dataclass_fields__[name].metadata, **extra}
    return field(default=value, metadata=metadata)


@dataclass(kw_only=True)
class TrainerConfig(TrainingArguments):
    """What every step that runs ``transformers.Trainer`` takes: its arguments and the directory of the result."""

    out: str = field(metadata=described("output directory: the trained model (or adapter), checkpoints under "
                                        "out/checkpoints, the loss log"))
    output_dir: str | None = field(default=None, metadata=described(
        "the trainer's checkpoints (default: out/checkpoints, where a re-run resumes from)"))
    remove_unused_columns: bool = _default("remove_unused_columns", False)
    optim: str = _default("optim", "adamw_torch")
    deepspeed: str | None = field(default=None, metadata=described(
        "DeepSpeed config: zero2, zero3 (shipped in trainer/configs) or a JSON path"))

    def __post_init__(self) -> None:
        # What transformers leaves to fail deep inside a run.
        for name in ("per_device_train_batch_size", "gradient_accumulation_steps"):
            if getattr(self, name) < 1:
                msg = f"{name} must be >= 1, got {getattr(self, name)}"
                raise ConfigurationError(msg)
        if self.num_train_epochs <= 0 and self.max_steps <= 0:
            msg = f"num_train_epochs must be > 0 (or set max_steps), got {self.num_train_epochs}"
            raise ConfigurationError(msg)
        if self.output_dir is None:
            self.output_dir = str(Path(self.out) / CHECKPOINT_DIR)
        if self.data_seed is None:
            self.data_seed = self.seed
        if self.deepspeed is not None:
            self.deepspeed = deepspeed_file(self.deepspeed)
        try:
            super().__post_init__()
        except ValueError as e:  # transformers' own checks of its arguments
            raise ConfigurationError(str(e)) from e


def deepspeed_file(name: str) -> str:
    """The DeepSpeed JSON a ``--deepspeed`` value names (a shipped preset or a path), checked to exist."""
    path = DEEPSPEED_PRESETS.get(name, Path(name).expanduser())
    if not path.is_file():
        msg = f"deepspeed config {name} not found: give zero2, zero3 or a JSON file"
        raise ConfigurationError(msg)
    return str(path)


@dataclass(kw_only=True)
class TrainingConfig(TrainerConfig):
    """What critic and generator training take: data, base model, LoRA, and the paper's optimisation."""

    data: list[str] = field(metadata=described("training data, JSON Lines (one or more files)"))
    base: str = field(default=DEFAULT_MODEL, metadata=described(
        "base causal LM: hub id, local directory, .gguf file or the embedded default"))
    learning_rate: float | None = field(default=None, metadata=described(
        "peak learning rate (default: 2e-4 with --lora, 2e-5 without, the paper's)"))
    num_train_epochs: float = _default("num_train_epochs", 1.0, aliases=["--epochs"])
    per_device_train_batch_size: int = _default("per_device_train_batch_size", 1, aliases=["--batch-size"])
    gradient_accumulation_steps: int = _default("gradient_accumulation_steps", 8)
    warmup_steps: float = _default("warmup_steps", 0.03, aliases=["--warmup-ratio"])
    save_steps: float = _default("save_steps", 200)
    save_total_limit: int | None = _default("save_total_limit", 2)
    logging_steps: float = _default("logging_steps", 10)
    logging_first_step: bool = _default("logging_first_step", True)
    bf16: bool | None = field(default=None, metadata=described(
        "bfloat16 mixed precision (default: on when a CUDA GPU that supports it is used)"))
    max_length: int = field(default=1024, metadata=described(
        "tokens per example, longer ones are cut (the paper: 2048 for 7B)"))
    lora: bool = field(default=False, metadata=described("train a LoRA adapter (peft) instead of all weights"))
    lora_r: int = field(default=16, metadata=described("LoRA rank"))
    lora_alpha: int = field(default=32, metadata=described("LoRA scaling alpha"))
    lora_dropout: float = field(default=0.05, metadata=described("LoRA dropout"))
    lora_target: str = field(default="all-linear", metadata=described(
        "LoRA target modules: all-linear or comma-separated module names"))
    merge: bool = field(default=False, metadata=described(
        "with --lora: save the base with the adapter merged in (a full model) instead of the adapter alone"))
    token_learning_rate: float = field(default=1e-2, metadata=described(
        "with --lora: learning rate of the added reflection tokens' embedding rows; they start at the mean "
        "embedding and must move far, which steps of the LoRA learning rate do not do in a short run"))
    resume: bool = field(default=False, metadata=described(
        "resume from the latest checkpoint under out/checkpoints"))
    limit: int | None = field(default=None, metadata=described("use only the first N examples"))

    def __post_init__(self) -> None:
        as_lists(self, "data")
        if self.learning_rate is None:
            self.learning_rate = 2e-4 if self.lora else 2e-5
        if self.bf16 is None:
            self.bf16 = _bf16_on_gpu(self.use_cpu)
        for name in ("max_length", "lora_r"):
            if getattr(self, name) < 1:
                msg = f"{name} must be >= 1, got {getattr(self, name)}"
                raise ConfigurationError(msg)
        if self.learning_rate <= 0 or self.token_learning_rate <= 0:
            msg = "learning_rate and token_learning_rate must be > 0"
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
        super().__post_init__()


def _bf16_on_gpu(use_cpu: bool) -> bool:
    import torch

    return not use_cpu and torch.cuda.is_available() and torch.cuda.is_bf16_supported()


@dataclass(kw_only=True)
class CriticConfig(TrainingConfig):
    """Critic training (paper Eq. 1): (instruction, input) -> label, loss on the label only."""

    data: list[str] = field(metadata=described(
        "labelled critic data, one or more files: " + CRITIC_DATA_HELP))
    add_tokens: bool = field(default=False, metadata=described(
        "add the 15 reflection tokens as special tokens, so every label is one token (the released critic "
        "predicts them as plain text)"))
    per_group: int | None = field(default=None, metadata=described(
        "balanced subset: at most N examples per task (retrieval, relevance, groundedness, utility)"))
    per_label: int | None = field(default=None, metadata=described(
        "class-balanced subset: at most N examples of each (task, label), drawn with the seed, so the critic "
        "cannot do well by answering a group's most frequent label"))
    tasks: list[str] = field(default_factory=lambda: list(CRITIC_TASKS), metadata=described(
        "tasks to train on", choices=CRITIC_TASKS))

    def __post_init__(self) -> None:
        for name in ("per_group", "per_label"):
            if getattr(self, name) is not None and getattr(self, name) < 1:
                msg = f"{name} must be >= 1, got {getattr(self, name)}"
                raise ConfigurationError(msg)
        as_lists(self, "tasks")
        check_choices("tasks", self.tasks, CRITIC_TASKS)
        super().__post_init__()


@dataclass(kw_only=True)
class GeneratorConfig(TrainingConfig):
    """Generator training (paper Eq. 2): output and reflection tokens, passages masked out of the loss."""

    held_out: int = field(default=0, metadata=described(
        "the last N rows of each data file stay out of training, for checking the generator on rows it did not see"))

    def __post_init__(self) -> None:
        if self.held_out < 0:
            msg = f"held_out must be >= 0, got {self.held_out}"
            raise ConfigurationError(msg)
        super().__post_init__()


@dataclass(kw_only=True)
class EncoderTrainingConfig(TrainerConfig):
    """What the cross-encoders on the shipped MiniLM take (the learned judge, the sentence reader)."""

    trained_layers: int = field(default=6, metadata=described(
        "top encoder layers trained (the embeddings stay the shipped MiniLM's)"))
    max_length: int = field(default=128, metadata=described("word pieces per pair; the longer text is cut first"))
    seed: int = _default("seed", 0)
    warmup_steps: float = _default("warmup_steps", 0.06, aliases=["--warmup-ratio"])
    weight_decay: float = _default("weight_decay", 0.01)
    save_total_limit: int | None = _default("save_total_limit", 1)

    def __post_init__(self) -> None:
        if not 1 <= self.trained_layers <= 6:
            msg = f"trained_layers must be between 1 and 6 (MiniLM's layers), got {self.trained_layers}"
            raise ConfigurationError(msg)
        if self.max_length < 1:
            msg = f"max_length must be >= 1, got {self.max_length}"
            raise ConfigurationError(msg)
        super().__post_init__()


@dataclass(kw_only=True)
class JudgeEncoderConfig(EncoderTrainingConfig):
    """Learned judge: the top layers of the shipped all-MiniLM-L6-v2 and a head, trained as a cross-encoder on
    labelled critic data (IsRel, IsSup and IsUse rows; Retrieve stays with the calibrated judge)."""

    data: list[str] = field(metadata=described("labelled critic data, one or more files: " + CRITIC_DATA_HELP))
    out: str = field(metadata=described(
        "directory for the judge (judge_encoder.safetensors and judge_encoder.json, a few MB) and its "
        "checkpoints (out/checkpoints: a re-run with the same arguments resumes from the last one)"))
    per_label: int | None = field(default=1000, metadata=described(
        "rows of one (task, label) at most, drawn with the seed, so one large file cannot decide a group"))
    trained_layers: int = field(default=3, metadata=described(
        "top encoder layers trained (the rest stay the shipped MiniLM's)"))
    num_train_epochs: float = _default("num_train_epochs", 2.0, aliases=["--epochs"])
    learning_rate: float = _default("learning_rate", 1e-4)
    per_device_train_batch_size: int = _default("per_device_train_batch_size", 16, aliases=["--batch-size"])
    max_length: int = field(default=256, metadata=described("word pieces per pair; the longer text is cut first"))
    logging_steps: float = _default("logging_steps", 20)
    save_steps: float = _default("save_steps", 100)
    support_sentences: int | None = field(default=None, metadata=described(
        "IsSup reads the passage's title and this many of its sentences, those sharing most words with the output "
        "(default: the whole passage)"))
    mark_unstated: bool = field(default=False, metadata=described(
        "IsRel and IsSup list, after the question or output, its words that the passage does not state"))

    def __post_init__(self) -> None:
        as_lists(self, "data")
        if self.per_label is not None and self.per_label < 1:
            msg = f"per_label must be >= 1, got {self.per_label}"
            raise ConfigurationError(msg)
        super().__post_init__()


@dataclass(kw_only=True)
class SentencePairConfig(EncoderTrainingConfig):
    """What the encoders that read a question or claim beside one sentence train with (the sentence reader, the
    answer finder): one epoch of batches of 32 at 5e-5."""

    num_train_epochs: float = _default("num_train_epochs", 1.0, aliases=["--epochs"])
    learning_rate: float = _default("learning_rate", 5e-5)
    per_device_train_batch_size: int = _default("per_device_train_batch_size", 32, aliases=["--batch-size"])
    logging_steps: float = _default("logging_steps", 50)
    save_steps: float = _default("save_steps", 200)


@dataclass(kw_only=True)
class ReaderConfig(SentencePairConfig):
    """Sentence reader: the shipped all-MiniLM-L6-v2 trained as a cross-encoder on entailment pairs (nli/) and
    answer sentences (squad/), the two readings the entailment judge applies sentence by sentence."""

    nli: str = field(metadata=described(
        "the folder of entailment pairs (snli_dev_test, snli_counterfactual, mnli_taxinli, halueval_qa .jsonl)"))
    squad: str = field(metadata=described("the folder of SQuAD files (squad11_train.jsonl, squad20_dev.jsonl)"))
    out: str = field(metadata=described(
        "directory for the reader (sentence_reader.safetensors and sentence_reader.json, about 20 MB), its "
        "held-out report, and its checkpoints (out/checkpoints: a re-run with the same arguments resumes)"))
    pairs: list[str] = field(default_factory=list, metadata=described(
        "your own labelled pairs, trained on beside the shared data: JSON Lines or CSV (.csv) rows of premise, "
        "hypothesis, label (entailment, neutral, contradiction) or of question, sentence, label (answers, does not "
        "answer)"))
    init: str | None = field(default=None, metadata=described(
        "a trained reader's directory to start from (its top layers and head; the same trained_layers), e.g. to "
        "go on training the shipped one on your own pairs; none: the shipped MiniLM with a new head"))
    snli: int = field(default=10_000, metadata=described("SNLI pairs drawn"))
    hard_negatives: bool = field(default=True, metadata=described(
        "answer-sentence negatives that share words with the question (of its paragraph, of another paragraph "
        "of its article, of another article) rather than drawn at random"))
    squad_paragraphs: int = field(default=4_000, metadata=described(
        "SQuAD paragraphs drawn: half give answer sentences, half the changed-value contrasts"))
    contrasts_per_kind: int = field(default=1_500, metadata=described("contrast pairs of each kind at most"))
    held_mnli: int = field(default=1_000, metadata=described("MultiNLI rows held out for the report"))
    held_halueval: int = field(default=300, metadata=described("HaluEval items held out for the report"))
    selqa_dev: int = field(default=0, metadata=described(
        "times SelQA's development pairs (squad/selqa_dev.jsonl: paraphrased questions against their section's "
        "sentences) are read in an epoch; 0 leaves them out. SelQA's test questions are never read"))
    replay: int | None = field(default=None, metadata=described(
        "at most this many of the nli/ and SQuAD training pairs, drawn with the seed, e.g. for a later stage that "
        "replays a sample of what the earlier ones read (default: all)"))
    lead_questions: int = field(default=0, metadata=described(
        "SQuAD training questions answered after their article's lead sentence, each read against its answer "
        "sentence (answers) and against the lead (does not answer), beside every question the lead answers (394 "
        "in SQuAD 1.1 train), against it and its paragraph's nearest sentence; 0 leaves them all out"))
    swapped_questions: int = field(default=0, metadata=described(
        "SQuAD training questions read against their answer sentence (answers) and against it with the name the "
        "question asks about changed to another (does not answer); 0 leaves them out"))

    def __post_init__(self) -> None:
        as_lists(self, "pairs")
        for name in ("snli", "squad_paragraphs", "contrasts_per_kind"):
            if getattr(self, name) <= 0:
                msg = f"{name} must be > 0, got {getattr(self, name)}"
                raise ConfigurationError(msg)
        if self.replay is not None and self.replay <= 0:
            msg = f"replay must be > 0, got {self.replay}"
            raise ConfigurationError(msg)
        for name in ("held_mnli", "held_halueval", "selqa_dev", "lead_questions", "swapped_questions"):
            if getattr(self, name) < 0:
                msg = f"{name} must be >= 0, got {getattr(self, name)}"
                raise ConfigurationError(msg)
        super().__post_init__()


@dataclass(kw_only=True)
class AnswerFinderConfig(SentencePairConfig):
    """Answer finder: the shipped all-MiniLM-L6-v2, its layers started from a sentence reader's, trained to point
    at the phrase of a sentence that answers a question, or at nothing (SQuAD's training paragraphs)."""

    squad: str = field(metadata=described("the folder of SQuAD files (squad11_train.jsonl)"))
    out: str = field(metadata=described(
        "directory for the finder (answer_finder.safetensors and answer_finder.json, about 20 MB) and its "
        "checkpoints (out/checkpoints: a re-run with the same arguments resumes)"))
    init_reader: str | None = field(default=None, metadata=described(
        "a sentence reader's directory (what `selfrag train reader` wrote) whose layers the finder starts from; "
        "none: the shipped reader"))
    init_finder: str | None = field(default=None, metadata=described(
        "a trained finder's directory (what `selfrag train answer-finder` wrote) whose layers and span head this "
        "run goes on training, e.g. the shipped one (selfrag_langchain/judging/answer_finder); none: a new span "
        "head over init_reader's layers"))
    squad_paragraphs: int = field(default=7_000, metadata=described(
        "SQuAD training paragraphs drawn; each question answered in one sentence gives three pairs"))
    squad2: bool = field(default=False, metadata=described(
        "also train on SQuAD 2.0 dev's training half of articles (squad20_dev.jsonl; the other half stays held "
        "out): its answerable questions as SQuAD's, each unanswerable one against its paragraph's nearest "
        "sentence and one more, marked as holding no answer. Off for the shipped finder: it raised SQuAD 2.0's "
        "held-out AUC (0.669 to 0.707) but declined no better on the already-run lists"))
    selqa_dev: int = field(default=0, metadata=described(
        "also train on SelQA's development questions (selqa_dev.jsonl; written from a section, then paraphrased) "
        "that many times over: each answering sentence as holding an answer somewhere, four others as holding none; "
        "SelQA's test questions are never read"))
    swapped_questions: int = field(default=0, metadata=described(
        "at most this many of those paragraphs' questions whose answer sentence names their subject (a name sharing "
        "a word with the title), each with it changed to another question's name, against the sentence read after "
        "its title, marked as holding no answer (another entity's sentence); 0 leaves them out. Off for the shipped "
        "finder: as a second stage it declined more unanswerable questions and as many more right answers as a "
        "higher min_quote_holds_answer does"))

    questions: list[str] = field(default_factory=list, metadata=described(
        "your own questions asked of passages, trained on beside SQuAD: JSON Lines rows of question, answers (empty "
        "for a question the passages do not answer) and passages (objects with text and an optional title); "
        "`python benchmarks/finder_questions.py` writes the project's lists already run so"))

    def __post_init__(self) -> None:
        as_lists(self, "questions")
        for name in ("selqa_dev", "swapped_questions"):
            if getattr(self, name) < 0:
                msg = f"{name} must be >= 0, got {getattr(self, name)}"
                raise ConfigurationError(msg)
        if self.init_finder and self.init_reader:
            msg = "give init_finder or init_reader, not both: a finder's layers replace a reader's"
            raise ConfigurationError(msg)
        if self.squad_paragraphs <= 0:
            msg = f"squad_paragraphs must be > 0, got {self.squad_paragraphs}"
            raise ConfigurationError(msg)
        super().__post_init__()
