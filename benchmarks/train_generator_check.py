"""Does a trained generator emit well-formed reflection tokens that the inline reflector reads?

For the first N PopQA questions (with their first passage) it generates, greedily:
  free         from the bare generator prompt: the first reflection token must be a Retrieve token
  passage      from the retrieval branch prompt (``[Retrieval]<paragraph>…</paragraph>``): the continuation
               must open with an IsRel token and end with an IsUse token, with an IsSup token after the answer
               when it says ``[Relevant]``
  no passage   from the ``[No Retrieval]`` branch prompt: answer text, then an IsUse token
and runs the SelfRAG Runnable with the inline reflector (mode always, the question's first 2 passages),
counting branches whose IsRel, IsSup and IsUse were read from the generator's own tokens. With
``--baseline`` the same is measured on the base model with the tokens added but untrained.

With ``--rows FILE --skip N`` (repeatable, one ``--skip`` per ``--rows``) it also reads held-out generator
rows (those after the first N of each file, which training did not see): each row's prompt is continued
after the row's own retrieval prefix (``[Retrieval]<paragraph>…</paragraph>``, the passage given as
inference gives it) or after ``[No Retrieval]``, and the continuation must be well-formed in the same sense as above.
A continuation that ends its first segment and then asks for a passage (``[Retrieval]``, as Self-RAG's multi-segment
rows do) is also counted apart, reading the first segment only; and each row is continued step by step as long
form goes on, given the row's next passage where it asks for one and, with ``--store``, that store's top passage
for the question and the previous segment once the row holds no more (:func:`continue_as_inference`).
``--reread REPORT`` recomputes the first-segment count from a saved ``--out`` report without generating.

    python benchmarks/train_generator_check.py --model /tmp/e2e/generator --questions 5 --baseline
    python benchmarks/train_generator_check.py --model selfrag-train/generator_smollm2 --questions 20 \
        --rows ../shared/data/generator_train_1k.jsonl --skip 900 --rows selfrag-train/generator_extra.jsonl --skip 1735
"""

from __future__ import annotations

import argparse
import json
import os
import re
import tempfile
from collections.abc import Callable
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from common import add_max_new_tokens, read_jsonl
from langchain_core.documents import Document

from selfrag_langchain import InlineReflector, SelfRAG, TransformersLLM
from selfrag_langchain.chains.controls import BeamSettings
from selfrag_langchain.chains.segments import selfrag_step_prefix
from selfrag_langchain.errors import StoreError
from selfrag_langchain.prompts import format_passage, generator_prompt, selfrag_branch_prompt
from selfrag_langchain.retrievers.passages import PassageRetriever
from selfrag_langchain.tokens import (
    NO_RETRIEVAL,
    RELEVANT,
    RETRIEVAL,
    TOKEN_GROUP,
    Group,
    find_special,
    parse_generation,
)

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "popqa_longtail_dev.jsonl"


def first_group(text: str) -> Group | None:
    match = next((m for m in find_special(text) if m.group(0) in TOKEN_GROUP), None)
    return TOKEN_GROUP[match.group(0)] if match else None


def judges_passage(text: str) -> bool:
    """Opens with IsRel and, when it says ``[Relevant]``, judges its answer with IsSup."""
    parsed = parse_generation(text)
    relevance = parsed.first(Group.ISREL)
    return first_group(text) is Group.ISREL and (relevance != RELEVANT or parsed.first(Group.ISSUP) is not None)


def passage_ok(text: str) -> bool:
    return judges_passage(text) and parse_generation(text).utility is not None


def segment_then_retrieval(text: str, after_passage: bool) -> bool:
    """Whether ``text`` writes a whole first segment (after a passage: IsRel, an answer, IsSup when relevant;
    otherwise an answer) and then asks for a passage, where inference would retrieve and go on."""
    cut = text.find(RETRIEVAL)
    return cut > 0 and segment_whole(text[:cut], after_passage, closing=False)


def with_segments(counts: dict) -> dict[str, int]:
    """Rows well-formed, or whose first segment is whole before a new ``[Retrieval]``, after a passage and not."""
    extra = {True: 0, False: 0}
    for row in counts["not_well_formed"]:
        after_passage = row["prefix"] != "[No Retrieval]"
        extra[after_passage] += segment_then_retrieval(row["continued"], after_passage)
    return {"retrieval_ok_or_retrieves": counts["retrieval_ok"] + extra[True],
            "no_retrieval_ok_or_retrieves": counts["no_retrieval_ok"] + extra[False]}


