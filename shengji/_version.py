"""The package's version: its one definition (pyproject.toml reads it for the metadata)."""

__version__ = "0.3.0"
