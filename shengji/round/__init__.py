"""The round without its players: the rules and presets, the engine by phase (`_engine`),
what each seat may know (`_knowledge`), a seat's observation for learning (`_observation`),
the exact world sampler (`_worlds`) and the seat's View. Imports only `shengji.core` and
`shengji.errors`."""
