"""The relations of the templated generator: sentence templates and question phrasings.

Every relation has several fact templates, several questions that a person would
ask, and update templates that state a new value. ``{s}`` is the subject and
``{v}`` the value. Subject and value kinds name the name pools in ``names.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PAST_QUESTIONS", "RELATIONS", "Relation"]


@dataclass(frozen=True)
class Relation:
    name: str
    subject: str  # person | company | city
    value: str  # person | company | city | river | book | pet | product | extension
    facts: tuple[str, ...]
    questions: tuple[str, ...]
    updates: tuple[str, ...]


RELATIONS: tuple[Relation, ...] = (
    Relation(
        "born_in", "person", "city",
        ("{s} was born in {v}.", "{v} is the birthplace of {s}.",
         "{s}'s birthplace is the town of {v}.", "Records show that {s} was born in {v}."),
        ("Where was {s} born?", "What is the birthplace of {s}?", "In which town was {s} born?"),
        ("Corrected records now give {s}'s birthplace as {v}.",
         "{s} was in fact born in {v}, according to the revised register."),
    ),
    Relation(
        "works_for", "person", "company",
        ("{s} works for {v}.", "{s} is employed by {v}.", "{v} employs {s}.",
         "{s} has a job at {v}."),
        ("Who does {s} work for?", "Which company employs {s}?", "Who is {s}'s employer?"),
        ("{s} now works for {v}.", "{s} has moved jobs and is now employed by {v}."),
    ),
    Relation(
        "lives_in", "person", "city",
        ("{s} lives in {v}.", "{s} makes a home in {v}.", "{v} is where {s} lives.",
         "{s} resides in the town of {v}."),
        ("Where does {s} live?", "In which town does {s} live?", "What is {s}'s home town?"),
        ("{s} has moved house and now lives in {v}.", "{s} now resides in {v}."),
    ),
    Relation(
        "pet_name", "person", "pet",
        ("{s}'s dog is called {v}.", "{s} owns a dog named {v}.", "{v} is the name of {s}'s dog.",
         "The dog that belongs to {s} answers to {v}."),
        ("What is the name of {s}'s dog?", "What is {s}'s dog called?",
         "What name does {s}'s dog have?"),
        ("{s} renamed the dog, which is now called {v}.", "{s}'s dog now goes by {v}."),
    ),
    Relation(
        "extension", "person", "extension",
        ("{s} can be reached on telephone extension {v}.", "The phone extension of {s} is {v}.",
         "Dial extension {v} to reach {s}.", "{s}'s desk phone is extension {v}."),
        ("What is {s}'s phone extension?", "Which extension reaches {s}?",
         "On what extension can {s} be called?"),
        ("{s} has a new phone extension: {v}.", "{s} is now on extension {v}."),
    ),
    Relation(
        "favourite_book", "person", "book",
        ("{s}'s favourite book is {v}.", "The book {s} loves most is {v}.",
         "{s} names {v} as a favourite novel.", "Of all books, {s} prefers {v}."),
        ("What is {s}'s favourite book?", "Which novel does {s} like best?",
         "What book does {s} love most?"),
        ("{s} says the favourite book is now {v}.", "These days {s} prefers {v} above all books."),
    ),
    Relation(
        "mentor", "person", "person",
        ("{s} was mentored by {v}.", "{v} was the mentor of {s}.", "{s} trained under {v}.",
         "{s} learned the trade from {v}."),
        ("Who mentored {s}?", "Who was {s}'s mentor?", "Under whom did {s} train?"),
        ("{s} is now mentored by {v}.", "{s} has a new mentor, {v}."),
    ),
    Relation(
        "headquarters", "company", "city",
        ("{s} is headquartered in {v}.", "The headquarters of {s} are in {v}.",
         "{s} has its head office in {v}.", "{v} hosts the main office of {s}."),
        ("Where is {s} headquartered?", "In which town is the head office of {s}?",
         "Where are {s}'s headquarters?"),
        ("{s} has relocated its headquarters to {v}.", "{s} now runs its head office from {v}."),
    ),
    Relation(
        "founder", "company", "person",
        ("{s} was founded by {v}.", "{v} founded {s}.", "{v} started the firm {s}.",
         "The founder of {s} is {v}."),
        ("Who founded {s}?", "Who is the founder of {s}?", "Who started {s}?"),
        ("Newly found papers credit {v} as the founder of {s}.",
         "{s} now lists {v} as its founder."),
    ),
    Relation(
        "product", "company", "product",
        ("{s} makes the {v}.", "The best-known product of {s} is the {v}.",
         "{s} sells a device called the {v}.", "The {v} is manufactured by {s}."),
        ("What does {s} make?", "What is the flagship product of {s}?",
         "Which product is {s} known for?"),
        ("{s} has replaced its flagship with the {v}.", "{s} now mainly sells the {v}."),
    ),
    Relation(
        "mayor", "city", "person",
        ("The mayor of {s} is {v}.", "{v} is mayor of {s}.", "{s} is governed by Mayor {v}.",
         "{v} leads the town council of {s} as mayor."),
        ("Who is the mayor of {s}?", "Who governs {s}?", "Who leads the town of {s}?"),
        ("{s} has elected a new mayor, {v}.", "Since the election, {v} is the mayor of {s}."),
    ),
    Relation(
        "river", "city", "river",
        ("{s} lies on the River {v}.", "The River {v} flows through {s}.",
         "{s} was built beside the River {v}.", "The town of {s} sits on the banks of the {v}."),
        ("Which river flows through {s}?", "On what river does {s} lie?",
         "What river runs through the town of {s}?"),
        ("After the flood, {s} now lies on the River {v}.",
         "Surveyors now name the river through {s} as the {v}."),
    ),
    Relation(
        "twin_town", "city", "city",
        ("{s} is twinned with {v}.", "The twin town of {s} is {v}.",
         "{s} and {v} are twin towns.", "{v} is the partner town of {s}."),
        ("What is the twin town of {s}?", "Which town is {s} twinned with?",
         "What is {s}'s partner town?"),
        ("{s} is now twinned with {v}.", "{s} has a new twin town, {v}."),
    ),
)

# Questions about a former value, asked after an update: the old fact answers them.
PAST_QUESTIONS: dict[str, tuple[str, ...]] = {
    "born_in": ("Where was {s} believed to be born before?",
                "What birthplace did the old records give for {s}?",
                "Which town was given as {s}'s birthplace before?",
                "Where did the earlier register say {s} was born?"),
    "works_for": ("Who did {s} work for before?", "Which company employed {s} previously?",
                  "Who was {s}'s previous employer?", "Where did {s} work before the change?"),
    "lives_in": ("Where did {s} live before?", "In which town did {s} live previously?",
                 "What was {s}'s previous home town?", "Where did {s} live before moving?"),
    "pet_name": ("What was {s}'s dog called before?", "What was the old name of {s}'s dog?",
                 "What name did {s}'s dog have before?",
                 "What did {s}'s dog answer to previously?"),
    "extension": ("What was {s}'s phone extension before?",
                  "Which extension reached {s} previously?", "What was {s}'s old extension?",
                  "On what extension could {s} be called before?"),
    "favourite_book": ("What was {s}'s favourite book before?",
                       "Which novel did {s} like best previously?",
                       "What book did {s} love most before?",
                       "What was {s}'s old favourite book?"),
    "mentor": ("Who mentored {s} before?", "Who was {s}'s previous mentor?",
               "Under whom did {s} train before?", "Who was {s}'s old mentor?"),
    "headquarters": ("Where was {s} headquartered before?",
                     "In which town was the head office of {s} previously?",
                     "Where were {s}'s old headquarters?",
                     "Where did {s} have its head office before?"),
    "founder": ("Who was credited as the founder of {s} before?",
                "Who did the old records name as the founder of {s}?",
                "Who was said to have founded {s} previously?",
                "Who was {s}'s founder before the new papers?"),
    "product": ("What did {s} make before?", "What was the flagship product of {s} previously?",
                "Which product was {s} known for before?", "What was {s}'s old flagship?"),
    "mayor": ("Who was the mayor of {s} before?", "Who governed {s} previously?",
              "Who was {s}'s previous mayor?", "Who led the town of {s} before the election?"),
    "river": ("Which river flowed through {s} before?", "On what river did {s} lie previously?",
              "What river ran through {s} before the flood?", "What was the old river of {s}?"),
    "twin_town": ("What was the twin town of {s} before?",
                  "Which town was {s} twinned with previously?",
                  "What was {s}'s old partner town?", "Which town was {s}'s twin before?"),
}
