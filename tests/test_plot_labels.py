"""The quality-against-latency plot keeps crowded points readable: each point carries its
legend number, and points drawn on top of each other share one label."""

from __future__ import annotations

import itertools

from memory_bench.render.plots import _number_points, _pyplot


def test_overlapping_points_share_one_label_and_no_label_covers_another() -> None:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5, 4), dpi=110)
    # The published hard table: faiss-rag, its rule-gate row and qdrant sit on one spot.
    points = [(9.65, 0.845, 2), (9.73, 0.845, 4), (10.2, 0.845, 6), (1.25, 0.5, 1),
              (0.25, 0.511, 8), (21.7, 0.845, 7)]
    for x, y, _ in points:
        ax.plot(x, y, "o", ms=8)
    ax.set_xscale("log")
    ax.set_xlim(0.2, 30)
    ax.set_ylim(0, 1.1)
    renderer = fig.canvas.get_renderer()
    _number_points(ax, points, renderer)
    assert sorted(t.get_text() for t in ax.texts) == ["1", "2·4·6", "7", "8"]
    boxes = [t.get_window_extent(renderer) for t in ax.texts]
    for a, b in itertools.combinations(boxes, 2):
        assert not a.overlaps(b), (a, b)
    plt.close(fig)
