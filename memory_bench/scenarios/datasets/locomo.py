"""LoCoMo (Maharana et al., ACL 2024): ten long conversations and their questions.

The file (``locomo10.json``, CC BY-NC 4.0, published at
github.com/snap-research/LoCoMo under ``data/``) is a JSON array of
conversations ``{sample_id, conversation: {speaker_a, speaker_b, session_<n>:
[turn...], session_<n>_date_time}, qa: [...], ...}``; a turn is ``{speaker,
dia_id: "D<n>:<i>", text, img_url?, blip_caption?, query?}`` and a question
``{question, answer | adversarial_answer, evidence: ["D1:3", ...], category}``.

One store per conversation. Every turn is an item (``Speaker: text``, plus the
image caption when there is one; never the image search ``query``, which the
conversation's generator used and no participant saw), its source the sample
and session, its timestamp the session's ``date_time`` (plus one second per
turn, to keep the order). Sessions are written in date order. Questions of
categories 1-4 are asked twice: right after the session holding their last
evidence turn (``early``) and after the whole conversation (``ask``);
category 5 (adversarial) is asked once at the end, apart (``abstain``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import lru_cache
from typing import Any

from memory_bench.contract.options import Option
from memory_bench.metrics.retrieval import ABSTAIN, ASK, EARLY
from memory_bench.scenarios.answers import normalise
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
    mean_baseline,
    overlap_caveat,
    quirk_list,
    read_data_file,
    require_path,
    turn_time,
)
from memory_bench.scenarios.datasets.locomo_audit import Audit, Correction, load_audit
from memory_bench.scenarios.script import Script

__all__ = ["CATEGORIES", "PARAMETERS", "caveats", "check", "generate", "parse"]

WHERE = "LoCoMo's locomo10.json, from github.com/snap-research/LoCoMo (data/)"
CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
PARAMETERS = (
    Option("path", str, None, "the LoCoMo file (locomo10.json); recorded as given, so give a "
           "relative path in a result you publish"),
    Option("audit", str, "", "the LoCoMo audit's errors.json (dial481/locomo-audit, CC BY-NC "
           "4.0) or its checkout: ask for the corrected evidence, score the corrected answer "
           "(empty: LoCoMo's own key)"),
    Option("folds", int, 10, "disjoint folds of the conversations, one per seed (10: one "
           "conversation per seed)", minimum=1, maximum=1000),
    Option("write_batch", int, 32, "turns per write call (a call also ends with its session)",
           minimum=1, maximum=10_000),
    keep_questions_option(False, "off by default, so that a published result does not "
                          "republish LoCoMo's questions (CC BY-NC 4.0)"),
)
_SESSION = re.compile(r"session_(\d{1,9})")  # bounded: int() of any length fails
# Evidence ids as they occur: "D1:3"; several in one string; "D:11:26"; "D30:05".
_LOOSE = re.compile(r"D:?\s*(\d{1,9})\s*:\s*(\d{1,9})")


@dataclass(frozen=True)
class Turn:
    text: str
    dia_id: str | None


@dataclass(frozen=True)
class Session:
    number: int
    when: datetime
    turns: tuple[Turn, ...]


@dataclass(frozen=True)
class Question:
    index: int
    question: str
    category: int
    evidence: tuple[str, ...]  # dia ids that name a written turn
    answer: str | None = None  # the gold answer (the audit's, where it corrects it)


@dataclass(frozen=True)
class Conversation:
    sample_id: str
    sessions: tuple[Session, ...]  # in date order
    questions: tuple[Question, ...]


@dataclass(frozen=True)
class LoCoMo:
    file: DataFile
    conversations: tuple[Conversation, ...]
    quirks: dict[str, Any]
    turns: int
    questions: int  # categories 1-4, asked early and late
    abstain: int  # category 5, asked once, apart
    answer_key: dict[str, Any]  # which key: LoCoMo's own, or corrected by the audit


def _date(raw: Any) -> datetime | None:
    if not isinstance(raw, str):
        return None
    text = " ".join(raw.split())
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y", "%I:%M %p on %B %d, %Y"):
        try:
            return datetime.strptime(text, fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def _turn_text(turn: Mapping[str, Any], quirks: Quirks, where: str) -> str | None:
    speaker = str(turn.get("speaker") or "").strip()
    text = turn.get("text")
    text = text.strip() if isinstance(text, str) else ""
    caption = turn.get("blip_caption")
    caption = caption.strip() if isinstance(caption, str) else ""
    if caption:
        quirks.add("image_turns")
        text = f"{text} [shares an image: {caption}]".strip()
    if not text:
        quirks.add("empty_turns", where)
        return None
    if not speaker:
        quirks.add("turns_without_speaker", where)
        return text
    return f"{speaker}: {text}"


def _sessions(sample: str, conv: Mapping[str, Any], quirks: Quirks
              ) -> tuple[list[Session], set[str]]:
    numbers = sorted(int(m.group(1)) for k in conv if (m := _SESSION.fullmatch(k)))
    sessions: list[Session] = []
    written: set[str] = set()
    latest: datetime | None = None
    for n in numbers:
        raw = conv.get(f"session_{n}")
        if not isinstance(raw, list):
            quirks.add("sessions_not_a_list", f"{sample} session_{n}")
            continue
        when = _date(conv.get(f"session_{n}_date_time"))
        if when is None:
            quirks.add("unparseable_dates",
                       f"{sample} session_{n}: {conv.get(f'session_{n}_date_time')!r}")
            # An hour after every session numbered before it: its place in the conversation.
            when = later(latest or datetime(2000, 1, 1, tzinfo=UTC), timedelta(hours=1),
                         f"{sample} session_{n}")
        latest = max(latest or when, when)
        turns = []
        for i, t in enumerate(raw):
            if not isinstance(t, Mapping):
                quirks.add("turns_not_an_object", f"{sample} session_{n} turn {i}")
                continue
            dia = t.get("dia_id") if isinstance(t.get("dia_id"), str) else None
            text = _turn_text(t, quirks, f"{sample} {dia or f'session_{n} turn {i}'}")
            if text is None:
                continue
            if dia is None:
                quirks.add("turns_without_dia_id", f"{sample} session_{n} turn {i}")
            elif dia in written:
                quirks.add("duplicate_dia_ids", f"{sample} {dia}")
                dia = None
            else:
                written.add(dia)
            turns.append(Turn(text, dia))
        if not turns:
            quirks.add("empty_sessions", f"{sample} session_{n}")
            continue
        sessions.append(Session(n, when, tuple(turns)))
    ordered = sorted(sessions, key=lambda s: s.when)  # stable: ties keep session order
    if [s.number for s in ordered] != [s.number for s in sessions]:
        moved = sum(a.number != b.number for a, b in zip(ordered, sessions, strict=True))
        quirks.add("sessions_out_of_date_order", f"{sample}: {moved} sessions reordered",
                   n=moved)
    return ordered, written


def _evidence(raw: Any, written: set[str], quirks: Quirks, where: str) -> tuple[str, ...]:
    """The written dia ids a question's evidence names, counting what names none."""
    if not isinstance(raw, list):
        if raw is not None:
            quirks.add("evidence_not_a_list", where)
        return ()
    out: list[str] = []
    for entry in raw:
        text = str(entry).strip()
        found = list(_LOOSE.finditer(text))
        if len(found) > 1:
            quirks.add("evidence_strings_holding_several_ids", f"{where}: {text!r}")
        if not found:
            quirks.add("evidence_ids_unknown", f"{where}: {text!r}")
            continue
        for m in found:
            dia = f"D{int(m.group(1))}:{int(m.group(2))}"
            if m.group(0) != dia:  # "D:11:26", "D30:05": the turn they mean is plain
                quirks.add("evidence_ids_repaired", f"{where}: {m.group(0)!r} read as {dia}")
            if dia not in written:
                quirks.add("evidence_ids_unknown", f"{where}: {dia}")
            elif dia not in out:
                out.append(dia)
    return tuple(out)


