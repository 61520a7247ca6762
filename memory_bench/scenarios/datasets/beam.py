"""BEAM (Tavakoli et al., ICLR 2026): long synthetic chats and ten kinds of probing question.

A BEAM checkout (github.com/mohammadtavakoli78/BEAM; no licence file, so nothing of it
is shipped or republished) holds ``chats/<tier>/<n>/`` for the tiers 100K (20 chats),
500K (35), 1M and 10M. What this reads of a chat directory (docs/beam.md has the
schema as found in the 100K and 500K tiers):

- ``chat.json``: a list of batches ``{batch_number, time_anchor, turns: [[message,
  ...], ...]}``; a message is ``{role: user|assistant, id: int, content, index?,
  question_type?, time_anchor?: "March-15-2024"}``; ids count the chat's messages from
  0, and a user message's content ends in its ``->-> <batch>,<turn>`` index marker;
- ``probing_questions/probing_questions.json``: ``{<type>: [question, ...]}`` for the
  ten types; a question has ``question``, a gold ``answer`` (or ``ideal_answer``,
  ``ideal_response``, ``ideal_summary``), a ``rubric`` (``"LLM response should state:
  250ms"``), ``conversation_references`` (free text) and ``source_chat_ids``: the
  evidence message ids, a list, or for knowledge_update ``{original_info,
  updated_info}``, contradiction_resolution ``{first_statement, second_statement}``
  and temporal_reasoning ``{first_event, second_event}``; abstention has none.

One store per chat (a fold per chat by default). Every message is an item (``role:
content``, the index marker removed: it is generation scaffolding no participant
wrote), its source the chat and batch, its timestamp the latest time anchor plus one
second per message. Every question is asked after the whole chat:

- knowledge_update: expected the updated statement, ``outrank`` the original one
  (``updateWinRate``, ``staleRate``); an item naming the same turn on both sides has
  no old statement to beat and is asked as recall only (counted);
- contradiction_resolution: expected both statements (``conflict@k``: both in the top k);
- every other answerable type: a recall probe with its evidence, its type the category;
- abstention: asked only of a backend with calibrated scores (``abstainRate``);
  otherwise skipped, and the report says why.

A reference is resolved by id (an integer, or a numeric string) and, where the id is
missing or names no message, by its text in ``conversation_references`` (the message
containing it, else the one holding at least 80% of its content words); what resolves
neither way is counted in ``data_stats``. The gold answer of the factual types is the
rubric's phrases (else the answer), scored by containment (``scenarios/answers.py``).
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from pathlib import Path
from typing import Any

from memory_bench.contract.capabilities import Capability
from memory_bench.contract.options import Option
from memory_bench.metrics.retrieval import ABSTAIN, ASK
from memory_bench.metrics.updates import CONFLICT
from memory_bench.scenarios.answers import key_tokens, normalise
from memory_bench.scenarios.datasets.common import (
    DataFile,
    DatasetError,
    Quirks,
    ScriptBuilder,
    check_folds,
    fold_of,
    fold_stats,
    fold_units,
    keep_questions_option,
    later,
    mean_baseline,
    overlap_caveat,
    quirk_list,
)
from memory_bench.scenarios.script import Probe, Script

__all__ = ["PARAMETERS", "TIERS", "TYPES", "caveats", "check", "generate", "load",
           "seed_count"]

WHERE = "a checkout of github.com/mohammadtavakoli78/BEAM (its chats/ directory)"
TIERS = ("100K", "500K", "1M", "10M")
UPDATE, ABSTENTION = "knowledge_update", "abstention"
TYPES = (ABSTENTION, CONFLICT, "event_ordering", "information_extraction",
         "instruction_following", UPDATE, "multi_session_reasoning", "preference_following",
         "summarization", "temporal_reasoning")
# The types whose gold answer is a fact the chat states (or implies): answer containment.
ANSWERED = frozenset((UPDATE, "information_extraction", "multi_session_reasoning",
                      "temporal_reasoning"))
_SIDES = {UPDATE: ("original_info", "updated_info"),
          CONFLICT: ("first_statement", "second_statement"),
          "temporal_reasoning": ("first_event", "second_event")}
PARAMETERS = (
    Option("path", str, None, "a BEAM checkout (its root, its chats/ directory or one "
           "tier's directory); recorded as given, so give a relative path in a result you "
           "publish"),
    Option("tier", str, "100K", "which tier of chats (its directory under chats/)",
           choices=TIERS),
    Option("folds", int, 0, "disjoint folds of the chats, one per seed (0: one chat per "
           "fold)", minimum=0, maximum=10_000),
    Option("write_batch", int, 32, "messages per write call (a call also ends with its batch)",
           minimum=1, maximum=100_000),
    keep_questions_option(False, "off by default: BEAM has no licence file, so a result "
                          "does not republish its questions"),
)
_MARKER = re.compile(r"\s*->->\s*\d+\s*,\s*\d+\s*$")
_RUBRIC = re.compile(r"^\s*LLM response should (?:state|mention|contain)\s*:\s*", re.I)
_TEXT_SHARE = 0.8  # a reference resolves to the message holding this share of its words


@dataclass(frozen=True)
class Message:
    id: int
    text: str
    batch: int
    when: datetime


@dataclass(frozen=True)
class Question:
    type: str
    index: int
    question: str
    expected: tuple[int, ...]
    outrank: tuple[int, ...] = ()
    answers: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Chat:
    name: str  # the chat's directory name
    messages: tuple[Message, ...]
    questions: tuple[Question, ...]


@dataclass(frozen=True)
class Beam:
    tier: str
    chats: tuple[Chat, ...]
    files: dict[str, Any]  # name, files, bytes, sha256 (of every file read, in order)
    quirks: dict[str, Any]


def _tier_dir(root: Path, tier: str) -> Path:
    for candidate in (root / "chats" / tier, root / tier, root):
        if candidate.is_dir() and any((d / "chat.json").is_file()
                                      for d in candidate.iterdir() if d.is_dir()):
            return candidate
    raise DatasetError(f"{root} holds no BEAM tier {tier}: expected chats/{tier}/<n>/chat.json "
                       f"under it ({WHERE})")


def _order(name: str) -> tuple[int, str]:
    # ASCII digits only, and few: "²" is a digit to isdigit() and not to int()
    return (int(name), "") if name.isascii() and name.isdigit() and len(name) < 10 \
        else (1 << 30, name)


def _json(path: Path, where: str) -> tuple[Any, bytes]:
    """A chat directory's JSON file, read as every dataset file is (``DataFile.json``)."""
    if path.exists() and not path.is_file():
        raise DatasetError(f"{where}: is not a file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise DatasetError(f"{where}: cannot be read: {exc.strerror}") from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise DatasetError(f"{where} is not UTF-8 text (byte {exc.start})") from None
    doc = DataFile(where, len(data), "", text).json("BEAM chat")
    return doc, data


def _anchor(raw: Any) -> datetime | None:
    if not isinstance(raw, str):
        return None
    for fmt in ("%B-%d-%Y", "%b-%d-%Y", "%B %d, %Y"):
        try:
            return datetime.strptime(raw.strip(), fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def _messages(doc: Any, where: str, quirks: Quirks) -> list[Message]:
    if not isinstance(doc, list) or not all(isinstance(b, Mapping) and "turns" in b
                                            for b in doc):
        raise DatasetError(f"{where} is not a BEAM chat: expected a list of batches "
                           "{batch_number, turns}")
    out: list[Message] = []
    seen: set[int] = set()
    when = datetime(2024, 1, 1, tzinfo=UTC)
    for b, batch in enumerate(doc):
        number = batch.get("batch_number") if isinstance(batch.get("batch_number"), int) \
            else b + 1
        for turn in batch["turns"] if isinstance(batch["turns"], list) else []:
            for m in turn if isinstance(turn, list) else []:
                if not isinstance(m, Mapping) or not isinstance(m.get("id"), int) \
                        or not isinstance(m.get("content"), str):
                    quirks.add("messages_unreadable", f"{where} batch {number}")
                    continue
                if m["id"] in seen:
                    quirks.add("duplicate_message_ids", f"{where} id {m['id']}")
                    continue
                seen.add(m["id"])
                anchor = _anchor(m.get("time_anchor"))
                if m.get("time_anchor") is not None and anchor is None:
                    quirks.add("unparseable_time_anchors", f"{where}: {m['time_anchor']!r}")
                step = later(when, timedelta(seconds=1), f"{where} message {m['id']}")
                when = max(anchor, step) if anchor else step
                text = m["content"]
                if _MARKER.search(text):
                    quirks.add("index_markers_removed")
                    text = _MARKER.sub("", text)
                if not text.strip():
                    quirks.add("empty_messages", f"{where} id {m['id']}")
                    continue
                out.append(Message(m["id"], f"{m.get('role') or 'unknown'}: {text.strip()}",
                                   number, when))
    return out


def _flat(raw: Any) -> Iterator[Any]:
    """The values of a reference, lists of lists flattened (a few items nest them)."""
    if isinstance(raw, list):
        for v in raw:
            yield from _flat(v)
    elif raw is not None:
        yield raw


class _Resolver:
    """References to a chat's messages: by id, else by the text of a reference."""

    def __init__(self, messages: Sequence[Message], quirks: Quirks, where: str) -> None:
        self.by_id = {m.id: m for m in messages}
        self.norm = [(m.id, normalise(m.text)) for m in messages]
        self.words = [(i, set(t.split())) for i, t in self.norm]
        self.quirks, self.where = quirks, where

    def ids(self, raw: Any) -> list[int] | None:
        """The message ids ``raw`` names (None when it names none at all)."""
        values = list(_flat(raw))
        if any(isinstance(v, list) for v in (raw if isinstance(raw, list) else ())):
            self.quirks.add("reference_lists_nested", f"{self.where}: {raw!r}"[:120])
        out = []
        for v in values:
            if isinstance(v, str) and v.strip().isascii() and v.strip().isdigit() \
                    and len(v.strip()) < 19:
                v = int(v)
            if isinstance(v, int) and not isinstance(v, bool) and v in self.by_id:
                self.quirks.add("references_by_id")
                out.append(v)
            elif v is not None:
                self.quirks.add("reference_ids_unknown", f"{self.where}: {v!r}")
        return list(dict.fromkeys(out)) or None  # a few lists name an id twice

    def text(self, reference: Any) -> int | None:
        """The message a reference's text is in (its words, for a paraphrase)."""
        if not isinstance(reference, str):
            return None
        ref = normalise(reference.split(":", 1)[-1] if ":" in reference[:60] else reference)
        if not ref:
            return None
        for i, t in self.norm:
            if ref in t:
                self.quirks.add("references_by_text")
                return i
        want = set(key_tokens([ref]))
        if not want:
            return None
        best = max(self.words, key=lambda iw: len(want & iw[1]))
        if len(want & best[1]) >= _TEXT_SHARE * len(want):
            self.quirks.add("references_by_text")
            return best[0]
        return None


def _sides(q: Mapping[str, Any], kind: str, r: _Resolver) -> list[list[int]]:
    """The two sides' message ids of a two-sided item (by id, else by reference text)."""
    raw = q.get("source_chat_ids")
    refs = q.get("conversation_references") or []
    out = []
    for n, side in enumerate(_SIDES[kind]):
        ids = r.ids(raw.get(side)) if isinstance(raw, Mapping) else None
        if ids is None:
            found = r.text(refs[n]) if isinstance(refs, list) and n < len(refs) else None
            ids = [found] if found is not None else []
        out.append(ids)
    return out


def _answers(q: Mapping[str, Any]) -> tuple[str, ...]:
    rubric = q.get("rubric") if isinstance(q.get("rubric"), list) else []
    phrases = [_RUBRIC.sub("", p).strip() for p in rubric
               if isinstance(p, str) and _RUBRIC.match(p)]
    phrases = [p for p in phrases if p]
    if not phrases and isinstance(q.get("answer"), str) and q["answer"].strip():
        phrases = [q["answer"].strip()]
    return tuple(phrases)


def _question(kind: str, i: int, q: Any, r: _Resolver, quirks: Quirks) -> Question | None:
    where = f"{r.where} {kind}[{i}]"
    if not isinstance(q, Mapping) or not isinstance(q.get("question"), str) \
            or not q["question"].strip():
        quirks.add("questions_without_text", where)
        return None
    text = " ".join(q["question"].split())
    answers = _answers(q) if kind in ANSWERED else ()
    if kind == ABSTENTION:
        return Question(kind, i, text, (), answers=None)
    if kind in _SIDES:
        first, second = _sides(q, kind, r)
        if kind == UPDATE:
            old, new = first, second
            if not new:
                quirks.add("updates_without_a_new_statement", where)
                return None
            stale = tuple(x for x in old if x not in new)
            if not stale:
                quirks.add("updates_naming_the_same_turn_both_sides" if old else
                           "updates_without_an_old_statement", where)
            return Question(kind, i, text, tuple(new), stale, answers)
        if not first or not second:
            quirks.add(f"{kind}_one_side_unresolved", where)
        elif set(first) & set(second):
            quirks.add(f"{kind}_same_turn_both_sides", where)
        expected = tuple(dict.fromkeys([*first, *second]))
    else:
        expected = tuple(r.ids(q.get("source_chat_ids")) or ())
        if not expected and isinstance(q.get("conversation_references"), list):
            found = [r.text(x) for x in q["conversation_references"]]
            expected = tuple(dict.fromkeys(x for x in found if x is not None))
    if not expected:
        quirks.add("questions_unresolved", where)
        return None
    return Question(kind, i, text, expected, answers=answers)


def _chat(directory: Path, quirks: Quirks, digest: Any, size: Counter[str]) -> Chat | None:
    name = directory.name
    chat_doc, chat_bytes = _json(directory / "chat.json", f"chat {name}/chat.json")
    probes = directory / "probing_questions" / "probing_questions.json"
    if not probes.is_file():
        quirks.add("chats_without_probing_questions", name)
        return None
    q_doc, q_bytes = _json(probes, f"chat {name}/probing_questions.json")
    for data in (chat_bytes, q_bytes):
        digest.update(hashlib.sha256(data).digest())
        size["bytes"] += len(data)
    if not isinstance(q_doc, Mapping):
        raise DatasetError(f"chat {name}: probing_questions.json is not an object of "
                           "question types")
    messages = _messages(chat_doc, f"chat {name}", quirks)
    if not messages:
        quirks.add("chats_without_messages", name)
        return None
    r = _Resolver(messages, quirks, f"chat {name}")
    questions = []
    for kind, items in q_doc.items():
        if kind not in TYPES:
            quirks.add("unknown_question_types", f"{name}: {kind!r}")
            continue
        for i, q in enumerate(items if isinstance(items, list) else []):
            found = _question(kind, i, q, r, quirks)
            if found is not None:
                questions.append(found)
    return Chat(name, tuple(messages), tuple(questions))


@lru_cache(maxsize=2)
def _parse(tier_dir: str, tier: str, stamp: tuple[tuple[str, int, int, int, int], ...]
           ) -> Beam:
    quirks = Quirks()
    digest = hashlib.sha256()
    chats = []
    root = Path(tier_dir)
    size: Counter[str] = Counter()
    for name, *_ in stamp:
        chat = _chat(root / name, quirks, digest, size)
        if chat is not None:
            chats.append(chat)
    if not chats:
        raise DatasetError(f"BEAM tier {tier}: no chat with probing questions")
    files = {"name": f"BEAM chats/{tier}", "chats": len(chats), "bytes": size["bytes"],
             "sha256": digest.hexdigest()}
    return Beam(tier, tuple(chats), files, quirks.to_dict())


def load(params: Mapping[str, Any]) -> Beam:
    raw = params.get("path")
    if not raw:
        raise DatasetError(f"no BEAM checkout: give --set path=DIR ({WHERE})")
    root = Path(str(raw)).expanduser()
    if not root.is_dir():
        raise DatasetError(f"BEAM checkout {root} is not a directory ({WHERE})")
    tier = params.get("tier", "100K")
    tier_dir = _tier_dir(root, tier)
    stamp = []
    for d in sorted((d for d in tier_dir.iterdir() if (d / "chat.json").is_file()),
                    key=lambda d: _order(d.name)):
        st = (d / "chat.json").stat()
        q = d / "probing_questions" / "probing_questions.json"
        qs = q.stat() if q.is_file() else None  # an edited question is read again too
        stamp.append((d.name, st.st_size, st.st_mtime_ns,
                      qs.st_size if qs else -1, qs.st_mtime_ns if qs else -1))
    return _parse(str(tier_dir.resolve()), tier, tuple(stamp))


def _folds(params: Mapping[str, Any], data: Beam) -> int:
    return params["folds"] or len(data.chats)


def seed_count(params: Mapping[str, Any]) -> int:
    return _folds(params, load(params))


def check(params: Mapping[str, Any]) -> str | None:
    try:
        data = load(params)
    except DatasetError as exc:
        return str(exc)
    return check_folds(_folds(params, data), len(data.chats), "chats",
                       f"BEAM tier {data.tier}")


def _write_chat(b: ScriptBuilder, chat: Chat, tier: str) -> Counter[str]:
    ids: dict[int, str] = {}
    batch = None
    for m in chat.messages:
        if batch is not None and m.batch != batch:
            b.flush()
        batch = m.batch
        ids[m.id] = b.item(m.text, f"beam-{tier}/{chat.name}/batch-{m.batch}", m.when)
    asked: Counter[str] = Counter()
    for q in chat.questions:
        key = f"{chat.name}/{q.type}/{q.index}"
        if q.type == ABSTENTION:
            b.step(Probe(q.question, (), ABSTAIN, category=q.type, key=key,
                         needs=Capability.CALIBRATED))
            asked["abstention (calibrated backends only)"] += 1
            continue
        b.ask(q.question, [ids[i] for i in q.expected], ASK, q.type, key,
              outrank=[ids[i] for i in q.outrank], answers=q.answers)
        asked[q.type] += 1
        asked["updates scored"] += bool(q.outrank)
    b.reset()
    return asked


def generate(params: Mapping[str, Any], seed: int) -> Script:
    data = load(params)
    folds = _folds(params, data)
    chats = fold_units(data.chats, folds, fold_of(seed, folds))
    b = ScriptBuilder(params["write_batch"])
    asked: Counter[str] = Counter()
    for chat in chats:
        asked += _write_chat(b, chat, data.tier)
    totals: Counter[str] = Counter()
    for chat in data.chats:
        totals.update(q.type for q in chat.questions)
        totals["updates scored"] += sum(bool(q.outrank) for q in chat.questions)
    stats = {
        "file": data.files, "fold": seed, "folds": folds, "tier": data.tier,
        "chats": [c.name for c in chats],
        "messages": sum(len(c.messages) for c in chats),
        "questions": dict(sorted(asked.items())),
        "file_totals": {"chats": len(data.chats),
                        "messages": sum(len(c.messages) for c in data.chats),
                        "questions": dict(sorted(totals.items()))},
        "quirks": data.quirks,
    }
    return b.script(seed, stats, data.files["sha256"], keep_questions=params["keep_questions"])


# Measured for issue 35 on the 100K tier (20 folds, 37 updates scored): the lexical
# rows' update figure moves with the tokenizer about as much as its interval is wide.
TOKENIZER_CAVEAT = (
    "One tokenizer decides much of a lexical row's update figure: across four reasonable "
    "BM25 tokenizations (case folding, stop words, stemming, punctuation), bm25's "
    "updateWinRate on the 100K tier runs from 10/37 to 16/37 (0.27 to 0.43), about the "
    "published interval's half-width (±0.16); read a lexical row's updateWinRate as the "
    "tokenizer's as much as the method's.")


def caveats(params: Mapping[str, Any], stats: Mapping[str, Any]) -> list[str]:
    """What a BEAM report must say, from the data."""
    seeds = fold_stats(stats)
    if not seeds:
        return []
    first = seeds[0]
    totals = first["file_totals"]
    q = totals["questions"]
    asked = sum(n for t, n in q.items() if t in TYPES and t != ABSTENTION)
    out = [
        f"Data: BEAM tier {first['tier']} (the chats' sha256 {first['file']['sha256'][:12]}…), "
        f"{totals['chats']} chats, {totals['messages']:,} messages written (one store per "
        f"chat), {asked:,} questions asked after the whole chat, {q.get('updates scored', 0)} "
        f"of them knowledge updates scored as such. Each seed is one of {first['folds']} "
        "folds of the chats: intervals and verdicts are over folds, or paired question by "
        "question where a metric keeps its rows.",
        f"Abstention ({q.get(ABSTENTION, 0)} questions) is scored only on a backend that "
        "declares calibrated scores (a score that is a probability of relevance, so that "
        "'nothing above one half' means 'not held'); a backend without them is not asked "
        "these questions, and abstainRate shows as not supported.",
        "updateWinRate asks whether the updated statement's turn outranks the original's; "
        "BEAM's original turn often states more than the superseded fact, and its updated "
        "turn is a new request that mentions the new value in passing. conflict@k is every "
        "turn named by either side of a contradiction in the top k. answer@k is the "
        "rubric's phrases contained in the top-k texts (a proxy: a temporal answer that "
        "must be computed is seldom written anywhere); context_tokens@k is the reader's "
        "cost in whitespace tokens.",
        TOKENIZER_CAVEAT,
    ]
    parts = quirk_list(first)
    if parts:
        out.append(f"References and quirks of the data, counted: {parts} (data_stats lists "
                   "examples). An update naming the same turn on both sides is asked as "
                   "recall only; a question none of whose references resolves is not asked.")
    overlap = overlap_caveat(seeds, "messages")
    if overlap:
        out.append(overlap)
    base = mean_baseline(seeds)
    if base.get("ask@5") is not None:
        out.append(f"A rule returning the 5 messages written last scores recall_any@5 "
                   f"{base['ask@5']:.3f} (mean over folds).")
    return out
