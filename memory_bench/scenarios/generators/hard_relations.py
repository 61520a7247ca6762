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
where the value is a common noun, ``{y}`` and ``{g}`` a birth and a graduation
year fixed by the subject (the same in a fact and its correction, so no text
contradicts the order of writing; ``years``).

Tense is on both sides: some current facts are written in the past tense
("{s} moved to {v}.", "{s} was hired by {v}."), some end in a preposition
("{v} is the city {s} lives in."), and the history forms of a former value
(``HISTORY``) are as often in the present ("{s}'s prior employer is {v}.",
"{s} no longer lives in {v}.") as in the past, so that neither tense nor a count
of tense markers tells a history item from a current one.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

__all__ = ["HARD_RELATIONS", "HISTORY", "VALUES", "HardRelation", "article", "years"]


@dataclass(frozen=True)
class HardRelation:
    name: str
    value: str  # a NamePools kind (city, company, person, ...), "college", or a VALUES key
    facts: tuple[str, ...]
    updates: tuple[str, ...]
    questions: tuple[str, ...]
    # Questions about the former value ("Where was {s} based before?"): answered by the
    # old fact and its history item, never by the new value.
    past: tuple[str, ...] = ()


def article(noun: str) -> str:
    return "an" if noun[:1].lower() in "aeiou" else "a"