def _corrected(q: Mapping[str, Any], fix: Correction | None, text: str,
               applied: Quirks, where: str) -> tuple[Any, Any]:
    """The evidence and answer to use: the audit's where its entry names this question."""
    answer = q.get("answer")
    if fix is None:
        return q.get("evidence"), answer
    if fix.question != normalise(text):
        applied.add("entries_not_matching_the_question", where)
        return q.get("evidence"), answer
    applied.add("entries_applied")
    if set(fix.evidence) != set(fix.cited):
        applied.add("evidence_corrected")
    if fix.answer is not None and fix.answer != fix.golden:
        applied.add("answers_corrected")
        answer = fix.answer
    return list(fix.evidence), answer


def _questions(sample: str, qa: Any, written: set[str], quirks: Quirks,
               fixes: Mapping[int, Correction], applied: Quirks) -> list[Question]:
    if not isinstance(qa, list):
        raise DatasetError(f"conversation {sample}: 'qa' is not a list")
    seen: set[str] = set()
    out = []
    for i, q in enumerate(qa):
        where = f"{sample} qa[{i}]"
        if not isinstance(q, Mapping) or not isinstance(q.get("question"), str) \
                or not q["question"].strip():
            quirks.add("questions_without_text", where)
            continue
        text = " ".join(q["question"].split())
        category = q.get("category")
        if category not in CATEGORIES or isinstance(category, bool):
            quirks.add("questions_unknown_category", f"{where}: {category!r}")
            continue
        if text in seen:
            quirks.add("duplicate_questions", where)  # the text stays in the user's file
            continue
        seen.add(text)
        raw, answer = _corrected(q, fixes.get(i), text, applied, where)
        evidence = _evidence(raw, written, quirks, where)
        if not evidence:
            quirks.add("questions_without_evidence", where)
            continue
        answer = None if answer is None or category == 5 else str(answer).strip() or None
        out.append(Question(i, text, category, evidence, answer))
    return out


