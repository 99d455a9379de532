"""IsSup read claim by claim: does checking each sentence of an output against its passage, as MiniCheck does,
tell GPT-4's three support labels apart better than the whole output's signals?

Each output is cut into sentences (at most 12). Each sentence gets the signals the calibrated judge reads for a
whole output (the share of its content words, of the words it adds to the question, of its names and of its
word pairs that the passage holds), its best cosine with one passage sentence (all-MiniLM-L6-v2) and, with
``--encoder``, the shipped learned judge's IsSup of that sentence alone; with ``--lm``, how much reading the
passage raises the embedded SmolLM2-135M's log-probability of the sentence's tokens (their pointwise mutual
information with the passage: a name, number or rank the passage contradicts is not made likelier by it,
even when every word of it occurs in the passage). Their minimum, mean and maximum over
the sentences, the sentence count and the whole output's signals feed one logistic regression per feature
set, its C chosen by 5-fold cross-validation on the training file's groundedness rows (any ``--extra`` file
joins the training folds, never the scored ones); the held-out files are scored once, with the chosen fit.

    python benchmarks/support_claims.py --train ../shared/data/critic_train.jsonl \\
        --heldout ../shared/data/critic_dev.jsonl \\
        --heldout ../shared/data/critic_extra/groundedness_wice_dev.jsonl --encoder
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from judges import rows_of
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import balanced_accuracy_score
from sklearn.model_selection import StratifiedKFold
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from selfrag_langchain.embeddings import MiniLMEmbeddings
from selfrag_langchain.judging import CriticQuery
from selfrag_langchain.judging.encoder import EncoderJudge
from selfrag_langchain.judging.signals import (
    content_bigrams,
    content_words,
    coverage,
    name_coverage,
    novel_words,
)
from selfrag_langchain.text.sentences import split_sentences
from selfrag_langchain.tokens import FULLY_SUPPORTED, NO_SUPPORT, Group

MAX_SENTENCES = 12
PER_SENTENCE = ("words", "new_words", "pairs", "names", "cosine")
ENCODED = ("encoder_fully", "encoder_none")
READ_BY_LM = ("pmi_mean", "pmi_min", "pmi_share")
EVIDENCE_TOKENS = 320
RAISED = 1.0  # a token counts as drawn from the passage when reading it adds at least this many nats
C_GRID = (0.01, 0.03, 0.1, 0.3, 1.0, 3.0)


def support_rows(path: Path, limit: int | None = None) -> list[tuple[CriticQuery, str]]:
    """The file's groundedness rows as the judge is asked them, with their labels."""
    asked = [(row.query(), row.output) for row in rows_of(path)[0] if row.task == "groundedness"]
    return [(q, label) for q, label in asked if q is not None and q.output and q.evidence][:limit]


class PassageInformation:
    """Per-token pointwise mutual information of an output with its passage under a causal LM:
    log p(token | passage, question, earlier tokens) - log p(token | question, earlier tokens)."""

    def __init__(self, model: str = "smollm2-135m-instruct") -> None:
        from selfrag_langchain.llms.model_loading import load_model

        self.model, self.tokenizer = load_model(model)

    def _logprobs(self, context: str, output: str) -> tuple[np.ndarray, list[tuple[int, int]]]:
        import torch

        head = self.tokenizer(context, add_special_tokens=False)["input_ids"]
        body = self.tokenizer(output, add_special_tokens=False, return_offsets_mapping=True)
        ids = torch.tensor([head + body["input_ids"]])
        with torch.no_grad():
            logits = self.model(ids).logits[0, len(head) - 1 : -1].float()
        picked = torch.log_softmax(logits, -1).gather(1, ids[0, len(head) :, None])[:, 0]
        return picked.numpy(), list(body["offset_mapping"])

    def tokens(self, question: str, evidence: str, output: str) -> tuple[np.ndarray, list[tuple[int, int]]]:
        """The PMI of each of ``output``'s tokens and their character spans."""
        kept = self.tokenizer(evidence, add_special_tokens=False)["input_ids"][:EVIDENCE_TOKENS]
        passage = self.tokenizer.decode(kept)
        with_passage, spans = self._logprobs(f"Passage: {passage}\nQuestion: {question}\nAnswer:", f" {output}")
        without, _ = self._logprobs(f"Question: {question}\nAnswer:", f" {output}")
        return with_passage - without, [(max(a - 1, 0), b - 1) for a, b in spans]


def claim_spans(output: str, claims: list[str]) -> list[tuple[int, int]]:
    """Where each claim sits in ``output`` (searched in order; a claim not found spans nothing)."""
    spans, start = [], 0
    for claim in claims:
        at = output.find(claim, start)
        spans.append((at, at + len(claim)) if at >= 0 else (0, 0))
        start = at + len(claim) if at >= 0 else start
    return spans


