"""Word lists for the templated generator. Invented names, so no fact is world knowledge."""

from __future__ import annotations

FIRST_NAMES = (
    "Mara", "Tobias", "Ilse", "Corin", "Delphine", "Anselm", "Brisa", "Casimir", "Dagny",
    "Emrys", "Fenna", "Gideon", "Halvard", "Ingrid", "Joren", "Kalina", "Leontyne", "Maelis",
    "Niamh", "Oskar", "Perpetua", "Quillon", "Rosalind", "Sigrun", "Thaddeus", "Ursula",
    "Valentin", "Wilhelmina", "Xavi", "Yusra", "Zoltan", "Aurelie", "Bastian", "Calla",
    "Dorian", "Elspeth", "Florian", "Greta", "Hamish", "Isolde", "Jasper", "Kirsten", "Lazlo",
    "Margit", "Nikolai", "Odile", "Piran", "Quinta", "Rurik", "Solveig", "Tamsin", "Ulric",
    "Vesna", "Wendell", "Yara", "Zephyrine", "Ambrose", "Beatrix", "Cyprian", "Dunya",
    "Eluned", "Fabian", "Gwenda", "Horatio", "Imogen", "Jovan", "Katya", "Lucian", "Mirela",
    "Norbert", "Ottilie", "Pascoe", "Radomir", "Saoirse", "Tiberius", "Una", "Viggo",
    "Winifred", "Yannick", "Zinovia",
)

SURNAMES = (
    "Olsen", "Vantreight", "Quist", "Marrowby", "Achterberg", "Pellegrine", "Ostrova",
    "Kettleworth", "Bramhall", "Szalai", "Dunmore", "Lindqvist", "Haverford", "Okonkwo",
    "Fairweather", "Castellanos", "Whitlock", "Nakashima", "Grevholt", "Tremaine", "Varga",
    "Abernethy", "Rosenthal", "Kowalczyk", "Delacroix", "Ashdown", "Moravec", "Penhallow",
    "Strand", "Iturbe", "Galloway", "Thorsby", "Ferreira", "Blackwood", "Eskildsen",
    "Montague", "Radcliffe", "Zielinski", "Oyelaran", "Hargreave", "Lachance", "Novak",
    "Brightwater", "Sandoval", "Kingsley", "Petrakis", "Wexford", "Aldana", "Crowther",
    "Halloran", "Vasquez", "Thornbury", "Underhill", "Jablonski", "Merriweather", "Castell",
    "Duvall", "Everly", "Farquhar", "Gustafsson", "Holmgren", "Ingleby", "Jurado", "Kavanagh",
    "Lomax", "Mbeki", "Nettleford", "Orzechowski", "Pemberton", "Quayle", "Rasmussen",
    "Sorensen", "Tolliver", "Ulloa", "Valdivia", "Winterbottom", "Yilmaz", "Zamora",
    "Arkwright", "Bellamy",
)

PLACE_HEADS = (
    "Ash", "Bram", "Cal", "Dun", "Elm", "Fen", "Gale", "Hol", "Ire", "Kel", "Lor", "Mar",
    "Nor", "Oak", "Pem", "Quen", "Ros", "Sel", "Tam", "Ul", "Ver", "Wil", "Yar", "Zen",
    "Bris", "Carn", "Drum", "Eas", "Frost", "Glen", "Hart", "Kings", "Lang", "Mill", "Ned",
    "Orr", "Pax", "Raven", "Stan", "Thorn",
)
PLACE_TAILS = (
    "ford", "mouth", "haven", "wick", "bury", "stead", "moor", "field", "gate", "holm", "by",
    "ton", "ridge", "dale", "port", "minster", "combe", "ley", "shaw", "thwaite", "well",
    "hurst", "brook", "worth", "cliffe",
)

COMPANY_STEMS = (
    "Kestrel", "Norvane", "Altamira", "Brightline", "Cobalt", "Driftwood", "Ember", "Fathom",
    "Granite", "Halcyon", "Ironbark", "Juniper", "Keystone", "Lodestar", "Meridian", "Nimbus",
    "Obsidian", "Palisade", "Quarry", "Redwater", "Saltmarsh", "Tidewater", "Umbra", "Vireo",
    "Windrose", "Xylem", "Yellowfin", "Zenith", "Ardent", "Bastion", "Cinder", "Dovetail",
    "Estuary", "Foxglove", "Gossamer", "Harbinger", "Inkwell", "Jetstream", "Kiln", "Lantern",
    "Marlin", "Northgate", "Orchard", "Pinnacle", "Quicksilver", "Rookery", "Sable", "Thistle",
    "Upland", "Verdant",
)
COMPANY_KINDS = (
    "Systems", "Dynamics", "Labs", "Works", "Holdings", "Foundry", "Partners", "Logistics",
    "Analytics", "Robotics", "Textiles", "Foods", "Optics", "Maritime", "Ceramics", "Press",
    "Instruments", "Mills", "Brewing", "Aviation", "Pharma", "Studios", "Shipping", "Energy",
)

