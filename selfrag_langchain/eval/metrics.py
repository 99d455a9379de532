"""The paper's evaluation metrics (Asai et al., 2023, §4 and Appendix B.2; ALCE for ASQA) as pure functions.

- ``match``: PopQA and TriviaQA count an answer correct when a gold answer occurs in the output.
- ``closed_set_label`` / ``pubhealth_label`` + ``accuracy``: ARC and PubHealth, after the paper's
  normalisation (fact-checking labels lower-cased, the answer letter taken from variants like ``(A)``).
- ``str_em``, ``rouge_l``: ASQA correctness as ALCE defines it (ROUGE-Lsum by ``rouge-score``).
- ``citation_scores``: ALCE's citation recall and precision, with a pluggable :class:`EntailmentJudge`.
"""

from __future__ import annotations

import re
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

from selfrag_langchain.chains.selection import extract_option
from selfrag_langchain.errors import ConfigurationError
from selfrag_langchain.text.sentences import split_sentences

_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCTUATION = str.maketrans("", "", string.punctuation)


def normalize_answer(text: str) -> str:
    """SQuAD's answer normalisation, used by the paper's and ALCE's metrics: lower case, punctuation and
    the articles a/an/the removed, whitespace collapsed."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCTUATION)).split())


def match(prediction: str, answers: Sequence[str]) -> bool:
    """PopQA / TriviaQA: whether a gold answer occurs in the prediction (paper §4, "match").

    Both sides are normalised with :func:`normalize_answer` first, so case, punctuation and articles do
    not decide. As in the paper the test is a substring test, so a short alias ("pol") also matches inside
    a longer word ("politician"). A gold answer that normalises to nothing (``"The"``, ``"."``) never
    matches, instead of matching every output.
    """
    output = normalize_answer(prediction)
    return any(gold and gold in output for gold in (normalize_answer(a) for a in answers))


def closed_set_label(prediction: str, choices: Mapping[str, str]) -> str | None:
    """ARC: the answer label a free-text prediction chose; None if none.

    First as the selection step reads it (a leading ``C``, ``(C)``, ``C:``, ``Answer: C``, or the text of
    an option: the paper's string matching between candidates and predictions); failing that, a label
    named later in the text, in parentheses (``... is (C)``) or after "answer", "choice" or "option"
    (``The best answer choice is C.``). Labels found later must be written as given (``C``, not ``c``),
    so the article "a" is never read as option A.
    """
    found = extract_option(prediction, choices)
    if found is not None or not choices:
        return found
    labels = "|".join(re.escape(label) for label in sorted(choices, key=len, reverse=True))
    later = re.search(rf"\(({labels})\)|(?i:answer|choice|option)(?:\s+(?i:choice|option))?\s*(?:(?i:is)\s*)?:?\s*"
                      rf"({labels})(?![\w])", prediction)
    return (later.group(1) or later.group(2)) if later else None


_TRUE = re.compile(r"\b(true|correct|supports?|accurate)\b")
_FALSE = re.compile(r"\b(false|incorrect|refutes?|inaccurate|untrue|not (?:true|correct|accurate))\b")


def pubhealth_label(prediction: str) -> str | None:
    """PubHealth: the lower-cased label ``true`` or ``false`` a prediction gives, or None.

    The paper lower-cases the prediction ("True" counts as "true"). A prediction that starts with a label
    takes it; otherwise the first label word found decides, negated forms ("not true", "incorrect")
    counting as false, and the fact-verification labels SUPPORTS / REFUTES mapping to true / false.
    """
    text = prediction.lower().strip()
    head = re.match(r"^\W*(true|false)\b", text)
    if head:
        return head.group(1)
    found_false, found_true = _FALSE.search(text), _TRUE.search(text)
    if found_false and (not found_true or found_false.start() <= found_true.start()):
        return "false"
    return "true" if found_true else None


def accuracy(predicted_labels: Sequence[str | None], gold_labels: Sequence[str]) -> float:
    """Fraction of predicted labels equal to the gold label (ARC, PubHealth); a missing label is wrong."""
    if len(predicted_labels) != len(gold_labels):
        msg = f"accuracy needs as many predictions as gold labels, got {len(predicted_labels)} and {len(gold_labels)}"
        raise ValueError(msg)
    if not gold_labels:
        return 0.0
    return sum(p is not None and p == g for p, g in zip(predicted_labels, gold_labels, strict=True)) / len(gold_labels)


def str_em(prediction: str, short_answer_sets: Sequence[Sequence[str]]) -> float:
    """ASQA str-em (ALCE): the fraction of the question's interpretations (its ``qa_pairs``) for which some
    short answer occurs, normalised, in the normalised prediction. 0 for a question without pairs."""
    if not short_answer_sets:
        return 0.0
    return sum(match(prediction, answers) for answers in short_answer_sets) / len(short_answer_sets)


@lru_cache(maxsize=1)
def _rouge_scorer() -> Any:
    try:
        from rouge_score import rouge_scorer
    except ImportError as e:
        msg = "ROUGE-L needs the rouge-score package: pip install 'selfrag-langchain[eval]'"
        raise ConfigurationError(msg) from e

    return rouge_scorer.RougeScorer(["rougeLsum"], use_stemmer=True)


def rouge_l(prediction: str, references: Sequence[str]) -> float:
    """ROUGE-Lsum F-measure against the best-matching reference (ALCE scores ASQA against each annotated
    long answer and keeps the maximum). Sentences are put on their own lines, as ROUGE-Lsum expects."""
    refs = [r for r in references if r.strip()]
    if not refs or not prediction.strip():
        return 0.0
    hyp = "\n".join(split_sentences(prediction))
    return max(_rouge_scorer().score("\n".join(split_sentences(r)), hyp)["rougeLsum"].fmeasure for r in refs)


class EntailmentJudge(Protocol):
    """Decides whether a premise (cited passages) supports a claim (one sentence of an answer)."""

    def entails(self, premise: str, claim: str, *, question: str = "") -> bool: ...


_CITATION = re.compile(r"\[(\d+)\]")


def citations_in(sentence: str) -> list[int]:
    """The 1-based passage numbers a sentence cites, ``[1][3]`` -> [1, 3], in order, without repeats."""
    seen: list[int] = []
    for m in _CITATION.finditer(sentence):
        n = int(m.group(1))
        if n not in seen:
            seen.append(n)
    return seen


def remove_citations(sentence: str) -> str:
    """The sentence without its ``[n]`` markers."""
    return " ".join(_CITATION.sub("", sentence).split()).replace(" .", ".")


@dataclass(frozen=True)
class CitationScores:
    """ALCE citation recall and precision of one answer (0..1), and what they were computed from."""

    recall: float
    precision: float
    sentences: int
    citations: int


def citation_scores(
    answer: str,
    passages: Sequence[str],
    judge: EntailmentJudge,
    *,
    question: str = "",
    max_citations: int = 3,
) -> CitationScores:
    """ALCE's citation recall and precision (Gao et al., 2023), as the paper reports them for ASQA.

    Recall: the fraction of sentences whose cited passages, joined, entail the sentence (a sentence
    without citations, or citing a passage that does not exist, counts as not supported). Precision: the
    fraction of citations that are needed: a citation is irrelevant when the sentence is supported by all
    its citations together, the cited passage alone does not entail it, and the other citations without it
    still do. At most ``max_citations`` citations of a sentence count, as in ALCE.

    ``passages`` are the texts numbered [1], [2], ... in the answer.
    """
    sentences = split_sentences(answer)
    if not sentences:
        return CitationScores(0.0, 0.0, 0, 0)
    supported = 0
    needed = 0
    total = 0
    for sentence in sentences:
        claim = remove_citations(sentence)
        refs = citations_in(sentence)[:max_citations]
        if not refs or any(not 1 <= r <= len(passages) for r in refs):
            continue
        total += len(refs)
        joint = judge.entails("\n".join(passages[r - 1] for r in refs), claim, question=question)
        supported += joint
        if not joint:
            continue
        if len(refs) == 1:
            needed += 1
            continue
        for r in refs:
            if judge.entails(passages[r - 1], claim, question=question):
                needed += 1
                continue
            rest = "\n".join(passages[o - 1] for o in refs if o != r)
            needed += not judge.entails(rest, claim, question=question)
    return CitationScores(
        recall=supported / len(sentences),
        precision=needed / total if total else 0.0,
        sentences=len(sentences),
        citations=total,
    )
