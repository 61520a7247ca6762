"""The natural generator: facts in real prose from WordNet 3.0, asked for in other words.

METHOD.md §4 names templated facts as a weakness ("retrieval on templates is
easier than retrieval on prose") and §5.3 asks for a real corpus. Here:

- a **fact** states one WordNet noun sense of a word in WordNet's own
  definition (often with WordNet's example sentence): "Grip is a word for the
  appendage to an object that is designed to be held in order to use or move
  it." Its subject is the word (``grip``), its relation ``meaning``, its value
  the definition;
- its **question** asks by a *synonym* from the same synset that the fact's text
  does not contain and that shares no word with the fact's word: "What does
  handgrip mean?". The synonym has exactly one sense in the slice, so the
  question has one answer, and no other stored item names it as a word; the
  **re-probe** asks by a second such synonym, in another frame;
- **noise** states other senses of other words, with the same frames;
- an **update** gives the fact's word a different real sense of that same word
  (WordNet polysemy) with a later timestamp, in the fact frames, and asks
  "What does grip mean?" (no stock update phrase, no "now"); ``update_history`` of
  them are followed by a **history item**, the old sense as former ("Grip is now rare
  and was once the word for ..."), which the new sense must outrank too. A fact frame
  and its history frame are made of the same words ("Grip was once rare and is now the
  word for ..."), so only the meaning tells them apart (phrasing.py). For two thirds of the
  updates the two senses could each be the fact, and which one is the fact is drawn,
  so that neither role's senses differ from the other's in form or recur in one role
  across seeds (``ROLES_DRAWN``);
- every fact has 20 **wordings** (question frames by either synonym, in
  ``asking.py``'s frames), every update 8 by the fact's word and 6 about the
  former sense; every noise and clean gate sense an **aside** (12 wordings);
- **gate** items are real text: clean = further WordNet senses, duplicate =
  exact copies of stored noise, short = a WordNet word or two-word term,
  empty = whitespace.

Every word that any stored item names belongs to exactly one stored item
(except a fact's word, which its update and history item share), so each question has exactly
one correct item. ``stats["question_overlap"]`` measures how much each
question shares with its fact (see overlap.py).
"""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from dataclasses import replace

from memory_bench.contract.items import Item
from memory_bench.scenarios.continual.data import (
    Aside,
    Corroboration,
    Fact,
    GateCase,
    ScenarioData,
    Update,
)
from memory_bench.scenarios.continual.params import ContinualParams as Params
from memory_bench.scenarios.generators import asking, phrasing
from memory_bench.scenarios.generators.common import ItemStamper, bare, pick_reinforced
from memory_bench.scenarios.generators.gate import (
    GateTexts,
    build_gate,
    clean_short_facts,
    short_names_error,
)
from memory_bench.scenarios.generators.overlap import question_overlap
from memory_bench.scenarios.generators.wordnet import Corpus, Synset, load_corpus

__all__ = ["MAX_FACTS", "MAX_SENSES", "RELATION", "capacity_error", "generate"]

RELATION = "meaning"
# Checked by tests/test_natural_generator.py: generation succeeds for every seed tried at
# these limits, with room to spare (1,299 synsets qualify as facts, with two synonyms to ask
# by; 13,357 in all).
MAX_FACTS = 300
MAX_SENSES = 5000  # synsets one seed draws: 2 per fact, noise, gate short and clean
# Wordings per question (tests/test_natural_generator.py): every follow-up in a new one.
FACT_WORDINGS, UPDATE_WORDINGS, PAST_WORDINGS, ASIDE_WORDINGS = 20, 8, 6, 12
_WORD = re.compile(r"^[a-z][a-z' -]*[a-z]$")


def capacity_error(s: Params) -> str | None:
    drawn = 2 * s.facts + s.noise + s.gate_short + s.gate_clean + s.gate_fragment
    if s.facts > MAX_FACTS:
        return (
            f"asks for {s.facts} facts; the natural generator has enough "
            f"synonym pairs in its WordNet slice for at most {MAX_FACTS}"
        )
    if drawn > MAX_SENSES:
        return (
            f"needs {drawn} distinct WordNet senses (2 x facts + noise + gate_short + "
            f"gate_clean + gate_fragment); the natural generator draws at most {MAX_SENSES}"
        )
    return short_names_error(s)


