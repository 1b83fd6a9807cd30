"""A griffe extension for the API pages: docstrings of the native (Cython) modules.

griffe reads a compiled module's `.pyi` stub, which holds the types but no docstrings; the
docstrings live once, in the `.pyx` source, and reach the built module. This extension
imports each stubbed module and gives every object of the stub that has no docstring the
built object's, less the signature line Cython embeds (`embedsignature`), which the stub's
own signature replaces.
"""

from __future__ import annotations

import importlib
import inspect
import re
import sys
from pathlib import Path
from typing import Any

import griffe

# The line `embedsignature` puts first: `name(args)` or `Class.name(args) -> type`.
SIGNATURE = re.compile(r"[\w.]+\(.*\)( -> .+)?")


def without_signature(doc: str) -> str:
    """The docstring with Cython's embedded signature line taken off."""
    first, _, rest = inspect.cleandoc(doc).partition("\n")
    return rest.strip() if SIGNATURE.fullmatch(first) else inspect.cleandoc(doc)


class NativeDocstrings(griffe.Extension):
    """Fills the docstrings of objects read from stubs with the built modules' docstrings."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        root = pkg.filepath.parent.parent
        if str(root) not in sys.path:
            sys.path.insert(0, str(root))  # the package griffe read, not an installed one
        for module in modules_of(pkg):
            if module.filepath is not None and module.filepath.suffix == ".pyi":
                built = importlib.import_module(module.path)
                if not Path(built.__file__).is_relative_to(root):
                    raise ImportError(
                        f"the docs read {pkg.path} from {root} but Python imports "
                        f"{module.path} from {built.__file__}: build them with "
                        f"PYTHONPATH={root}"
                    )
                fill(module, built)


def modules_of(module: griffe.Module):
    """The module and every submodule under it (not modules it merely imports)."""
    yield module
    for member in module.modules.values():
        if not member.is_alias:
            yield from modules_of(member)


def fill(obj: griffe.Object, runtime: Any) -> None:
    """Give obj and its members (not aliases) the runtime object's docstrings where they lack one."""
    # An attribute's value (an int, a dict) carries its type's docstring, not its own.
    plain = obj.is_attribute and "property" not in obj.labels
    doc = without_signature(runtime.__doc__ or "") if not plain else ""
    if obj.docstring is None and doc:
        obj.docstring = griffe.Docstring(doc, parent=obj)
    for name, member in obj.members.items():
        # Private and special names: a built __init__'s docstring is object's, not its own.
        if member.is_alias or member.is_module or name.startswith("_"):
            continue
        if hasattr(runtime, name):
            fill(member, inspect.getattr_static(runtime, name))
