"""The documentation is tested: every code block and command in README.md, docs/*.md and
scenarios/README.md runs here.

What runs, per fenced block (the fence must name its kind):

- ``sh``: the block runs in ``bash -e`` in a scratch folder of its document (``scenarios/``,
  ``examples/`` and ``scripts/`` linked from the repository, ``results/`` written there), with
  ``lnsim`` and ``python`` meaning this interpreter's. The blocks of a document run in order, so a
  later block sees the results of an earlier one (``lnsim plot results/...`` after a sweep).
- ``python``: the block runs in one interpreter per document (a later block sees the names an
  earlier one defined), in the same scratch folder, with matplotlib's Agg backend.
- ``toml``: parsed; a fragment that is a whole scenario is validated with ``lnsim validate``.
- ``text``: not a program (a diagram, a usage synopsis or a sample output). Every line of a
  synopsis (``lnsim CMD [--flag ...]``) must list exactly the flags of ``lnsim CMD --help``.
  A sample output with ``output_of`` is compared with what the command really prints.

Inline commands in the prose (`` `lnsim run|validate|sweep SCENARIO ...` ``) are checked with
``lnsim validate`` on the same scenario and ``--set`` overrides.

A block can carry a directive, an HTML comment on the line just above its fence (invisible on
the rendered page)::

    <!-- doctest: {"replace": {"--seeds 3": "--seeds 1 --grid traffic.load=0.1"}} -->
    <!-- doctest: {"skip": "why it cannot run in the suite"} -->
    <!-- doctest: {"output_of": "lnsim run ...", "mask": ["wall [0-9.]+ s"]} -->

``replace`` shortens a block (each text must occur in it, so the directive cannot go stale),
``sub`` does the same with regular expressions (each must match), ``skip`` keeps a block out
with the reason (the few that cannot run here: the test suite itself, a batch system),
``timeout`` raises the per-block limit (seconds, default 240).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python < 3.11
    import tomli as tomllib  # type: ignore[no-redef]

REPO = Path(__file__).resolve().parents[2]
DOCS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md")), REPO / "scenarios" / "README.md",
        *sorted((REPO / "scenarios").glob("*/README.md"))]
KINDS = {"sh", "python", "toml", "text"}
DEFAULT_TIMEOUT = 240
DIRECTIVE = re.compile(r"^<!--\s*doctest:\s*(\{.*\})\s*-->\s*$")
FENCE = re.compile(r"^(\s*)```(.*)$")


@dataclass
class Block:
    doc: Path
    line: int  # 1-based line of the opening fence
    kind: str
    text: str
    directive: Dict = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.doc.relative_to(REPO)}:{self.line}"

    def program(self) -> str:
        """The block's text with the directive's replacements applied (each must occur)."""
        text = self.text
        for old, new in self.directive.get("replace", {}).items():
            assert old in text, f"{self.id}: doctest replace: {old!r} is not in the block (stale directive)"
            text = text.replace(old, new)
        for pattern, repl in self.directive.get("sub", []):
            text, n = re.subn(pattern, repl, text, flags=re.M)
            assert n, f"{self.id}: doctest sub: {pattern!r} matches nothing in the block (stale directive)"
        return text


def parse_blocks(doc: Path) -> List[Block]:
    lines = doc.read_text(encoding="utf-8").split("\n")
    blocks: List[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, info = m.group(1), m.group(2).strip()
        start = i
        body = []
        i += 1
        while i < len(lines) and not re.match(rf"^{re.escape(indent)}```\s*$", lines[i]):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        assert i < len(lines), f"{doc.relative_to(REPO)}:{start + 1}: unclosed code fence"
        directive: Dict = {}
        j = start - 1
        if j >= 0:
            d = DIRECTIVE.match(lines[j].strip())
            if d:
                try:
                    directive = json.loads(d.group(1))
                except json.JSONDecodeError as e:
                    raise AssertionError(f"{doc.relative_to(REPO)}:{j + 1}: bad doctest directive: {e}") from None
        blocks.append(Block(doc, start + 1, info.split()[0] if info else "", "\n".join(body) + "\n", directive))
        i += 1
    return blocks


ALL_BLOCKS = [b for d in DOCS for b in parse_blocks(d)]


def _by_kind(kind: str) -> List[Block]:
    return [b for b in ALL_BLOCKS if b.kind == kind]


# ---------------------------------------------------------------------------------------------
# The scratch folder of a document and the order its blocks run in


class DocSandbox:
    """A scratch folder per document in which its sh and python blocks run in document order."""

    def __init__(self, doc: Path, root: Path):
        self.doc = doc
        self.dir = root / doc.relative_to(REPO).as_posix().replace("/", "_")
        self.dir.mkdir(parents=True)
        for name in ("scenarios", "examples", "scripts"):
            (self.dir / name).symlink_to(REPO / name)
        bin_dir = self.dir / ".bin"
        bin_dir.mkdir()
        for name, line in (("lnsim", f'exec "{sys.executable}" -m lnsim "$@"'), ("python", f'exec "{sys.executable}" "$@"'),
                           ("python3", f'exec "{sys.executable}" "$@"')):
            p = bin_dir / name
            p.write_text(f"#!/bin/sh\n{line}\n")
            p.chmod(0o755)
        self.env = {
            **os.environ,
            "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
            "MPLBACKEND": "Agg",
            "PYTHONUNBUFFERED": "1",
        }
        self.blocks = [b for b in parse_blocks(doc) if b.kind in ("sh", "python") and "skip" not in b.directive]
        self.done: Dict[int, Optional[str]] = {}  # block line -> None (passed) or failure text
        self.py: Optional[subprocess.Popen] = None
        self.pending = b""  # bytes read from the interpreter, not yet a whole line

    def ensure(self, block: Block) -> None:
        """Runs every earlier block not yet run, then ``block``; raises the block's own failure."""
        for b in self.blocks:
            if b.line not in self.done:
                try:
                    self.done[b.line] = self._run(b)
                except AssertionError as e:  # a stale directive
                    self.done[b.line] = str(e)
            if b.line == block.line:
                break
        failure = self.done[block.line]
        if failure is not None:
            pytest.fail(failure, pytrace=False)

    def _run(self, b: Block) -> Optional[str]:
        timeout = b.directive.get("timeout", DEFAULT_TIMEOUT)
        if b.kind == "sh":
            # its own process group, so that what the block starts in the background (a Dask
            # scheduler and workers) is stopped with it
            log = self.dir / f".block-{b.line}.log"  # a file, not a pipe: background children keep a pipe open
            with open(log, "w") as f:
                proc = subprocess.Popen(
                    ["bash", "-e", "-o", "pipefail", "-c", b.program()],
                    cwd=self.dir, env=self.env, stdout=f, stderr=subprocess.STDOUT, start_new_session=True,
                )
                try:
                    proc.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    _kill_group(proc)
                    proc.wait()
                    return f"{b.id}: timed out after {timeout} s\n{_tail(log.read_text())}"
                _kill_group(proc)
            if proc.returncode != 0:
                return f"{b.id}: exit {proc.returncode}\n--- block ---\n{b.program()}--- output ---\n{_tail(log.read_text())}"
            return None
        return self._run_python(b, timeout)

    def _run_python(self, b: Block, timeout: float) -> Optional[str]:
        if self.py is None:
            self.py = subprocess.Popen(
                [sys.executable, "-c", PY_SERVER], cwd=self.dir, env=self.env, stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
            )
        assert self.py.stdin is not None and self.py.stdout is not None
        self.py.stdin.write(json.dumps({"id": b.id, "code": b.program()}) + "\n")
        self.py.stdin.flush()
        out: List[str] = []
        import selectors
        import time

        # read the pipe's bytes ourselves: a buffered readline() may take several lines (the
        # end mark among them) off the pipe at once, after which select() waits for nothing
        fd = self.py.stdout.fileno()
        sel = selectors.DefaultSelector()
        sel.register(fd, selectors.EVENT_READ)
        deadline = time.monotonic() + timeout
        while True:
            while b"\n" not in self.pending:
                left = deadline - time.monotonic()
                if left <= 0 or not sel.select(left):
                    self.close()
                    return f"{b.id}: timed out after {timeout} s\n{_tail(''.join(out))}"
                chunk = os.read(fd, 65536)
                if not chunk:
                    return f"{b.id}: the interpreter died\n{_tail(''.join(out) + self.pending.decode(errors='replace'))}"
                self.pending += chunk
            raw, self.pending = self.pending.split(b"\n", 1)
            line = raw.decode(errors="replace") + "\n"
            if line.startswith(DONE_MARK):
                status = line[len(DONE_MARK):].strip()
                if status == "ok":
                    return None
                return f"{b.id}: the block raised\n--- block ---\n{b.program()}--- output ---\n{_tail(''.join(out))}"
            out.append(line)

    def close(self) -> None:
        if self.py is not None:
            self.py.kill()
            self.py.wait()
            self.py = None
            self.pending = b""


