"""The README runs as written: every ```python and ```bash block in README.md, and in the docs pages its sections
moved to (``DOCUMENTS``), is executed here, or the page says beside the block why CI cannot run it.

Why: a README drifts from the code faster than anything else in a project, and its readers copy its blocks first.
The pages in ``DOCUMENTS`` hold the README's own sections, moved out to keep it short; the other docs pages are
reference, and their blocks are not run (``test_every_marked_page_is_read`` keeps a marked block from moving to one
of them unnoticed).

How the blocks run:

- Each block is named by its document and line (``docs/chat-model.md:9``), and identified in test ids and
  ``PROMISES`` by its document, section and rank in the section (``chat-model-python-self-rag-as-a-chat-model-1``).
- A ```python block runs as a script with this environment's interpreter (``sys.executable``), followed by
  the checks of what its prose and comments promise (``PROMISES``: the answer names Leonardo, the citation is
  the Mona Lisa's, the settings took); every script that runs has them.
- A ```bash block runs its commands one by one with bash, ``selfrag`` on PATH and ``.venv`` (the quick start's)
  being this environment. A command CI has already run is not re-run but accounted for in ``NOT_RERUN`` with
  the reason (``bash scripts/setup.sh``: CI's set-up step; ``.venv/bin/python -m pytest``: this suite); the rest
  of its line (``&& .venv/bin/selfrag ask ...``) runs. ``RUNS`` says what a command reads (``selfrag chat``)
  and prints, where the README promises more than a clean exit.
- Every block runs in a fresh data home (``SELFRAG_HOME`` in a temp dir, ``HF_HUB_OFFLINE=1``), as after a quick
  start that indexed nothing of the user's, except that a small demo store marked complete (``DEMO_TITLES``)
  stands in for the 10,000-article demo corpus, whose indexing takes minutes. Its working directory holds the
  files the blocks name as the user's (``USER_FILES``), and ``../shared/data`` beside it holds 2-question
  copies of the files of the project's ``../shared/data`` the blocks name.

Markers, HTML comments on the lines just before a fence (invisible when the page is rendered):

- ``<!-- readme-test: continues -->`` before a ```python block: the block uses names an earlier block defined.
  It runs in one script after the nearest python block before it in the same document that runs (which may
  itself continue an earlier one; a skipped block is in no script): a chain of continuing blocks is one script
  within one document, run once, and a failure names the block whose line raised.
- ``<!-- readme-test: skip: REASON -->``: CI cannot run the block (a GPU, a 7B model, hours of training, a
  server); REASON says which. Such a block is reported as skipped with its reason, and ``MAX_SKIPPED`` caps
  how many there may be in all the documents together.

Fences without a label (the diagrams, the command-line synopsis) are not code; a fence with any other label
fails ``test_every_block_is_run_or_marked``, so no block escapes by its label.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from selfrag_langchain.embeddings import MiniLMEmbeddings
from selfrag_langchain.llms.transformers import TransformersLLM

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
DOCUMENTS: tuple[Path, ...] = (
    README,
    DOCS / "judges.md",
    DOCS / "relevance-filter.md",
    DOCS / "chat-model.md",
    DOCS / "long-answers-and-chat.md",
    DOCS / "web-chat-and-server.md",
    DOCS / "eval-overview.md",
    DOCS / "training-overview.md",
    DOCS / "backends-overview.md",
    DOCS / "retrieval.md",
)
"""The README and the docs pages that hold its moved sections' blocks: every fenced block of these runs here or
is marked."""
SHARED_DATA = ROOT.parent / "shared" / "data"

RUN_LANGUAGES = ("python", "bash")
"""Fence labels of the blocks that run; an unlabelled fence is text (a diagram, a synopsis)."""

MAX_SKIPPED = 7
"""At most this many blocks, in all of ``DOCUMENTS`` together, may be skipped by marker: each needs hardware, a
model or a server CI lacks, or is a server that runs until stopped (each of those names the test that runs it)."""

NOT_RERUN: dict[str, str] = {
    "bash scripts/setup.sh": "CI's set-up step runs it: these tests run in the environment it built",
    ".venv/bin/python -m pytest": "the test suite this test is part of",
}
"""Commands (by prefix) that CI runs already, with the reason they are not re-run here."""


@dataclass(frozen=True)
class Run:
    """One run of a command: what it reads (None: closed input), what it must print and what it must not."""

    stdin: str | None = None
    expect: tuple[str, ...] = ()
    absent: tuple[str, ...] = ()


DEMO_NOTICE = "answering from the demo corpus"
"""What ``selfrag ask`` says when it answers from the demo corpus: before the user has indexed anything."""

RUNS: dict[str, list[Run]] = {
    '.venv/bin/selfrag ask "Who painted the Mona Lisa?"': [Run(expect=(DEMO_NOTICE, "[1] Mona Lisa"))],
    'selfrag ask "..."': [Run(absent=(DEMO_NOTICE,))],  # after `selfrag index`: the user's store, not the demo
    "selfrag chat --session alice": [
        Run("Who painted the Mona Lisa?\n", ("[1] Mona Lisa",)),
        Run(None, ("(session alice: continuing after 1 earlier turn)",)),  # "the same id continues it later"
    ],
}
"""Commands (by prefix) checked for more than their exit status, one run each: what the page says they do.
Any other command runs once with closed input."""

PROMISES: dict[str, str] = {
    "README-python-use-it-in-python-1": """
