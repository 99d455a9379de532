"""The many-GPU path, checked on the CPU: the documented `accelerate launch` command parses into the training
config it means, transformers' Trainer builds with each shipped DeepSpeed config (DeepSpeed's CPU accelerator,
one process), and two processes train one generator together under torchrun (DDP over gloo, the CPU's
backend, where GPUs use NCCL)."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from selfrag_langchain.cli import parse_command_line
from selfrag_langchain.commands.train import config_class
from selfrag_langchain.trainer.arguments import parse_config
from selfrag_langchain.trainer.config import CONFIG_DIR, DEEPSPEED_PRESETS
from selfrag_langchain.trainer.training_config import GeneratorConfig

ROOT = Path(__file__).resolve().parents[2]


def _documented_launch() -> list[str]:
    text = (ROOT / "docs" / "training.md").read_text()
    (block,) = [b for b in re.findall(r"```bash\n(.*?)```", text, re.S) if b.startswith("accelerate launch")]
    return shlex.split(block.replace("\\\n", " "))


def test_the_documented_launch_parses_into_the_papers_generator_run() -> None:
    from accelerate.commands.launch import launch_command_parser

    argv = _documented_launch()
    launch = launch_command_parser().parse_args(argv[2:])
    assert Path(launch.config_file) == Path("trainer/configs/accelerate_multi_gpu.yaml")
    assert (ROOT / launch.config_file).is_file()
    assert launch.module and launch.training_script == "selfrag_langchain.cli"
    args = parse_command_line(launch.training_script_args)
    assert args.step == "generator"
    config = parse_config(config_class(args.step), args.options)
    assert isinstance(config, GeneratorConfig)
    assert config.deepspeed == str(DEEPSPEED_PRESETS["zero3"])
    assert (config.num_train_epochs, config.per_device_train_batch_size) == (3, 4)
    assert config.gradient_accumulation_steps == 8
    assert (config.learning_rate, config.max_length, config.warmup_steps) == (2e-5, 2048, 0.03)


BUILD = """
import os, sys
os.environ.update(RANK="0", LOCAL_RANK="0", WORLD_SIZE="1", MASTER_ADDR="127.0.0.1", MASTER_PORT=sys.argv[3])
from pathlib import Path
from transformers import LlamaConfig, LlamaForCausalLM, Trainer
from selfrag_langchain.trainer.training_config import GeneratorConfig
config = GeneratorConfig(data=["unused"], out=sys.argv[2], deepspeed=sys.argv[1], use_cpu=True,
                         per_device_train_batch_size=2, gradient_accumulation_steps=4)
model = LlamaForCausalLM(LlamaConfig(vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2,
                                     num_attention_heads=2, num_key_value_heads=2))
trainer = Trainer(model=model, args=config)
stage = trainer.args.hf_deepspeed_config.config["zero_optimization"]["stage"]
print("built", trainer.is_deepspeed_enabled, trainer.accelerator.state.distributed_type, stage)
"""


@pytest.mark.skipif(importlib.util.find_spec("deepspeed") is None, reason="deepspeed is not installed")
@pytest.mark.parametrize(("name", "port"), [("zero2", "29531"), ("zero3", "29532")])
def test_the_trainer_builds_with_each_shipped_deepspeed_config(name: str, port: str, tmp_path: Path) -> None:
    # A process of its own: DeepSpeed sets up a process group that should not outlive the test.
    done = subprocess.run([sys.executable, "-c", BUILD, name, str(tmp_path / "out"), port], capture_output=True,
                          text=True, timeout=300, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip().splitlines()[-1] == f"built True DistributedType.DEEPSPEED {name[-1]}"
    assert CONFIG_DIR / f"{name}.json" == DEEPSPEED_PRESETS[name]


@pytest.mark.slow
def test_two_processes_train_one_generator_each_on_its_share_of_the_data(tmp_path: Path) -> None:
    rows = [{"instruction": f"Question {i}?", "output": f"[No Retrieval]Answer {i}.[Utility:5]"} for i in range(16)]
    data = tmp_path / "gen.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "gen"
    command = [sys.executable, "-m", "torch.distributed.run", "--nproc_per_node", "2", "--master_port", "29533",
               "-m", "selfrag_langchain.cli", "train", "generator", "--data", str(data), "--out", str(out), "--lora",
               "--max-length", "48", "--per-device-train-batch-size", "2", "--gradient-accumulation-steps", "1",
               "--max-steps", "3", "--logging-steps", "1", "--save-steps", "2", "--use-cpu", "--ddp-backend", "gloo"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900, cwd=tmp_path,
                          env={**os.environ, "OMP_NUM_THREADS": "1"})
    assert done.returncode == 0, done.stderr[-3000:]
    log = [json.loads(line) for line in (out / "training_log.jsonl").read_text().splitlines()]
    losses = [entry for entry in log if "loss" in entry]
    assert [entry["step"] for entry in losses] == [1, 2, 3]  # one process writes the log, each step once
    # A step takes 2 rows on each of the 2 processes: a quarter of the 16 rows, where one process takes an eighth.
    assert losses[0]["epoch"] == pytest.approx(0.25)
    assert losses[-1]["loss"] < losses[0]["loss"]
    assert (out / "adapter_model.safetensors").is_file() and (out / "checkpoints" / "checkpoint-2").is_dir()
    assert done.stderr.count("selfrag: saved adapter model") == 1
