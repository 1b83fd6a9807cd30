"""Every public function and class has a docstring: the names of `import shengji as sj` (native
ones included) and their methods, and every public function, class and method of the public
modules (a module, or a package, whose path has no part starting with `_`)."""

import importlib
import inspect
import pkgutil

import pytest

import shengji as sj


def public_modules() -> list[str]:
    names = [m.name for m in pkgutil.walk_packages(sj.__path__, "shengji.")]
    return ["shengji"] + [n for n in names if not any(p.startswith("_") for p in n.split("."))]


def undocumented(owner: str, obj: object) -> list[str]:
    """obj's name if it lacks a docstring, then its undocumented public methods (a class)."""
    out = [] if (obj.__doc__ or "").strip() else [owner]
    if inspect.isclass(obj):
        for name, member in vars(obj).items():
            function = getattr(member, "__func__", member)  # classmethods, staticmethods
            if (
                not name.startswith("_")
                and callable(function)
                and not (function.__doc__ or "").strip()
            ):
                out.append(f"{owner}.{name}")
    return out


def test_every_name_of_the_package_is_documented():
    missing = [
        m for n in sj.__all__ if callable(getattr(sj, n)) for m in undocumented(n, getattr(sj, n))
    ]
    assert not missing


@pytest.mark.parametrize("name", public_modules())
def test_every_public_definition_of_a_module_is_documented(name):
    try:
        module = importlib.import_module(name)
    except ModuleNotFoundError as e:  # an extra this install lacks
        pytest.skip(str(e))
    missing = [
        m
        for attr, obj in vars(module).items()
        if not attr.startswith("_")
        and not attr.isupper()
        and (inspect.isfunction(obj) or inspect.isclass(obj))
        and obj.__module__ == name
        for m in undocumented(f"{name}.{attr}", obj)
    ]
    assert not missing
