"""Which branch each judge selects, from one set of generations: top-1 RAG, the ceiling, and Self-RAG's
selection under each judge and score, on the same branches in one run.

Every question's K branches (one per passage, the default RAG prompt and budget) are generated once and
kept in ``--cache`` (a re-run reads them back); each judge then critiques every branch, and each score
variant selects with the pure ``select`` that ``SelfRAG`` runs (always retrieving, as every question here
retrieves under the default threshold). Accuracy: a gold answer occurs in the answer (counted without
declining); 95% Wilson intervals. ``declined``: how many chosen answers Self-RAG would decline (its passage's
IsRel and IsSup likeliest tokens do not say relevant and supported, or the passages found hold too few of the
question's names: ``--min-name-coverage``, the library's rule and default); a questions file without gold answers
(the unanswerable lists) is read for that alone. Questions files may mark each question ``"where": "first" |
"later"`` (the answer in the article's first sentence or only after it): the table is then split that way too.
The Self-RAG rows are the generated answers; ``--quote`` adds Self-RAG as the pipeline runs it with a quoter
(the library's ``PassageQuoter``): each branch quoted, scored as its quote and answered with it, beside the
previous rule (selected on the generations, then quoted), with top-1 RAG and the ceiling quoted and the top-1
passage's first sentence as a control of a quote's length; each with the answers its rule would decline.

    python benchmarks/selection.py --data ../shared/data/popqa_longtail_dev.jsonl --task popqa \\
        --cache selfrag-eval/branches-popqa.jsonl
    python benchmarks/selection.py --data benchmarks/data/demo_questions.jsonl --task questions \\
        --cache selfrag-eval/branches-demo.jsonl
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import add_k, add_max_new_tokens, read_jsonl, wilson
from judge_spec import HELP as JUDGE_HELP
from judge_spec import judge_named
from langchain_core.documents import Document

from selfrag_langchain.chains.controls import LoopSettings
from selfrag_langchain.chains.declining import branch_subject_checks, declines, grounded
from selfrag_langchain.chains.names import name_coverages
from selfrag_langchain.chains.selection import select
from selfrag_langchain.chains.windows import PassageWindow
from selfrag_langchain.eval.metrics import match
from selfrag_langchain.files.durable import write_text_atomic
from selfrag_langchain.judging import Branch, Reflector
from selfrag_langchain.llms.base import GenerationStats
from selfrag_langchain.prompts import passage_body
from selfrag_langchain.scoring import HardConstraints, ScoringWeights, score_branch
from selfrag_langchain.tokens import ParsedGeneration
from selfrag_langchain.trainer.data import jsonl_text

VARIANTS: dict[str, ScoringWeights] = {
    "paper score (sequence term on)": ScoringWeights(),
    "without the sequence term": ScoringWeights(use_sequence_probability=False),
    "w_rel = 2": ScoringWeights(w_rel=2.0),
}


def questions(path: Path, task: str) -> list[dict[str, Any]]:
    """question, answers, where, and the file's own passages (PopQA) or None (retrieved from the store)."""
    if task == "popqa":
        from selfrag_langchain.eval.loaders import load_examples

        return [{"question": ex.question, "answers": list(ex.answers), "where": None,
                 "passages": [d for d in ex.passages if d.page_content.strip()]}
                for ex in load_examples(path, "popqa").examples]
    rows = read_jsonl(path)
    return [{"question": r["question"], "answers": r.get("answers", []), "where": r.get("where"), "passages": None}
            for r in rows]


def focused(question: str, doc: Document, window: PassageWindow) -> Document:
    """The document with its window (the run of sentences nearest the question) moved to the front."""
    ((sentences, start),) = window.starts(question, [doc])
    if start is None:
        return doc
    end = start + window.sentences
    return Document(page_content=" ".join(sentences[start:end] + sentences[:start] + sentences[end:]),
                    metadata=doc.metadata)


