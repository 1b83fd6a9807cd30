"""The package's layers (pyproject.toml [tool.importlinter]): no module imports from a layer above
its own, and no two sibling modules import each other. import-linter checks the Python modules;
it does not read Cython, so the .pyx/.pxd modules' imports and cimports are held to the same
order here."""

import re
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parent.parent
CONFIG = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
LAYERS = next(c for c in CONFIG["contracts"] if c["type"] == "layers")["layers"]
IMPORT = re.compile(r"^\s*(?:from|import|cimport)\s+(shengji(?:\.\w+)*)", re.M)


def layer_of(module: str) -> int | None:
    """The index of the module's layer, top = 0; None for the package root itself."""
    for i, layer in enumerate(LAYERS):
        for name in layer.split("|"):
            name = name.strip()
            if module == name or module.startswith(name + "."):
                return i
    return None


def test_python_modules_keep_the_layers_and_have_no_cycles():
    lint = pytest.importorskip("importlinter.cli")
    assert lint.lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True) == 0


@pytest.mark.parametrize(
    "path",
    sorted(
        p.relative_to(ROOT) for p in (ROOT / "shengji").rglob("*") if p.suffix in (".pyx", ".pxd")
    ),
    ids=str,
)
def test_cython_modules_keep_the_layers(path):
    module = ".".join(path.with_suffix("").parts)
    own = layer_of(module)
    assert own is not None, f"{module} is in no layer of pyproject.toml"
    above = [
        m
        for m in IMPORT.findall((ROOT / path).read_text())
        if (layer := layer_of(m)) is None or layer < own
    ]
    assert not above, f"{module} imports from a layer above its own: {above}"


def test_the_layer_check_sees_an_import_from_above():
    assert layer_of("shengji.core._core") > layer_of("shengji.play._driver")
    assert layer_of("shengji.round.rules") == layer_of("shengji.round._engine")
