"""The files in ``examples/`` work, and every console example of the README runs as written.

README convention (``console_sessions`` reads it, ``run_session`` runs it):

* A fenced code block whose info string is ``console`` is a session; blocks
  with any other info string (``sh``, ``toml``, ...) are not run.
* In a session, a line starting with ``$ `` is a command; a command line
  ending in ``\\`` continues on the next line.  The lines after a command, up
  to the next ``$ `` line, are an excerpt of its stdout.  A session must start
  with a command.
* Each command runs with ``bash -c`` from the repository root, the venv's
  ``bin`` folder first on ``PATH``, ``COLUMNS=100``, and ``OUT`` set to a
  fresh temporary folder per session (shared by its commands), where any
  command that writes files must write.  It must exit 0.
* The excerpt must appear in stdout (stderr, where progress bars go, is not
  compared).  Lines are compared after stripping trailing whitespace, and
  blank lines at the excerpt's start and end are dropped.  An excerpt line
  must equal a whole output line; consecutive excerpt lines must be
  consecutive output lines, except across a line that is exactly ``...``,
  which stands for any number of left-out lines.  The excerpt may start and
  end anywhere in the output.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

from acesim.engine.rules import KNOBS, Ruleset

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
README = REPO / "README.md"
# not resolved: a venv's python is a symlink, and its own bin folder is the one wanted
VENV_BIN = Path(sys.executable).parent

PROMPT = "$ "
LEFT_OUT = "..."
COMMAND_TIMEOUT = 1800  # seconds; a cold run compiles the Numba kernels first


# --- the convention -----------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    command: str
    excerpt: tuple[str, ...]
    line: int  # the command's first line in the Markdown file (1-based)


@dataclass(frozen=True)
class Session:
    source: str
    line: int  # the opening fence's line (1-based)
    steps: tuple[Step, ...]
    problem: str | None = None  # why the block cannot be run as a session

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line}"


def parse_session(content: str, source: str, fence_line: int) -> Session:
    """One ``console`` block's text (``content``) as commands and their excerpts."""
    lines = content.splitlines()
    steps: list[tuple[list[str], list[str], int]] = []
    i = 0
    while i < len(lines):
        line_no = fence_line + 1 + i
        if lines[i].startswith(PROMPT):
            command = [lines[i][len(PROMPT):]]
            while command[-1].endswith("\\") and i + 1 < len(lines):
                i += 1
                command.append(lines[i])
            steps.append((command, [], line_no))
        elif not steps:
            return Session(source, fence_line, (), f"{source}:{line_no}: a console block must start "
                                                   f"with a '{PROMPT}' command line, not {lines[i]!r}")
        else:
            steps[-1][1].append(lines[i])
        i += 1
    return Session(source, fence_line, tuple(Step("\n".join(c), tuple(e), n) for c, e, n in steps))


def console_sessions(text: str, source: str) -> list[Session]:
    """Every ``console`` block of a Markdown text, in order."""
    sessions = []
    for token in MarkdownIt("commonmark").parse(text):
        if token.type == "fence" and token.info.split()[:1] == ["console"]:
            assert token.map is not None
            sessions.append(parse_session(token.content, source, token.map[0] + 1))
    return sessions


def excerpt_problem(excerpt: Sequence[str], output: str) -> str | None:
    """``None`` when ``excerpt`` appears in ``output`` as the convention says, else what is missing."""
    wanted = [line.rstrip() for line in excerpt]
    while wanted and not wanted[0]:
        wanted.pop(0)
    while wanted and not wanted[-1]:
        wanted.pop()
    runs: list[list[str]] = [[]]
    for line in wanted:
        if line == LEFT_OUT:
            runs.append([])
        else:
            runs[-1].append(line)
    got = [line.rstrip() for line in output.splitlines()]
    at = 0
    for run in runs:
        if not run:
            continue
        # the earliest place for each run leaves the most room for the runs after it
        found = next((i for i in range(at, len(got) - len(run) + 1) if got[i : i + len(run)] == run), None)
        if found is None:
            shown = "\n".join(f"    {line}" for line in run)
            return f"these consecutive lines are not in the output after its line {at}:\n{shown}"
        at = found + len(run)
    return None


def command_env(out: Path) -> dict[str, str]:
    env = dict(os.environ)
    # a colour-forcing variable of the caller's shell would put escape codes in the output
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        env.pop(name, None)
    env.update(
        PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}",
        COLUMNS="100",
        OUT=str(out),
        MPLBACKEND="Agg",
    )
    return env


