"""The README's example session says what the code does: each commented result is checked."""
import re
from pathlib import Path

import shengji as sj

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_python_example():
    block = re.search(r"```python\n(.*?)```", README.read_text(), re.S).group(1)
    statements = []   # [code, the repr its comment promises]
    for line in block.splitlines():
        if line.startswith("#") and statements:   # a result spilling onto the next lines
            statements[-1][1] = (statements[-1][1] + " " + line[1:].strip()).strip()
            continue
        code, _, result = line.partition("  # ") if "  # " in line else (line, "", "")
        if not code.strip():
            continue
        statements.append([code.strip(), result.strip()])
    namespace = {"sj": sj}
    checked = 0
    for code, result in statements:
        if code.startswith(("import", "t =")):
            exec(code, namespace)
            continue
        value = eval(code, namespace)
        if result:
            assert repr(value) == result, code
            checked += 1
    assert checked >= 5
