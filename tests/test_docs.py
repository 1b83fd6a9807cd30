"""The documentation: every rules section the code and the docs cite exists in docs/rules.md,
its table of preset settings is the code's, every public name has an API entry, and the site
builds with mkdocs in strict mode."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import shengji as sj

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
RULES = DOCS / "rules.md"
# "§4.2" cites docs/rules.md; "002 §4" (chapter 4 of seed 002) cites a rule text.
CITATION = re.compile(r"(?<!\d{3} )§(\d+(?:\.\d+)*)")
ANCHOR = re.compile(r"^#+ .*\{#s(\d+(?:\.\d+)*)\}$", re.MULTILINE)
SOURCES = ("*.py", "*.pyx", "*.pxd", "*.pyi", "*.md")


def citations() -> dict[str, Path]:
    """Each section number cited in shengji/, tests/ or docs/, with a file citing it."""
    found: dict[str, Path] = {}
    for folder in ("shengji", "tests", "docs"):
        for pattern in SOURCES:
            for path in sorted((ROOT / folder).rglob(pattern)):
                for number in CITATION.findall(path.read_text(encoding="utf-8")):
                    found.setdefault(number, path.relative_to(ROOT))
    return found


def test_every_cited_section_is_in_the_rules():
    anchors = set(ANCHOR.findall(RULES.read_text(encoding="utf-8")))
    cited = citations()
    assert {"4.1", "4.2", "9", "10"} <= set(cited)  # the scan sees the messages' citations
    missing = {number: str(path) for number, path in cited.items() if number not in anchors}
    assert not missing, f"cited but not a section of docs/rules.md: {missing}"


def test_the_rules_settings_table_is_the_presets():
    rows = {}
    for line in RULES.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 6 and cells[0].startswith("`"):
            rows[cells[0].strip("`")] = cells[1:5]
    names = [f.name for f in sj.Rules.__dataclass_fields__.values() if f.name != "name"]
    assert sorted(rows) == sorted(names)
    for name in names:
        assert rows[name] == [
            f"`{getattr(sj.Rules.preset(p), name)!r}`" for p in ("v3", "match16", "bo3", "botzone")
        ], name


def test_every_public_name_has_an_api_entry():
    pages = "".join(p.read_text(encoding="utf-8") for p in (DOCS / "api").glob("*.md"))
    entries = set(re.findall(r"^::: shengji\.(\w+)$", pages, re.MULTILINE))
    assert set(sj.__all__) - entries == set()


@pytest.mark.slow
def test_the_site_builds_strictly(tmp_path):
    env = dict(
        os.environ,
        NO_MKDOCS_2_WARNING="1",
        PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--quiet",
            "-f",
            str(ROOT / "mkdocs.yml"),
            "-d",
            str(tmp_path / "site"),
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    rules = (tmp_path / "site" / "rules" / "index.html").read_text(encoding="utf-8")
    assert all(f'id="s{n}"' in rules for n in ("1", "4.2", "10"))
    # The native functions' docstrings reach the API pages (docs/griffe_native.py).
    api = (tmp_path / "site" / "api" / "shengji" / "index.html").read_text(encoding="utf-8")
    assert "Every distinct legal follow" in api