def years(subject: str) -> dict[str, int]:
    """The subject's birth year ``y`` and graduation year ``g``: a function of the name
    alone, so that every text about the subject gives the same years."""
    h = zlib.crc32(subject.encode("utf-8"))
    born = 1950 + h % 45
    return {"y": born, "g": born + 21 + (h >> 8) % 5}


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
         "The register lists {s}'s birthplace as {v}.", "{s} was born in {v} in {y}.",
         "{v} is the city {s} was born in.",
         "An entry in the register names {v} as {s}'s birthplace.",
         "{v} is listed as {s}'s birthplace.",
         "{s}'s birthplace, disputed for years, is {v}.",
         "{s} was born in {v}; the old doubt about it no longer stands."),
        ("Corrected records give {s}'s birthplace as {v}.",
         "{s} was in fact born in {v}, the revised register says."),
        ("Where did {s} come into the world?", "Which town is {s} originally from?",
         "What town was {s}'s place of origin?", "Where does {s} hail from?",
         "Where did {s}'s life begin?", "What is {s}'s town of origin?",
         "In which place did {s} first draw breath?", "Where does {s} originally come from?"),
        ("Where was {s} believed to hail from before?",
         "Which place was once believed to be {s}'s origin?",
         "Where did people formerly suppose {s} came from?",
         "What origin did earlier accounts assign to {s}?",
         "Before the amendment, where was {s} supposedly from?"),
    ),
    HardRelation(
        "lives_in", "city",
        ("{s} lives in {v}.", "{s} resides in {v}.", "{s} has a house in {v}.",
         "{v} is where {s} has settled.", "{s} moved to {v}.", "{v} is the city {s} lives in.",
         "{s} bought a flat in {v}.",
         "{s} moved to {v} last year.",
         "{s} has never lived anywhere but {v}.",
         "{s} is used to living in {v} by now.",
         "{s} rented rooms elsewhere before settling in {v}.",
         "{s} means to remain in {v} until retirement.",
         "{s}'s city: {v}.",
         "{s} no longer rents and owns a house in {v}.",
         "{s} used to travel a lot and has settled in {v}.",
         "{s} had a flat elsewhere once and lives in {v}."),
        ("{s} has moved and now lives in {v}.", "{s} recently settled in {v}."),
        ("Where is {s} based?", "Which town is {s}'s address in?",
         "In what place does {s} stay at present?", "Where would you find {s} at home?",
         "Which town does {s} call home?", "Where is {s}'s abode?",
         "Where does {s} have an address?", "In which town could I visit {s}?"),
        ("Where did {s} have a home before?", "Which town was {s}'s address earlier?",
         "Where was {s} based before?", "In which town was {s}'s earlier home?",
         "Where did {s} stay before relocating?"),
    ),
    HardRelation(
        "works_for", "company",
        ("{s} works for {v}.", "{s} is employed by {v}.", "{v} employs {s}.",
         "{s} has a job at {v}.", "{s} was hired by {v}.", "{s} joined {v}.",
         "{v} is the business {s} works for.",
         "{s} joined {v} last year.",
         "{s} has not worked anywhere but {v}.",
         "{s} freelanced for years before joining {v}.",
         "{s}'s employer: {v}.",
         "{s} no longer freelances and works for {v}.",
         "{s} used to be self-employed and works for {v}.",
         "{s} was formerly a contractor and is employed by {v}."),
        ("{s} has changed jobs and now works for {v}.", "{s} was hired by {v} this spring."),
        ("Who pays {s}'s salary?", "Which firm has {s} on its staff?",
         "Which organisation is {s} on the payroll of?", "What company is {s} with?",
         "Which outfit signs {s}'s paycheque?", "Whose staff is {s} part of?",
         "At which enterprise does {s} earn a wage?",
         "Which corporation is {s} on the books of?"),
        ("Which firm was {s} with before?", "Who paid {s}'s wages earlier?",
         "What company had {s} on its staff previously?",
         "Which organisation was {s} on the payroll of before the switch?",
         "Who was {s}'s paymaster before?"),
    ),
    HardRelation(
        "pet_name", "pet",
        ("{s}'s dog is called {v}.", "{s} owns a dog named {v}.", "{s} keeps a dog, {v}.",
         "The dog that belongs to {s} answers to {v}.", "{s} named the dog {v}.",
         "{s} adopted a dog and called it {v}.",
         "{s} has no other dog but {v}.",
         "{s}'s dog: {v}.",
         "{s} got a puppy last year and called it {v}.",
         # (listed twice, and the first once read "once a stray": a slip of the fourth
         # draw, kept so that its published runs reproduce; mend at the next republish)
         "{s}'s dog, a stray in the past, is called {v}.", "{v} is the name {s}'s dog answers to.",
         "{s}'s dog, a stray in the past, is called {v}.",
         "{s} used to have cats and owns a dog named {v}."),
        ("{s} renamed the dog, which is now called {v}.", "{s}'s dog now goes by {v}."),
        ("What is {s}'s hound known as?", "How does {s} address the family pet?",
         "What did {s} christen the four-legged friend?", "Which pet shares {s}'s house?",
         "What does {s}'s hound respond to?", "Which pooch lives with {s}?",
         "What does {s} shout when the pooch runs off?",
         "What is {s}'s four-legged companion known as?"),
        ("What was {s}'s hound known as before?", "How did {s} address the family pet earlier?",
         "Before the change, what did {s}'s pooch respond to?",
         "What was the pooch at {s}'s house known as previously?",
         "What did {s} formerly shout when the pooch ran off?"),
    ),
    HardRelation(
        "extension", "extension",
        ("{s} can be reached on telephone extension {v}.", "The phone extension of {s} is {v}.",
         "Dial extension {v} to reach {s}.", "{s}'s desk phone is extension {v}.",
         "{s} was given extension {v}.", "{v} is the extension {s} can be reached on.",
         "{s} was assigned extension {v}.",
         "{s}'s extension: {v}.",
         "{s} has used extension {v} for years.",
         "{s} shared a phone before being given extension {v}.",
         "{s} no longer shares a phone and is on extension {v}.",
         "{s} used to share a phone and has extension {v}.",
         "{s} had no desk phone before and has extension {v}."),
        ("{s} has a new phone extension: {v}.", "{s} is now on extension {v}."),
        ("Which internal line connects to {s}?", "What number should colleagues ring for {s}?",
         "How do I get {s} on the office line?", "What digits put a caller through to {s}?",
         "Which line do I ring to speak to {s}?", "How do I call {s} internally?",
         "What is {s}'s internal number?", "Which digits should I key in for {s}?"),
        ("Which line did {s} answer on before?", "What number did colleagues ring for {s} earlier?",
         "Which internal line connected to {s} previously?",
         "What digits put a caller through to {s} before?",
         "How did one get {s} on the office line formerly?"),
    ),
    HardRelation(
        "favourite_book", "book",
        ("{s}'s favourite book is {v}.", "The book {s} loves most is {v}.",
         "{s} names {v} as a favourite novel.", "Of all books, {s} prefers {v}.",
         "{s} fell for {v} and has loved it ever since.", "{v} is the book {s} is most fond of.",
         "No book means more to {s} than {v}.",
         "{s} discovered {v} last spring and loves it best.",
         "{s}'s favourite: {v}.",
         "{s} tried many books before settling on {v} as the favourite.",
         "{s}'s favourite book, once a gift, is {v}.",
         "{s} cared little for novels once; {v} is {s}'s favourite book.",
         "{s} used to prefer films and loves the book {v}."),
        ("{s} says the favourite book is now {v}.", "These days {s} prefers {v} above all books."),
        ("Which title would {s} take to a desert island?", "What does {s} most enjoy reading?",
         "Which story does {s} reread every year?", "What is {s}'s all-time top read?",
         "Which volume is {s} most attached to?", "Which tale does {s} cherish?",
         "What is {s}'s go-to read?", "Which title tops {s}'s shelf?"),
        ("What was {s}'s top read before?", "Which title did {s} cherish earlier?",
         "Which story did {s} enjoy most previously?",
         "Which volume was {s} most attached to before?",
         "What did {s} formerly take to a desert island?"),
    ),
    HardRelation(
        "mentor", "person",
        ("{s} was mentored by {v}.", "{v} was the mentor of {s}.", "{s} trained under {v}.",
         "{s} learned the trade from {v}.", "{v} is the person {s} trained under.",
         "{s}'s mentor is {v}.",
         "No one but {v} ever mentored {s}.",
         "{s}'s mentor: {v}.",
         "{v} will mentor {s} until the exams.",
         "{s}'s mentor, once a rival, is {v}.",
         "{s}, who had nobody to ask before, is mentored by {v}.",
         "{s} used to work alone and is mentored by {v}."),
        ("{s} is now mentored by {v}.", "{s} has a new mentor, {v}."),
        ("Who showed {s} the ropes?", "Whose apprentice was {s}?",
         "Who taught {s} the craft?", "Who coached {s} as a beginner?",
         "Who guided {s} early on?", "Who took {s} under a wing?",
         "Who was {s}'s tutor?", "Whom did {s} apprentice with?"),
        ("Who guided {s} before?", "Who showed {s} the ropes previously?",
         "Who was {s}'s earlier tutor?", "Whose apprentice was {s} at first?",
         "Who coached {s} formerly?"),
    ),
    HardRelation(
        "profession", "job",
        ("{s} is {a} {v} by profession.", "{s} works as {a} {v}.", "{s} qualified as {a} {v}.",
         "{s} has been {a} {v} for years.", "{s} became {a} {v}.", "{s} trained as {a} {v}.",
         "{a} {v} is what {s} qualified as.",
         "{s} has never been anything but {a} {v}.",
         "{s}'s profession: {v}.",
         "{s} trained elsewhere before qualifying as {a} {v}.",
         "{s} used to study law but is now {a} {v}.",
         "{s} no longer studies and works as {a} {v}.",
         "{s} used to study law and is {a} {v}.",
         "{s} was a student before and works as {a} {v}."),
        ("{s} retrained and is now {a} {v}.", "{s} switched fields to become {a} {v}."),
        ("What does {s} do for a living?", "What is {s}'s occupation?",
         "What career does {s} pursue?", "What is {s}'s trade?",
         "What is {s}'s job title?", "What does {s} earn money as?",
         "What calling has {s} chosen?", "What vocation does {s} follow?"),
        ("What was {s}'s job title before?", "What did {s} earn money as earlier?",
         "What was {s}'s occupation previously?", "Which trade did {s} follow at first?",
         "What calling did {s} have before?"),
    ),
    HardRelation(
        "instrument", "instrument",
        ("{s} plays the {v}.", "{s} is a {v} player.", "The {v} is {s}'s instrument.",
         "{s} performs on the {v} in a band.", "{s} learned the {v} as a child.",
         "{s} picked up the {v} at school.",
         "{s} plays no instrument but the {v}.",
         "{s} cannot go a day without the {v}.",
         "{s} tried the piano before switching to the {v}.",
         "{s}'s instrument: the {v}.",
         "{s} no longer sings and plays the {v} instead.", "The {v} is what {s} performs on.",
         "{s} once sang in a choir and plays the {v}.",
         "{s} used to play nothing and plays the {v}."),
        ("{s} has switched to the {v}.", "{s} took up the {v} instead."),
        ("What does {s} make music on?", "What would {s} bring to an orchestra rehearsal?",
         "What can you hear {s} practising in the evenings?", "What is {s}'s musical speciality?",
         "What does {s} rehearse on?", "What would {s} pull out of a music case?",
         "What does {s} take to a concert?", "Which part does {s} cover in an ensemble?"),
        ("What did {s} make music on before?", "What did {s} rehearse on earlier?",
         "What was {s}'s musical speciality previously?",
         "What did {s} take to concerts at first?",
         "What could you hear {s} practising before?"),
    ),
    HardRelation(
        "car", "product",
        ("{s} drives a {v}.", "{s}'s car is a {v}.", "The {v} parked outside belongs to {s}.",
         "{s} owns a {v} car.", "{s} bought a {v}.", "{s} picked up a {v} from the dealer.",
         "{a} {v} is what {s} drives around in.",
         "{s} bought a {v} last year.",
         "{s} used savings to buy a {v}.",
         "{s} has no car but a {v}.",
         "{s} cycled everywhere before buying a {v}.",
         "{s} no longer cycles and drives a {v}.",
         "{s} used to cycle everywhere and drives a {v}.",
         "{s} had no licence before and owns a {v}."),
        ("{s} traded in the old car for a {v}.", "{s} bought a {v} to replace the last car."),
        ("What vehicle does {s} get around in?", "Which model does {s} commute in?",
         "What does {s} take on the motorway?", "What is {s}'s motor?",
         "What set of wheels does {s} have?", "What is {s} behind the wheel of each morning?",
         "Which automobile is {s}'s?", "What does {s} ride to the office in?"),
        ("What vehicle did {s} get around in before?", "What motor did {s} have earlier?",
         "Which automobile was {s}'s previously?", "What set of wheels did {s} have before?",
         "Which model did {s} commute in at first?"),
    ),
    HardRelation(
        "studied_at", "college",
        ("{s} studied at {v}.", "{s} graduated from {v}.", "{s} is a former student of {v}.",
         "{v} awarded {s} a degree.", "{s} graduated from {v} in {g}.",
         "{v} is the place {s} studied at.",
         "{s} never studied anywhere but {v}.",
         "{s} worked for a year before enrolling at {v}.",
         "{s}'s college: {v}.",
         "{s}, no longer a student, graduated from {v}.",
         "{s} was formerly in the army and studied at {v}.",
         "{s} used to work in a shop and studied at {v}."),
        ("{s} finished the course at {v} after all.", "{s} transferred to {v} and graduated "
                                                      "there."),
        ("Where did {s} go to university?", "Where was {s} educated?",
         "Which institution did {s} attend?", "Which school gave {s} a diploma?",
         "Where did {s} earn a qualification?", "What is {s}'s alma mater?",
         "Where did {s} get an education?", "Which campus did {s} attend lectures on?"),
        ("Where did {s} go to university originally?", "Which institution did {s} attend before?",
         "Where was {s} educated to begin with?", "Which campus did {s} begin on?",
         "What was {s}'s alma mater before the switch?"),
    ),
    HardRelation(
        "allergy", "allergen",
        ("{s} is allergic to {v}.", "{s} has an allergy to {v}.", "{s} reacts badly to {v}.",
         "{v} make {s} ill.", "{s} was diagnosed with an allergy to {v}.",
         "{v} is something {s} is allergic to.",
         "{s} is allergic to nothing but {v}.",
         "{s} has had an allergy to {v} since childhood.",
         "{s}'s allergy: {v}.",
         "{s} no longer eats out, being allergic to {v}.",
         "{s} used to eat anything and is allergic to {v}.",
         "{s} was once tested for nothing and is allergic to {v}."),
        ("Tests show {s} is allergic to {v} as well.", "{s} has developed an allergy to {v}."),
        ("What should {s} never be served?", "What must {s} stay away from for health reasons?",
         "What substance gives {s} trouble?", "What can {s} not tolerate?",
         "What is {s} sensitive to?", "What must be kept off {s}'s plate?",
         "What brings {s} out in hives?", "What is {s} intolerant of?"),
        ("What was {s} sensitive to before?", "What could {s} not tolerate earlier?",
         "What brought {s} out in hives at first?",
         "What substance gave {s} trouble previously?",
         "What was kept off {s}'s plate before?"),
    ),
)

