"""The learned judge's model: the shipped all-MiniLM-L6-v2 read as a cross-encoder over a pair of texts.

A bi-encoder compares two texts through one vector each, so "the passage says fourth-largest, the output
says largest" is lost before the comparison; a cross-encoder reads both texts in one sequence and can
attend from a word of the output to the passage's word in its place. Each group reads its own pair:

- IsRel: (question, passage): is the passage about what is asked?
- IsSup: (output, passage): does the passage state what the output claims?
- IsUse: (question, output): does the output answer what is asked?

The bottom layers of the shipped MiniLM stay as they are (they are shared with retrieval); only the
top ``trained_layers`` layers and one linear head are trained, so the judge ships as a few megabytes of
half-precision weights (``judge_encoder.safetensors``) beside a JSON card of its provenance. The head
gives ten logits, one per IsRel, IsSup and IsUse label; a group's distribution is the softmax over its
own labels.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from selfrag_langchain.errors import ModelLoadError
from selfrag_langchain.judging.base import CriticQuery
from selfrag_langchain.judging.signals import STOPWORDS, content_words
from selfrag_langchain.text.sentences import split_sentences
from selfrag_langchain.tokens import GROUP_TOKENS, Group

if TYPE_CHECKING:
    import torch

ENCODED_GROUPS: tuple[Group, ...] = (Group.ISREL, Group.ISSUP, Group.ISUSE)
"""The groups the encoder judges (Retrieve reads the request alone and stays with the calibrated judge)."""

LABELS: tuple[str, ...] = tuple(token for group in ENCODED_GROUPS for token in GROUP_TOKENS[group])
"""The head's outputs, in order: every label of every encoded group."""

MAX_LENGTH = 256
"""Word pieces read per pair; longer passages are cut from their end."""

WEIGHTS_FILE = "judge_encoder.safetensors"
CARD_FILE = "judge_encoder.json"


def group_slice(group: Group) -> slice:
    """Where the group's labels sit in :data:`LABELS`."""
    start = LABELS.index(GROUP_TOKENS[group][0])
    return slice(start, start + len(GROUP_TOKENS[group]))


SUPPORT_SENTENCES = 2
"""Passage sentences IsSup reads beside the title: those that share most content words with the output."""


def support_window(output: str, evidence: str, sentences: int = SUPPORT_SENTENCES) -> str:
    """The passage's title line and its ``sentences`` sentences sharing most content words with the output, in
    the passage's order.

    A claim is checked against the sentences it draws on (as MiniCheck checks a claim chunk by chunk), so a
    changed name or number sits a few words from the passage's own instead of beyond the encoder's reach.
    """
    title, _, body = evidence.partition("\n") if "\n" in evidence else ("", "", evidence)
    parts = split_sentences(body)
    if len(parts) <= sentences:
        return evidence
    claimed = set(content_words(output))
    nearest = sorted(range(len(parts)), key=lambda i: (-len(claimed & set(content_words(parts[i]))), i))
    kept = " ".join(parts[i] for i in sorted(nearest[:sentences]))
    return f"{title}\n{kept}" if title else kept


_TERM = re.compile(r"\w+(?:[-–]\w+)*", re.UNICODE)
MARKED_WORDS = 12
"""Unstated words listed at most per pair."""


def unstated(text: str, evidence: str) -> list[str]:
    """The content words of ``text`` the passage does not contain, hyphenated compounds kept whole (so
    "largest" is not found in "fourth-largest"), lower-cased, each once, at most :data:`MARKED_WORDS`."""
    found = {w for w in _TERM.findall(evidence.lower().replace("’", "'"))}
    words = [w for w in _TERM.findall(text.lower().replace("’", "'").replace("'s", "")) if w not in STOPWORDS]
    return list(dict.fromkeys(w for w in words if w not in found))[:MARKED_WORDS]


def marked(text: str, evidence: str) -> str:
    """``text`` with the words the passage does not state listed after it, the token-level support a small
    cross-encoder does not find alone in a CPU-sized training run (a changed name or year is one word
    among hundreds)."""
    return f"{text}\nunstated: {', '.join(unstated(text, evidence)) or 'none'}"