DONE_MARK = "@@doctest-done@@ "
PY_SERVER = textwrap.dedent(
    f"""
    import json, sys, traceback
    g = {{"__name__": "__main__"}}
    for line in sys.stdin:
        req = json.loads(line)
        try:
            exec(compile(req["code"], req["id"], "exec"), g)
            status = "ok"
        except BaseException:
            traceback.print_exc(file=sys.stdout)
            status = "failed"
        sys.stdout.flush()
        print({DONE_MARK!r} + status, flush=True)
    """
)


def _kill_group(proc: subprocess.Popen) -> None:
    import signal

    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass


def _tail(text: Optional[str], n: int = 60) -> str:
    lines = (text or "").splitlines()
    return "\n".join(lines[-n:])


@pytest.fixture(scope="module")
def sandboxes(tmp_path_factory):
    boxes: Dict[Path, DocSandbox] = {}
    root = tmp_path_factory.mktemp("docs")

    def get(doc: Path) -> DocSandbox:
        if doc not in boxes:
            boxes[doc] = DocSandbox(doc, root)
        return boxes[doc]

    yield get
    for box in boxes.values():
        box.close()


# ---------------------------------------------------------------------------------------------
# The tests


def test_every_block_says_what_it_is():
    """An unlabelled fence would silently escape the tests: each must be sh, python, toml or text."""
    bad = [f"{b.id}: ```{b.kind}" for b in ALL_BLOCKS if b.kind not in KINDS]
    assert not bad, "label these code blocks (sh, python, toml or text):\n" + "\n".join(bad)


