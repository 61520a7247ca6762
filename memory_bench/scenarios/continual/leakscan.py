"""The learned leak scan: can a classifier on observables alone predict the answer key?

``leaks.py`` counts the signals someone has already found. This asks the general
question (issue 34): train a classifier on what a backend sees -- the order of
calls, their grouping, the surface form of items and questions, timestamps --
and ask it for each role a metric relies on. A stream drawn blind leaves it at
chance on everything but the meaning of the text.

What it reads from a :class:`Script`, walking the steps in order: every Write's
items (text, write order, the call they came in), every Probe's question text,
every Forget call (that one happened, never what it removed beyond the items a
backend is told to forget). Roles come from the answer key (write tags, per-item
``tags`` where a Write carries them, gate ``categories``, a Probe's ``tag``,
``expected`` and ``outrank``); they are labels, never features.

Feature groups, each scored on its own and together (``all``):

- ``structure``: the schedule. Position in the stream (for an item in an item-level
  contrast), writes since the last question, the length of the question-free run,
  the write call's size, the item's place in it and the call's composition (share of
  items with a digit, with a name); questions asked so far that name the item's or
  the question's person; for a question: its burst's size and its index in it,
  questions and forget calls so far, questions and writes since the last forget.
  A burst's size and a run's length are read after the fact: a stricter reader than
  a backend, which answers each question before the next arrives. For a candidate of a
  question (``answer``, ``current_vs_old``) the write-context features are taken less
  their mean over the items written within ``TREND`` writes: how the stream's rhythm
  drifts along it (fewer questions early on, where only old values exist) orders two
  candidates in time as their timestamps do, so the drift goes to ``recency``.
- ``recency``: for a candidate item at question time, its age in writes, questions
  and bursts, its position in the stream (at a fixed question, the same thing), and
  whether it is the newest item naming its person; for a question, writes since the
  newest item naming its person. A real memory may use plain recency, so it is
  reported apart and never bounded.
- ``form``: the text's surface: first and last word (from the 40 commonest of each on
  the train seeds), final mark, capitals, digits, length in words and characters,
  commas and quotes, function words, tense markers (was, were, had, used to, former,
  formerly, before, previously, words in -ed; now, currently, is, lives, ...).

A "name" is a run of capitalised words, its first word dropped when it opens the
sentence and is a function or question word, and a lone capitalised word at the
start of a sentence ignored ("Lazlo Galloway owns ..." names Lazlo Galloway, "The
mayor of Lower Bramwick" names Lower Bramwick); a possessive "'s" is cut.

Contrasts (``CONTRASTS``): ``answer`` (is this candidate an expected id of this
question; candidates are the items written and not forgotten when it is asked, with
text, up to ``NEGATIVES`` drawn per question beside every positive), ``current_vs_old``
(update questions: the new item against each item it must outrank),
``history_vs_other`` (an update's history item, the one it outranks written after it,
against every other accepted item), ``update_vs_reprobe`` and ``followup_vs_other``
(questions), and ``gate:KIND`` (each refusable gate kind against accepted items).
Train on some seeds, score held-out ROC AUC on others, with a scaled logistic
regression and a histogram gradient boosting (scikit-learn); the larger of the two
held-out AUCs is reported, with its model. ``BOUNDS`` are issue 34's.
"""

from __future__ import annotations

import bisect
import random
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from functools import lru_cache
from typing import Any

from memory_bench.metrics.continual import GATE_ACCEPT
from memory_bench.scenarios.script import Forget, Probe, Reset, Script, Write

__all__ = [
    "BOUNDED",
    "BOUNDS",
    "CONTINUAL_GENERATORS",
    "CONTRASTS",
    "GATE_FORM_BOUND",
    "GATE_FORM_BOUNDED",
    "GROUPS",
    "MODELS",
    "NEGATIVES",
    "ContrastScore",
    "LeakScan",
    "Observed",
    "Rows",
    "bound_of",
    "contrast_rows",
    "form_features",
    "names_of",
    "observe",
    "scan",
    "summary",
]

# The generators whose scripts are the continual stream (scenarios/builtin.py).
CONTINUAL_GENERATORS = ("templated", "hard", "natural")
GROUPS = ("structure", "recency", "form", "all")
MODELS = ("logistic", "boosting")
_PREFIX = {"structure": "s:", "recency": "r:", "form": "f:"}
CONTRASTS = ("answer", "current_vs_old", "history_vs_other", "update_vs_reprobe",
             "followup_vs_other")  # and gate:KIND for each refusable kind a script writes