def first_retrieve_token(text: str) -> re.Match[str] | None:
    return next((m for m in find_special(text) if TOKEN_GROUP.get(m.group(0)) is Group.RETRIEVE), None)


def continue_as_inference(llm: TransformersLLM, prompt: str, prefix: str, first: str, passages: list[str],
                          max_new_tokens: int, steps: int, question: str = "",
                          retrieve: Callable[[str], str | None] | None = None) -> tuple[str, bool]:
    """Continue a row after its own opening the way long form does: each step generates up to the next Retrieve
    token, which opens the next step (``[Retrieval]`` with the row's next passage). Once the row holds no more,
    ``retrieve`` gives the top passage for the question and the previous segment (long form's query; long form
    also branches over k passages, the check follows the top one); without it the row's last passage comes
    again, and a row that holds none is not well-formed. ``first`` is the first step's generation. Well-formed
    when every segment is whole (after a passage: IsRel, an answer, IsSup when relevant; otherwise an answer)
    and the last ends with IsUse within ``steps`` steps."""
    context, after_passage = prefix, prefix != NO_RETRIEVAL
    used = int(after_passage)  # the row's passages given so far
    for step in range(steps):
        text = first if step == 0 else llm.generate([prompt + context],
                                                    max_new_tokens=max_new_tokens).generations[0][0].text
        stop = first_retrieve_token(text)
        segment = text if stop is None else text[: stop.start()]
        if parse_generation(segment).utility is not None or stop is None:
            return context + segment, segment_whole(segment, after_passage, closing=True)
        if not segment_whole(segment, after_passage, closing=False):
            return context + text, False
        token = stop.group(0)
        if token == RETRIEVAL:
            if used < len(passages):
                passage: str | None = passages[used]
                used += 1
            elif retrieve is not None:
                passage = retrieve(f"{question} {parse_generation(segment).answer}".strip())
            else:
                passage = passages[-1] if passages else None
            if passage is None:
                return context + text, False
            context += segment + selfrag_step_prefix("retrieve", passage)
            after_passage = True
        else:
            context += segment + token
            after_passage = False
    return context, False


def segment_whole(segment: str, after_passage: bool, *, closing: bool) -> bool:
    """A segment with an answer (judged as :func:`judges_passage` asks, after a passage) and, if it closes the
    sequence, an IsUse token."""
    parsed = parse_generation(segment)
    if not any(ch.isalnum() for ch in parsed.answer):
        return False
    if after_passage and not judges_passage(segment):
        return False
    return parsed.utility is not None or not closing


def check(llm: TransformersLLM, questions: list[dict], max_new_tokens: int) -> dict:
    counts = {"free": 0, "passage": 0, "passage_isrel": 0, "passage_issup": 0, "passage_isuse": 0, "no_passage": 0,
              "inline_branches": 0, "inline_judged": 0, "inline_isrel": 0, "inline_issup": 0, "inline_isuse": 0}
    samples = []
    for q in questions:
        ctx = q["ctxs"][0]
        passage = format_passage(ctx.get("title"), ctx["text"])
        prompts = [generator_prompt(q["question"]), selfrag_branch_prompt(q["question"], passage),
                   selfrag_branch_prompt(q["question"], None)]
        free, with_passage, without = (g[0].text for g in llm.generate(prompts,
                                                                        max_new_tokens=max_new_tokens).generations)
        counts["free"] += first_group(free) is Group.RETRIEVE
        counts["passage"] += passage_ok(with_passage)
        parsed = parse_generation(with_passage)
        counts["passage_isrel"] += first_group(with_passage) is Group.ISREL
        counts["passage_issup"] += parsed.first(Group.ISSUP) is not None
        counts["passage_isuse"] += parsed.utility is not None
        counts["no_passage"] += bool(parse_generation(without).answer) and parse_generation(without).utility is not None
        samples.append({"question": q["question"], "free": free, "passage": with_passage, "no_passage": without})
        docs = [Document(c["text"], metadata={"title": c.get("title", "")}) for c in q["ctxs"][:2]]
        rag = SelfRAG(generator=llm, reflector=InlineReflector(llm), retriever=PassageRetriever(passages=docs),
                      mode="always", k=2, max_new_tokens=max_new_tokens)
        result = rag.invoke(q["question"])
        for branch in result.branches:
            counts["inline_branches"] += 1
            judged = branch.distributions  # IsRel, IsSup, IsUse as read from the generator's own tokens
            counts["inline_judged"] += all(judged.get(str(g)) for g in (Group.ISREL, Group.ISSUP, Group.ISUSE))
            for group in (Group.ISREL, Group.ISSUP, Group.ISUSE):
                counts[f"inline_{str(group).lower()}"] += bool(judged.get(str(group)))
    return {"counts": counts, "questions": len(questions), "samples": samples}