@lru_cache(maxsize=2)  # check and every seed of a run parse the file once
def parse(data_file: DataFile, audit: Audit | None = None) -> LoCoMo:
    """The file as conversations; raises DatasetError when it is not a LoCoMo file."""
    doc = json_array(data_file, "LoCoMo", "conversations", "conversation",
                     {"haystack_sessions": "a LongMemEval file? use --scenario longmemeval"})
    name = data_file.name
    quirks = Quirks()
    convs = []
    ids: set[str] = set()
    fixes = audit.by_question() if audit is not None else {}
    applied = Quirks()
    for i, sample in enumerate(doc):
        if not isinstance(sample["conversation"], Mapping):
            raise DatasetError(f"{name} is not a LoCoMo file: element {i}'s 'conversation' "
                               "is not an object")
        sid = str(sample.get("sample_id") or f"conversation-{i}")
        if sid in ids:
            quirks.add("duplicate_sample_ids", sid)
            sid = f"{sid}#{i}"
        ids.add(sid)
        sessions, written = _sessions(sid, sample["conversation"], quirks)
        mine = {c.index: c for (n, _), c in fixes.items() if n == i}
        questions = _questions(sid, sample.get("qa", []), written, quirks, mine, applied)
        convs.append(Conversation(sid, tuple(sessions), tuple(questions)))
    turns = sum(len(s.turns) for c in convs for s in c.sessions)
    if not turns:
        raise DatasetError(f"{name} is not a LoCoMo file: no conversation has a turn")
    asked = [q for c in convs for q in c.questions]
    key: dict[str, Any] = {"used": "locomo"}
    if audit is not None:
        counts = applied.to_dict()
        unknown = sum(n >= len(doc) for n, _ in fixes)
        key = {"used": "locomo-audit", "audit": audit.stats(), **counts["counts"],
               "entries_naming_no_conversation": unknown}
        if counts["examples"]:
            key["examples"] = counts["examples"]
    return LoCoMo(data_file, tuple(convs), quirks.to_dict(), turns,
                  sum(q.category != 5 for q in asked), sum(q.category == 5 for q in asked), key)


def load(params: Mapping[str, Any]) -> LoCoMo:
    audit = load_audit(params["audit"]) if params.get("audit") else None
    return parse(read_data_file(require_path(params, "the LoCoMo file", WHERE)), audit)


def check(params: Mapping[str, Any]) -> str | None:
    try:
        data = load(params)
    except DatasetError as exc:
        return str(exc)
    if not any(q.evidence for c in data.conversations for q in c.questions):
        return (f"{data.file.name}: no question names evidence that is in the file: "
                "nothing to score (every metric would be empty)")
    return check_folds(params["folds"], len(data.conversations), "conversations",
                       data.file.name)


def _conversation(b: ScriptBuilder, conv: Conversation) -> dict[str, int]:
    """One conversation's steps: sessions, each question's early ask, then every ask."""
    last_session = {}
    for s in conv.sessions:
        for t in s.turns:
            if t.dia_id is not None:
                last_session[t.dia_id] = s.number
    order = {s.number: i for i, s in enumerate(conv.sessions)}
    early_at: dict[int, list[Question]] = {}
    for q in conv.questions:
        if q.category != 5:
            at = max(order[last_session[d]] for d in q.evidence)
            early_at.setdefault(at, []).append(q)
    ids: dict[str, str] = {}
    for i, s in enumerate(conv.sessions):
        for n, t in enumerate(s.turns):
            item_id = b.item(t.text, f"{conv.sample_id}/session_{s.number}", turn_time(s.when, n))
            if t.dia_id is not None:
                ids[t.dia_id] = item_id
        b.flush()  # a session is written before anything is asked about it
        for q in early_at.get(i, []):
            b.ask(q.question, [ids[d] for d in q.evidence], EARLY, CATEGORIES[q.category],
                  f"{conv.sample_id}/q{q.index}")
    for q in conv.questions:
        tag = ABSTAIN if q.category == 5 else ASK
        b.ask(q.question, [ids[d] for d in q.evidence], tag, CATEGORIES[q.category],
              f"{conv.sample_id}/q{q.index}",
              answers=None if tag == ABSTAIN else (q.answer,) if q.answer else ())
    b.reset()
    return {"turns": len(ids), "questions": sum(q.category != 5 for q in conv.questions),
            "abstain": sum(q.category == 5 for q in conv.questions)}