# Issue 34: for these, structure alone at most 0.55 and form alone at most 0.60.
BOUNDED = ("answer", "current_vs_old", "update_vs_reprobe", "followup_vs_other")
BOUNDS = {"structure": 0.55, "form": 0.60}
# Junk that needs judgement must have accepted look-alikes: form alone below 1.
GATE_FORM_BOUNDED = ("chitchat", "boilerplate", "fragment")
GATE_FORM_BOUND = 1.0
NEGATIVES = 40  # candidates drawn per question beside its positives
TREND = 48  # writes either side over which a candidate's write context is averaged
MAX_TRAIN = 40_000  # rows a model is fitted on (drawn, seeded) beyond which fits cost
MAX_TEST = 80_000
MIN_CLASS = (5, 2)  # rows of each class needed in train and in test for a score
VOCAB = 40  # first and last words kept per contrast
_FOLLOWUP = ("forgotten", "kept")

_FUNCTION = (
    "a an the of in on at by for to from with about as into onto over under after before "
    "and or but nor so if than that this these those there here it its he she they his her "
    "their them who whom whose which what where when why how is are was were be been being "
    "has have had do does did not no yes called named")
_OPENERS = ("what who whom whose which where when why how can could would should does do did "
            "is are was were tell name give")
FUNCTION_WORDS = frozenset(_FUNCTION.split())
_QUESTION_OPENERS = frozenset(_OPENERS.split())
PAST_MARKERS = ("was", "were", "had", "used to", "former", "formerly", "before", "previously",
                "once", "earlier", "ago", "no longer")
PRESENT_MARKERS = ("now", "currently", "is", "are", "lives", "works", "has", "today",
                   "nowadays", "these days", "still")
_WORD = re.compile(r"[^\W\d_][\w'’-]*|\d[\d.,:]*", re.UNICODE)
_TOKEN = re.compile(r"[^\W\d_][\w'’-]*|\d[\d.,:]*|[.!?;:]", re.UNICODE)


def _markers(words: Sequence[str], text: str, markers: Sequence[str]) -> int:
    joined = " " + " ".join(words) + " "
    return sum(joined.count(f" {m} ") for m in markers) if text else 0


@lru_cache(maxsize=65536)
def names_of(text: str) -> frozenset[str]:
    """The names in ``text`` (see the module), case-folded."""
    out: set[str] = set()
    run: list[str] = []
    run_at_start = False
    start = True

    def close() -> None:
        words = list(run)
        if run_at_start and words and (words[0].casefold() in FUNCTION_WORDS
                                       or words[0].casefold() in _QUESTION_OPENERS):
            words = words[1:]
        elif run_at_start and len(words) == 1:
            words = []
        if words:
            out.add(" ".join(w.removesuffix("'s").removesuffix("’s") for w in words).casefold())

    for tok in _TOKEN.findall(text):
        if tok in ".!?;:":
            if run:
                close()
            run, start = [], True
            continue
        if tok[:1].isupper():
            if not run:
                run_at_start = start
            run.append(tok)
        else:
            if run:
                close()
            run = []
        start = False
    if run:
        close()
    return frozenset(out)