def test_skips_say_why():
    bad = [b.id for b in ALL_BLOCKS if "skip" in b.directive and len(str(b.directive["skip"]).strip()) < 10]
    assert not bad, f"a doctest skip must say why the block cannot run: {bad}"


@pytest.mark.parametrize("block", _by_kind("sh") + _by_kind("python"), ids=lambda b: b.id)
def test_block_runs(block: Block, sandboxes):
    if "skip" in block.directive:
        pytest.skip(f"doctest skip: {block.directive['skip']}")  # the reason is in the document
    sandboxes(block.doc).ensure(block)


def _is_scenario(table: dict) -> bool:
    return "topology" in table or ("sim" in table and "traffic" in table)


@pytest.mark.parametrize("block", _by_kind("toml"), ids=lambda b: b.id)
def test_toml_block(block: Block, tmp_path):
    try:
        table = tomllib.loads(block.program())
    except tomllib.TOMLDecodeError as e:
        pytest.fail(f"{block.id}: not TOML: {e}", pytrace=False)
    if _is_scenario(table):
        f = tmp_path / "block.toml"
        f.write_text(block.program())
        proc = _lnsim("validate", f, cwd=REPO)
        assert proc.returncode == 0, f"{block.id}: lnsim validate failed:\n{proc.stderr}"


def _lnsim(*args, cwd=None, timeout=120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "lnsim", *map(str, args)], cwd=cwd, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=timeout)


# --- usage synopses -------------------------------------------------------------------------------

SYNOPSIS = re.compile(r"^\s*lnsim ([a-z]+)\b(.*)$")


#: An option of a synopsis line: in brackets (optional) or bare (required, `--out DIR`).
SYNOPSIS_FLAG = re.compile(r"(?:\[|(?<=\s))(--[a-z][a-z-]*)")


def _synopsis_lines(block: Block):
    """(command, flags) of every ``lnsim CMD ...`` line of a text or sh block that lists options in
    brackets (continuation lines, indented, belong to the command above); a required option is
    written bare (``--out DIR``)."""
    cmd, flags, out, optional = None, set(), [], False
    for line in block.text.splitlines():
        m = SYNOPSIS.match(line)
        if m:
            if cmd and optional:
                out.append((cmd, flags))
            cmd, flags = m.group(1), set(SYNOPSIS_FLAG.findall(m.group(2)))
            optional = "[--" in m.group(2)
        elif cmd and line.startswith(" ") and "[" in line:
            flags |= set(SYNOPSIS_FLAG.findall(line))
            optional = optional or "[--" in line
        else:
            if cmd and optional:
                out.append((cmd, flags))
            cmd, flags = None, set()
    if cmd and optional:
        out.append((cmd, flags))
    return [(c, f) for c, f in out if f]


SYNOPSIS_BLOCKS = [b for b in ALL_BLOCKS if b.kind in ("text", "sh") and _synopsis_lines(b)]


def _help_flags(cmd: str) -> set:
    proc = _lnsim(cmd, "--help")
    assert proc.returncode == 0, proc.stderr
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", proc.stdout)) - {"--help"}


