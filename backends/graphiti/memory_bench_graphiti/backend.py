"""``graphiti``: Graphiti's temporal knowledge graph on embedded Kuzu, edges saved directly.

Graphiti turns text into a graph with an LLM (entity and fact extraction, node and
edge dedupe, contradiction checks). None of that runs here. Each item becomes one
of Graphiti's own ``EntityEdge`` facts, saved through Graphiti's Kuzu driver:
``fact`` = the item's text, ``fact_embedding`` = the shared MiniLM vector,
``valid_at`` = ``created_at`` = the item's timestamp, the item id and source in
the edge's attributes. Its two endpoints are ``EntityNode`` s named by spaCy's
entities of the text (the first two distinct; noun chunks when it has none), one
node per distinct name, so facts about the same name share a node and the graph
has paths between them.

Queries are Graphiti's ``search_`` over edges: BM25 (Kuzu's full-text index on
the fact) and cosine similarity on the fact embeddings (``search=hybrid``, what
``Graphiti.search`` runs), plus, with ``search=graph``, breadth-first expansion
from the nodes of what those two found; fused by reciprocal rank (Graphiti's
``rrf`` reranker). The hit score is Graphiti's reranker score.

Bi-temporal updates: with ``supersede=tags``, an item whose subject:/relation:
tags match a stored, still valid fact closes that fact (``invalid_at`` and
``expired_at`` set to the new item's timestamp, saved by Graphiti) and searches
filter on ``invalid_at IS NULL``: Graphiti's own temporal filter. The tags are the
generator's keys (Graphiti's LLM would decide that a fact contradicts another),
so the row is marked structured.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Coroutine, Sequence
from datetime import UTC, datetime
from typing import Any

from memory_bench import Hit, Item, NotSupportedError, WriteResult

__all__ = ["GraphitiMemory", "endpoint_names", "item_names"]

RELATION = "STATES"  # Graphiti's LLM names relations; without one every fact has this name
# Graphiti names nodes and edges by uuid4; rrf ties are broken by that order, so uuids
# derived from the item id and the entity name make a run reproducible.
_NS = uuid.UUID("6f1c2b4e-9d3a-5e7f-8a1b-2c3d4e5f6a7b")


def endpoint_names(doc: Any) -> list[str]:
    """Up to two distinct names for a fact's endpoints: spaCy's entities, else noun chunks."""
    names: list[str] = []
    spans = list(doc.ents) or [c for c in doc.noun_chunks if c.root.pos_ != "PRON"]
    for span in spans:
        name = " ".join(span.text.split())
        if name and name.lower() not in (n.lower() for n in names):
            names.append(name)
        if len(names) == 2:
            break
    return names


def item_names(nlp: Any, items: Sequence[Item]) -> list[list[str]]:
    """Each item's endpoint names (its text's first 64 characters, else its id, when
    spaCy finds none): the nodes ``write`` makes and the names the run's table holds."""
    docs = nlp.pipe([i.text for i in items])
    return [endpoint_names(d) or [i.text[:64] or i.id] for d, i in zip(docs, items,
                                                                       strict=True)]


def _utc(when: datetime | None) -> datetime | None:
    """Kuzu's TIMESTAMP comes back naive; it holds UTC."""
    return when.replace(tzinfo=UTC) if when is not None and when.tzinfo is None else when


def _key(item: Item) -> tuple[str, str] | None:
    """The generator's subject:/relation: tags, when the item has both."""
    subject, relation = item.tag("subject"), item.tag("relation")
    return (subject, relation) if subject is not None and relation is not None else None


