"""The shipped DeepSpeed configs: valid JSON, and accepted by DeepSpeed once the HF integration fills them."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from selfrag_langchain.trainer.config import CONFIG_DIR, DEEPSPEED_PRESETS


@pytest.mark.parametrize("name", sorted(DEEPSPEED_PRESETS))
def test_config_is_json_with_auto_values_for_the_trainer(name: str) -> None:
    data = json.loads(DEEPSPEED_PRESETS[name].read_text())
    assert data["zero_optimization"]["stage"] == int(name[-1])
    assert data["bf16"]["enabled"] == "auto"
    for key in ("train_micro_batch_size_per_gpu", "gradient_accumulation_steps", "train_batch_size"):
        assert data[key] == "auto"


def test_accelerate_config_is_shipped() -> None:
    import yaml

    data = yaml.safe_load((CONFIG_DIR / "accelerate_multi_gpu.yaml").read_text())
    assert data["distributed_type"] == "MULTI_GPU" and data["mixed_precision"] == "bf16"


@pytest.mark.skipif(importlib.util.find_spec("deepspeed") is None, reason="deepspeed is not installed")
@pytest.mark.parametrize("name", sorted(DEEPSPEED_PRESETS))
def test_deepspeed_accepts_the_filled_config(name: str, tmp_path: Path) -> None:
    import torch
    from deepspeed.runtime.config import DeepSpeedConfig
    from transformers import TrainingArguments
    from transformers.integrations.deepspeed import HfTrainerDeepSpeedConfig

    args = TrainingArguments(output_dir=str(tmp_path), per_device_train_batch_size=2, gradient_accumulation_steps=4,
                             bf16=True, use_cpu=True, report_to="none")
    filled = HfTrainerDeepSpeedConfig(str(DEEPSPEED_PRESETS[name]))
    filled.trainer_config_process(args)
    model = torch.nn.Linear(4, 4)
    model.config = type("Config", (), {"hidden_size": 64, "hidden_sizes": None})()  # what ZeRO-3 sizes buckets by
    filled.trainer_config_finalize(args, model, num_training_steps=100)
    assert "auto" not in json.dumps(filled.config)
    config = DeepSpeedConfig(filled.config)
    assert config.zero_optimization_stage == int(name[-1])
    assert config.train_batch_size == 8 and config.gradient_accumulation_steps == 4
    assert config.bfloat16_config.enabled