def check_rows(llm: TransformersLLM, rows: list[dict], max_new_tokens: int, steps: int,
               retrieve: Callable[[str], str | None] | None = None) -> dict:
    """Held-out generator rows continued after their own Retrieve decision (and passage): in one generation
    (well-formed or not), and step by step as long form goes on (:func:`continue_as_inference`)."""
    from selfrag_langchain.trainer.generator import training_prompt

    counts: dict = {"rows": len(rows), "retrieval_rows": 0, "retrieval_ok": 0, "no_retrieval_rows": 0,
                    "no_retrieval_ok": 0, "free_retrieve_first": 0, "not_well_formed": [],
                    "retrieval_ok_stepwise": 0, "no_retrieval_ok_stepwise": 0, "not_well_formed_stepwise": []}
    for row in rows:
        prompt = training_prompt(row)
        output = row["output"]
        end = output.find("</paragraph>")
        retrieval = output.startswith("[Retrieval]<paragraph>") and end > 0
        prefix = output[: end + len("</paragraph>")] if retrieval else "[No Retrieval]"
        free, continued = (g[0].text for g in llm.generate([prompt, prompt + prefix],
                                                           max_new_tokens=max_new_tokens).generations)
        counts["free_retrieve_first"] += first_group(free) is Group.RETRIEVE
        if retrieval:
            ok = passage_ok(continued)
            counts["retrieval_rows"] += 1
        else:
            parsed = parse_generation(continued)
            ok = bool(parsed.answer) and parsed.utility is not None
            counts["no_retrieval_rows"] += 1
        counts["retrieval_ok" if retrieval else "no_retrieval_ok"] += ok
        passages = [segment.passage for segment in parse_generation(output).segments if segment.passage is not None]
        sequence, whole = continue_as_inference(llm, prompt, prefix, continued, passages, max_new_tokens, steps,
                                                question=row["instruction"], retrieve=retrieve)
        counts["retrieval_ok_stepwise" if retrieval else "no_retrieval_ok_stepwise"] += whole
        if not whole:
            counts["not_well_formed_stepwise"].append({"instruction": row["instruction"][:200],
                                                       "sequence": sequence, "passages": len(passages)})
        if not ok:
            expected = output[len(prefix):] if retrieval else output
            counts["not_well_formed"].append({"instruction": row["instruction"][:200], "prefix": prefix[:80],
                                              "continued": continued, "expected": expected[:300]})
    return counts | with_segments(counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="the trained generator (required unless --reread)")
    parser.add_argument("--questions", type=int, default=5)
    add_max_new_tokens(parser, default=48, help="token budget of a generation, as its recorded checks were run")
    parser.add_argument("--baseline", action="store_true", help="also measure the untrained base with the tokens")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--rows", type=Path, action="append", default=[],
                        help="generator rows (JSON Lines) to check, held out (repeatable)")
    parser.add_argument("--skip", type=int, action="append", default=[],
                        help="rows of the matching --rows that training saw (the first N)")
    parser.add_argument("--max-rows", type=int, default=100)
    parser.add_argument("--steps", type=int, default=BeamSettings().max_depth,
                        help="most steps (segments) when continuing held-out rows as long form does")
    parser.add_argument("--reread", type=Path, default=None, help="a saved --out report to recount, no generation")
    parser.add_argument("--no-repeat-ngram-size", type=int, default=0, metavar="N",
                        help="generate with TransformersLLM's loop guard: no N tokens twice in one generation "
                             "(default: 0, off)")
    parser.add_argument("--store", type=Path, default=None,
                        help="a store to retrieve from once a held-out row asks for more passages than it holds "
                             "(without it: the row's last passage again, and none for a row that holds none)")
    args = parser.parse_args()
    if not args.model and not args.reread:
        parser.error("give --model (or --reread a saved report)")
    if args.reread:
        try:
            report = json.loads(args.reread.read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            parser.error(f"cannot read the report {args.reread}: {e}")
        for r in report.values():
            for h in r["held_out_rows"].values():
                h |= with_segments(h)
        print_held_out(report)
        return
    if args.steps < 1:
        parser.error("--steps must be at least 1")
    if args.no_repeat_ngram_size < 0:
        parser.error("--no-repeat-ngram-size must be at least 0")
    if len(args.skip) != len(args.rows):
        parser.error("give one --skip for each --rows")
    held_out: dict[str, list[dict]] = {}
    for path, skip in zip(args.rows, args.skip, strict=True):
        rows = read_jsonl(path)
        held_out[path.name] = rows[skip : skip + args.max_rows]
    questions = read_jsonl(DATA, limit=args.questions)
    try:
        retrieve = None if args.store is None else store_retrieval(args.store)
    except StoreError as e:
        parser.error(str(e))
    models = {"trained": args.model}
    report = {}
    with tempfile.TemporaryDirectory() as tmp:
        if args.baseline:
            from selfrag_langchain.trainer.vocabulary import save_with_reflection_tokens

            base = TransformersLLM().load()
            models["untrained (tokens added)"] = str(save_with_reflection_tokens(base.hf_model, base.tokenizer, tmp))
        for name, model in models.items():
            llm = TransformersLLM(model=model, no_repeat_ngram_size=args.no_repeat_ngram_size).load()
            report[name] = check(llm, questions, args.max_new_tokens)
            report[name]["held_out_rows"] = {file: check_rows(llm, rows, args.max_new_tokens, args.steps, retrieve)
                                             for file, rows in held_out.items()}
    n = args.questions
    print("| model | free: opens with a Retrieve token | passage branch: opens with IsRel / has IsSup / ends with "
          "IsUse / all (well-formed) | no-passage branch: answer + IsUse | inline branches: IsRel / IsSup / IsUse "
          "read / all three |")
    print("|---|---|---|---|---|")
    for name, r in report.items():
        c = r["counts"]
        b = c["inline_branches"]
        print(f"| {name} | {c['free']}/{n} | {c['passage_isrel']} / {c['passage_issup']} / {c['passage_isuse']} / "
              f"{c['passage']} of {n} | {c['no_passage']}/{n} | {c['inline_isrel']} / {c['inline_issup']} / "
              f"{c['inline_isuse']} / {c['inline_judged']} of {b} |")
    if held_out:
        print_held_out(report)
    for sample in report["trained"]["samples"][:3]:
        print(json.dumps(sample, ensure_ascii=False)[:600])
    if args.out:
        args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False))


