"""Registers the ``bm25`` backend. Light on purpose: bm25s is imported by the factory."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memory_bench import Option, hookimpl
from memory_bench_bm25 import __version__

if TYPE_CHECKING:
    from memory_bench import Backend, BackendContext, BackendRegistry

OPTIONS = [
    Option("k1", float, 1.5, "BM25 term-frequency saturation", minimum=0.0),
    Option("b", float, 0.75, "BM25 length normalisation", minimum=0.0, maximum=1.0),
    Option(
        "method",
        str,
        "lucene",
        "BM25 variant as named by bm25s",
        choices=("lucene", "robertson", "atire", "bm25l", "bm25+"),
    ),
    Option(
        "stopwords",
        str,
        "en",
        "stop-word list: bm25s's short English list, its long one, or none",
        choices=("en", "en_plus", "none"),
    ),
    Option(
        "stemmer",
        str,
        "english",
        "Snowball stemmer (PyStemmer) applied to item and query tokens, or none",
        choices=("english", "none"),
    ),
]


def _preload(options: dict[str, Any], cache_dir: Any) -> None:
    """Import bm25s once, before the harness forks a process per pair (0.3 s a pair)."""
    import memory_bench_bm25.backend  # noqa: F401


def _factory(options: dict[str, Any], ctx: BackendContext) -> Backend:
    from memory_bench_bm25.backend import BM25Backend  # imports bm25s

    return BM25Backend(options, ctx)


@hookimpl
def memory_bench_register_backends(registry: BackendRegistry) -> None:
    registry.add(
        "bm25",
        kind="baseline",
        factory=_factory,
        preload=_preload,
        libraries=("bm25s", "PyStemmer"),
        description="BM25 (bm25s, Lucene variant) over the item texts; docstore keeps provenance",
        version=__version__,
        capabilities=["provenance", "forget"],
        options=OPTIONS,
        notes=[
            "lexical baseline: RSHL's encoder is lexical, so its recall is read against this",
            "the index is rebuilt from every stored text before the first query after a "
            "write (O(total tokens) per rebuild; one rebuild per write phase in the protocol)",
            "hits with a BM25 score of 0 (no query term in the item) are not returned",
            "tokens: lower-cased, bm25s's English stop-word list (question words kept), "
            "Snowball English stemming",
        ],
    )
