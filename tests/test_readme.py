"""The README's example sessions say what the code does: each commented result is checked."""
import re
import shlex
from pathlib import Path

import shengji as sj
from shengji.cli import main

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_example():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    statements = []   # [code, the repr its comment promises]
    for line in "\n".join(blocks).splitlines():
        if line.startswith("#") and statements:   # a result spilling onto the next lines
            statements[-1][1] = (statements[-1][1] + " " + line[1:].strip()).strip()
            continue
        if line[:1].isspace() and line.strip() and statements:   # the body of a class
            statements[-1][0] += "\n" + line
            continue
        code, _, result = line.partition("  # ") if "  # " in line else (line, "", "")
        if not code.strip():
            continue
        statements.append([code.strip(), result.strip()])
    namespace = {"sj": sj}
    checked = 0
    for code, result in statements:
        if code.startswith(("import", "class ", "def ")) or re.match(r"^\w+ = ", code):
            exec(code, namespace)
            continue
        value = eval(code, namespace)
        if result:
            assert repr(value) == result, code
            checked += 1
    assert checked >= 10


def test_readme_analysis_example(capsys):
    """The worked example of an analysed bury prints the table the README shows."""
    command, shown = re.search(r"```bash\n(shengji analyze .*?)\n```\n\n```text\n(.*?)```",
                               README.read_text(), re.S).groups()
    assert main(shlex.split(command)[1:]) == 0
    assert capsys.readouterr().out == shown


def test_readme_links_to_files_that_exist():
    """Every relative link of the README names a file of the repository."""
    links = re.findall(r"\]\(([^)#\s]+)\)", README.read_text())
    local = [link for link in links if "://" not in link]
    assert local and all((README.parent / link).exists() for link in local), local