@lru_cache(maxsize=65536)
def form_features(text: str) -> tuple[tuple[str, float], ...]:
    """The surface form of ``text``: numeric features, and ``first=``/``last=`` words
    (kept or pooled later against the train seeds' vocabulary)."""
    t = text.strip()
    words = [w.casefold() for w in _WORD.findall(t)]
    n = len(words)
    fn = sum(w in FUNCTION_WORDS for w in words)
    mark = ("..." if t.endswith("...") else t[-1] if t and t[-1] in ".!?" else
            "none" if t and (t[-1].isalnum()) else "other" if t else "empty")
    first = words[0] if words else "<none>"
    last = words[-1] if words else "<none>"
    feats: dict[str, float] = {
        "chars": float(len(t)), "words": float(n),
        "mean_word": sum(map(len, words)) / n if n else 0.0,
        "digits": float(sum(c.isdigit() for c in t)), "has_digit": float(any(c.isdigit()
                                                                               for c in t)),
        "caps": float(sum(w[:1].isupper() for w in _WORD.findall(t))),
        "names": float(len(names_of(t))), "starts_upper": float(t[:1].isupper()),
        "commas": float(t.count(",")), "quotes": float(sum(t.count(q) for q in "\"“”")),
        "apostrophes": float(sum(t.count(q) for q in "'’")),
        "brackets": float(t.count("(")), "colons": float(t.count(":") + t.count(";")),
        "function": float(fn), "function_share": fn / n if n else 0.0,
        "first_function": float(first in FUNCTION_WORDS),
        "last_function": float(last in FUNCTION_WORDS),
        "past": float(_markers(words, t, PAST_MARKERS)),
        "ed_words": float(sum(len(w) > 3 and w.endswith("ed") for w in words)),
        "present": float(_markers(words, t, PRESENT_MARKERS)),
        "used_to": float(" used to " in f" {' '.join(words)} "),
        f"mark={mark}": 1.0, f"first={first}": 1.0, f"last={last}": 1.0,
    }
    return tuple(feats.items())


@dataclass
class _Item:
    id: str
    text: str
    role: str
    category: str
    w: int  # writes before it, itself included (1-based)
    call: int
    call_pos: int
    call_size: int
    call_digit: float
    call_name: float
    since_q: int
    run: int
    qs: int  # questions asked before it
    bursts: int
    forgets: int
    q_named: int  # questions naming its person before it
    names: frozenset[str]


@dataclass
class _Question:
    step: int
    tag: str
    text: str
    expected: tuple[str, ...]
    outrank: tuple[str, ...]
    w: int
    qi: int  # questions before it
    burst: int
    burst_pos: int
    run_before: int  # writes in the question-free run before its burst
    forgets: int
    q_since_forget: int
    w_since_forget: int
    q_named: int
    w_since_person: int  # writes since the newest item naming its person (-1: none)
    names: frozenset[str]
    alive: tuple[int, ...]  # indices into items of the candidates
    burst_size: int = 0


@dataclass
class Observed:
    """One script as a backend sees it, with the answer key beside it."""

    seed: int
    items: list[_Item]
    questions: list[_Question]
    writes: int
    run_len: dict[int, int]
    q_by_name: dict[str, list[int]]  # name -> question indices naming it
    w_by_name: dict[str, list[int]]  # name -> write indices of items naming it
    by_id: dict[str, int] = field(default_factory=dict)
    # each write-context feature's mean over the items written within TREND writes of
    # each item (see _pair)
    trend: dict[str, list[float]] = field(default_factory=dict)


def _roles(step: Write) -> list[tuple[str, str]]:
    """(role, gate category) of each item: per-item tags where the call carries them."""
    tags = getattr(step, "tags", None) or ()
    cats = step.categories
    return [(tags[n] if tags else step.tag, cats[n] if cats else "")
            for n in range(len(step.items))]


