"""Registers the ``neural-memory`` backend. Light on purpose: the model loads in the factory."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memory_bench_embed import LIBRARIES, backend_manifest, embedding_options, shared_vectors

from memory_bench import Option, hookimpl
from memory_bench_neural_memory import __version__

if TYPE_CHECKING:
    from memory_bench import Backend, BackendContext, BackendRegistry

DEFAULT_ETA = 0.5
DEFAULT_ALPHA = 0.001

OPTIONS = [
    *embedding_options(),  # model, cache, cache_queries, threads, batch_size: shared meaning
    Option(
        "memory",
        str,
        "linear",
        "M: a linear map, a 2-layer MLP, or the identity (control: no learning, the "
        "codebook alone, i.e. dense retrieval)",
        choices=("linear", "mlp", "identity"),
    ),
    Option(
        "theta",
        float,
        None,
        "surprise step θ; unset = the one-shot step 1/(2·E‖φ(k)‖²): 0.5 for linear "
        "(unit-norm keys), ≈1/(0.71·hidden) for mlp",
        minimum=0.0,
    ),
    Option(
        "eta",
        float,
        DEFAULT_ETA,
        "momentum η (past surprise kept per write)",
        minimum=0.0,
        maximum=0.999,
    ),
    Option(
        "alpha",
        float,
        DEFAULT_ALPHA,
        "forgetting α (weight decay per write)",
        minimum=0.0,
        maximum=1.0,
    ),
    Option("hidden", int, 512, "hidden width of the mlp memory", minimum=1),
    Option(
        "values",
        str,
        "embedding",
        "what M learns to output and the codebook holds: the item's embedding (k = v), "
        "or a seeded random unit code per item (ablation: the codebook then knows no content)",
        choices=("embedding", "random"),
    ),
]


def _factory(options: dict[str, Any], ctx: BackendContext) -> Backend:
    from memory_bench_neural_memory.backend import NeuralMemoryBackend  # numpy + model

    return NeuralMemoryBackend(options, ctx)


def _preload(options: dict[str, Any], cache_dir: Any) -> None:
    """Before the harness forks a process per pair: load the model and heavy imports once."""
    from memory_bench_embed import preload

    preload(options, 'memory_bench_neural_memory.backend')


@hookimpl
def memory_bench_register_backends(registry: BackendRegistry) -> None:
    registry.add(
        "neural-memory",
        factory=_factory,
        preload=_preload,
        manifest=backend_manifest,
        vectors=shared_vectors,
        libraries=LIBRARIES,
        description="Titans-style memory learning at test time (surprise, momentum, "
        "forgetting) over frozen MiniLM embeddings; read by decoding M(q) to stored items",
        version=__version__,
        capabilities=[],
        options=OPTIONS,
        notes=[
            "the readout codebook is a nearest-neighbour index over the stored items' "
            "values; without it the memory cannot name an item at all. With values="
            "embedding it holds the same vectors a dense retriever indexes, so part of "
            "the recall is the codebook's (values=random shows what M alone carries)",
            "keys = values = the frozen MiniLM embedding of the item text: no learned "
            "W_K/W_V and no outer training loop, so θ, η, α are fixed scalars, not gates",
            "keeps no source or timestamp: provenanceAccuracy is 0 by construction",
            "remove() drops items from the codebook only; their trace in the weights stays",
        ],
    )