def store_retrieval(path: Path) -> Callable[[str], str | None]:
    """The top passage of a store as the generator reads it (the retriever Algorithm 3 used)."""
    from selfrag_langchain.corpus.answering import default_retriever
    from selfrag_langchain.trainer.generator_data import passage_text

    retriever = default_retriever(path, k=1)
    return lambda query: next((passage_text(doc) for doc in retriever.invoke(query)), None)


def print_held_out(report: dict) -> None:
    print("\n| model | held-out rows of | rows | free: opens with a Retrieve token | after their passage: "
          "well-formed (or one whole segment, then [Retrieval]) | after [No Retrieval]: answer + IsUse "
          "(or an answer, then [Retrieval]) | step by step as long form goes on: after their passage / after "
          "[No Retrieval] |")
    print("|---|---|---|---|---|---|---|")
    for name, r in report.items():
        for file, h in r["held_out_rows"].items():
            stepwise = (f"{h['retrieval_ok_stepwise']} / {h['retrieval_rows']}, {h['no_retrieval_ok_stepwise']} / "
                        f"{h['no_retrieval_rows']}" if "retrieval_ok_stepwise" in h else "not measured")
            print(f"| {name} | {file} | {h['rows']} | {h['free_retrieve_first']}/{h['rows']} | "
                  f"{h['retrieval_ok']} ({h['retrieval_ok_or_retrieves']}) / {h['retrieval_rows']} | "
                  f"{h['no_retrieval_ok']} ({h['no_retrieval_ok_or_retrieves']}) / {h['no_retrieval_rows']} | "
                  f"{stepwise} |")


if __name__ == "__main__":
    main()