@pytest.mark.parametrize("block", SYNOPSIS_BLOCKS, ids=lambda b: b.id)
def test_synopsis_matches_help(block: Block):
    """A usage line lists exactly the options the command takes (no missing, none invented)."""
    for cmd, flags in _synopsis_lines(block):
        real = _help_flags(cmd)
        assert flags == real, (
            f"{block.id}: `lnsim {cmd}` synopsis: missing {sorted(real - flags)}, unknown {sorted(flags - real)}"
        )


# --- sample outputs ---------------------------------------------------------------------------------


@pytest.mark.parametrize("block", [b for b in ALL_BLOCKS if "output_of" in b.directive], ids=lambda b: b.id)
def test_sample_output_is_real(block: Block, tmp_path):
    """A sample output with ``output_of`` is what the command prints, machine-dependent fields
    (the directive's ``mask`` regular expressions) aside."""
    argv = shlex.split(block.directive["output_of"])
    assert argv[0] == "lnsim", f"{block.id}: output_of must be an lnsim command"
    (tmp_path / "scenarios").symlink_to(REPO / "scenarios")  # run as the README does, from a checkout
    proc = _lnsim(*argv[1:], cwd=tmp_path, timeout=300)
    assert proc.returncode == 0, f"{block.id}: {block.directive['output_of']} failed:\n{proc.stderr}"
    masks = [re.compile(m) for m in block.directive.get("mask", [])]

    def norm(line: str) -> str:
        line = re.sub(r"\s+<-.*$", "", line)  # the sample's annotations
        for m in masks:
            line = m.sub("<masked>", line)
        return " ".join(line.split())

    real = {norm(line) for line in proc.stdout.splitlines()}
    missing = [line for line in block.text.splitlines() if line.strip() and norm(line) not in real]
    assert not missing, f"{block.id}: sample lines not in the real output:\n" + "\n".join(missing) + (
        "\n--- real output ---\n" + proc.stdout
    )


# --- inline commands in the prose ----------------------------------------------------------------------

INLINE = re.compile(r"(?<!`)`((?:python -m )?lnsim (?:run|validate|sweep) [^`]+)`(?!`)")


def _inline_commands():
    out = []
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        # drop fenced blocks (tested above), keep line numbers
        text = re.sub(r"```.*?```", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
        for m in INLINE.finditer(text):
            line = text.count("\n", 0, m.start()) + 1
            cmd = " ".join(m.group(1).split())
            parts = cmd.split()
            scenario = parts[3] if parts[0] == "python" else parts[2]
            if not scenario.endswith(".toml") or re.search(r"[A-Z]{3,}\.toml|\.\.\.|…", cmd):
                continue  # a synopsis (`lnsim sweep FILE --seeds 10`, SCENARIO.toml), not a command
            out.append(pytest.param(cmd, id=f"{doc.relative_to(REPO)}:{line}"))
    return out


@pytest.mark.parametrize("cmd", _inline_commands())
def test_inline_command_validates(cmd: str):
    """`lnsim run S --set ...` in the prose: S exists and the overrides are valid for it."""
    argv = shlex.split(cmd)
    if argv[0] == "python":
        argv = argv[2:]
    args = argv[2:]
    scenario = args[0]
    keep: List[str] = []
    i = 1
    while i < len(args):
        if args[i] == "--set" and i + 1 < len(args):
            keep += ["--set", args[i + 1]]
            i += 2
        elif args[i] in ("--seed", "--out", "--jobs", "-j", "--seeds", "--grid", "--dask", "--max-memory"):
            i += 2
        else:
            i += 1
    proc = _lnsim("validate", scenario, *keep, cwd=REPO)
    assert proc.returncode == 0, f"`{cmd}`: lnsim validate {scenario} {' '.join(keep)} failed:\n{proc.stderr}"


# --- examples given in --help texts ----------------------------------------------------------------------


def test_help_examples_of_set_work_on_the_shipped_scenarios():
    """Every ``--set KEY=VALUE`` example of ``lnsim run/sweep --help`` validates on the quick-start
    scenario (zeru_a, credit-level model) or on a cycle-level one (h4_adv1): a user who copies it onto
    the scenario of the README must not get an error."""
    text = _lnsim("run", "--help").stdout + _lnsim("sweep", "--help").stdout
    examples = sorted(set(re.findall(r"--set\s+'?([a-z_.]+=[^\s',)]+)", text)))
    assert examples, "lnsim run --help gives no --set example"
    targets = [REPO / "scenarios" / "ibcc" / "zeru_a.toml", REPO / "scenarios" / "dragonfly" / "h4_adv1.toml"]
    for ex in examples:
        ok = any(_lnsim("validate", s, "--set", ex, cwd=REPO).returncode == 0 for s in targets)
        assert ok, f"`--set {ex}` (from --help) validates neither on zeru_a nor on h4_adv1"