def observe(script: Script) -> Observed:
    """Walk ``script`` once, keeping what each item and question looked like when it came."""
    items: list[_Item] = []
    questions: list[_Question] = []
    by_id: dict[str, int] = {}
    alive: dict[str, int] = {}
    q_by_name: dict[str, list[int]] = defaultdict(list)
    w_by_name: dict[str, list[int]] = defaultdict(list)
    run_len: dict[int, int] = {}
    writes = calls = qs = bursts = forgets = since_q = run = 0
    burst_pos = 0
    in_burst = False
    last_forget_q = last_forget_w = -1
    for n, step in enumerate(script.steps):
        if isinstance(step, Write):
            if in_burst:
                for q in questions[-burst_pos:]:
                    q.burst_size = burst_pos
                in_burst = False
            calls += 1
            texts = [i.text for i in step.items]
            size = len(texts)
            digit = sum(any(c.isdigit() for c in t) for t in texts) / size if size else 0.0
            named = sum(bool(names_of(t)) for t in texts) / size if size else 0.0
            for pos, (item, (role, cat)) in enumerate(zip(step.items, _roles(step),
                                                          strict=True)):
                writes += 1
                since_q += 1
                names = names_of(item.text)
                q_named = max((len(q_by_name[nm]) for nm in names), default=0)
                items.append(_Item(item.id, item.text, role, cat, writes, calls, pos, size,
                                   digit, named, since_q, run, qs, bursts, forgets, q_named,
                                   names))
                by_id[item.id] = len(items) - 1
                if item.text.strip():
                    alive[item.id] = len(items) - 1
                for nm in names:
                    w_by_name[nm].append(writes)
        elif isinstance(step, Probe):
            if not in_burst:
                run_len[run] = since_q
                run += 1
                since_q = 0
                bursts += 1
                burst_pos = 0
                in_burst = True
            names = names_of(step.question)
            newest = max((w_by_name[nm][-1] for nm in names if w_by_name.get(nm)), default=-1)
            questions.append(_Question(
                n, step.tag, step.question, step.expected, step.outrank, writes, qs, bursts,
                burst_pos, run_len[run - 1], forgets,
                qs - last_forget_q if last_forget_q >= 0 else -1,
                writes - last_forget_w if last_forget_w >= 0 else -1,
                max((len(q_by_name[nm]) for nm in names), default=0),
                writes - newest if newest >= 0 else -1, names, tuple(alive.values())))
            for nm in names:
                q_by_name[nm].append(qs)
            qs += 1
            burst_pos += 1
        elif isinstance(step, Forget):
            forgets += 1
            last_forget_q, last_forget_w = qs, writes
            for i in (*step.ids, *step.forgotten):
                alive.pop(i, None)
        elif isinstance(step, Reset):
            alive.clear()
    if in_burst:
        for q in questions[-burst_pos:]:
            q.burst_size = burst_pos
    run_len[run] = since_q
    return Observed(script.seed, items, questions, writes, run_len, dict(q_by_name),
                    dict(w_by_name), by_id, _trends(items, run_len))


def _context(it: _Item, run_len: dict[int, int]) -> Row:
    """What the schedule was doing around ``it``'s write: the question-free run it came
    in, its write call's size and make-up, its place in the call."""
    return {"since_q": float(it.since_q), "run_len": float(run_len.get(it.run, 0)),
            "call_size": float(it.call_size), "call_pos": float(it.call_pos),
            "call_pos_rel": it.call_pos / it.call_size if it.call_size else 0.0,
            "call_digit": it.call_digit, "call_name": it.call_name}


def _trends(items: list[_Item], run_len: dict[int, int]) -> dict[str, list[float]]:
    """Each context feature's running mean over the items within ``TREND`` writes."""
    rows = [_context(it, run_len) for it in items]
    out: dict[str, list[float]] = {}
    for name in rows[0] if rows else ():
        acc = [0.0]
        for r in rows:
            acc.append(acc[-1] + r[name])
        n = len(rows)
        out[name] = [(acc[min(n, i + TREND + 1)] - acc[max(0, i - TREND)])
                     / (min(n, i + TREND + 1) - max(0, i - TREND)) for i in range(n)]
    return out


# --- features ------------------------------------------------------------------------

Row = dict[str, float]


def _form(text: str, prefix: str = "f:") -> Row:
    return {prefix + k: v for k, v in form_features(text)}


def _item_structure(o: Observed, it: _Item, *, position: bool) -> Row:
    context = _context(it, o.run_len)
    if position:
        row = {"s:" + k: v for k, v in context.items()}
    else:
        # Between two candidates of one question, how the stream's rhythm drifts along
        # it (fewer questions early on, when only old values exist) tells the newer one
        # as its timestamp does: the drift (the local mean) is recency; what is left, how
        # the item's context differs from its neighbours', is structure.
        n = o.by_id[it.id]
        row = {"s:" + k: v - o.trend[k][n] for k, v in context.items()}
        row.update({"r:trend_" + k: o.trend[k][n] for k in context})
    # When the item came, counted in questions, forget calls and questions naming its
    # person before it: for an item on its own (history, gate), where the schedule put
    # it; between two candidates of one question, which is newer, i.e. recency under
    # another name (a later item has had more of each before it), so there it goes to
    # the recency group (_pair).
    when = {"q_named_at_write": float(it.q_named), "qs_at_write": float(it.qs),
            "forgets_at_write": float(it.forgets)}
    if position:  # item-level contrasts: where in the schedule the item was put
        row["s:position"] = it.w / o.writes if o.writes else 0.0
        row.update({"s:" + k: v for k, v in when.items()})
    else:
        row.update({"r:" + k: v for k, v in when.items()})
    return row


