"""Backend specs and option validation."""

from __future__ import annotations

import pytest

from memory_bench.contract.options import Option, OptionError, parse_backend_spec, resolve_options

OPTS = [
    Option("dim", int, 4096, minimum=64),
    Option("eta", float, 0.1),
    Option("index", str, "flat", choices=("flat", "hnsw")),
    Option("cache", bool, True),
]


def test_parse_spec() -> None:
    assert parse_backend_spec("rshl").raw_options == ()
    req = parse_backend_spec("faiss-rag:index=hnsw, cache=false")
    assert req.name == "faiss-rag"
    assert req.raw_options == (("index", "hnsw"), ("cache", "false"))
    assert req.spec == "faiss-rag:index=hnsw,cache=false"


@pytest.mark.parametrize("spec", [":x=1", "rshl:", "rshl:dim", "rshl:dim=1,dim=2", "rshl:=3"])
def test_bad_specs(spec: str) -> None:
    with pytest.raises(OptionError):
        parse_backend_spec(spec)


def test_resolve_types_and_defaults() -> None:
    got = resolve_options("b", OPTS, {"dim": "8192", "eta": "0.5", "cache": "no"})
    assert got == {"dim": 8192, "eta": 0.5, "index": "flat", "cache": False}


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"dimm": "1"}, "unknown option 'dimm'"),
        ({"dim": "many"}, "expected int"),
        ({"dim": "8"}, "below"),
        ({"index": "ivf"}, "not one of"),
        ({"cache": "maybe"}, "boolean"),
    ],
)
def test_invalid_options(raw: dict[str, str], message: str) -> None:
    with pytest.raises(OptionError, match=message):
        resolve_options("b", OPTS, raw)
