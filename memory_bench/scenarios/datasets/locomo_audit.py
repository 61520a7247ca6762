"""The LoCoMo audit (dial481/locomo-audit, CC BY-NC 4.0): corrections to LoCoMo's answer key.

The audit lists 156 questions whose golden answer or cited evidence is wrong. Its
``errors.json`` (and ``audit/errors_conv_<n>.json``, one per conversation) is a JSON
array of ``{question_id: "locomo_<conversation>_qa<index>", question, golden_answer,
category, error_type, cited_evidence: ["D1:12"], correct_evidence: [...], reasoning,
correct_answer}``; ``<conversation>`` and ``<index>`` count from 0 in locomo10.json's
order. With ``--set audit=PATH`` (that file, one per-conversation file, or the audit's
checkout) the LoCoMo scenario asks for the corrected evidence and scores the corrected
answer; an entry is applied only where its question text is the file's (else counted).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_bench.scenarios.answers import normalise
from memory_bench.scenarios.datasets.common import DatasetError, read_data_file

__all__ = ["Audit", "Correction", "load_audit"]

_ID = re.compile(r"locomo_(\d{1,9})_qa(\d{1,9})")  # a longer number is no id


@dataclass(frozen=True)
class Correction:
    conversation: int
    index: int
    question: str  # normalised, to check it names the file's question
    evidence: tuple[str, ...]
    cited: tuple[str, ...]
    answer: str | None
    golden: str | None


@dataclass(frozen=True)
class Audit:
    """The corrections, by (conversation index, question index), and the files' digests."""

    files: tuple[tuple[str, str], ...]  # (name, sha256)
    corrections: tuple[Correction, ...]
    unreadable: int  # entries without a usable question_id

    def by_question(self) -> dict[tuple[int, int], Correction]:
        return {(c.conversation, c.index): c for c in self.corrections}

    def stats(self) -> dict[str, Any]:
        return {"files": [{"name": n, "sha256": s} for n, s in self.files],
                "entries": len(self.corrections) + self.unreadable,
                "entries_unreadable": self.unreadable}


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if path.is_dir():
        if (path / "errors.json").is_file():
            return [path / "errors.json"]
        for where in (path / "audit", path):
            found = sorted(where.glob("errors_conv_*.json"))
            if found:
                return found
    raise DatasetError(f"audit {path} is neither the LoCoMo audit's errors.json nor a "
                       "directory holding it (or audit/errors_conv_*.json)")


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def load_audit(raw: str) -> Audit:
    """The audit at ``raw`` (a file or a checkout); DatasetError when it is not one."""
    files, corrections, unreadable = [], {}, 0
    for path in _files(Path(raw).expanduser()):
        data_file = read_data_file(path)
        doc = data_file.json("LoCoMo audit")
        if not isinstance(doc, list) or not all(isinstance(e, Mapping) for e in doc):
            raise DatasetError(f"{data_file.name} is not a LoCoMo audit file: expected a JSON "
                               "array of error entries")
        files.append((data_file.name, data_file.sha256))
        for entry in doc:
            m = _ID.fullmatch(str(entry.get("question_id", "")))
            evidence = entry.get("correct_evidence")
            if m is None or not isinstance(evidence, list):
                unreadable += 1
                continue
            c = Correction(int(m.group(1)), int(m.group(2)),
                           normalise(str(entry.get("question", ""))),
                           tuple(str(e) for e in evidence),
                           tuple(str(e) for e in entry.get("cited_evidence") or ()),
                           _text(entry.get("correct_answer")), _text(entry.get("golden_answer")))
            corrections[(c.conversation, c.index)] = c  # a later file's entry wins
    if not corrections:
        raise DatasetError(f"audit {raw}: no entry names a LoCoMo question "
                           "(question_id locomo_<n>_qa<i>)")
    return Audit(tuple(files), tuple(corrections.values()), unreadable)