class ClaimReader:
    """Signals of each sentence of an output against its passage, aggregated over the output."""

    def __init__(self, encoder: EncoderJudge | None, lm: PassageInformation | None = None) -> None:
        self.embeddings = MiniLMEmbeddings(runtime="torch")
        self.encoder = encoder
        self.lm = lm
        self._vectors: dict[str, np.ndarray] = {}

    def _embed(self, texts: Sequence[str]) -> list[np.ndarray]:
        new = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        for text, vector in zip(new, self.embeddings.embed_documents(new), strict=True):
            self._vectors[text] = np.asarray(vector)
        return [self._vectors[t] for t in texts]

    def features(self, q: CriticQuery) -> dict[str, float]:
        evidence, output = q.evidence or "", q.output or ""
        body = evidence.partition("\n")[2] if "\n" in evidence else evidence
        claims = (split_sentences(output) or [output])[:MAX_SENTENCES]
        passage = np.stack(self._embed(split_sentences(body) or [body]))
        words, pairs = content_words(evidence), content_bigrams(evidence)
        per: list[dict[str, float]] = []
        for claim, vector in zip(claims, self._embed(claims), strict=True):
            new = novel_words(claim, q.instruction)
            per.append({"words": coverage(content_words(claim), words) if content_words(claim) else 1.0,
                        "new_words": coverage(new, words) if new else 1.0,
                        "pairs": coverage(content_bigrams(claim), pairs) if content_bigrams(claim) else 1.0,
                        "names": name_coverage(claim, evidence),
                        "cosine": float((passage @ vector).max())})
        if self.encoder is not None:
            judged = self.encoder.distributions(
                [CriticQuery(Group.ISSUP, q.instruction, evidence=evidence, output=c) for c in claims])
            for signals, dist in zip(per, judged, strict=True):
                signals["encoder_fully"], signals["encoder_none"] = dist[FULLY_SUPPORTED], dist[NO_SUPPORT]
        if self.lm is not None:
            pmi, spans = self.lm.tokens(q.instruction, evidence, output)
            for signals, (start, end) in zip(per, claim_spans(output, claims), strict=True):
                inside = np.array([start <= a < end for a, _ in spans], dtype=bool)
                values = pmi[inside] if inside.any() else pmi
                signals |= {"pmi_mean": float(values.mean()), "pmi_min": float(values.min()),
                            "pmi_share": float((values >= RAISED).mean())}
        out = {"sentences": math.log(len(claims)), "whole_words": coverage(content_words(output), words)}
        whole, joined = self._embed([output, evidence])
        out["whole_cosine"] = float(whole @ joined)
        for name in per[0]:
            values = [s[name] for s in per]
            out |= {f"{name}_min": min(values), f"{name}_mean": sum(values) / len(values), f"{name}_max": max(values)}
        return out


def feature_sets(encoded: bool, read_by_lm: bool) -> dict[str, list[str]]:
    aggregated = [f"{name}_{how}" for name in PER_SENTENCE for how in ("min", "mean", "max")]
    sets = {"whole output": ["whole_words", "whole_cosine"],
            "claims": [*aggregated, "sentences", "whole_words", "whole_cosine"]}
    if encoded:
        sets["encoder per claim"] = [f"{name}_{how}" for name in ENCODED for how in ("min", "mean", "max")]
        sets["claims and encoder"] = [*sets["claims"], *sets["encoder per claim"]]
    if read_by_lm:
        read = [f"{name}_{how}" for name in READ_BY_LM for how in ("min", "mean", "max")]
        sets["passage information per claim"] = read
        sets["claims and passage information"] = [*sets["claims"], *sets["passage information per claim"]]
    return sets


def matrix(rows: list[dict[str, float]], names: list[str]) -> np.ndarray:
    return np.array([[r[n] for n in names] for r in rows])


def fitted(c: float) -> object:
    return make_pipeline(StandardScaler(), LogisticRegression(C=c, class_weight="balanced", max_iter=2000))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--train", type=Path, required=True)
    parser.add_argument("--extra", type=Path, action="append", default=[], help="more training rows (not scored)")
    parser.add_argument("--heldout", type=Path, action="append", default=[])
    parser.add_argument("--limit", type=int, default=None, help="rows read from each --extra file")
    parser.add_argument("--encoder", action="store_true", help="also read the shipped learned judge per sentence")
    parser.add_argument("--lm", action="store_true", help="also read each sentence's information from its passage")
    args = parser.parse_args()
    encoder = None
    if args.encoder:
        from selfrag_langchain.judging.learned import SHIPPED_ENCODER

        encoder = EncoderJudge(SHIPPED_ENCODER)
    reader = ClaimReader(encoder, PassageInformation() if args.lm else None)

    def read(path: Path, limit: int | None = None) -> tuple[list[dict[str, float]], np.ndarray]:
        rows = support_rows(path, limit)
        return [reader.features(q) for q, _ in rows], np.array([label for _, label in rows])

    train_x, train_y = read(args.train)
    extra = [read(p, args.limit) for p in args.extra]
    heldout = {p.name: read(p) for p in args.heldout}
    folds = list(StratifiedKFold(5, shuffle=True, random_state=0).split(np.zeros(len(train_y)), train_y))
    for name, names in feature_sets(encoder is not None, args.lm).items():
        x = matrix(train_x, names)
        extra_x = [matrix(rows, names) for rows, _ in extra]
        extra_y = [labels for _, labels in extra]
        scores = {}
        for c in C_GRID:
            predicted = np.empty(len(train_y), dtype=object)
            for fit_on, scored in folds:
                model = fitted(c)
                model.fit(np.vstack([x[fit_on], *extra_x]), np.concatenate([train_y[fit_on], *extra_y]))
                predicted[scored] = model.predict(x[scored])
            scores[c] = balanced_accuracy_score(train_y, predicted)
        best = max(C_GRID, key=lambda c: scores[c])
        model = fitted(best)
        model.fit(np.vstack([x, *extra_x]), np.concatenate([train_y, *extra_y]))
        report = {"features": name, "C": best, "cv_balanced_accuracy": round(scores[best], 3)}
        for file, (rows, labels) in heldout.items():
            report[file] = round(balanced_accuracy_score(labels, model.predict(matrix(rows, names))), 3)
        print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
