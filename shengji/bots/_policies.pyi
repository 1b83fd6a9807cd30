# Type stub of shengji/bots/_policies.pyx (the native bots' settings by name), checked by
# stubtest in tests/test_typing.py.
BOTS: dict[str, int]
CALLS: dict[str, int]
BURIES: dict[str, int]