import json
assert "Leonardo" in result.answer, result.answer
assert result.citations[0].metadata["citation"] == 1 and result.citations[0].metadata["title"] == "Mona Lisa"
assert result.retrieve_decision.retrieve
assert result.selected == max(result.branches, key=lambda b: b.scores.total).index  # the best total is chosen
assert json.loads(result.model_dump_json())["answer"] == result.answer
assert (rag.k, rag.w_sup) == (3, 2.0)                                    # = selfrag ask --k 3 --w-sup 2
assert "Leonardo" in chain.invoke({"topic": "Art history", "question": "Who painted the Mona Lisa?"})
""",
    "relevance-filter-python-self-rag-s-relevance-filter-as-a-retriever-1": """
assert docs and docs[0].metadata["title"] == "Eiffel Tower"
assert all(d.metadata["selfrag"]["relevant"] for d in docs) and docs[0].metadata["selfrag"]["retrieved_rank"] == 1
""",
    "chat-model-python-self-rag-as-a-chat-model-1": """
assert "Leonardo" in message.text and "[1]" in message.text
assert message.content_blocks[0]["annotations"][0]["title"] == "Mona Lisa"
assert message.response_metadata["selfrag"]["result"]["citations"]
""",
    "long-answers-and-chat-python-long-answers-with-per-sentence-citations-and-a-chat-1": """
turns = chat.history_factory("alice").messages
assert len(turns) == 4 and "Leonardo" in turns[1].content   # both turns kept for the session
""",
    "backends-overview-python-backends-transformers-vllm-openai-compatible-servers-llama-cpp-1": """