class GraphitiMemory:
    """One Graphiti group on one Kuzu database; item ids map to Graphiti edges."""

    def __init__(self, graphiti: Any, embedder_client: Any, nlp: Any, *, group_id: str,
                 methods: Sequence[Any], sim_min_score: float, supersede: bool,
                 bfs_depth: int = 3) -> None:
        self.graphiti = graphiti
        self.driver = graphiti.driver
        self.emb = embedder_client
        self.nlp = nlp
        self.group_id = group_id
        self.methods = list(methods)
        self.sim_min_score = sim_min_score
        self.bfs_depth = bfs_depth
        self.supersede = supersede
        self.loop = asyncio.new_event_loop()
        self.edges: dict[str, Any] = {}  # item id -> EntityEdge
        self.nodes: dict[str, Any] = {}  # lower-cased name -> EntityNode
        self.valid: dict[tuple[str, str], str] = {}  # (subject, relation) -> item id
        self._run(self.driver.graph_ops.build_indices_and_constraints(self.driver))

    def _run(self, coro: Coroutine[Any, Any, Any]) -> Any:
        return self.loop.run_until_complete(coro)

    # -- writing -----------------------------------------------------------------
    def write(self, items: Sequence[Item]) -> list[WriteResult]:
        from graphiti_core.edges import EntityEdge
        from graphiti_core.nodes import EntityNode

        if not items:
            return []
        names = item_names(self.nlp, items)
        fresh: dict[str, Item] = {}
        for item, ns in zip(items, names, strict=True):
            for n in ns:
                if n.lower() not in self.nodes:
                    fresh.setdefault(n, item)
        if fresh:
            vecs = self.emb.embedder.encode(list(fresh))
            for (name, item), vec in zip(fresh.items(), vecs, strict=True):
                node = EntityNode(uuid=str(uuid.uuid5(_NS, "node:" + name.lower())),
                                  name=name, group_id=self.group_id, labels=["Entity"],
                                  created_at=item.timestamp, name_embedding=vec.tolist())
                self._run(node.save(self.driver))
                self.nodes[name.lower()] = node
        vectors = self.emb.embedder.encode([i.text for i in items])
        for item, ns, vec in zip(items, names, vectors, strict=True):
            if item.id in self.edges:  # writing an id again replaces it
                self._delete(item.id)
            source = self.nodes[ns[0].lower()]
            target = self.nodes[ns[-1].lower()]
            edge = EntityEdge(
                uuid=str(uuid.uuid5(_NS, "edge:" + item.id)),
                group_id=self.group_id, source_node_uuid=source.uuid,
                target_node_uuid=target.uuid, name=RELATION, fact=item.text,
                fact_embedding=vec.tolist(), created_at=item.timestamp,
                valid_at=item.timestamp, reference_time=item.timestamp,
                attributes={"item_id": item.id, "source": item.source})
            if self.supersede:
                self._close_older(item, edge)
            self._run(edge.save(self.driver))
            self.edges[item.id] = edge
        return [WriteResult(item.id, accepted=True) for item in items]

    def _close_older(self, item: Item, edge: Any) -> None:
        """Invalidate the still valid fact with the same subject and relation (if older)."""
        key = _key(item)
        if key is None:
            return
        old_id = self.valid.get(key)
        old = self.edges.get(old_id) if old_id else None
        if old is not None and old_id != item.id and old.valid_at <= item.timestamp:
            old.invalid_at = item.timestamp
            old.expired_at = item.timestamp
            self._run(old.save(self.driver))
        self.valid[key] = item.id

    def _delete(self, item_id: str) -> None:
        edge = self.edges.pop(item_id)
        self._run(edge.delete(self.driver))
        for key, valid_id in list(self.valid.items()):
            if valid_id == item_id:
                del self.valid[key]

    def remove(self, prefix: str) -> int:
        doomed = [i for i in self.edges if i.startswith(prefix)]
        for item_id in doomed:
            self._delete(item_id)
        return len(doomed)

    def count(self, prefix: str) -> int:
        return sum(1 for i in self.edges if i.startswith(prefix))

    def forget(self, ids: Sequence[str] = (), source: str | None = None,
               prefix: str = "") -> int:
        """Delete the fact edges of these ids and of ``source``'s items under ``prefix``
        (the fact lives on its edge; the entity nodes name people and carry no fact)."""
        wanted = set(ids)
        doomed = [i for i, e in self.edges.items() if i in wanted or (
            source is not None and (e.attributes or {}).get("source") == source
            and i.startswith(prefix))]
        for item_id in doomed:
            self._delete(item_id)
        return len(doomed)

    # -- reading -----------------------------------------------------------------
    def _config(self, k: int) -> Any:
        from graphiti_core.search.search_config import (
            EdgeReranker,
            EdgeSearchConfig,
            SearchConfig,
        )

        return SearchConfig(edge_config=EdgeSearchConfig(
            search_methods=self.methods, reranker=EdgeReranker.rrf,
            sim_min_score=self.sim_min_score, bfs_max_depth=self.bfs_depth), limit=k)

    def _filters(self) -> Any:
        from graphiti_core.search.search_filters import (
            ComparisonOperator,
            DateFilter,
            SearchFilters,
        )

        if not self.supersede:
            return SearchFilters()
        return SearchFilters(invalid_at=[[DateFilter(
            comparison_operator=ComparisonOperator.is_null)]])

    def query(self, text: str, k: int) -> list[Hit]:
        if k <= 0 or not self.edges:
            return []
        self.emb.query_mode = True
        try:
            found = self._run(self.graphiti.search_(
                text, config=self._config(k), group_ids=[self.group_id],
                search_filter=self._filters()))
        finally:
            self.emb.query_mode = False
        scores = list(found.edge_reranker_scores) or [0.0] * len(found.edges)
        hits = []
        for edge, score in zip(found.edges, scores, strict=False):
            attrs = edge.attributes or {}
            hits.append(Hit(id=str(attrs.get("item_id") or f"graphiti:{edge.uuid}"),
                            score=float(score), source=attrs.get("source"),
                            timestamp=_utc(edge.valid_at)))
        return hits[:k]

    # -- not supported -----------------------------------------------------------
    def strength(self, ids: Sequence[str]) -> list[float | None]:
        raise NotSupportedError("graphiti keeps no per-fact strength")

    def consolidate(self) -> dict[str, Any]:
        raise NotSupportedError("graphiti's consolidation (communities) needs an LLM")

    def close(self) -> None:
        try:
            self._run(self.graphiti.close())
        finally:
            self.loop.close()
            self.emb.embedder.close()
