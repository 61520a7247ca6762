"""LongMemEval (Wu et al., ICLR 2025): 500 questions, each over its own chat history.

The files (``longmemeval_s.json``, ``longmemeval_m.json``,
``longmemeval_oracle.json``; published on Hugging Face, see
github.com/xiaowu0162/LongMemEval) are JSON arrays of ``{question_id,
question_type, question, answer, question_date, haystack_session_ids,
haystack_dates, haystack_sessions: [[{role, content, has_answer?}, ...], ...],
answer_session_ids}``; ids ending ``_abs`` are abstention questions.

One store per question, holding its haystack sessions in date order, as turns
(``role: content``, one item each) or whole sessions (``granularity``); the
question is asked after its haystack. Expected ids are the ``has_answer`` turns
(turn granularity) or the ``answer_session_ids`` sessions (session
granularity); the category is the question type; abstention questions are
asked apart (``abstain``). Session ids never reach a backend: the evidence ones
are named ``answer_...`` in the file, which would give the answer away.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

from memory_bench.contract.options import Option
from memory_bench.metrics.retrieval import ABSTAIN, ASK
from memory_bench.scenarios.datasets.common import (
    DataFile,
    DatasetError,
    Quirks,
    ScriptBuilder,
    check_folds,
    fold_of,
    fold_stats,
    fold_units,
    json_array,
    keep_questions_option,
    later,
    overlap_caveat,
    read_data_file,
    require_path,
    turn_time,
)
from memory_bench.scenarios.script import Script

__all__ = ["PARAMETERS", "caveats", "check", "generate", "parse"]

WHERE = ("longmemeval_s.json, _m or _oracle, published on Hugging Face "
         "(xiaowu0162/longmemeval-cleaned; see github.com/xiaowu0162/LongMemEval)")
PARAMETERS = (
    Option("path", str, None, "the LongMemEval file (longmemeval_s.json, _m or _oracle); "
           "recorded as given, so give a relative path in a result you publish"),
    Option("granularity", str, "turn", "one item per turn, or per session",
           choices=("turn", "session")),
    Option("roles", str, "all", "which turns are written: every turn, or the user's only "
           "(as LongMemEval's own retrieval baselines index)", choices=("all", "user")),
    Option("limit", int, 0, "run a seeded subset of this many questions (0: all)",
           minimum=0, maximum=100_000),
    Option("subset_seed", int, 0, "the seed that draws the subset (the run's seeds are folds)",
           minimum=0, maximum=2**31),
    Option("folds", int, 10, "disjoint folds of the questions (stratified by question "
           "type), one per seed", minimum=1, maximum=10_000),
    Option("write_batch", int, 64, "items per write call (a call also ends with its session)",
           minimum=1, maximum=100_000),
    keep_questions_option(False, "off by default, so that a published result does not "
                          "republish the benchmark's questions"),
)
_DATE_FORMATS = ("%Y/%m/%d (%a) %H:%M", "%Y/%m/%d %H:%M", "%Y-%m-%d %H:%M", "%Y/%m/%d")


@dataclass(frozen=True)
class Turn:
    role: str
    text: str
    has_answer: bool


@dataclass(frozen=True)
class Session:
    position: int  # in date order, from 1
    when: datetime
    turns: tuple[Turn, ...]
    evidence: bool  # named in answer_session_ids


@dataclass(frozen=True)
class Question:
    qid: str
    qtype: str
    question: str
    sessions: tuple[Session, ...]

    @property
    def abstain(self) -> bool:
        return self.qid.endswith("_abs")


@dataclass(frozen=True)
class LongMemEval:
    file: DataFile
    questions: tuple[Question, ...]
    quirks: dict[str, Any]


def _date(raw: Any) -> datetime | None:
    if not isinstance(raw, str):
        return None
    for fmt in _DATE_FORMATS:
        try:
            return datetime.strptime(raw.strip(), fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def _turns(raw: Any, quirks: Quirks, where: str) -> tuple[Turn, ...]:
    if not isinstance(raw, list):
        quirks.add("sessions_not_a_list", where)
        return ()
    out = []
    for i, t in enumerate(raw):
        if not isinstance(t, Mapping):
            quirks.add("turns_not_an_object", f"{where} turn {i}")
            continue
        content = t.get("content")
        text = content.strip() if isinstance(content, str) else ""
        if not text:
            quirks.add("empty_turns", f"{where} turn {i}")
            continue
        role = str(t.get("role") or "").strip() or "unknown"
        out.append(Turn(role, text, t.get("has_answer") is True))
    return tuple(out)


def _question(entry: Mapping[str, Any], i: int, quirks: Quirks) -> Question | None:
    qid = entry.get("question_id")
    question = entry.get("question")
    if not isinstance(qid, str) or not isinstance(question, str) or not question.strip():
        quirks.add("questions_without_id_or_text", f"element {i}")
        return None
    ids, dates = entry.get("haystack_session_ids"), entry.get("haystack_dates")
    sessions = entry.get("haystack_sessions")
    if not all(isinstance(x, list) for x in (ids, dates, sessions)):
        raise DatasetError(f"question {qid}: haystack_session_ids, haystack_dates and "
                           "haystack_sessions must be lists")
    if not len(ids) == len(dates) == len(sessions):
        quirks.add("haystack_length_mismatch",
                   f"{qid}: {len(ids)} ids, {len(dates)} dates, {len(sessions)} sessions")
    answers = entry.get("answer_session_ids") or []
    answers = {str(a) for a in answers} if isinstance(answers, list) else set()
    unknown = answers - {str(s) for s in ids}
    if unknown:
        quirks.add("evidence_ids_unknown", f"{qid}: {sorted(unknown)[0]}", n=len(unknown))
    raw = []
    latest: datetime | None = None
    for n, (sid, date, turns) in enumerate(zip(ids, dates, sessions, strict=False)):
        when = _date(date)
        if when is None:
            quirks.add("unparseable_dates", f"{qid} session {n}: {date!r}")
            # A minute after every session listed before it: its place in the history.
            when = later(latest or datetime(2000, 1, 1, tzinfo=UTC), timedelta(minutes=1),
                         f"{qid} session {n}")
        latest = max(latest or when, when)
        kept = _turns(turns, quirks, f"{qid} session {n}")
        if not kept:
            quirks.add("empty_sessions", f"{qid} session {n}")
            continue
        raw.append((n, when, kept, str(sid) in answers))
    ordered = sorted(raw, key=lambda r: r[1])  # stable: same-time sessions keep file order
    moved = sum(a[0] != b[0] for a, b in zip(ordered, raw, strict=True))
    if moved:
        quirks.add("sessions_out_of_date_order", f"{qid}: {moved} sessions reordered", n=moved)
    qtype = entry.get("question_type")
    if not isinstance(qtype, str) or not qtype:
        quirks.add("questions_without_type", qid)
        qtype = "unknown"
    return Question(qid, qtype, " ".join(question.split()), tuple(
        Session(p, when, turns, evidence)
        for p, (_, when, turns, evidence) in enumerate(ordered, start=1)))


@lru_cache(maxsize=2)  # check and every seed of a run parse the file once
def parse(data_file: DataFile) -> LongMemEval:
    """The file as questions; raises DatasetError when it is not a LongMemEval file."""
    doc = json_array(data_file, "LongMemEval", "questions", "haystack_sessions",
                     {"conversation": "a LoCoMo file? use --scenario locomo"})
    name = data_file.name
    quirks = Quirks()
    out: list[Question] = []
    seen: set[str] = set()
    for i, entry in enumerate(doc):
        qid = entry.get("question_id")
        if isinstance(qid, str) and qid in seen:  # before parsing: its quirks count once
            quirks.add("duplicate_question_ids", qid)
            continue
        try:
            q = _question(entry, i, quirks)
        except DatasetError as exc:
            raise DatasetError(f"{name} is not a LongMemEval file: {exc}") from None
        if q is not None:
            seen.add(q.qid)
            out.append(q)
    if not out:
        raise DatasetError(f"{name} is not a LongMemEval file: no usable question")
    return LongMemEval(data_file, tuple(out), quirks.to_dict())


def load(params: Mapping[str, Any]) -> LongMemEval:
    return parse(read_data_file(require_path(params, "a LongMemEval file", WHERE)))


def subset(data: LongMemEval, params: Mapping[str, Any]) -> list[Question]:
    """Every question, or a ``limit``-sized subset drawn with ``subset_seed`` (file order)."""
    qs = list(data.questions)
    if params["limit"] and params["limit"] < len(qs):
        rng = random.Random(f"longmemeval-subset/{params['subset_seed']}")
        keep = set(rng.sample(range(len(qs)), params["limit"]))
        qs = [q for i, q in enumerate(qs) if i in keep]
    return qs


def check(params: Mapping[str, Any]) -> str | None:
    try:
        data = load(params)
    except DatasetError as exc:
        return str(exc)
    return check_folds(params["folds"], len(subset(data, params)), "questions",
                       data.file.name)


def _written(q: Question, roles: str) -> list[tuple[Session, list[Turn]]]:
    """Each session with the turns that are written of it."""
    return [(s, [t for t in s.turns if roles == "all" or t.role == "user"]) for s in q.sessions]


def _ask(b: ScriptBuilder, q: Question, params: Mapping[str, Any], quirks: Quirks) -> bool:
    """One question's episode; False when it names no evidence at this granularity."""
    granularity, expected = params["granularity"], []
    for s, turns in _written(q, params["roles"]):
        if not turns:
            continue
        source = f"session-{s.position}"
        if granularity == "session":
            item = b.item("\n".join(f"{t.role}: {t.text}" for t in turns), source, s.when)
            if s.evidence:
                expected.append(item)
        else:
            for n, t in enumerate(turns):
                item = b.item(f"{t.role}: {t.text}", source, turn_time(s.when, n))
                if t.has_answer:
                    expected.append(item)
        b.flush()
    if expected:
        b.ask(q.question, expected, ABSTAIN if q.abstain else ASK, q.qtype, q.qid)
    else:
        quirks.add("questions_without_evidence", f"{q.qid} ({granularity}, {params['roles']})")
    b.reset()
    return bool(expected)


