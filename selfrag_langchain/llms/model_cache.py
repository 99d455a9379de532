"""How a Hugging Face causal LM takes and returns its key/value cache, across transformers releases.

transformers 5 renamed the forward argument ``past_key_values`` to ``cache``, and the output field with it; the
old name warns on every call and goes in 5.40. The backends pass and read the cache through these two functions,
so that any transformers 5 release the package allows works, quietly.
"""

from __future__ import annotations

import functools
import inspect
from typing import Any


@functools.cache
def _argument(model_type: type) -> str:
    """The name ``model_type.forward`` takes its cache by."""
    parameters = inspect.signature(model_type.forward).parameters
    return "cache" if "cache" in parameters else "past_key_values"


def with_cache(model: Any, cache: Any) -> dict[str, Any]:
    """The keyword argument that gives ``cache`` to ``model``'s forward (to a PEFT model's base model's name)."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    return {_argument(type(base)): cache}


def returned_cache(output: Any) -> Any:
    """The cache a forward returned."""
    cache = output.get("cache")  # a cache holding no token is falsy: compared with None
    return cache if cache is not None else output.past_key_values