def pair_of(query: CriticQuery, support_sentences: int | None = None, *, mark: bool = False) -> tuple[str, str]:
    """The two texts the encoder reads for a judgement (see the module's docstring); with
    ``support_sentences``, IsSup reads that many sentences of the passage (:func:`support_window`); with
    ``mark``, IsRel and IsSup list the words of the question or output the passage does not state
    (:func:`marked`)."""
    if query.group is Group.ISREL:
        evidence = query.evidence or ""
        return (marked(query.instruction, evidence) if mark else query.instruction), evidence
    if query.group is Group.ISSUP:
        output, evidence = query.output or "", query.evidence or ""
        if support_sentences:
            evidence = support_window(output, evidence, support_sentences)
        return (marked(output, evidence) if mark else output), evidence
    if query.group is Group.ISUSE:
        return query.instruction, query.output or ""
    msg = f"the judge encoder does not read {query.group}"
    raise ValueError(msg)


@dataclass
class EncoderCard:
    """What a trained judge encoder is: how many top layers it replaces, and where it came from."""

    trained_layers: int
    labels: list[str] = field(default_factory=lambda: list(LABELS))
    max_length: int = MAX_LENGTH
    support_sentences: int | None = None
    """IsSup reads the title and this many sentences of the passage (:func:`support_window`); None: all."""
    mark_unstated: bool = False
    """IsRel and IsSup list the words of the question or output that the passage does not state (:func:`marked`)."""
    provenance: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def load(cls, path: str | Path) -> EncoderCard:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        return cls(**data)

    def to_dict(self) -> dict[str, Any]:
        return {"trained_layers": self.trained_layers, "labels": self.labels, "max_length": self.max_length,
                "support_sentences": self.support_sentences, "mark_unstated": self.mark_unstated,
                "provenance": self.provenance}


def build_model(base: str | Path, trained_layers: int, *, shared: Any | None = None, outputs: int = len(LABELS)
                ) -> Any:
    """MiniLM with a mean-pooled linear head of ``outputs`` logits (default: one per label of :data:`LABELS`);
    the bottom layers and the embeddings frozen, the top ``trained_layers`` layers and the head trainable. With
    ``shared`` (the same MiniLM, already loaded for embeddings), its embeddings and bottom layers are used as
    they are, not loaded again."""
    import torch
    from transformers import AutoModel

    class JudgeEncoder(torch.nn.Module):
        """Mean of the final token states (what all-MiniLM-L6-v2 was trained to produce), then a linear
        head; ``loss`` is each row's cross-entropy over its own group's labels."""

        def __init__(self) -> None:
            super().__init__()
            self.encoder = AutoModel.from_pretrained(str(base)) if shared is None else _over(shared, trained_layers)
            self.head = torch.nn.Linear(self.encoder.config.hidden_size, outputs)
            layers = self.encoder.encoder.layer
            for parameter in self.encoder.parameters():
                parameter.requires_grad = False
            for layer in layers[len(layers) - trained_layers:]:
                for parameter in layer.parameters():
                    parameter.requires_grad = True

        def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor,
                    token_type_ids: torch.Tensor | None = None, group_mask: torch.Tensor | None = None,
                    labels: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
            states = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                                  token_type_ids=token_type_ids).last_hidden_state
            weights = attention_mask.unsqueeze(-1).to(states.dtype)
            pooled = (states * weights).sum(1) / weights.sum(1).clamp(min=1.0)
            logits = self.head(pooled)
            if group_mask is not None:
                logits = logits.masked_fill(~group_mask, float("-inf"))
            out = {"logits": logits}
            if labels is not None:
                out["loss"] = torch.nn.functional.cross_entropy(logits, labels)
            return out

    return JudgeEncoder()


