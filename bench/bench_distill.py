"""The distillation data (shengji.studies.distill): deals played by the teacher (the sharper
search at all four seats), each searched play noted with its candidates' values, in one
process. Its rate times the workers is what a run makes (about 50 searched plays a deal)."""

import shengji as sj
from shengji.studies.distill import Teacher, distill_chunk


def bench_distill_deals(benchmark):
    rules = sj.Rules.preset("v3")
    benchmark.group = "distillation data, the sharper search teaching, v3 (deals)"
    benchmark.extra_info.update(engine="core", items=2)
    arrays, _, _ = benchmark(distill_chunk, rules, 0, 0, 2, (Teacher(),))
    assert len(arrays["chosen"]) > 40