def _tokens(word: str) -> set[str]:
    return set(re.findall(r"[a-z]+", word.lower()))


def _senses_of(c: Corpus, word: str) -> list[Synset]:
    """The slice's senses of ``word``, spelt exactly so ("commerce", not "Commerce")."""
    return [c.synsets[i] for i in c.by_word.get(word.lower(), ()) if word in c.synsets[i].words]


def _pairs(c: Corpus, s: Synset) -> list[tuple[str, str]]:
    """(fact word, question word) pairs a fact about ``s`` can use.

    The fact word has another sense in the slice (so it can be updated); the
    question word has one sense in the slice (so one stored item at most names it),
    shares no word with the fact word and does not occur in the definition. One sense
    in all of WordNet, as before the fifth draw, left 114 words with two senses that
    could each be a fact; one in the slice leaves 353 (``ROLES_DRAWN``).
    """
    fact_words = [w for w in s.words if _WORD.match(w) and len(_senses_of(c, w)) >= 2]
    asked = [w for w in s.words if _WORD.match(w) and len(_senses_of(c, w)) == 1
             and not phrasing.has_phrase(s.definition, w)]
    return [(a, b) for a in fact_words for b in asked if not _tokens(a) & _tokens(b)]


def _options(c: Corpus, s: Synset) -> list[tuple[str, str, str]]:
    """(fact word, question word, re-probe word) triples a fact about ``s`` can use."""
    asked: dict[str, list[str]] = {}
    for a, b in _pairs(c, s):
        asked.setdefault(a, []).append(b)
    return [(a, b, b2) for a, bs in asked.items() for b in bs for b2 in bs if b2 != b]


MATCH = 3  # characters a synonym's length may differ from the fact word's


def _matched(words: tuple[str, str, str]) -> bool:
    """Whether both synonyms are as long as the fact word (within ``MATCH`` characters)
    and as many words."""
    a, *bs = words
    return all(abs(len(b) - len(a)) <= MATCH and len(b.split()) == len(a.split())
               for b in bs)


