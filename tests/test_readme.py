"""The example sessions of the README and of the docs say what the code does: each commented
result is checked, so an example cannot drift from the code."""

import re
import shlex
from pathlib import Path

import pytest

import shengji as sj
from shengji.cli import main

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").rglob("*.md"))]
WITH_PYTHON = [p for p in PAGES if "```python\n" in p.read_text(encoding="utf-8")]
# a bash block ending in an analysis (the commands before it make its input), then its output
ANALYSIS = re.compile(
    r"```bash\n((?:shengji (?!analyze)[^\n]*\n)*shengji analyze [^\n]*)\n```\n\n```text\n(.*?)```",
    re.S,
)


def statements(text: str) -> list[list[str]]:
    """[code, the repr its comment promises] of the page's python blocks, in order."""
    out: list[list[str]] = []
    for line in "\n".join(re.findall(r"```python\n(.*?)```", text, re.S)).splitlines():
        if line.startswith("#") and out:  # a result spilling onto the next lines
            out[-1][1] = (out[-1][1] + " " + line[1:].strip()).strip()
            continue
        if line[:1].isspace() and line.strip() and out:  # the body of a class
            out[-1][0] += "\n" + line
            continue
        code, _, result = line.partition("  # ") if "  # " in line else (line, "", "")
        if code.strip():
            out.append([code.strip(), result.strip()])
    return out


@pytest.mark.parametrize("page", WITH_PYTHON, ids=lambda p: str(p.relative_to(ROOT)))
@pytest.mark.slow
def test_python_examples(page):
    namespace = {"sj": sj}
    checked = 0
    for code, result in statements(page.read_text(encoding="utf-8")):
        if code.startswith(("import", "from", "class ", "def ")) or re.match(r"^\w+ = ", code):
            exec(code, namespace)
            continue
        value = eval(code, namespace)
        if result:
            assert repr(value) == result, f"{page.name}: {code}"
            checked += 1
    assert checked, f"{page.name} shows no result to check"


def test_the_readme_checks_enough():
    assert sum(bool(r) for _, r in statements(README.read_text(encoding="utf-8"))) >= 10


@pytest.mark.slow
def test_analysis_examples_print_what_they_show(capsys, tmp_path, monkeypatch):
    """Each worked example of an analysis prints the table its page shows (the commands
    before it in its block run first, in one folder for all: a round saved by one example is
    read by the next)."""
    monkeypatch.chdir(tmp_path)
    examples = [m.groups() for p in PAGES for m in ANALYSIS.finditer(p.read_text(encoding="utf-8"))]
    assert any("analyze round" in command for command, _ in examples)
    for commands, shown in examples:
        *before, command = commands.splitlines()
        for line in before:
            assert main(shlex.split(line)[1:]) == 0
        capsys.readouterr()
        assert main(shlex.split(command)[1:]) == 0
        assert capsys.readouterr().out == shown


def test_readme_links_to_files_that_exist():
    """Every relative link of the README names a file of the repository."""
    links = re.findall(r"\]\(([^)#\s]+)\)", README.read_text(encoding="utf-8"))
    local = [link for link in links if "://" not in link]
    assert local and all((README.parent / link).exists() for link in local), local


def test_ci_runs_the_readme_test_command():
    """.ci/run's command is the README's test command, word for word."""
    readme = README.read_text(encoding="utf-8")
    command = next(line for line in readme.splitlines() if line.endswith("python -m pytest"))
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert ci[-1] == command