RIVER_TAILS = (
    "en", "wy", "ock", "el", "ow", "ith", "an", "er", "idge", "ey", "und", "orn", "ay", "ess",
    "ine", "urn",
)
PLACE_PREFIXES = ("", "Upper ", "Lower ", "North ", "South ", "East ", "West ")

ADJECTIVES = (
    "Silent", "Crimson", "Hollow", "Last", "Golden", "Forgotten", "Winter", "Broken",
    "Distant", "Gentle", "Secret", "Iron", "Glass", "Burning", "Quiet", "Restless", "Painted",
    "Drowned", "Northern", "Velvet", "Paper", "Salt", "Midnight", "Wandering", "Borrowed",
    "Copper", "Sleeping", "Hidden", "Amber", "Patient",
)
NOUNS = (
    "Orchard", "Lighthouse", "Cartographer", "Harbour", "Almanac", "Garden", "Tide", "Clock",
    "Meadow", "Archive", "Bridge", "Lantern", "Compass", "Sparrow", "Cathedral", "Ferry",
    "Observatory", "Winter", "Orchestra", "Apprentice", "Vineyard", "Telegraph", "Island",
    "Weaver", "Mapmaker", "Glasshouse", "Shipwright", "Kingdom", "Beekeeper", "Canal",
)

PET_HEADS = (
    "Bis", "Mo", "Pip", "Tru", "Wof", "Zig", "Lu", "Nib", "Pom", "Rus", "Sko", "Taf", "Bo",
    "Dax", "Fig", "Gus", "Hob", "Jinx", "Kip", "Mun", "Bram", "Cob", "Dot", "Fen", "Gob", "Huck",
    "Lob", "Mab", "Nox", "Pud", "Rolo", "Snu",
)
PET_TAILS = (
    "cuit", "ffle", "per", "ddle", "sley", "kin", "bo", "let", "zo", "wick", "ty", "gle", "mo",
    "dge", "nny", "rkle",
)

PRODUCT_STEMS = (
    "Aria", "Beacon", "Cascade", "Delta", "Echo", "Flux", "Glyph", "Helix", "Ion", "Jolt",
    "Kite", "Lumen", "Mosaic", "Nova", "Orbit", "Prism", "Quill", "Relay", "Strata", "Tessera",
)

# Refusable but not empty: fewer than three words.
SHORT_TEXTS = (
    "ok", "thanks", "see above", "noted", "hello there", "n/a", "TODO", "more later", "good point",
    "agreed", "lol", "same here", "why?", "test", "placeholder", "brb", "ok thanks", "nice",
    "not sure", "fine", "hmm", "yes", "no idea", "will check", "got it", "ping", "tbd",
    "see you", "cool", "asdf",
)

# Refusable, three words or more, so a word-count rule does not catch them: chat that
# states nothing a memory should keep.
CHITCHAT = (
    "ok thanks a lot!", "haha sure thing", "lol that is so true", "sounds good to me",
    "ok cool, thanks!", "no worries at all", "haha yes exactly", "great, talk soon!",
    "thanks so much!!", "ok ok, got it now", "sure, why not", "ha, love that",
    "yes yes, of course", "that makes sense, thanks", "nice one, cheers", "ok will do",
    "hmm let me think", "all good here, thanks", "right, fair enough", "oh wow, haha",
    "cool cool cool", "thanks, you too!", "yep, sounds right", "see you later then",
    "good morning everyone!", "happy friday all!", "lol no way", "omg yes please",
    "fine by me, thanks", "ok, noted, thanks", "hi, how are you?", "thank you, have a nice day",
)

# The same, naming someone and carrying a number, as facts do: {first} a first name,
# {full} a full name nobody is asked about, {n} {m} {d} {h} {y} numbers, {month}.
CHITCHAT_NAMED = (
    "haha {first}, {n} more days to go", "thanks {first}!! see you at {h}",
    "ok {first}, {n} minutes and I'm there", "lol {first} that was {n} years ago",
    "morning {first}, coffee at {h}?", "cheers {first}, talk at {h} then",
    "{first} you legend, {n} out of {m} haha", "happy friday {first}, {n} hours left lol",
    "omg {first} yes, {m} minutes tops", "ok ok {first}, round {n} it is",
    "sure {first}, after {h} works for me", "nice one {first}, that makes {n} of us",
)