def _preferred(triples: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """The matched triples (``_matched``) where there are any, else all."""
    return [t for t in triples if _matched(t)] or triples


def _closest(options: list[tuple]) -> list[tuple]:
    """The options whose re-probe words (third, and fifth's third) are nearest the fact
    word in length: a synonym with one sense is a rarer word and runs longer than the
    fact word (8.8 characters against 7.6), and an update asks by the fact word."""
    def gap(o: tuple) -> int:
        return max(abs(len(t[2]) - len(t[0])) for t in (o, *o[4:]))
    best = min(map(gap, options), default=0)
    return [o for o in options if gap(o) == best]


def _has_example(text: str, sense: Synset) -> bool:
    """Whether ``text`` quotes one of ``sense``'s WordNet examples."""
    return any(f'"{e}"' in text for e in sense.examples)


# The share of updates whose fact and new sense were drawn in either role (``_Draw.facts``).
# All would tell the new value from the old one least by form, but the words with two
# senses that can both be facts are few (353 in the slice), so an update question would
# ask by a word that recurs across seeds as an update's and never as a re-probe's. Leak
# scan form AUC over three train/test splits (means), new vs old and update vs re-probe:
# two thirds 0.501 and 0.542, all 0.525 and 0.576 (with one-sense-in-WordNet synonyms,
# 114 such words: none 0.597 and 0.571, a third 0.573 and 0.554, half 0.557 and 0.592).
ROLES_DRAWN = 2 / 3


def _updated(rng: random.Random, picked: list[tuple], n: int, drawn: set[int]) -> list[int]:
    """The ``n`` facts to update: ``ROLES_DRAWN`` of them among the facts whose roles were
    drawn (``drawn``), each as long a word as a fact drawn at random (an update asks by
    the fact's word and a re-probe by a synonym, and the words with two senses that can
    both be facts are shorter than most); the rest at random among the others."""
    free = sorted(drawn)
    rng.shuffle(free)
    out: set[int] = set()
    for i in rng.sample(range(len(picked)), round(ROLES_DRAWN * n)):
        left = [j for j in free if j not in out]
        if left:  # the first of the nearest in length (min keeps the shuffled order)
            out.add(min(left, key=lambda j: abs(len(picked[j][1]) - len(picked[i][1]))))
    rest = [i for i in range(len(picked)) if i not in drawn]
    out.update(rng.sample(rest, n - len(out)))
    return sorted(out)


class _Draw:
    """Senses drawn without reuse: no word is named by two drawn senses."""

    def __init__(self, corpus: Corpus, rng: random.Random) -> None:
        self.c = corpus
        self.rng = rng
        self.used: set[str] = set()
        self.order = list(range(len(corpus.synsets)))
        rng.shuffle(self.order)
        self.cursor = 0
        self.symmetric: set[int] = set()  # facts whose roles were drawn (see facts)

    def _as_fact(self, o: Synset, word: str) -> list[tuple[str, str, str]]:
        """The (word, question word, re-probe word) triples by which ``o`` could be
        asked as a fact of ``word``, matched ones only where it has any."""
        return _preferred([t for t in _options(self.c, o) if t[0] == word])

    def free(self, s: Synset, allow: str = "") -> bool:
        return not ({w.lower() for w in s.words} - {allow.lower()}) & self.used

    def take(self, s: Synset) -> None:
        self.used |= {w.lower() for w in s.words}

    def facts(self, n: int) -> list[tuple[Synset, str, str, str, Synset]]:
        """n (sense, fact word, question word, re-probe word, other sense of the fact
        word). The re-probe asks by a second synonym: rewording "What does handgrip mean?"
        keeps its one content word, which a cache of similar questions reads."""
        candidates = [s for s in self.c.synsets if _pairs(self.c, s)]
        self.rng.shuffle(candidates)
        triples = {id(s): _options(self.c, s) for s in candidates}
        # Senses whose fact word is as long as its synonyms first: an update question
        # asks by the fact word, a re-probe by a synonym, and a common word is shorter
        # than a rare one (7.1 characters against 9.9 over the slice), so that the
        # question's length told the two apart (AUC 0.72 by form).
        candidates.sort(key=lambda s: not any(map(_matched, triples[id(s)])))
        out = []
        for s in candidates:
            if len(out) == n:
                break
            if not self.free(s):
                continue
            words = _preferred(triples[id(s)])
            options = []
            for a, b, b2 in words:
                others = [
                    o
                    for o in _senses_of(self.c, a)
                    if o is not s and self.free(o, allow=a) and o.definition != s.definition
                ]
                options += [(a, b, b2, o) for o in others]
            if not options:
                continue
            # An other sense that could be the fact itself (two one-sense synonyms of its
            # own), where there is one, and then the roles drawn: the senses that can be
            # facts differ from a word's other senses (longer definitions, other topics)
            # and recur across seeds, so that with fixed roles a classifier on form told
            # the new value from the old one (AUC 0.64, issue 34).
            both = _closest([(a, b, b2, o, t) for a, b, b2, o in options
                             for t in self._as_fact(o, a)])
            options = _closest(options)
            if both:
                a, b, b2, other, turned = self.rng.choice(both)
                if self.rng.random() < 0.5:
                    s, other, (a, b, b2) = other, s, turned
                self.symmetric.add(len(out))
            else:
                a, b, b2, other = self.rng.choice(options)
            self.take(s)
            self.take(other)
            out.append((s, a, b, b2, other))
        if len(out) < n:
            raise RuntimeError(f"natural generator: only {len(out)} of {n} facts could be drawn")
        return out

    def senses(self) -> Iterator[Synset]:
        """Unused senses in this seed's order; the caller takes the ones it keeps."""
        while self.cursor < len(self.order):
            s = self.c.synsets[self.order[self.cursor]]
            self.cursor += 1
            if self.free(s):
                yield s

    def pick(self, n: int, word_ok) -> list[tuple[Synset, str]]:
        out: list[tuple[Synset, str]] = []
        for s in self.senses():
            if len(out) == n:
                break
            words = [w for w in s.words if word_ok(w)]
            if words:
                self.take(s)
                out.append((s, self.rng.choice(words)))
        if len(out) < n:
            raise RuntimeError(f"natural generator: ran out of WordNet senses ({len(out)}/{n})")
        return out


def generate(s: Params, seed: int) -> ScenarioData:
    corpus = load_corpus()
    rng = random.Random(f"memory-bench/natural/{seed}")
    draw = _Draw(corpus, rng)
    stamp = ItemStamper(s.region, f"natural/{seed}", structured=s.structured)
    senses: dict[str, tuple[str, Synset]] = {}  # item id -> (word, sense): the answer key

    def item(text: str, word: str, sense: Synset, **kw) -> Item:
        made = stamp(text, _tags(word, sense), **kw)
        senses[made.id] = (word, sense)
        return made

    picked = draw.facts(s.facts)
    # Wordings have their own randomness: how many a fact gets changes no item.
    ask = random.Random(f"memory-bench/natural-asking/{seed}")
    frames = len(phrasing.PROBE_QUESTIONS)
    facts, asked, reasked = [], [], []
    for sense, a, b, b2, _ in picked:
        text = phrasing.fact_text(rng, a, sense, avoid=(b, b2))
        # By either synonym, the probe by the first and the re-probe by the second.
        q = ask.randrange(frames)
        ws = asking.wordings(ask, _cores(b) + _cores(b2), FACT_WORDINGS,
                             first=(q, frames + ask.choice([i for i in range(frames) if i != q])))
        facts.append(Fact(item(text, a, sense), ws[0], a, RELATION, sense.definition, ws[1],
                          wordings=tuple(ws)))
        asked.append(b)
        reasked.append(b2)

    noise = [
        item(phrasing.fact_text(rng, w, sense), w, sense)
        for sense, w in draw.pick(s.noise, _WORD.match)
    ]

    updates = []
    # the share of facts written with an example, and of other senses that have one
    with_example = sum(_has_example(f.item.text, p[0]) for f, p in zip(facts, picked,
                                                                         strict=True))
    with_example /= max(1, len(facts))
    with_other = max(with_example, sum(bool(p[4].examples) for p in picked) / max(1, len(picked)))
    for fi in _updated(rng, picked, s.updates, draw.symmetric):
        f, other = facts[fi], picked[fi][4]
        # with an example sentence as often as a fact has one: a word's other senses
        # have WordNet examples more often than the senses with one-sense synonyms do
        # (an example's commas, quotes and names told the new value from the old)
        text = phrasing.update_text(rng, f.subject, other, avoid=(asked[fi], reasked[fi]),
                                    example=rng.random() < with_example / with_other)
        new = item(text, f.subject, other, avoid=(f.item.source,))
        ws = asking.wordings(ask, _cores(f.subject), UPDATE_WORDINGS, taken=f.wordings)
        past = asking.wordings(ask, _cores(f.subject, phrasing.PAST_QUESTIONS), PAST_WORDINGS)
        updates.append(Update(fi, new, ws[0], other.definition, wordings=tuple(ws),
                              past_wordings=tuple(past)))

    reinforce, restated = pick_reinforced(rng, len(facts), {u.fact for u in updates},
                                          s.reinforce_cells, s.corroborations)
    corroborations = []
    for n, fi in enumerate(restated):
        f, (word, sense) = facts[fi], senses[facts[fi].item.id]
        # Half word for word, half in another frame; always from another source.
        text = f.item.text if n % 2 == 0 else phrasing.fact_text(
            rng, word, sense, avoid=(asked[fi], reasked[fi]))
        q = asking.wordings(ask, _cores(asked[fi]) + _cores(reasked[fi]), 1,
                            taken=f.wordings)
        corroborations.append(Corroboration(fi, item(text, word, sense,
                                                     avoid=(f.item.source,)), q[0]))

    texts, clean_said = _gate_texts(s, rng, draw, senses)
    gate = build_gate(s, rng, stamp, noise, texts)
    for g in gate:  # what a clean gate sense is of, for its aside
        if g.kind == "clean" and bare(g.item.text) in clean_said:
            senses[g.item.id] = clean_said[bare(g.item.text)]
    # Last, with their own randomness, so that the rest of a seed is drawn as before.
    hrng = random.Random(f"memory-bench/natural-history/{seed}")
    with_old = max(with_example, sum(bool(p[0].examples) for p in picked) / max(1, len(picked)))
    chosen = set(hrng.sample(range(len(updates)), round(s.update_history * len(updates))))
    for k in sorted(chosen):
        u = updates[k]
        f = facts[u.fact]
        old = senses[f.item.id][1]
        past = item(phrasing.history_text(hrng, f.subject, old, (asked[u.fact],
                                                                  reasked[u.fact]),
                                          example=hrng.random() < with_example / with_old),
                    f.subject, old,
                    avoid=(f.item.source, u.item.source))
        updates[k] = replace(u, history=past)
    asides = _asides(ask, corpus, senses, noise, gate)
    stats = {
        "corpus": {
            "name": "WordNet 3.0 noun senses (memory_bench/scenarios/corpus)",
            "package": f"{corpus.manifest['source']['package']} "
            f"{corpus.manifest['source']['version']}",
            "sha256": corpus.manifest["sha256"],
        },
        "question_overlap": question_overlap(
            probe=([f.question for f in facts], [f.item.text for f in facts], asked),
            update=(
                [u.question for u in updates],
                [u.item.text for u in updates],
                [facts[u.fact].subject for u in updates],
            ),
        ),
    }
    return ScenarioData(
        seed=seed,
        facts=tuple(facts),
        noise=tuple(noise),
        updates=tuple(updates),
        gate=tuple(gate),
        reinforce=tuple(reinforce),
        corroborations=tuple(corroborations),
        asides=tuple(asides),
        stats=stats,
    )


def _tags(word: str, sense: Synset) -> tuple[str, ...]:
    return (f"subject:{word}", f"relation:{RELATION}", f"synset:{sense.key}")


def _cores(word: str, frames: tuple[str, ...] = phrasing.PROBE_QUESTIONS) -> list[str]:
    return [q.format(w=word)[:1].upper() + q.format(w=word)[1:] for q in frames]


def _asides(rng: random.Random, corpus: Corpus, senses: dict[str, tuple[str, Synset]],
            noise: list[Item], gate: list[GateCase]) -> list[Aside]:
    """A question for every noise sense and clean gate sense that no gate item copies:
    by a synonym with one sense in WordNet that the text does not contain where the sense
    has one (as facts are asked), by its own word otherwise. No other stored item has
    either among its words (``_Draw``)."""
    copied = {g.copy_of for g in gate if g.copy_of}
    out = []
    for it in [*noise, *(g.item for g in gate if g.kind == "clean")]:
        if it.id in copied or it.id not in senses:
            continue
        word, sense = senses[it.id]
        by = [w for w in sense.words if w != word and _WORD.match(w)
              and corpus.sense_count(w) == 1 and not phrasing.has_phrase(it.text, w)
              and not _tokens(w) & _tokens(word)]
        out.append(Aside(it, tuple(asking.wordings(rng, _cores(by[0] if by else word),
                                                   ASIDE_WORDINGS))))
    return out


def _gate_texts(s: Params, rng: random.Random, draw: _Draw, senses: dict[str, tuple[str, Synset]]
                ) -> tuple[GateTexts, dict[str, tuple[str, Synset]]]:
    """Gate texts from real WordNet prose: shorts are a word or two-word term, clean
    items further senses, fragments a frame cut before its definition; and, by bare text,
    what each clean text states."""
    said: dict[str, tuple[str, Synset]] = {}
    shorts = iter(draw.pick(s.gate_short, lambda w: 1 <= len(w.split()) <= 2))
    cleans = iter(draw.pick(s.gate_clean, _WORD.match))
    cut = iter(draw.pick(s.gate_fragment, _WORD.match))
    short_facts = iter(clean_short_facts(rng, s.gate_clean_short))

    def paraphrase(it: Item) -> str:
        word, sense = senses[it.id]
        for _ in range(20):  # another frame; the same words only if no other comes up
            text = phrasing.fact_text(rng, word, sense)
            if text != it.text:
                return text
        return text

    def clean() -> tuple[str, tuple[str, ...]]:
        sense, w = next(cleans)
        text = phrasing.fact_text(rng, w, sense)
        said[bare(text)] = (w, sense)
        return text, _tags(w, sense)

    def fragment() -> str:
        _, w = next(cut)
        return phrasing.fragment_text(rng, w)

    return GateTexts(short=lambda: next(shorts)[1], paraphrase=paraphrase, fragment=fragment,
                     clean=clean, clean_short=lambda: (next(short_facts), ())), said