def _over(shared: Any, trained_layers: int) -> Any:
    """A transformer built on ``shared``: the same embeddings, bottom layers and pooler (frozen, read only),
    and copies of the top ``trained_layers`` layers, which the trained weights then replace."""
    import copy

    import torch
    from transformers import AutoModel

    model = AutoModel.from_config(shared.config)
    layers, cut = shared.encoder.layer, len(shared.encoder.layer) - trained_layers
    model.embeddings, model.pooler = shared.embeddings, shared.pooler
    model.encoder.layer = torch.nn.ModuleList([*layers[:cut], *(copy.deepcopy(layer) for layer in layers[cut:])])
    return model


def trained_state(model: Any, trained_layers: int) -> dict[str, Any]:
    """The weights a trained encoder adds to the shipped MiniLM: its top layers and its head."""
    total = len(model.encoder.encoder.layer)
    keep = (*(f"encoder.encoder.layer.{i}." for i in range(total - trained_layers, total)), "head.")
    return {name: tensor.detach().to("cpu") for name, tensor in model.state_dict().items() if name.startswith(keep)}


def group_masks(groups: Sequence[Group]) -> Any:
    """A boolean row per judgement, true at its own group's labels."""
    import torch

    mask = torch.zeros(len(groups), len(LABELS), dtype=torch.bool)
    for i, group in enumerate(groups):
        mask[i, group_slice(group)] = True
    return mask


class EncoderJudge:
    """A trained judge encoder, loaded over the shipped MiniLM, giving each judgement's distribution."""

    def __init__(self, directory: str | Path, *, base: str | Path | None = None, batch_size: int = 16,
                 shared: Any | None = None) -> None:
        """Args:
            directory: what ``selfrag train judge-encoder`` wrote.
            base: the MiniLM directory it was trained over; None: the one shipped with the package.
            batch_size: pairs per forward pass.
            shared: that MiniLM already loaded (:meth:`MiniLMEmbeddings.transformer`), whose frozen layers are
                then used rather than loaded again.
        """
        import torch
        from safetensors.torch import load_file
        from transformers import AutoTokenizer

        from selfrag_langchain.embeddings import default_model_path

        directory = Path(directory)
        if not (directory / CARD_FILE).is_file() or not (directory / WEIGHTS_FILE).is_file():
            msg = (f"no learned judge in {directory}: it needs {CARD_FILE} and {WEIGHTS_FILE}, as "
                   "`selfrag train judge-encoder` writes them")
            raise ModelLoadError(msg)
        self.card = EncoderCard.load(directory / CARD_FILE)
        base = Path(base) if base is not None else default_model_path()
        self.tokenizer = AutoTokenizer.from_pretrained(str(base))
        self.model = build_model(base, self.card.trained_layers, shared=shared)
        state = {k: v.to(torch.float32) for k, v in load_file(str(directory / WEIGHTS_FILE)).items()}
        missing = set(trained_state(self.model, self.card.trained_layers)) - set(state)
        if missing:
            msg = f"{directory / WEIGHTS_FILE} lacks {len(missing)} trained weights (first: {sorted(missing)[0]})"
            raise ValueError(msg)
        self.model.load_state_dict(state, strict=False)
        self.model.eval()
        self.batch_size = batch_size

    def distributions(self, queries: Sequence[CriticQuery]) -> list[dict[str, float]]:
        """Each query's distribution over its group's labels; pairs of similar length are batched together."""
        import torch

        pairs = [pair_of(q, self.card.support_sentences, mark=self.card.mark_unstated) for q in queries]
        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        out: list[dict[str, float]] = [{} for _ in queries]
        with torch.inference_mode():
            for start in range(0, len(order), self.batch_size):
                chunk = order[start:start + self.batch_size]
                batch = self.tokenizer([pairs[i][0] for i in chunk], [pairs[i][1] for i in chunk], padding=True,
                                       truncation="longest_first", max_length=self.card.max_length,
                                       return_tensors="pt")
                logits = self.model(**batch)["logits"]
                for row, i in zip(logits, chunk, strict=True):
                    part = group_slice(queries[i].group)
                    probabilities = torch.softmax(row[part], dim=-1).tolist()
                    out[i] = dict(zip(LABELS[part], probabilities, strict=True))
        return out