# Refusable: signatures, disclaimers and notices that come with messages, not facts.
BOILERPLATE = (
    "Sent from my phone. Please excuse any typos.",
    "This email and any attachments are confidential and intended solely for the addressee.",
    "If you received this message in error, please notify the sender and delete it.",
    "Please consider the environment before printing this email.",
    "Best regards, the support team",
    "Kind regards, and thank you for your patience.",
    "You are receiving this because you subscribed to notifications.",
    "To unsubscribe from these updates, change your settings.",
    "This message was generated automatically; please do not reply.",
    "Disclaimer: the views expressed here are the author's own.",
    "Click here to view this message in your browser.",
    "All rights reserved. No part of this document may be reproduced.",
    "Join the meeting with the link below; dial-in numbers are attached.",
    "Your ticket has been received and will be answered shortly.",
    "Out of office: I will reply when I return.",
    "Confidential: for internal use only.",
    "Terms and conditions apply. See the website for details.",
    "---------- Forwarded message ----------",
    "Reply above this line to respond to this conversation.",
    "Synced from the notes app. Last edited on another device.",
    "This conversation has been archived. Messages may be delayed.",
    "Attachments were removed from this message for security reasons.",
    "Please rate your experience with our service today.",
    "Thanks and regards, sent on behalf of the team",
)

BOILERPLATE_NAMED = (
    "Sent from {full}'s phone, {d} {month}",
    "Meeting notes taken by {full}, page {n} of {m}",
    "Forwarded by {full} on {d} {month} {y}",
    "Signed, {full} ({d}/{n}/{y})",
    "This message was sent by {full} to {m} recipients.",
    "Page {n} of {m}. Prepared by {full}, {month} {y}.",
    "Automatic reply from {full}: back on {d} {month}.",
    "Posted by {full} at {h}:{m} in the general channel",
    "Calendar invite from {full}: {d} {month}, {h} pm",
    "Draft {n} of {m}, last saved by {full}",
    "Shared by {full} with {m} people",
    "Transcript {n}, recorded by {full} on {d} {month}",
)
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")

# Junk's openings, on facts a gate must keep (gate._opened): one word for chat, so a
# short fact stays short.
CHAT_OPENERS = ("btw", "fyi", "haha", "lol", "so", "oh,", "ok,", "hey,", "omg", "psst,")
NOTICE_OPENERS = ("Please note:", "Reminder:", "For your information:", "Notice:",
                  "Kind reminder:", "Update:")

# Clean, in junk's form: real facts with no name and no number.
PLAIN_FACTS = (
    "The {room} on the {ordinal} floor is closed for repairs.",
    "The {thing} in the {room} runs on {fuel}.",
    "The {meeting} is held in the {room} from now on.",
    "The {team} team sits next to the {room}.",
    "The {thing} in the {room} needs a new {part}.",
    "The back door of the {room} sticks in wet weather.",
    "Parking behind the {room} is for visitors only.",
    "The key to the {room} hangs by the {thing}.",
    "The {team} team orders lunch from the bakery on the corner.",
    "The {meeting} moved to the {room} on the {ordinal} floor.",
    "Only the {team} team can book the {room}.",
    "The {room} is the one the {meeting} takes place in.",
    "The {thing} on the {ordinal} floor was replaced.",
)
PLAIN_FILLERS = {
    "room": ("kitchen", "library", "workshop", "archive room", "print room", "basement",
             "canteen", "boardroom", "post room", "studio"),
    "ordinal": ("second", "third", "fourth", "top", "ground"),
    "thing": ("kettle", "printer", "kiln", "boiler", "lift", "coffee machine", "shredder",
              "projector"),
    "fuel": ("gas", "oil", "solar power", "wood pellets", "mains power"),
    "meeting": ("stand-up", "planning meeting", "staff lunch", "budget review", "book club"),
    "team": ("design", "sales", "finance", "legal", "support", "payroll"),
    "part": ("filter", "fuse", "hinge", "cable", "belt"),
}

# Clean but short: real facts about people given only a short first name (never one of
# FIRST_NAMES), some of them two words long, which a word-count rule refuses.
SHORT_NAMES = (
    "Ann", "Ivo", "Lu", "Cy", "Di", "Ed", "Flo", "Gil", "Hu", "Ida", "Jo", "Kai", "Lev", "Max",
    "Ned", "Oz", "Pia", "Quin", "Rex", "Sal", "Tam", "Uma", "Vic", "Wes", "Xia", "Yul", "Zed",
    "Abe", "Bea", "Eve", "Fay", "Hal", "Ike", "Jan", "Kit", "Liv", "Mo", "Nia", "Ola", "Ros",
)
SHORT_FACTS = (
    "{n} resigned.", "{n} retired.", "{n} emigrated.", "{n} remarried.", "{n} graduated.",
    "{n} is {age}.", "{n} moved to {town}.", "{n} plays {game}.", "{n} speaks {language}.",
    "{n} owns a {thing}.", "{n} has twins.", "{n} quit smoking.", "{n} got married.",
    "{n} is vegetarian.", "{n} sold the {thing}.",
)
SHORT_FILLERS = {
    "town": ("Oslo", "Turin", "Porto", "Gdansk", "Leeds", "Ghent", "Bergen", "Split", "Cork",
             "Lyon", "Tartu", "Graz"),
    "game": ("chess", "cricket", "bridge", "golf", "rugby", "darts", "go"),
    "language": ("Welsh", "Basque", "Finnish", "Tamil", "Maltese", "Icelandic"),
    "thing": ("boat", "kiln", "van", "loom", "canoe", "tractor"),
}