def generate(params: Mapping[str, Any], seed: int) -> Script:
    data = load(params)
    folds = params["folds"]
    chosen = subset(data, params)
    mine = fold_units(chosen, folds, fold_of(seed, folds), stratum=lambda q: q.qtype)
    b, quirks = ScriptBuilder(params["write_batch"]), Quirks()
    asked = [q for q in mine if _ask(b, q, params, quirks)]
    stats = {
        "file": data.file.stats(), "fold": seed, "folds": folds,
        "questions": sum(not q.abstain for q in asked),
        "abstain_questions": sum(q.abstain for q in asked),
        "items": b.n, "sessions": sum(len(q.sessions) for q in mine),
        "question_types": _count(q.qtype for q in asked),
        "file_totals": {"questions": len(data.questions), "subset": len(chosen)},
        "quirks": data.quirks, "fold_quirks": quirks.to_dict(),
    }
    return b.script(seed, stats, data.file.sha256, keep_questions=params["keep_questions"])


def _count(values: Sequence[str] | Any) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return dict(sorted(out.items()))


def caveats(params: Mapping[str, Any], stats: Mapping[str, Any]) -> list[str]:
    seeds = fold_stats(stats)
    if not seeds:
        return []
    first = seeds[0]
    f, totals = first["file"], first["file_totals"]
    asked = sum(s["questions"] for s in seeds)
    out = [
        f"Data: LongMemEval `{f['name']}` (sha256 {f['sha256'][:12]}…), {asked} questions "
        f"asked over {len(seeds)} of {first['folds']} folds"
        + (f" of a {totals['subset']}-question subset (subset_seed {params['subset_seed']})"
           if totals["subset"] < totals["questions"] else "")
        + f", one store per question, {params['granularity']} granularity, "
        f"{'every turn' if params['roles'] == 'all' else 'user turns only'}. \"Seeds\" are "
        "folds: intervals and verdicts are over folds.",
        "Abstention questions (`_abs`) are reported apart (`abstain_*`) and left out of "
        "recall, as LongMemEval's own retrieval evaluation does.",
    ]
    counts = {**((first.get("quirks") or {}).get("counts") or {})}
    for s in seeds:
        for k, v in ((s.get("fold_quirks") or {}).get("counts") or {}).items():
            counts[k] = counts.get(k, 0) + v
    if counts:
        parts = ", ".join(f"{v} {k.replace('_', ' ')}" for k, v in sorted(counts.items()))
        out.append(f"Quirks, counted, not fatal: {parts}. A question that names no evidence "
                   "at this granularity is not asked.")
    overlap = overlap_caveat(seeds, "items")
    if overlap:
        out.append(overlap)
    if params["granularity"] == "session":
        out.append("Session granularity: an embedding model reads only the first few hundred "
                   "words of an item (MiniLM truncates at 256 word pieces), so long sessions "
                   "are embedded by their opening; lexical backends read all of it.")
    if params["roles"] == "all":
        out.append("Every turn is written, the assistant's too (a memory sees both sides); "
                   "LongMemEval's published retrieval baselines index user turns only "
                   "(`--set roles=user` to match them).")
    return out
