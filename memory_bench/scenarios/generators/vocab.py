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