# A former value, written after an update (``Update.history``): true of the past, not an
# answer to a question about the present. Many wordings a relation, in the present as
# often as in the past ("{s}'s previous car is ...", "{s} no longer lives in ..."), so
# that no stock phrase and no tense marks them; like the fact templates, they share no
# content word or stem with their relation's questions (tests/test_hard_generator.py).
HISTORY: dict[str, tuple[str, ...]] = {
    "born_in": ("Older papers gave {s}'s birthplace as {v}, wrongly.",
                "{s} was long thought to be a native of {v}.",
                "The old register lists {v} as {s}'s birthplace.",
                "An outdated entry names {v} as the birthplace of {s}.",
                "{v} is no longer listed as {s}'s birthplace.",
                "{s}'s birthplace in an older register: {v}."),
    "lives_in": ("{s} used to live in {v}.", "{s} had a house in {v} before moving away.",
                 "{s}'s former residence is in {v}.", "{s} no longer lives in {v}.",
                 "{v} was where {s} resided until recently.", "{s} left {v} for good."),
    "works_for": ("{s} used to work for {v}.", "{s} was employed by {v} until recently.",
                  "{s}'s prior employer is {v}.", "{s} no longer works for {v}.",
                  "{s} left {v} last year.", "{s}'s old job is at {v}, not any more."),
    "pet_name": ("{s}'s dog used to be called {v}.",
                 "Before the renaming, {s}'s dog answered to {v}.",
                 "{s}'s dog's old name is {v}.", "{s}'s dog no longer answers to {v}.",
                 "{v} is what {s}'s dog was called at first.",
                 "The dog of {s} is not called {v} any more."),
    "extension": ("{s} used to be reached on extension {v}.",
                  "{s}'s old desk phone was extension {v}.",
                  "{s}'s prior extension is {v}.", "{s} is no longer on extension {v}.",
                  "Extension {v} belongs to {s} no more.", "{s} gave up extension {v}."),
    "favourite_book": ("{s}'s favourite book used to be {v}.",
                       "Back then, {s} loved {v} most of all books.",
                       "{s}'s old favourite book is {v}.",
                       "{v} is no longer {s}'s favourite book.",
                       "{s} once named {v} as a favourite novel.",
                       "{s} has gone off {v}, once a favourite."),
    "mentor": ("{s}'s prior mentor was {v}.", "Before the change, {s} trained under {v}.",
               "{s}'s original mentor is {v}.", "{v} no longer mentors {s}.",
               "{s}'s old mentor, {v}, has retired.", "{v} stopped mentoring {s}."),
    "profession": ("{s} used to work as {a} {v}.", "{s} was {a} {v} before retraining.",
                   "{s} is no longer {a} {v}.", "{s} gave up life as {a} {v}.",
                   "{s} spent years as {a} {v}.", "{s}'s old profession: {v}."),
    "instrument": ("{s} used to play the {v}.", "{s} played the {v} before switching.",
                   "{s}'s old instrument is the {v}.", "{s} no longer plays the {v}.",
                   "{s} gave the {v} up long ago.", "The {v} was {s}'s instrument once."),
    "car": ("{s} used to drive a {v}.", "{s}'s prior car was a {v}.",
            "{s}'s former car is a {v}.", "{s} no longer drives a {v}.",
            "{s} sold the {v} last year.", "{s} scrapped the old {v}."),
    "studied_at": ("{s} had started a course at {v} before transferring.",
                   "{s} was at first a student of {v}.", "{s}'s first college is {v}.",
                   "{s} dropped out of {v}.", "{s} is no longer enrolled at {v}.",
                   "{s} left {v} without a degree."),
    "allergy": ("{s} was allergic to {v} as a child.", "{s} had an allergy to {v} years ago.",
                "{s} is no longer allergic to {v}.", "{s} outgrew the allergy to {v}.",
                "{s}'s old allergy to {v} is gone.", "{v} no longer make {s} ill."),
}
