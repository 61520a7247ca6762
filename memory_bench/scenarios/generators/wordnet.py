"""The WordNet 3.0 slice in memory_bench/scenarios/corpus/, loaded and checked against its hash.

The slice is rebuilt by scripts/build_corpus_slice.py; manifest.json records
the source package and the sha256 of the uncompressed JSON lines. A slice that
does not match its manifest is refused: a scenario drawn from a different
corpus would give different items under the same seed.
"""

from __future__ import annotations

import gzip
import hashlib
import json
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["Corpus", "CorpusError", "Synset", "load_corpus"]


class CorpusError(RuntimeError):
    """The shipped corpus slice is missing or is not what its manifest says."""


@dataclass(frozen=True)
class Synset:
    """One WordNet noun sense: its words (synonyms), their sense counts, definition, examples."""

    offset: str
    lexname: str
    words: tuple[str, ...]
    senses: tuple[int, ...]  # per word: its senses over all parts of speech in WordNet
    definition: str
    examples: tuple[str, ...]

    @property
    def key(self) -> str:
        """WordNet's own id for the sense: offset and part of speech."""
        return f"{self.offset}-n"


@dataclass(frozen=True)
class Corpus:
    synsets: tuple[Synset, ...]
    by_word: dict[str, tuple[int, ...]]  # lowercased word -> indices into synsets
    manifest: dict[str, Any]

    def sense_count(self, word: str) -> int:
        """Senses of ``word`` among the slice's synsets."""
        return len(self.by_word.get(word.lower(), ()))


def _corpus_dir() -> Path:
    return Path(str(resources.files("memory_bench") / "scenarios" / "corpus"))


@lru_cache(maxsize=4)
def load_corpus(directory: Path | None = None) -> Corpus:
    """Read and verify the slice (cached: every seed of a run shares one copy)."""
    d = directory or _corpus_dir()
    try:
        manifest = json.loads((d / "manifest.json").read_text(encoding="utf-8"))
        raw = gzip.decompress((d / manifest["slice"]).read_bytes())
    except (OSError, KeyError, ValueError) as exc:
        raise CorpusError(f"corpus slice in {d} cannot be read: {exc}") from None
    digest = hashlib.sha256(raw).hexdigest()
    if digest != manifest.get("sha256"):
        raise CorpusError(
            f"corpus slice {d / manifest['slice']} has sha256 {digest}, manifest says "
            f"{manifest.get('sha256')}; rebuild it with scripts/build_corpus_slice.py"
        )
    synsets = []
    for line in raw.decode("utf-8").splitlines():
        r = json.loads(line)
        synsets.append(
            Synset(
                offset=r["offset"],
                lexname=r["lexname"],
                words=tuple(w for w, _ in r["words"]),
                senses=tuple(int(n) for _, n in r["words"]),
                definition=r["definition"],
                examples=tuple(r["examples"]),
            )
        )
    if len(synsets) != manifest.get("synsets"):
        raise CorpusError(f"corpus slice has {len(synsets)} synsets, manifest says otherwise")
    index: dict[str, list[int]] = defaultdict(list)
    for i, s in enumerate(synsets):
        for w in {w.lower() for w in s.words}:
            index[w].append(i)
    return Corpus(tuple(synsets), {w: tuple(ix) for w, ix in index.items()}, manifest)