def generate(items: list[dict[str, Any]], k: int, max_new_tokens: int, cache: Path,
             focus: bool = False, window: bool = False, lead: bool = False) -> list[dict[str, Any]]:
    """Each question's branches (title, evidence, answer, mean log-probability), read from ``cache`` when there."""
    if cache.is_file():
        return read_jsonl(cache)
    from selfrag_langchain import TransformersLLM
    from selfrag_langchain.chains.branches import prepare_passages, to_branches
    from selfrag_langchain.corpus.answering import default_retriever
    from selfrag_langchain.prompts import rag_prompt

    llm = TransformersLLM(max_new_tokens=max_new_tokens).load()
    retriever = default_retriever(k=k)
    from selfrag_langchain.embeddings import MiniLMEmbeddings

    narrowing = PassageWindow(embeddings=MiniLMEmbeddings(), lead=lead)
    out = []
    started = time.perf_counter()
    for item in items:
        docs = item["passages"][:k] if item["passages"] is not None else retriever.invoke(item["question"])
        if focus:
            docs = [focused(item["question"], d, narrowing) for d in docs]
        elif window:
            docs = narrowing.narrow(item["question"], docs)
        prepared = prepare_passages(docs, llm, instruction=item["question"], max_new_tokens=max_new_tokens,
                                    max_tokens=None)
        branches = to_branches(llm.generate([rag_prompt(item["question"], p.evidence) for p in prepared]), prepared)
        out.append({"question": item["question"], "answers": item["answers"], "where": item["where"],
                    "branches": [{"title": b.passage.metadata.get("title") if b.passage else None,
                                  "evidence": b.evidence, "answer": b.answer,
                                  "mean_logprob": b.stats.mean_logprob if b.stats else None} for b in branches]})
    print(f"generated {len(out)} questions in {time.perf_counter() - started:.0f} s", flush=True)
    write_text_atomic(cache, jsonl_text(out))
    return out


def sentence_candidates(records: list[dict[str, Any]], sentences: int) -> list[dict[str, Any]]:
    """For each branch, a candidate that answers with its passage's ``sentences`` consecutive sentences nearest
    the question, as the library's :class:`PassageWindow` finds them: no generation, so no sequence term."""
    from selfrag_langchain.embeddings import MiniLMEmbeddings

    window = PassageWindow(embeddings=MiniLMEmbeddings(), sentences=sentences)
    extra = []
    for record in records:
        added = []
        for b in record["branches"]:
            ((parts, start),) = window.starts(record["question"], [Document(page_content=body_of(b))])
            answer = " ".join(parts[start:start + sentences]) if start is not None else " ".join(parts)
            added.append({**b, "answer": answer, "mean_logprob": None})
        extra.append({**record, "branches": added})
    return extra


def body_of(branch: dict[str, Any]) -> str:
    """The branch's passage as the generator read it, without the title line."""
    return passage_body(branch["evidence"], branch["title"])


def first_sentence(branch: dict[str, Any]) -> str:
    """The first sentence of the branch's passage (without its title)."""
    from selfrag_langchain.text.sentences import split_sentences

    return next(iter(split_sentences(body_of(branch))), "")


def quoted_rights(records: list[dict[str, Any]], reader: str | None = None, finder: str | None = None
                  ) -> tuple[list[list[bool]], list[list[Any]]]:
    """Whether each branch's answer is right once quoted: replaced by its passage's sentence that states it, as
    the library's :class:`PassageQuoter` finds it (``--quote``); with ``reader`` (``shipped`` or a directory of
    ``selfrag train reader``) the quoter also reads which sentence answers the question, as the pipeline quotes
    by default; with ``finder`` (``shipped`` or a directory of ``selfrag train answer-finder``) each quote is also
    read by the answer finder, as the pipeline reads it. Also each branch's
    :class:`~selfrag_langchain.chains.quotes.Quote`, which Self-RAG scores and declining reads."""
    from selfrag_langchain.chains.quotes import PassageQuoter
    from selfrag_langchain.embeddings import MiniLMEmbeddings
    from selfrag_langchain.judging.finder import AnswerFinder
    from selfrag_langchain.judging.reader import SentenceReader

    quoter = PassageQuoter(embeddings=MiniLMEmbeddings(),
                           reader=SentenceReader(None if reader == "shipped" else reader) if reader else None,
                           finder=AnswerFinder(None if finder == "shipped" else finder) if finder else None)
    rights, found = [], []
    for record in records:
        pairs = [(b["answer"], body_of(b)) for b in record["branches"]]
        quotes = quoter.find(record["question"], pairs, titles=[b["title"] for b in record["branches"]])
        rights.append([match(q.text if q else b["answer"], record["answers"])
                       for q, b in zip(quotes, record["branches"], strict=True)])
        found.append(quotes)
    return rights, found