def _question_structure(o: Observed, q: _Question, prefix: str = "s:") -> Row:
    total_q = len(o.questions) or 1
    return {
        prefix + "position": q.w / o.writes if o.writes else 0.0,
        prefix + "q_position": q.qi / total_q, prefix + "burst_size": float(q.burst_size),
        prefix + "burst_pos": float(q.burst_pos), prefix + "run_before": float(q.run_before),
        prefix + "forgets": float(q.forgets), prefix + "q_since_forget": float(q.q_since_forget),
        prefix + "w_since_forget": float(q.w_since_forget),
        prefix + "q_named": float(q.q_named),
    }


def _pair(o: Observed, q: _Question, it: _Item) -> Row:
    """A candidate ``it`` at question ``q``: its structure, its recency, its form."""
    row = _item_structure(o, it, position=False)
    row.update(_question_structure(o, q, "s:q_"))
    since = 0
    newest = False
    for nm in it.names:
        qi = o.q_by_name.get(nm, [])
        since = max(since, bisect.bisect_left(qi, q.qi) - bisect.bisect_left(qi, it.qs))
        ws = o.w_by_name.get(nm, [])
        k = bisect.bisect_right(ws, q.w)
        newest = newest or (k > 0 and ws[k - 1] == it.w)
    row["r:q_named_since_write"] = float(since)  # more for an older item: recency
    age = q.w - it.w
    row.update({"r:age_writes": float(age), "r:age_share": age / q.w if q.w else 0.0,
                "r:age_questions": float(q.qi - it.qs), "r:age_bursts": float(q.burst - it.bursts),
                "r:position": it.w / o.writes if o.writes else 0.0,
                "r:newest_for_person": float(newest)})
    row.update(_form(it.text))
    return row


def _question(o: Observed, q: _Question) -> Row:
    row = _question_structure(o, q)
    row["r:w_since_person"] = float(q.w_since_person)
    row["r:person_seen"] = float(q.w_since_person >= 0)
    row.update(_form(q.text))
    return row


def _item(o: Observed, it: _Item) -> Row:
    row = _item_structure(o, it, position=True)
    row.update(_form(it.text))
    return row


@dataclass
class Rows:
    """One contrast's rows over some seeds: features and labels."""

    x: list[Row] = field(default_factory=list)
    y: list[int] = field(default_factory=list)

    def add(self, row: Row, label: bool) -> None:
        self.x.append(row)
        self.y.append(int(label))


def _refusable(cat: str) -> bool:
    return bool(cat) and cat not in GATE_ACCEPT


def contrast_rows(o: Observed, negatives: int = NEGATIVES) -> dict[str, Rows]:
    """Every contrast's rows of one observed script."""
    out: dict[str, Rows] = defaultdict(Rows)
    rng = random.Random(f"memory-bench/leakscan/{o.seed}")
    items = o.items
    history: set[str] = set()
    for q in o.questions:
        if q.expected:  # answer: every positive, and a draw of the other candidates
            want = set(q.expected)
            pos = [i for i in q.alive if items[i].id in want]
            neg = [i for i in q.alive if items[i].id not in want]
            for i in pos + rng.sample(neg, min(negatives, len(neg))):
                out["answer"].add(_pair(o, q, items[i]), items[i].id in want)
        if q.tag == "update" and q.expected:
            alive = set(q.alive)
            newest = max((items[o.by_id[e]].w for e in q.expected if e in o.by_id), default=0)
            for e in q.expected:
                if o.by_id.get(e) in alive:
                    out["current_vs_old"].add(_pair(o, q, items[o.by_id[e]]), True)
            for r in q.outrank:
                if o.by_id.get(r) in alive:
                    out["current_vs_old"].add(_pair(o, q, items[o.by_id[r]]), False)
                if r in o.by_id and items[o.by_id[r]].w > newest:
                    history.add(r)
        if q.tag in ("update", "reprobe"):
            out["update_vs_reprobe"].add(_question(o, q), q.tag == "update")
        out["followup_vs_other"].add(_question(o, q), q.tag in _FOLLOWUP)
    for it in items:
        if _refusable(it.category):
            continue
        if it.text.strip():
            out["history_vs_other"].add(_item(o, it), it.id in history)
    kinds = sorted({it.category for it in items if _refusable(it.category)})
    for kind in kinds:
        for it in items:
            if it.category == kind or not _refusable(it.category):
                out[f"gate:{kind}"].add(_item(o, it), it.category == kind)
    return dict(out)


