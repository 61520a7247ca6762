"""The ``scale`` generator: any continual generator's script, its store grown to ``size``.

It runs the ``base`` generator (default ``templated``) with the continual
parameters it is given, then replaces the interference phase by ``size -
facts`` noise items (``grow.py``): the base's own noise, renamed copies of it,
and ``hard_share`` near misses of the facts. A base is usable when it declares
the continual parameters and writes the continual script's tags (``seed``,
``probe``, ``interfere``); the base's other parameters keep their defaults.

``memory-bench sweep`` runs it at a list of sizes; the runner only ever sees a
generator.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from memory_bench.contract.hooks import hookimpl
from memory_bench.contract.options import Option
from memory_bench.scenarios.continual.params import CONTINUAL_PARAMETERS
from memory_bench.scenarios.registry import GeneratorInfo, ScenarioRegistry, default_registry
from memory_bench.scenarios.script import Script

__all__ = ["MAX_SIZE", "memory_bench_register_scenarios"]

VERSION = "1.0"
MAX_SIZE = 10_000_000
_OWN = ("base", "size", "hard_share")
PARAMETERS: tuple[Option, ...] = (
    Option("base", str, "templated", "the continual generator whose script is grown"),
    Option("size", int, 1000, "items in the store after interference (facts + noise)",
           minimum=2, maximum=MAX_SIZE),
    Option("hard_share", float, 0.1, "share of the noise that is near misses of the facts",
           minimum=0.0, maximum=0.9),
    # The sweep grows the phased stream's one long interference run (grow.py).
    *(replace(o, default="phased", choices=("phased",)) if o.name == "stream" else o
      for o in CONTINUAL_PARAMETERS),
)


def _base(name: str) -> GeneratorInfo:
    if name == "scale":
        raise ValueError("base = 'scale': a scale script cannot grow another one")
    info = default_registry().get(name)
    if info is None:
        raise ValueError(f"base: unknown generator {name!r}")
    declared = {o.name for o in info.parameters}
    missing = sorted({"facts", "noise", "write_batch"} - declared)
    if missing:
        raise ValueError(f"base: generator {name!r} is not a continual generator "
                         f"(it declares no {', '.join(missing)})")
    return info


def _base_params(info: GeneratorInfo, params: Mapping[str, Any]) -> dict[str, Any]:
    """The base's parameters: its defaults, overridden by the ones scale passes on."""
    out = {o.name: o.default for o in info.parameters}
    out.update({k: v for k, v in params.items() if k not in _OWN and k in out})
    return out


def check(params: Mapping[str, Any]) -> str | None:
    try:
        info = _base(params["base"])
    except ValueError as exc:
        return str(exc)
    base = _base_params(info, params)
    problem = info.check(base) if info.check is not None else None
    if problem:
        return f"base {info.name}: {problem}"
    noise = params["size"] - params["facts"]
    hard = round(params["hard_share"] * noise)
    if noise - hard < params["noise"]:
        return (f"size {params['size']} is too small: {params['facts']} facts, "
                f"{hard} near misses and the base's {params['noise']} noise items need "
                f"size >= {params['facts'] + params['noise'] / (1 - params['hard_share']):.0f}")
    return None


def generate(params: Mapping[str, Any], seed: int) -> Script:
    from memory_bench.scenarios.scale.grow import grow

    info = _base(params["base"])
    script = info.generate(_base_params(info, params), seed)
    grown, _ = grow(script, size=params["size"], hard_share=params["hard_share"], seed=seed,
                    write_batch=params["write_batch"])
    return grown


def caveats(params: Mapping[str, Any], stats: Mapping[str, Any]) -> list[str]:
    info = _base(params["base"])
    out = list(info.caveats(_base_params(info, params), stats)) if info.caveats else []
    scale = next((s.get("scale") for s in stats.values() if isinstance(s, dict)), None) or {}
    out.insert(1, (
        f"Scale: the store holds {params['size']:,} items after interference. Its noise is "
        f"the `{info.name}` generator's own {scale.get('base_noise', params['noise']):,} noise "
        f"items, {scale.get('renamed', 0):,} copies of them with every name renamed "
        f"(invented names made of halves of the generator's names), and "
        f"{scale.get('hard', 0):,} near misses ({params['hard_share']:.0%} of the noise): a "
        "fact's own text with one word of its subject renamed, a distractor that shares the "
        "relation and the value but never answers the question."))
    return out


@hookimpl
def memory_bench_register_scenarios(registry: ScenarioRegistry) -> None:
    from memory_bench.metrics.continual import CONTINUAL_METRICS
    from memory_bench.scenarios.scale.metrics import SCALE_METRICS

    registry.add(
        "scale",
        generate=generate,
        description="a continual generator's script (base, default templated) with its store "
                    "grown by noise to `size` items, near misses of the facts a fixed share",
        version=VERSION,
        parameters=PARAMETERS,
        metrics=(*CONTINUAL_METRICS, *SCALE_METRICS),
        check=check,
        caveats=caveats,
        notes=("the base's other parameters keep their defaults",),
    )