def branches_of(record: dict[str, Any]) -> list[Branch]:
    return [Branch(passage=Document(page_content="", metadata={"title": b["title"]}), evidence=b["evidence"],
                   raw=b["answer"], answer=b["answer"], parsed=ParsedGeneration(),
                   stats=GenerationStats(num_tokens=1, sum_logprob=b["mean_logprob"])
                   if b["mean_logprob"] is not None else None)
            for b in record["branches"]]


def with_rank_prior(branches: list[Branch], critiques: list[Any], weights: ScoringWeights, weight: float) -> int:
    """The branch with the best paper score plus ``weight / (1 + retriever rank)``: a probe of how much the
    retriever's order could add, not a term the library has."""
    totals = [score_branch(mean_logprob=b.stats.mean_logprob if b.stats else None, relevance=c.relevance,
                           support=c.support, utility=c.utility, weights=weights).total + weight / (1 + rank)
              for rank, (b, c) in enumerate(zip(branches, critiques, strict=True))]
    return max(range(len(totals)), key=totals.__getitem__)


def line(name: str, rights: list[bool], wheres: list[str | None], declined: list[bool] | None = None) -> str:
    hits, n = sum(rights), len(rights)
    low, high = wilson(hits, n)
    text = f"| {name} | {hits}/{n} = {hits / n:.1%} [{low:.0%}, {high:.0%}]"
    if declined is not None:
        kept = sum(r and not d for r, d in zip(rights, declined, strict=True))
        text += f" | declined: {sum(declined)}/{n} | right and not declined: {kept}/{n}"
    for where in ("first", "later"):
        picked = [r for r, w in zip(rights, wheres, strict=True) if w == where]
        if picked:
            text += f" | {where}: {sum(picked)}/{len(picked)}"
    return text + " |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, required=True)
    parser.add_argument("--task", choices=("popqa", "questions"), required=True)
    parser.add_argument("--cache", type=Path, required=True, help="branches file (written once, then read)")
    add_k(parser)
    add_max_new_tokens(parser)
    parser.add_argument("--rank-prior", type=float, default=0.0,
                        help="add this weight / (1 + retriever rank) to every branch score (a probe; without "
                             "the names rule)")
    parser.add_argument("--focus", action="store_true",
                        help="move each passage's two sentences nearest the question to its front")
    parser.add_argument("--window", action="store_true",
                        help="give the generator only each passage's two sentences nearest the question (the "
                             "library's PassageWindow, as SelfRAG's default window_sentences=2 does)")
    parser.add_argument("--lead", action="store_true",
                        help="with --window: keep each passage's first sentence before its window")
    parser.add_argument("--also", type=Path, default=None,
                        help="another branches file of the same questions whose branches join each question's")
    parser.add_argument("--sentence-candidates", type=int, default=0,
                        help="add to each passage's branch a candidate that answers with the passage's N sentences "
                             "nearest the question (a probe of the ceiling; 0: none)")
    parser.add_argument("--quote", action="store_true",
                        help="also score each selection with the chosen branch's answer quoted from its passage")
    parser.add_argument("--quote-reader", default=None, metavar="DIR",
                        help="with --quote: quote with a sentence reader too, as the entailment judge's pipeline does "
                             "(shipped, or a directory of `selfrag train reader`)")
    parser.add_argument("--answer-finder", default=None, metavar="DIR",
                        help="with --quote: read each quote with an answer finder too, as the pipeline does "
                             "(shipped, or a directory of `selfrag train answer-finder`); declining then reads it")
    parser.add_argument("--judge", action="append", default=None,
                        help=JUDGE_HELP)
    parser.add_argument("--min-name-coverage", type=float, default=LoopSettings().min_name_coverage,
                        help="the names rule, as SelfRAG applies it (0 turns it off; default: the library's)")
    parser.add_argument("--min-quote-answering", type=float, default=LoopSettings().min_quote_answering,
                        help="decline a quoted answer the reader reads as answering below this (the library's rule "
                             "and default)")
    parser.add_argument("--min-quote-holds-answer", type=float, default=LoopSettings().min_quote_holds_answer,
                        help="with --answer-finder: decline a quoted answer the finder reads as holding an answer "
                             "below this (the library's rule and default)")
    parser.add_argument("--retrieval-order-margin", type=float, default=LoopSettings().retrieval_order_margin,
                        help="of the branches within this of the best score, choose the retriever's first (the "
                             "library's rule and default; 0: the best score alone)")
    args = parser.parse_args()
    if not args.data.is_file():
        parser.error(f"no questions file {args.data}")

    records = generate(questions(args.data, args.task), args.k, args.max_new_tokens, args.cache, args.focus,
                       args.window, args.lead)
    if args.also is not None:
        extra = read_jsonl(args.also)
        for record, more in zip(records, extra, strict=True):
            record["branches"] = record["branches"] + more["branches"]
    if args.sentence_candidates:
        for record, more in zip(records, sentence_candidates(records, args.sentence_candidates), strict=True):
            record["branches"] = record["branches"] + more["branches"]
    wheres = [r["where"] for r in records]
    right = [[match(b["answer"], r["answers"]) for b in r["branches"]] for r in records]
    print(line("RAG, top-1 passage", [bool(x and x[0]) for x in right], wheres))
    print(line("ceiling: some branch right", [any(x) for x in right], wheres))
    quoted, quotes = quoted_rights(records, args.quote_reader, args.answer_finder) if args.quote else (None, None)
    if quoted is not None:
        print(line("RAG, top-1 passage, quoted", [bool(x and x[0]) for x in quoted], wheres))
        print(line("the top-1 passage's first sentence (a control of a quote's length)",
                   [bool(r["branches"]) and match(first_sentence(r["branches"][0]), r["answers"]) for r in records],
                   wheres))
        print(line("ceiling, quoted", [any(x) for x in quoted], wheres))
    judges: dict[str, Reflector] = {}
    for item in args.judge or ["shipped"]:
        name, judge = judge_named(item)
        judges[name] = judge
    constraints = HardConstraints(min_name_coverage=args.min_name_coverage)
    for judge_name, judge in judges.items():
        started = time.perf_counter()
        critiques = [judge.critique(r["question"], branches_of(r)) for r in records]
        seconds = (time.perf_counter() - started) / max(len(records), 1)
        for variant, weights in VARIANTS.items():
            rights, declined, rights_quoted, declined_quoted, rights_previous = [], [], [], [], []
            for i, (r, crit, rs) in enumerate(zip(records, critiques, right, strict=True)):
                branches = branches_of(r)
                evidence = [b.evidence for b in branches]
                coverage = name_coverages(r["question"], evidence, args.min_name_coverage)
                for shown, hits, gone in ((None, rights, declined),
                                          *(((quotes[i], rights_quoted, declined_quoted),) if quotes else ())):
                    rs_shown = rs if shown is None else quoted[i]
                    if args.rank_prior:
                        chosen = with_rank_prior(branches, crit, weights, args.rank_prior)
                        traces = None
                    else:
                        subject = None if shown is None else branch_subject_checks(
                            r["question"], [q.text if q is not None else None for q in shown],
                            [b.passage for b in branches], evidence, args.min_name_coverage)
                        selection = select(branches, crit, weights=weights, constraints=constraints,
                                           name_coverage=coverage, speaks_of_asked=subject, quotes=shown,
                                           retrieval_order_margin=args.retrieval_order_margin)
                        chosen, traces = selection.selected, selection.traces
                    hits.append(bool(chosen is not None and rs_shown[chosen]))
                    if shown is None and quoted is not None:
                        rights_previous.append(bool(chosen is not None and quoted[i][chosen]))
                    gone.append(chosen is not None and (
                        declines(r["question"], traces[chosen], evidence, args.min_name_coverage,
                                 args.min_quote_answering, args.min_quote_holds_answer)
                        if traces is not None else not grounded(crit[chosen].distributions())))
            print(line(f"Self-RAG, judge {judge_name}, {variant} ({seconds:.2f} s/q judging)", rights, wheres,
                       declined), flush=True)
            if quoted is not None:
                print(line(f"Self-RAG, judge {judge_name}, {variant}, selected on its generations, answered quoted "
                           "(the previous rule)", rights_previous, wheres, declined), flush=True)
                print(line(f"Self-RAG, judge {judge_name}, {variant}, scored and answered as quotes", rights_quoted,
                           wheres, declined_quoted), flush=True)


if __name__ == "__main__":
    main()