# --- fitting -------------------------------------------------------------------------


@dataclass(frozen=True)
class ContrastScore:
    """One (contrast, feature group): held-out AUC of each model and the larger one."""

    contrast: str
    group: str
    auc: float | None
    model: str | None
    auc_logistic: float | None
    auc_boosting: float | None
    n_train: int
    n_test: int
    positives_train: int
    positives_test: int
    bound: float | None = None
    strict: bool = False  # the bound is "below", not "at most"

    @property
    def ok(self) -> bool | None:
        if self.bound is None or self.auc is None:
            return None
        return self.auc < self.bound if self.strict else self.auc <= self.bound

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "ok": self.ok}


def bound_of(contrast: str, group: str) -> tuple[float | None, bool]:
    """The issue's bound of a (contrast, group), and whether it is strict."""
    if contrast in BOUNDED and group in BOUNDS:
        return BOUNDS[group], False
    if contrast.startswith("gate:") and group == "form" and \
            contrast.removeprefix("gate:") in GATE_FORM_BOUNDED:
        return GATE_FORM_BOUND, True
    return None, False


@dataclass(frozen=True)
class LeakScan:
    """Every score of one scan, with what it was run on."""

    scenario: str
    train_seeds: tuple[int, ...]
    test_seeds: tuple[int, ...]
    models: tuple[str, ...]
    scores: tuple[ContrastScore, ...]
    seconds: float = 0.0

    def violations(self) -> list[ContrastScore]:
        return [s for s in self.scores if s.ok is False]

    def get(self, contrast: str, group: str) -> ContrastScore | None:
        return next((s for s in self.scores if s.contrast == contrast and s.group == group),
                    None)

    def to_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "train_seeds": list(self.train_seeds),
                "test_seeds": list(self.test_seeds), "models": list(self.models),
                "negatives_per_question": NEGATIVES,
                "bounds": {"contrasts": list(BOUNDED), **BOUNDS,
                           "gate_form_below": {k: GATE_FORM_BOUND for k in GATE_FORM_BOUNDED}},
                "seconds": round(self.seconds, 2),
                "scores": [s.to_dict() for s in self.scores]}


def _columns(rows: Rows, vocab: dict[str, set[str]]) -> dict[str, int]:
    """The train rows' feature names, ``first=``/``last=`` words outside the vocabulary
    pooled as ``<other>``."""
    names: set[str] = set()
    for r in rows.x:
        names.update(r)
    keep = set()
    for k in names:
        kind, sep, word = k.partition("=")
        keep.add(k if not sep or kind not in vocab or word in vocab[kind] else
                 f"{kind}=<other>")
    return {k: j for j, k in enumerate(sorted(keep))}


def _matrix(rows: Rows, columns: dict[str, int]) -> Any:
    """``rows`` as a dense float32 matrix over ``columns`` (unknown words as ``<other>``,
    unknown features dropped)."""
    import numpy as np

    x = np.zeros((len(rows.x), len(columns)), dtype=np.float32)
    for i, r in enumerate(rows.x):
        for k, v in r.items():
            j = columns.get(k)
            if j is None:
                kind, sep, _ = k.partition("=")
                j = columns.get(f"{kind}=<other>") if sep else None
            if j is not None:
                x[i, j] += v
    return x


def _vocab(rows: Rows) -> dict[str, set[str]]:
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for r in rows.x:
        for k in r:
            kind, _, word = k.partition("=")
            if word and kind.endswith(("first", "last")):
                counts[kind][word] += 1
    return {kind: {w for w, _ in c.most_common(VOCAB)} for kind, c in counts.items()}


def _draw(rows: Rows, cap: int, seed: str) -> Rows:
    if len(rows.y) <= cap:
        return rows
    keep = sorted(random.Random(seed).sample(range(len(rows.y)), cap))
    return Rows([rows.x[i] for i in keep], [rows.y[i] for i in keep])


def _fit_auc(model: str, x_train: Any, y_train: Any, x_test: Any, y_test: Any) -> float:
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import roc_auc_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if model == "logistic":
        clf: Any = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    else:
        clf = HistGradientBoostingClassifier(max_iter=150, random_state=0)
    clf.fit(x_train, y_train)
    return float(roc_auc_score(y_test, clf.predict_proba(x_test)[:, 1]))