def run_command(command: str, out: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-c", command], cwd=REPO, env=command_env(out), capture_output=True, text=True,
        timeout=COMMAND_TIMEOUT,
    )


def run_session(session: Session, out: Path) -> None:
    """Run every command of ``session`` in order; fail naming the line of the first that goes wrong."""
    assert session.problem is None, session.problem
    for step in session.steps:
        result = run_command(step.command, out)
        where = f"{session.source}:{step.line}: `{step.command}`"
        assert result.returncode == 0, (
            f"{where} exited with status {result.returncode}\n--- stderr ---\n{result.stderr[-3000:]}"
        )
        problem = excerpt_problem(step.excerpt, result.stdout)
        assert problem is None, f"{where}: {problem}\n--- stdout ---\n{result.stdout}"


# --- the matcher --------------------------------------------------------------------

OUTPUT = "header\n  first  \nsecond\nthird\n\nfourth\nlast\n"


@pytest.mark.parametrize(
    "excerpt",
    [
        [],
        ["second", "third"],
        ["  first", "second"],  # trailing whitespace of the output is not compared
        ["second   "],  # nor the excerpt's
        ["header", "...", "last"],
        ["second", "...", "fourth"],
        ["header", "  first", "...", "...", "fourth"],
        ["third", "", "fourth"],  # a blank excerpt line inside is a blank output line
        ["", "second", ""],  # blank lines at the excerpt's ends are dropped
        ["...", "last", "..."],
    ],
)
def test_excerpt_matches(excerpt):
    assert excerpt_problem(excerpt, OUTPUT) is None


@pytest.mark.parametrize(
    "excerpt",
    [
        ["second", "fourth"],  # consecutive excerpt lines must be consecutive output lines
        ["third", "...", "second"],  # order matters
        ["secon"],  # a whole line, not a part of one
        ["first"],  # leading whitespace is compared
        ["second", "...", "second"],  # one output line matches one excerpt line only
        ["missing"],
        ["last", "after the end"],
    ],
)
def test_excerpt_does_not_match(excerpt):
    problem = excerpt_problem(excerpt, OUTPUT)
    assert problem is not None and "are not in the output" in problem


FIXTURE_README = """\
# acesim

Some prose.

```console
$ acesim rules show examples/club-rules.toml --json
...
  "bearoff": "standard",
...
$ acesim moves --position start --dice 6-3
Rules european; dice 6-3; segment 6 3; dice used 2 of 2 (complete); 2 legal play(s)
$ acesim moves --batch examples/queries.jsonl \\
    --out "$OUT/answers.jsonl"
$ wc -l < "$OUT/answers.jsonl"
8
```

```sh
$ false
never run
```

- In a list:

  ```console
  $ echo "$COLUMNS"; command -v acesim
  100
  ```
"""


def test_fixture_sessions_parse():
    sessions = console_sessions(FIXTURE_README, "fixture.md")
    assert [s.line for s in sessions] == [5, 25]
    first, second = sessions
    assert [s.line for s in first.steps] == [6, 10, 12, 14]
    assert first.steps[0].excerpt == ("...", '  "bearoff": "standard",', "...")
    assert first.steps[2].command == 'acesim moves --batch examples/queries.jsonl \\\n    --out "$OUT/answers.jsonl"'
    assert first.steps[2].excerpt == ()
    assert second.steps[0].excerpt == ("100",)


def test_session_must_start_with_a_command():
    (session,) = console_sessions("```console\noutput first\n$ true\n```\n", "bad.md")
    assert session.problem is not None and "bad.md:2" in session.problem


def test_fixture_sessions_run(tmp_path):
    for i, session in enumerate(console_sessions(FIXTURE_README, "fixture.md")):
        out = tmp_path / str(i)
        out.mkdir()
        run_session(session, out)
    assert (tmp_path / "0" / "answers.jsonl").is_file()


@pytest.mark.parametrize(
    "block, message",
    [
        ("$ acesim moves --position start --dice 6-3\nRules navy; dice 6-3\n", "fixture.md:2"),
        ("$ true\n$ acesim rules show no-such-rules.toml\n", "fixture.md:3"),
    ],
    ids=["excerpt not in output", "command fails"],
)
def test_a_wrong_session_fails_naming_its_line(tmp_path, block, message):
    (session,) = console_sessions(f"```console\n{block}```\n", "fixture.md")
    with pytest.raises(AssertionError, match=re.escape(message)):
        run_session(session, tmp_path)


