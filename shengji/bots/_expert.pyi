# Type stub of shengji/bots/_expert.pyx (the expert's rules by setting name), checked by
# stubtest in tests/test_typing.py.
RULES: dict[str, int]
