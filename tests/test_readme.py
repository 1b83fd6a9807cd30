"""The README's example sessions say what the code does: each commented result is checked."""
import re
from pathlib import Path

import shengji as sj

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