def generate(params: Mapping[str, Any], seed: int) -> Script:
    data = load(params)
    folds = params["folds"]
    convs = fold_units(data.conversations, folds, fold_of(seed, folds))
    b = ScriptBuilder(params["write_batch"])
    counts = [_conversation(b, c) for c in convs]
    stats = {
        "file": data.file.stats(), "fold": seed, "folds": folds,
        "conversations": [c.sample_id for c in convs],
        "turns": sum(c["turns"] for c in counts),
        "questions": sum(c["questions"] for c in counts),
        "abstain_questions": sum(c["abstain"] for c in counts),
        "file_totals": {"conversations": len(data.conversations), "turns": data.turns,
                        "questions": data.questions, "abstain_questions": data.abstain},
        "quirks": data.quirks,
        "answer_key": data.answer_key,
    }
    return b.script(seed, stats, data.file.sha256, keep_questions=params["keep_questions"])


def caveats(params: Mapping[str, Any], stats: Mapping[str, Any]) -> list[str]:
    """What a LoCoMo report must say, from the data."""
    seeds = fold_stats(stats)
    if not seeds:
        return []
    first = seeds[0]
    f, totals = first["file"], first["file_totals"]
    out = [
        f"Data: LoCoMo `{f['name']}` (sha256 {f['sha256'][:12]}…), {totals['conversations']} "
        f"conversations, {totals['turns']:,} turns written, {totals['questions']:,} questions "
        f"of categories 1-4 asked twice and {totals.get('abstain_questions', 0):,} adversarial "
        f"ones once. Each seed is one of {first['folds']} disjoint folds of the conversations "
        "(one store per conversation), so \"seeds\" here are folds: intervals and verdicts "
        "are over folds, and a mean over folds weights each fold equally, not each question "
        "(published LoCoMo figures average over questions).",
    ]
    out.append(_key_caveat(first.get("answer_key") or {"used": "locomo"}))
    parts = quirk_list(first)
    if parts:
        out.append(f"Quirks of the file, counted, not fatal: {parts}. Evidence ids that name "
                   "no turn are dropped from their question; a question left with none is not "
                   "asked; a duplicate question is asked once (data_stats lists examples).")
    overlap = overlap_caveat(seeds, "turns")
    if overlap:
        out.append(overlap)
    base = mean_baseline(seeds)
    if base:
        out.append(
            "Early asks come right after the session holding the question's last evidence, "
            "so the evidence is recent: a rule returning the 5 turns written last scores "
            f"recall_any@5 {base.get('early@5', 0):.3f} on early asks and "
            f"{base.get('ask@5', 0):.3f} on final asks (mean over folds). Early recall and "
            "retention should be read against that.")
    out.append("Category 5 (adversarial) questions are reported apart (`abstain_*`): their "
               "right answer is that the conversation does not say, which retrieval alone "
               "cannot give. Recall counts a question when any (or every) evidence turn is "
               "among the hits; LoCoMo's own scores are answer F1 of a language model, which "
               "this does not measure. answer@k is the proxy that can run here: the "
               "normalised gold answer contained in one of the top k turns.")
    return out


def _key_caveat(key: Mapping[str, Any]) -> str:
    """Which answer key a run used, and how much of the audit it applied."""
    if key.get("used") != "locomo-audit":
        return ("Answer key: LoCoMo's own evidence and answers (no audit given; "
                "--set audit=errors.json applies dial481/locomo-audit's corrections).")
    files = ", ".join(f"`{f['name']}` (sha256 {f['sha256'][:12]}…)"
                      for f in key["audit"]["files"])
    return (f"Answer key: LoCoMo corrected by the audit (dial481/locomo-audit) {files}: "
            f"{key.get('entries_applied', 0)} of its {key['audit']['entries']} entries "
            f"applied, {key.get('evidence_corrected', 0)} with corrected evidence and "
            f"{key.get('answers_corrected', 0)} with a corrected answer; "
            f"{key.get('entries_not_matching_the_question', 0)} entries named a question "
            "whose text differs and were not applied.")