assert type(llm).__name__ == "LlamaCppLLM" and llm.n_ctx == 4096
""",
}
"""What each runnable python script's prose and comments promise, checked after it runs: a block that merely
exits 0 proves nothing about its answer (keyed by the script's test id: document, section, rank)."""

DEMO_TITLES = frozenset({
    "Mona Lisa", "Leonardo da Vinci", "Louvre", "Eiffel Tower", "Volcano", "Hamlet", "William Shakespeare",
})
"""The demo articles the blocks' questions are about; twelve sampled others make the retriever choose."""

USER_FILES: dict[str, str] = {
    "notes/volcanoes.md": "# Volcanoes\n\nA volcano is a rupture in the crust through which lava, volcanic ash and "
                          "gases escape from a magma chamber below the surface.\n",
    "notes/tea.txt": "Green tea leaves are steamed or pan-fired soon after picking, so they do not oxidise.\n",
    "handbook.html": "<html><head><title>Staff handbook</title></head><body><nav>Home</nav><main><h1>Leave</h1>"
                     "<p>Every employee has 25 days of paid leave a year.</p></main></body></html>\n",
}
"""The user's files that the blocks name (``selfrag index notes/ handbook.html``), written into the working dir."""

SHARED_ROWS = 2
"""Questions kept in the copies of ``../shared/data`` files: ``selfrag eval`` on 2 questions, not 50."""

_FENCE = re.compile(r"^```(?P<label>\S*)\s*$")
_MARKER = re.compile(r"^<!--\s*readme-test:\s*(?P<body>.*?)\s*-->$")
_SHARED_PATH = re.compile(r"\.\./shared/data/(?P<name>[\w.-]+)")


# --- reading the README and its pages ----------------------------------------------------------------------------


@dataclass
class Block:
    """One fenced block of a document and the markers written before it."""

    label: str
    line: int
    """The line of the opening fence (1-based); the code starts on the next line."""
    section: str
    code: str = ""
    continues: bool = False
    skip: str | None = None
    document: str = "README.md"
    """The document's path from the repository root (``README.md``, ``docs/chat-model.md``)."""

    @property
    def name(self) -> str:
        return f"{self.document}:{self.line} (```{self.label} under '{self.section}')"


def read_blocks(text: str, document: str = "README.md") -> list[Block]:
    """Every fenced block of ``document`` in order, with its section heading and markers; malformed markers fail
    here."""
    blocks: list[Block] = []
    section, opened, code, pending = "(top)", None, [], []
    for number, line in enumerate(text.splitlines(), 1):
        fence = _FENCE.match(line.strip())
        if opened is not None:
            if fence and not fence["label"]:
                opened.code = "\n".join(code) + "\n"
                blocks.append(opened)
                opened, code = None, []
            else:
                code.append(line)
            continue
        if fence:
            _check_markers(pending, fence["label"], f"{document}:{number}")
            skip = next((m.removeprefix("skip:").strip() for m in pending if m.startswith("skip:")), None)
            opened = Block(fence["label"], number, section, continues="continues" in pending, skip=skip,
                           document=document)
            pending = []
        elif marker := _MARKER.match(line.strip()):
            pending.append(marker["body"])
        elif line.strip():
            if pending:
                msg = f"{document}:{number}: a readme-test marker must stand just before a fence: {pending}"
                raise ValueError(msg)
            if line.startswith("#"):
                section = line.lstrip("#").strip()
    if opened is not None:
        msg = f"{document}:{opened.line}: the fence is never closed"
        raise ValueError(msg)
    return blocks


def _check_markers(markers: list[str], label: str, where: str) -> None:
    """Check the markers before one fence (``where``: its document and line): known kinds, a reason for a skip,
    continuation only of Python."""
    for marker in markers:
        if marker == "continues" and label != "python":
            msg = f"{where}: only a ```python block can continue an earlier one"
            raise ValueError(msg)
        if marker.startswith("skip:") and not marker.removeprefix("skip:").strip():
            msg = f"{where}: a skip marker needs its reason: <!-- readme-test: skip: REASON -->"
            raise ValueError(msg)
        if marker != "continues" and not marker.startswith("skip:"):
            msg = f"{where}: unknown marker {marker!r} (use 'continues' or 'skip: REASON')"
            raise ValueError(msg)


@dataclass
class Script:
    """Python blocks that run as one script: a block and the blocks that continue it."""

    blocks: list[Block] = field(default_factory=list)

    @property
    def code(self) -> str:
        return "".join(block.code for block in self.blocks)

    def block_at(self, script_line: int) -> Block:
        """The block that holds a line of the script (for naming the one that raised)."""
        for block in self.blocks:
            lines = block.code.count("\n")
            if script_line <= lines:
                return block
            script_line -= lines
        return self.blocks[-1]


def python_scripts(blocks: list[Block]) -> list[Script]:
    """The python blocks (in document order) grouped into scripts by their ``continues`` markers, each script
    within one document; a skipped block is a script alone."""
    scripts: list[Script] = []
    for block in blocks:
        if block.label != "python":
            continue
        if block.continues and not block.skip:
            running = [script for script in scripts
                       if not script.blocks[0].skip and script.blocks[0].document == block.document]
            if not running:
                msg = f"{block.name} continues, but no python block that runs comes before it in {block.document}"
                raise ValueError(msg)
            running[-1].blocks.append(block)
        else:
            scripts.append(Script([block]))
    return scripts


def shell_commands(code: str) -> list[str]:
    """The commands of a bash block: lines joined at trailing backslashes, comments dropped, split at ``&&``."""
    commands = []
    for line in code.replace("\\\n", " ").splitlines():
        commands += [part.strip() for part in _split_outside_quotes(line) if part.strip()]
    return commands


def _split_outside_quotes(line: str) -> list[str]:
    """``line`` split at ``&&``, up to a ``#`` comment, ignoring both inside quotes."""
    parts, current, quote, i = [], "", "", 0
    while i < len(line):
        char = line[i]
        if quote:
            quote = "" if char == quote else quote
        elif char in "\"'":
            quote = char
        elif char == "#" and (not current or current[-1].isspace()):
            break
        elif line.startswith("&&", i):
            parts.append(current)
            current, i = "", i + 2
            continue
        current += char
        i += 1
    return [*parts, current]


def not_rerun_reason(command: str) -> str | None:
    """Why CI does not re-run ``command``, or None when it runs here."""
    return next((why for prefix, why in NOT_RERUN.items() if command.startswith(prefix)), None)


def block_ids(blocks: list[Block]) -> list[str]:
    """Test ids that survive edits elsewhere in the documents: the document's name (``README``, ``chat-model``),
    label, section, and rank within the section."""
    seen: dict[tuple[str, str, str], int] = {}
    ids = []
    for block in blocks:
        key = (Path(block.document).stem, block.label, re.sub(r"[^a-z0-9]+", "-", block.section.lower()).strip("-"))
        seen[key] = seen.get(key, 0) + 1
        ids.append(f"{key[0]}-{key[1]}-{key[2]}-{seen[key]}")
    return ids


def document_name(path: Path) -> str:
    """A document's path from the repository root, as blocks name it."""
    return path.relative_to(ROOT).as_posix()


def read_documents(paths: tuple[Path, ...]) -> list[Block]:
    """The blocks of every document, document after document."""
    stems = [path.stem for path in paths]
    assert len(set(stems)) == len(stems), f"two documents share a name, so test ids would clash: {stems}"
    return [block for path in paths for block in read_blocks(path.read_text(encoding="utf-8"), document_name(path))]


BLOCKS = read_documents(DOCUMENTS)
SCRIPTS = python_scripts(BLOCKS)
SCRIPT_IDS = block_ids([s.blocks[0] for s in SCRIPTS])


def script_id(script: Script) -> str:
    return SCRIPT_IDS[SCRIPTS.index(script)]
SHELL_BLOCKS = [block for block in BLOCKS if block.label == "bash"]


# --- the check that needs no model --------------------------------------------------------------------------------


def test_every_block_is_run_or_marked() -> None:
    """Every code block runs below or carries its reason; lists the ones that do not run, and why."""
    labels = {block.label for block in BLOCKS}
    assert labels <= {"", *RUN_LANGUAGES}, f"fences labelled {labels - {'', *RUN_LANGUAGES}}: use python or bash"
    run = [b for b in BLOCKS if b.label in RUN_LANGUAGES]
    in_scripts = [b for script in SCRIPTS for b in script.blocks]
    order = {document_name(path): rank for rank, path in enumerate(DOCUMENTS)}
    assert [b for b in run if b.label == "python"] == sorted(in_scripts, key=lambda b: (order[b.document], b.line))
    skipped = [b for b in run if b.skip]
    report = [f"{b.name}: {b.skip}" for b in skipped]
    commands = [c for b in SHELL_BLOCKS if not b.skip for c in shell_commands(b.code)]
    report += [f"not re-run: `{c}`: {not_rerun_reason(c)}" for c in commands if not_rerun_reason(c)]
    print("\n".join(["Blocks of the README and its pages not run here:", *report]))
    assert len(skipped) <= MAX_SKIPPED, f"{len(skipped)} blocks skipped by marker (at most {MAX_SKIPPED}): {report}"
    assert len(run) - len(skipped) >= len(run) // 2, "most of the README's blocks must run"
    for prefix in [*NOT_RERUN, *RUNS]:
        assert any(c.startswith(prefix) for c in commands), f"`{prefix}` is in this test but in no command of a page"


def test_every_marked_page_is_read() -> None:
    """A page whose blocks carry readme-test markers is read here, so no README block leaves the test unnoticed;
    every page read here holds a block that runs or is marked, and the README links to it."""
    read = {path.resolve() for path in DOCUMENTS}
    pages = {path.resolve() for path in [*ROOT.glob("*.md"), *DOCS.glob("*.md")]}
    marked = sorted(document_name(p) for p in pages - read if "readme-test:" in p.read_text(encoding="utf-8"))
    assert marked == [], "pages with readme-test markers that this test does not read: add them to DOCUMENTS"
    runnable = {b.document for b in BLOCKS if b.label in RUN_LANGUAGES}
    assert [document_name(p) for p in DOCUMENTS if document_name(p) not in runnable] == [], "a page with no block"
    readme = README.read_text(encoding="utf-8")
    unlinked = [document_name(p) for p in DOCUMENTS[1:] if f"]({document_name(p)})" not in readme]
    assert unlinked == [], "pages the README does not link to, so no reader finds them"


def test_every_python_script_that_runs_has_its_promises_checked() -> None:
    running = {script_id(s) for s in SCRIPTS if not s.blocks[0].skip}
    assert set(PROMISES) == running, "a script without promises, or promises for no script"


def test_reading_the_readme() -> None:
    """The reader this test relies on: sections, markers, continuation, ``&&`` and comments in commands."""
    text = (
        "## One\n\n```bash\nbash scripts/setup.sh && selfrag ask \"a && b # c\"  # comment\n"
        "selfrag x \\\n  --y\n```\n\n"
        "## Two\n\n```python\nx = 1\n```\n\n<!-- readme-test: continues -->\n```python\nprint(x)\n```\n\n"
        "<!-- readme-test: skip: needs a GPU -->\n```python\nimport vllm\n```\n\n"
        "<!-- readme-test: continues -->\n```python\nx += 1\n```\n\n```\ndiagram\n```\n"
    )
    blocks = read_blocks(text)
    assert [(b.label, b.line, b.section, b.continues, b.skip) for b in blocks] == [
        ("bash", 3, "One", False, None), ("python", 11, "Two", False, None), ("python", 16, "Two", True, None),
        ("python", 21, "Two", False, "needs a GPU"), ("python", 26, "Two", True, None), ("", 30, "Two", False, None),
    ]
    assert shell_commands(blocks[0].code) == ["bash scripts/setup.sh", 'selfrag ask "a && b # c"', "selfrag x    --y"]
    first, skipped = python_scripts(blocks)
    assert first.code == "x = 1\nprint(x)\nx += 1\n" and skipped.blocks == [blocks[3]]
    assert [first.block_at(line).line for line in (1, 2, 3)] == [11, 16, 26]
    with pytest.raises(ValueError, match="needs its reason"):
        read_blocks("<!-- readme-test: skip: -->\n```bash\nls\n```\n")
    with pytest.raises(ValueError, match="just before a fence"):
        read_blocks("<!-- readme-test: continues -->\ntext\n```python\nx\n```\n")
    other = read_blocks("# Page\n\n<!-- readme-test: continues -->\n```python\nx += 1\n```\n", "docs/page.md")
    assert other[0].name == "docs/page.md:4 (```python under 'Page')"
    with pytest.raises(ValueError, match=r"comes before it in docs/page\.md"):
        python_scripts([*blocks, *other])  # a chain never crosses from one document into the next
    assert block_ids([blocks[1], *read_blocks("## Two\n\n```python\ny = 2\n```\n", "docs/two.md")]) == [
        "README-python-two-1", "two-python-two-1"]


# --- running the blocks -------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory, minilm: MiniLMEmbeddings) -> Path:
    """A small demo store marked complete, built once and copied into each block's data home."""
    from selfrag_langchain.corpus.demo import DEMO_COMPLETE_KEY, DEMO_MARKER_KEY, load_demo_documents
    from selfrag_langchain.corpus.indexing import index_documents
    from selfrag_langchain.corpus.store import open_store, update_store_metadata

    directory = tmp_path_factory.mktemp("readme-demo") / "demo-store"
    docs = [d for d in load_demo_documents() if d.metadata["title"] in DEMO_TITLES]
    assert {d.metadata["title"] for d in docs} == DEMO_TITLES
    docs += [d for d in load_demo_documents(limit=12) if d.metadata["title"] not in DEMO_TITLES]
    index_documents(docs, directory, progress=False, embeddings=minilm)
    store = open_store(directory, create=False, embeddings=minilm)
    update_store_metadata(store, **{DEMO_MARKER_KEY: len(docs), DEMO_COMPLETE_KEY: True})
    return directory


@dataclass
class Place:
    """Where one block runs: its working directory and the environment with its fresh data home."""

    cwd: Path
    env: dict[str, str]


@pytest.fixture
def place(tmp_path: Path, demo_store: Path, selfrag_home: Path, smollm2: TransformersLLM) -> Place:
    """A fresh data home (the demo store copied in, converted models shared) and a working dir with user files.

    ``smollm2`` converts the default model once per session into ``selfrag_home``, which every block shares.
    """
    home, cwd = tmp_path / "home", tmp_path / "work"
    shutil.copytree(demo_store, home / "demo-store")
    (selfrag_home / "models").mkdir(exist_ok=True)
    (home / "models").symlink_to(selfrag_home / "models", target_is_directory=True)
    for name, text in USER_FILES.items():
        (cwd / name).parent.mkdir(parents=True, exist_ok=True)
        (cwd / name).write_text(text, encoding="utf-8")
    (cwd / ".venv").symlink_to(sys.prefix, target_is_directory=True)
    env = {**os.environ, "SELFRAG_HOME": str(home), "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "TOKENIZERS_PARALLELISM": "false", "PATH": f"{Path(sys.prefix) / 'bin'}{os.pathsep}{os.environ['PATH']}"}
    return Place(cwd, env)


def _copy_shared_data(code: str, cwd: Path) -> None:
    """2-question copies of the ``../shared/data`` files ``code`` names, where ``../shared/data`` is from ``cwd``."""
    for name in sorted({m["name"] for m in _SHARED_PATH.finditer(code)}):
        source = SHARED_DATA / name
        if not source.is_file():
            pytest.skip(f"{source} is not here: the block reads the project's shared data")
        target = cwd.parent / "shared" / "data" / name
        target.parent.mkdir(parents=True, exist_ok=True)
        rows = source.read_text(encoding="utf-8").splitlines(keepends=True)[:SHARED_ROWS]
        target.write_text("".join(rows), encoding="utf-8")


def _tail(text: str, limit: int = 4000) -> str:
    return text if len(text) <= limit else "…" + text[-limit:]


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS, ids=SCRIPT_IDS)
def test_python_block_runs_as_a_script(script: Script, place: Place) -> None:
    """The block (with the blocks that continue it) runs as a script, exits 0 and keeps its promises
    (:data:`PROMISES`)."""
    if script.blocks[0].skip:
        pytest.skip(f"{script.blocks[0].name}: {script.blocks[0].skip}")
    _copy_shared_data(script.code, place.cwd)
    path = place.cwd / "readme_block.py"
    path.write_text(script.code + PROMISES[script_id(script)], encoding="utf-8")
    done = subprocess.run([sys.executable, str(path)], cwd=place.cwd, env=place.env, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        lines = [int(n) for n in re.findall(rf'File "{re.escape(str(path))}", line (\d+)', done.stderr)]
        culprit = script.block_at(lines[-1]).name if lines else script.blocks[0].name
        pytest.fail(f"{culprit} failed with exit status {done.returncode}:\n{_tail(done.stderr)}")


@pytest.mark.slow
@pytest.mark.parametrize("block", SHELL_BLOCKS, ids=block_ids(SHELL_BLOCKS))
def test_shell_block_runs(block: Block, place: Place) -> None:
    """Each command of the block runs in order with bash and exits 0, printing what the README says it does."""
    if block.skip:
        pytest.skip(f"{block.name}: {block.skip}")
    _copy_shared_data(block.code, place.cwd)
    for command in shell_commands(block.code):
        if not_rerun_reason(command):
            continue
        runs = next((runs for prefix, runs in RUNS.items() if command.startswith(prefix)), [Run()])
        for run in runs:
            done = subprocess.run(["bash", "-c", command], cwd=place.cwd, env=place.env, capture_output=True,
                                  text=True, timeout=600, input=run.stdin,
                                  stdin=subprocess.DEVNULL if run.stdin is None else None)
            output, where = done.stdout + done.stderr, f"{block.name}: `{command}`"
            assert done.returncode == 0, f"{where} exited with {done.returncode}:\n{_tail(output)}"
            assert "Traceback" not in output, f"{where} printed a traceback:\n{_tail(output)}"
            missing = [text for text in run.expect if text not in output]
            assert not missing, f"{where} did not print {missing}:\n{_tail(output)}"
            unwanted = [text for text in run.absent if text in output]
            assert not unwanted, f"{where} printed {unwanted}:\n{_tail(output)}"
