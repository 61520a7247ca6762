"""The first-party data generators of the continual kind: ``templated`` and ``natural``.

Each module has ``generate(params, seed) -> ScenarioData`` and
``capacity_error(params) -> str | None``; ``memory_bench.scenarios.builtin``
registers them as scenario generators. Each is imported only when used.
"""