def _score(contrast: str, train: Rows, test: Rows, models: Sequence[str],
           max_train: int = MAX_TRAIN, groups: Sequence[str] = GROUPS) -> list[ContrastScore]:
    import numpy as np

    train = _draw(train, max_train, f"train/{contrast}")
    test = _draw(test, MAX_TEST, f"test/{contrast}")
    pt, pe = sum(train.y), sum(test.y)
    few = (min(pt, len(train.y) - pt) < MIN_CLASS[0] or min(pe, len(test.y) - pe) < MIN_CLASS[1])
    out = []
    if not few:
        columns = _columns(train, _vocab(train))
        x_train, x_test = _matrix(train, columns), _matrix(test, columns)
        names = list(columns)
        y_train, y_test = np.asarray(train.y), np.asarray(test.y)
    for group in groups:
        bound, strict = bound_of(contrast, group)
        aucs: dict[str, float | None] = dict.fromkeys(MODELS)
        if not few:
            cols = (np.arange(len(names)) if group == "all" else
                    np.flatnonzero([n.startswith(_PREFIX[group]) for n in names]))
            if len(cols):
                for m in models:
                    aucs[m] = _fit_auc(m, x_train[:, cols], y_train, x_test[:, cols], y_test)
        best = max((m for m in models if aucs[m] is not None), key=lambda m: aucs[m] or 0.0,
                   default=None)
        out.append(ContrastScore(contrast, group, None if best is None else aucs[best], best,
                                 aucs["logistic"], aucs["boosting"], len(train.y),
                                 len(test.y), pt, pe, bound, strict))
    return out


def summary(scan: LeakScan) -> dict[str, Any]:
    """What a result keeps of a scan: the bounded scores (and the gate's form AUCs),
    rounded, with what it was run on."""
    keep = [s for s in scan.scores if s.bound is not None and s.auc is not None]
    return {"scenario": scan.scenario, "train_seeds": list(scan.train_seeds),
            "test_seeds": list(scan.test_seeds), "models": list(scan.models),
            "seconds": round(scan.seconds, 1),
            "scores": [{"contrast": s.contrast, "group": s.group, "auc": round(s.auc or 0.0, 5),
                        "bound": s.bound, "strict": s.strict, "ok": s.ok} for s in keep]}


def _order(name: str) -> tuple[int, str]:
    return (CONTRASTS.index(name), name) if name in CONTRASTS else (len(CONTRASTS), name)


def scan(scenario: str, train: Iterable[Script], test: Iterable[Script],
         models: Sequence[str] = MODELS, negatives: int = NEGATIVES,
         max_train: int = MAX_TRAIN, bounded_only: bool = False) -> LeakScan:
    """Fit on ``train``'s scripts, score on ``test``'s: every contrast, every group.
    ``negatives``, ``max_train`` and ``bounded_only`` (only the (contrast, group) pairs
    with a bound) trade precision and detail for time (the run's small scan)."""
    import time

    unknown = [m for m in models if m not in MODELS]
    if unknown or not models:
        raise ValueError(f"unknown model {unknown[0] if unknown else None!r} "
                         f"(known: {', '.join(MODELS)})")
    t0 = time.perf_counter()
    train, test = list(train), list(test)
    pooled: dict[str, tuple[Rows, Rows]] = defaultdict(lambda: (Rows(), Rows()))
    for which, scripts in ((0, train), (1, test)):
        for s in scripts:
            for name, rows in contrast_rows(observe(s), negatives).items():
                target = pooled[name][which]
                target.x += rows.x
                target.y += rows.y
    from threadpoolctl import threadpool_limits

    scores: list[ContrastScore] = []
    # One thread (BLAS and OpenMP): these matrices are small, and threads spinning on a
    # busy machine's cores made the fits many times slower.
    with threadpool_limits(limits=1):
        for name in sorted(pooled, key=_order):
            groups = [g for g in GROUPS if not bounded_only or bound_of(name, g)[0] is not None]
            if groups:
                scores += _score(name, *pooled[name], models, max_train, groups)
    return LeakScan(scenario, tuple(s.seed for s in train), tuple(s.seed for s in test),
                    tuple(models), tuple(scores), time.perf_counter() - t0)
