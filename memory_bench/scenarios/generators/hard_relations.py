"""The hard generator's relations: what is said about a person, and how it is asked.

Every relation has a person as its subject. ``facts`` state it, ``updates``
state a new value (a fact template other than the old fact's may be used too),
and ``questions`` ask for it in other words: no question shares a content word
or a word stem with any fact or update template of its own relation (checked
by tests/test_hard_generator.py), so a question repeats only the subject's
name. What tells two relations apart (born in vs lives in, employer vs
occupation) is in the meaning of the words, which is what a careful reader
uses and what a word matcher cannot.

``{s}`` is the subject, ``{v}`` the value, ``{a}`` the value's article (a/an)
where the value is a common noun.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HARD_RELATIONS", "HISTORY", "VALUES", "HardRelation", "article"]


@dataclass(frozen=True)
class HardRelation:
    name: str
    value: str  # a NamePools kind (city, company, person, ...), "college", or a VALUES key
    facts: tuple[str, ...]
    updates: tuple[str, ...]
    questions: tuple[str, ...]


def article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


# Values that are common nouns, not invented names: several people may share one.
VALUES: dict[str, tuple[str, ...]] = {
    "job": ("glassblower", "actuary", "cartographer", "luthier", "stonemason", "archivist",
            "beekeeper", "optician", "farrier", "sommelier", "surveyor", "upholsterer",
            "locksmith", "translator", "radiographer", "toxicologist", "cooper", "milliner",
            "chandler", "draughtsman", "embalmer", "ornithologist", "puppeteer", "typesetter"),
    "instrument": ("cello", "oboe", "viola", "bassoon", "harp", "clarinet", "trombone",
                   "accordion", "harpsichord", "mandolin", "tuba", "flute", "banjo", "sitar",
                   "marimba", "euphonium", "piccolo", "dulcimer", "lute", "bagpipes"),
    "allergen": ("peanuts", "penicillin", "cat hair", "pollen", "shellfish", "latex",
                 "wasp stings", "house dust", "strawberries", "sesame", "mustard", "celery",
                 "kiwi fruit", "aspirin"),
}

HARD_RELATIONS: tuple[HardRelation, ...] = (
    HardRelation(
        "born_in", "city",
        ("{s} was born in {v}.", "{v} is the birthplace of {s}.", "{s} is a native of {v}.",
         "The register lists {s}'s birthplace as {v}."),
        ("Corrected records give {s}'s birthplace as {v}.",
         "{s} was in fact born in {v}, the revised register says."),
        ("Where did {s} come into the world?", "Which town is {s} originally from?",
         "What town was {s}'s place of origin?", "Where does {s} hail from?"),
    ),
    HardRelation(
        "lives_in", "city",
        ("{s} lives in {v}.", "{s} resides in {v}.", "{s} has a house in {v}.",
         "{v} is where {s} has settled."),
        ("{s} has moved and now lives in {v}.", "{s} recently settled in {v}."),
        ("Where is {s} based these days?", "Which town is {s}'s current address in?",
         "In what place does {s} stay at present?", "Where would you find {s} at home?"),
    ),
    HardRelation(
        "works_for", "company",
        ("{s} works for {v}.", "{s} is employed by {v}.", "{v} employs {s}.",
         "{s} has a job at {v}."),
        ("{s} has changed jobs and now works for {v}.", "{s} was hired by {v} this spring."),
        ("Who pays {s}'s salary?", "Which firm has {s} on its staff?",
         "Which organisation is {s} on the payroll of?", "What company is {s} with?"),
    ),
    HardRelation(
        "pet_name", "pet",
        ("{s}'s dog is called {v}.", "{s} owns a dog named {v}.", "{s} keeps a dog, {v}.",
         "The dog that belongs to {s} answers to {v}."),
        ("{s} renamed the dog, which is now called {v}.", "{s}'s dog now goes by {v}."),
        ("What is {s}'s hound known as?", "How does {s} address the family pet?",
         "What did {s} christen the four-legged friend?", "Which pet shares {s}'s house?"),
    ),
    HardRelation(
        "extension", "extension",
        ("{s} can be reached on telephone extension {v}.", "The phone extension of {s} is {v}.",
         "Dial extension {v} to reach {s}.", "{s}'s desk phone is extension {v}."),
        ("{s} has a new phone extension: {v}.", "{s} is now on extension {v}."),
        ("Which internal line connects to {s}?", "What number should colleagues ring for {s}?",
         "How do I get {s} on the office line?", "What digits put a caller through to {s}?"),
    ),
    HardRelation(
        "favourite_book", "book",
        ("{s}'s favourite book is {v}.", "The book {s} loves most is {v}.",
         "{s} names {v} as a favourite novel.", "Of all books, {s} prefers {v}."),
        ("{s} says the favourite book is now {v}.", "These days {s} prefers {v} above all books."),
        ("Which title would {s} take to a desert island?", "What does {s} most enjoy reading?",
         "Which story does {s} reread every year?", "What is {s}'s all-time top read?"),
    ),
    HardRelation(
        "mentor", "person",
        ("{s} was mentored by {v}.", "{v} was the mentor of {s}.", "{s} trained under {v}.",
         "{s} learned the trade from {v}."),
        ("{s} is now mentored by {v}.", "{s} has a new mentor, {v}."),
        ("Who showed {s} the ropes?", "Whose apprentice was {s}?",
         "Who taught {s} the craft?", "Who coached {s} as a beginner?"),
    ),
    HardRelation(
        "profession", "job",
        ("{s} is {a} {v} by profession.", "{s} works as {a} {v}.", "{s} qualified as {a} {v}.",
         "{s} has been {a} {v} for years."),
        ("{s} retrained and is now {a} {v}.", "{s} switched fields to become {a} {v}."),
        ("What does {s} do for a living?", "What is {s}'s occupation?",
         "What career does {s} pursue?", "What is {s}'s trade?"),
    ),
    HardRelation(
        "instrument", "instrument",
        ("{s} plays the {v}.", "{s} is a {v} player.", "The {v} is {s}'s instrument.",
         "{s} performs on the {v} in a band."),
        ("{s} has switched to the {v}.", "{s} took up the {v} instead."),
        ("What does {s} make music on?", "What would {s} bring to an orchestra rehearsal?",
         "What can you hear {s} practising in the evenings?", "What is {s}'s musical speciality?"),
    ),
    HardRelation(
        "car", "product",
        ("{s} drives a {v}.", "{s}'s car is a {v}.", "The {v} parked outside belongs to {s}.",
         "{s} owns a {v} car."),
        ("{s} traded in the old car for a {v}.", "{s} bought a {v} to replace the last car."),
        ("What vehicle does {s} get around in?", "Which model does {s} commute in?",
         "What does {s} take on the motorway?", "What is {s}'s motor?"),
    ),
    HardRelation(
        "studied_at", "college",
        ("{s} studied at {v}.", "{s} graduated from {v}.", "{s} is a former student of {v}.",
         "{v} awarded {s} a degree."),
        ("{s} finished the course at {v} after all.", "{s} transferred to {v} and graduated "
                                                      "there."),
        ("Where did {s} go to university?", "Where was {s} educated?",
         "Which institution did {s} attend?", "Which school gave {s} a diploma?"),
    ),
    HardRelation(
        "allergy", "allergen",
        ("{s} is allergic to {v}.", "{s} has an allergy to {v}.", "{s} reacts badly to {v}.",
         "{v} make {s} ill."),
        ("Tests show {s} is allergic to {v} as well.", "{s} has developed an allergy to {v}."),
        ("What should {s} never be served?", "What must {s} stay away from for health reasons?",
         "What substance gives {s} trouble?", "What can {s} not tolerate?"),
    ),
)

# A former value recalled in the past tense, written after an update (``Update.history``):
# true of the past, not an answer to a question about the present. Varied, relation by
# relation, so that no stock phrase marks them; like the fact templates, they share no
# content word or stem with their relation's questions (tests/test_hard_generator.py).
HISTORY: dict[str, tuple[str, ...]] = {
    "born_in": ("Older papers gave {s}'s birthplace as {v}, wrongly.",
                "{s} was long thought to be a native of {v}."),
    "lives_in": ("{s} used to live in {v}.", "{s} had a house in {v} before moving away."),
    "works_for": ("{s} used to work for {v}.", "{s} was employed by {v} until recently."),
    "pet_name": ("{s}'s dog used to be called {v}.",
                 "Before the renaming, {s}'s dog answered to {v}."),
    "extension": ("{s} used to be reached on extension {v}.",
                  "{s}'s old desk phone was extension {v}."),
    "favourite_book": ("{s}'s favourite book used to be {v}.",
                       "Back then, {s} loved {v} most of all books."),
    "mentor": ("{s}'s earlier mentor was {v}.", "Before the change, {s} trained under {v}."),
    "profession": ("{s} used to work as {a} {v}.", "{s} was {a} {v} before retraining."),
    "instrument": ("{s} used to play the {v}.", "{s} played the {v} before switching."),
    "car": ("{s} used to drive a {v}.", "{s}'s previous car was a {v}."),
    "studied_at": ("{s} had started a course at {v} before transferring.",
                   "{s} was at first a student of {v}."),
    "allergy": ("{s} was allergic to {v} as a child.", "{s} had an allergy to {v} years ago."),
}
