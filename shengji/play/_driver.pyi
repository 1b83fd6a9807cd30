# Type stub of shengji/play/_driver.pyx, checked by stubtest in tests/test_typing.py.
REFUSALS: dict[int, str]
