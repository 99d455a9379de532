"""``selfrag train``: from raw instruction data to a Self-RAG critic and generator.

Each subcommand is one config dataclass as flags, or a YAML/JSON file given with ``--config`` (flags override
it): :mod:`selfrag_langchain.trainer.training_config` for the steps that train with ``transformers.Trainer``
(every ``TrainingArguments`` field is a flag of theirs), :mod:`selfrag_langchain.trainer.config` for the rest.

Examples:
    selfrag train critic-data --input pairs.jsonl --out critic_train.jsonl --model gpt-4o
    selfrag train critic --data critic_train.jsonl --out critic --lora --per-group 100 --max-length 384
    selfrag train critic-bias --model critic --data my_labels.jsonl   # its lines between labels, from your rows
    selfrag train critic-eval --model critic --data critic_dev.jsonl --out critic-eval.json
    selfrag train judge --data critic_train.jsonl --out judge.json
    selfrag train critic-eval --data critic_dev.jsonl      # the default judge, as SelfRAG uses it
    selfrag train judge-data --critic critic_train.jsonl --passages popqa.jsonl --out judge_synthetic.jsonl
    selfrag train judge --data critic_train.jsonl judge_synthetic.jsonl --per-label 1000 --out judge.json
    selfrag train reader --nli ../shared/data/nli --squad ../shared/data/squad --out reader
    selfrag train answer-finder --squad ../shared/data/squad --out finder
    selfrag train generator-pairs --critic critic_train.jsonl --out pairs.jsonl --passages-out passages.jsonl
    selfrag train generator-data --input pairs.jsonl --out generator_extra.jsonl --critic critic
    selfrag train generator --data generator_train.jsonl generator_extra.jsonl --out generator --lora
    accelerate launch --num_processes 4 -m selfrag_langchain.cli train generator --deepspeed zero3 ...
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from selfrag_langchain.commands.output import emit
from selfrag_langchain.trainer.arguments import parse_config

if TYPE_CHECKING:
    from selfrag_langchain.trainer.config import (
        CriticBiasConfig,
        CriticDataConfig,
        CriticEvalConfig,
        GeneratorDataConfig,
        GeneratorPairsConfig,
        JudgeConfig,
        JudgeDataConfig,
    )
    from selfrag_langchain.trainer.training_config import (
        AnswerFinderConfig,
        CriticConfig,
        GeneratorConfig,
        JudgeEncoderConfig,
        ReaderConfig,
    )


def _critic_data(config: CriticDataConfig) -> None:
    from selfrag_langchain.trainer.critic_data import collect

    stats = collect(config)
    print(f"selfrag: {stats.summary()} -> {config.out}", file=sys.stderr)


def _critic(config: CriticConfig) -> None:
    from selfrag_langchain.trainer.critic import train_critic

    _report(train_critic(config))


def _critic_eval(config: CriticEvalConfig) -> None:
    from selfrag_langchain.trainer.critic_eval import evaluate

    evaluation = evaluate(config)
    emit(evaluation.table())
    for note in evaluation.notes:
        emit(f"note: {note}")
    if config.out:
        print(f"selfrag: table and predictions written to {config.out}", file=sys.stderr)


def _critic_bias(config: CriticBiasConfig) -> None:
    from selfrag_langchain.judging.label_bias import LABEL_BIAS_FILE
    from selfrag_langchain.trainer.critic_bias import fit_label_bias

    fit = fit_label_bias(config)
    for line in fit.lines():
        print(f"selfrag: {line}", file=sys.stderr)
    path = f"{config.model}/{LABEL_BIAS_FILE}"
    if fit.bias.weights:
        print(f"selfrag: label bias written to {path}", file=sys.stderr)
    else:
        print(f"selfrag: no group gained across folds: {path} leaves the critic as it reads", file=sys.stderr)


def _judge(config: JudgeConfig) -> None:
    from selfrag_langchain.trainer.judge import fit_judge

    calibration = fit_judge(config)
    for group, report in calibration.provenance["groups"].items():
        print(f"selfrag: {group}: {report}", file=sys.stderr)
    print(f"selfrag: judge calibration written to {config.out}", file=sys.stderr)


def _judge_encoder(config: JudgeEncoderConfig) -> None:
    from selfrag_langchain.trainer.judge_encoder import train_encoder

    card = train_encoder(config)
    print(f"selfrag: learned judge ({card.provenance['rows']} rows, {card.provenance['seconds']} s) written to "
          f"{config.out}", file=sys.stderr)


def _reader(config: ReaderConfig) -> None:
    from selfrag_langchain.trainer.reader import HELD_OUT_FILE, train_reader

    card = train_reader(config)
    print(f"selfrag: sentence reader ({card.provenance['pairs']} pairs, {card.provenance['seconds']} s) written to "
          f"{config.out}; held-out figures in {config.out}/{HELD_OUT_FILE}", file=sys.stderr)


def _answer_finder(config: AnswerFinderConfig) -> None:
    from selfrag_langchain.trainer.finder import train_answer_finder

    card = train_answer_finder(config)
    print(f"selfrag: answer finder ({card.provenance['pairs']} pairs, {card.provenance['seconds']} s) written to "
          f"{config.out}", file=sys.stderr)


def _judge_data(config: JudgeDataConfig) -> None:
    from selfrag_langchain.trainer.judge_data import create

    counts = create(config)
    print(f"selfrag: {sum(counts.values())} synthetic rows ({counts}) -> {config.out}", file=sys.stderr)


def _generator_pairs(config: GeneratorPairsConfig) -> None:
    from selfrag_langchain.trainer.generator_pairs import create

    counts = create(config)
    print(f"selfrag: {sum(counts.values())} pairs ({counts}) -> {config.out}", file=sys.stderr)
    if config.passages_out:
        print(f"selfrag: their passages -> {config.passages_out} (index them with `selfrag index --store DIR "
              f"{config.passages_out}`)", file=sys.stderr)


def _generator_data(config: GeneratorDataConfig) -> None:
    from selfrag_langchain.corpus.store import has_store
    from selfrag_langchain.trainer.generator_data import create

    from_demo = config.store is None and not has_store()
    stats = create(config)
    print(f"selfrag: {stats.summary()} -> {config.out}", file=sys.stderr)
    if from_demo:
        print("selfrag: the passages came from the demo corpus (--store names your own store)", file=sys.stderr)


def _generator(config: GeneratorConfig) -> None:
    from selfrag_langchain.trainer.generator import train_generator

    _report(train_generator(config))


def _report(result: Any) -> None:
    if int(os.environ.get("RANK", "0")) != 0:  # one process of a many-process run says what was saved
        return
    print(f"selfrag: {result.summary()}", file=sys.stderr)
    for note in result.notes:
        print(f"selfrag: note: {note}", file=sys.stderr)


SUBCOMMANDS: dict[str, tuple[str, Callable[[Any], None], str]] = {
    "critic-data": ("config:CriticDataConfig", _critic_data,
                    "label (x, y) pairs with a teacher LM behind an OpenAI-compatible API (paper Appendix D)"),
    "critic": ("training_config:CriticConfig", _critic, "train a critic on labelled data (paper Eq. 1)"),
    "critic-eval": ("config:CriticEvalConfig", _critic_eval,
                    "agreement of a judge (a critic model, or the default calibrated judge) with held-out labels, "
                    "per task, beside the majority baseline"),
    "critic-bias": ("config:CriticBiasConfig", _critic_bias,
                    "fit a trained critic's label bias on labelled rows it never trained on, kept per group when it "
                    "raises balanced accuracy across folds"),
    "judge": ("config:JudgeConfig", _judge,
              "fit the calibrated judge (the embedded default's) to labelled critic data, in seconds on CPU"),
    "judge-encoder": ("training_config:JudgeEncoderConfig", _judge_encoder,
                      "train the learned judge (a cross-encoder on the shipped MiniLM) on labelled critic data, "
                      "in about 20 minutes on 2 CPU cores"),
    "reader": ("training_config:ReaderConfig", _reader,
               "train the sentence reader (entailment and answer sentences, a cross-encoder on the shipped MiniLM) "
               "on ../shared/data's nli/ and squad/ pairs, in about 40 minutes on 2 CPU cores"),
    "answer-finder": ("training_config:AnswerFinderConfig", _answer_finder,
                      "train the answer finder (a span head on the shipped MiniLM, from the sentence reader) on "
                      "../shared/data's SQuAD paragraphs, in about 25 minutes on 2 CPU cores"),
    "judge-data": ("config:JudgeDataConfig", _judge_data,
                   "make synthetic judgements (swapped facts, neighbouring entities, added claims) from passages"),
    "generator-pairs": ("config:GeneratorPairsConfig", _generator_pairs,
                        "make (x, y) pairs whose answers rest on a passage from critic files, for generator-data"),
    "generator-data": ("config:GeneratorDataConfig", _generator_data,
                       "insert reflection tokens and passages into (x, y) pairs with a critic (Algorithm 3)"),
    "generator": ("training_config:GeneratorConfig", _generator, "train a Self-RAG generator (paper Eq. 2)"),
}


"""Each step: its config class (``module:Class`` under :mod:`selfrag_langchain.trainer`, imported only when the step
runs, since the training configs load transformers), what it does, and its one-line help."""


def config_class(step: str) -> type:
    """The config dataclass of ``step``."""
    module, name = SUBCOMMANDS[step][0].split(":")
    return getattr(importlib.import_module(f"selfrag_langchain.trainer.{module}"), name)


def add_parser(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "train", help="train a Self-RAG critic and generator",
        description="From raw instruction data to a critic and a generator that SelfRAG loads. Each step takes "
                    "its options as flags or from a YAML/JSON file (--config); `selfrag train STEP --help` "
                    "lists them.")
    steps = parser.add_subparsers(dest="step", required=True, metavar="STEP")
    for name, (_, _, help_text) in SUBCOMMANDS.items():
        # The step's own flags are parsed when it runs (parse_config): building them here would load
        # transformers for every command.
        step = steps.add_parser(name, help=help_text, add_help=False)
        step.set_defaults(options_parsed_later=True)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    _, action, _ = SUBCOMMANDS[args.step]
    action(parse_config(config_class(args.step), args.options, prog=f"selfrag train {args.step}"))
    return 0