# --- the README -----------------------------------------------------------------------

README_SESSIONS = console_sessions(README.read_text(encoding="utf-8"), "README.md") if README.exists() else []


@pytest.mark.parametrize("session", README_SESSIONS, ids=[s.where for s in README_SESSIONS])
def test_readme_example(session, tmp_path):
    run_session(session, tmp_path)


# --- the examples ---------------------------------------------------------------------


def test_examples_readme_names_every_example():
    listed = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    files = sorted(p.name for p in EXAMPLES.iterdir() if p.is_file() and p.name != "README.md")
    assert files == ["club-rules.toml", "queries.jsonl", "snippet.py"]
    for name in files:
        assert re.search(rf"^- `{re.escape(name)}`: .*`[^`]*examples/{re.escape(name)}[^`]*`", listed, re.M), name


def test_club_rules(tmp_path):
    path = EXAMPLES / "club-rules.toml"
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    overrides = {k: v for k, v in data.items() if k not in ("preset", "name")}
    base = Ruleset.preset(data["preset"])
    assert overrides and set(overrides) <= set(KNOBS)
    # an override the preset already has would explain a change that is not one
    assert all(getattr(base, knob) != value for knob, value in overrides.items())
    lines = path.read_text(encoding="utf-8").splitlines()
    for knob in overrides:
        at = next(i for i, line in enumerate(lines) if re.match(rf"{knob}\s*=", line))
        assert at > 0 and lines[at - 1].startswith("#"), f"the override {knob} has no comment above it"

    shown = run_command("acesim rules show examples/club-rules.toml", tmp_path)
    assert shown.returncode == 0, shown.stderr
    assert shown.stderr == ""
    assert f"Rule set {data['name']}" in shown.stdout
    # the table's layout is the CLI's business (it may wrap cells); the values are checked in JSON below
    assert "(changed)" in shown.stdout and all(knob in shown.stdout for knob in overrides)

    as_json = run_command("acesim rules show examples/club-rules.toml --json", tmp_path)
    assert as_json.returncode == 0, as_json.stderr
    knobs = json.loads(as_json.stdout)
    assert knobs["name"] == data["name"]
    assert {k: knobs[k] for k in KNOBS} == {**base.knobs(), **overrides}


def test_batch_queries(tmp_path):
    lines = [line for line in (EXAMPLES / "queries.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
    queries = [json.loads(line) for line in lines]
    # what examples/README.md says the file covers
    presets = {q["rules"] if isinstance(q["rules"], str) else q["rules"]["preset"] for q in queries}
    assert presets == {"european", "american", "navy", "backgammon"}
    assert any(isinstance(q["rules"], dict) and len(q["rules"]) > 1 for q in queries)
    assert any(q["position"] == {"points": [0] * 24, "bar": [0, 0], "waiting": [15, 15], "off": [0, 0]}
               for q in queries)
    assert any(sorted(q["dice"]) == [1, 2] for q in queries)
    assert sum(q["dice"][0] == q["dice"][1] for q in queries) == 3

    result = run_command("acesim moves --batch examples/queries.jsonl", tmp_path)
    assert result.returncode == 0, result.stderr
    answers = [json.loads(line) for line in result.stdout.splitlines()]
    assert len(answers) == len(queries)
    for query, answer in zip(queries, answers):
        assert "error" not in answer, (query, answer)
        assert answer["plays"] and answer["dice_used"] > 0
        if query["dice"][0] == query["dice"][1]:
            assert len(answer["segment"]) in (4, 8)


def test_snippet_runs(tmp_path):
    path = EXAMPLES / "snippet.py"
    source = path.read_text(encoding="utf-8")
    # a notebook cell has no file, no script name and no command line
    for name in ("__file__", "__name__", "sys.argv"):
        assert name not in source, f"{name} does not exist in a notebook cell"
    result = run_command("python examples/snippet.py", tmp_path)
    assert result.returncode == 0, result.stderr[-3000:]
    chart = tmp_path / "club-one-two.png"
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert f"chart: {chart}" in result.stdout
    club = Ruleset.from_file(EXAMPLES / "club-rules.toml")
    for name in (club.base, club.name):
        assert re.search(rf"^\s*{re.escape(name)}\s+4000\s", result.stdout, re.M), name
