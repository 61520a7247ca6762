"""Rebuild memory_bench/scenarios/corpus/ (the natural scenario's WordNet slice) from
Debian's wordnet-base.

    apt-get install -y wordnet-base
    python scripts/build_corpus_slice.py            # reads /usr/share/wordnet
    python scripts/build_corpus_slice.py --deb wordnet-base_3.0-37_all.deb

The slice is every WordNet 3.0 noun synset that is *familiar* (at least one
of its words has this sense tagged in WordNet's sense-tagged corpus, i.e. the
sense is in use in real text) and is not an instance (no proper names of
people or places), less the few senses whose definition WordNet itself marks
as obscene, vulgar, offensive, disparaging, derogatory or ethnic, or that use
the word "retarded". For each synset it keeps the offset, lexicographer file,
words (with each word's sense count over all parts of speech, so the
generator can tell an unambiguous word from a polysemous one), the definition
and the example sentences. Output: gzipped JSON lines, byte-for-byte
reproducible; a manifest with the source package, its version, the source
files' hashes and the slice's sha256; and the WordNet licence notice.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import json
import re
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "memory_bench" / "scenarios" / "corpus"
SLICE = "wordnet-nouns.jsonl.gz"
PACKAGE = "wordnet-base"
POS_FILES = {"n": "noun", "v": "verb", "a": "adj", "r": "adv"}
# WordNet's lexicographer files 3..28 (lexnames(5WN)): the noun ones.
_LEXNAMES = (
    "noun.Tops noun.act noun.animal noun.artifact noun.attribute noun.body noun.cognition "
    "noun.communication noun.event noun.feeling noun.food noun.group noun.location "
    "noun.motive noun.object noun.person noun.phenomenon noun.plant noun.possession "
    "noun.process noun.quantity noun.relation noun.shape noun.state noun.substance noun.time"
)
NOUN_LEXNAMES = tuple(_LEXNAMES.split())
_QUOTED = re.compile(r'"([^"]+)"')
# Senses WordNet itself labels as obscene or as slurs are left out: a published
# benchmark does not need them, and every other sense is kept as WordNet has it.
_UNFIT = re.compile(
    r"obscene|vulgar|offensive|disparag|derogat|\bslur|ethnic|\bretard", re.IGNORECASE
)


def _read_index(path: Path) -> tuple[dict[str, int], dict[str, list[str]]]:
    """Per lemma: its sense count, and its tagged (in-use) synset offsets."""
    senses: dict[str, int] = {}
    tagged: dict[str, list[str]] = {}
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.startswith("  "):
            continue
        f = line.split()
        lemma, synset_cnt, p_cnt = f[0], int(f[2]), int(f[3])
        tagsense_cnt = int(f[5 + p_cnt])
        offsets = f[6 + p_cnt :]
        assert len(offsets) == synset_cnt, line
        senses[lemma] = synset_cnt
        tagged[lemma] = offsets[:tagsense_cnt]
    return senses, tagged


def _split_gloss(gloss: str) -> tuple[str, list[str]]:
    """WordNet's gloss is 'definition; "example"; "example"'."""
    first = gloss.find('"')
    definition = (gloss if first < 0 else gloss[:first]).strip().rstrip(";").strip()
    examples = [e.strip() for e in _QUOTED.findall(gloss[first:])] if first >= 0 else []
    return definition, [e for e in examples if e]


def _read_nouns(path: Path) -> list[dict]:
    out = []
    for line in path.read_text(encoding="latin-1").splitlines():
        if line.startswith("  "):
            continue
        head, _, gloss = line.partition(" | ")
        f = head.split()
        offset, lexfile, w_cnt = f[0], int(f[1]), int(f[3], 16)
        words = [f[4 + 2 * i] for i in range(w_cnt)]
        p_cnt = int(f[4 + 2 * w_cnt])
        ptrs = f[5 + 2 * w_cnt : 5 + 2 * w_cnt + 4 * p_cnt : 4]
        definition, examples = _split_gloss(gloss.strip())
        out.append(
            {
                "offset": offset,
                "lexname": NOUN_LEXNAMES[lexfile - 3],
                "words": words,
                "instance": "@i" in ptrs,
                "definition": definition,
                "examples": examples,
            }
        )
    return out


def build(wn: Path) -> tuple[bytes, dict[str, str]]:
    """The slice's JSON lines (uncompressed) and the sha256 of every source file read."""
    files = [f"index.{p}" for p in POS_FILES.values()] + ["data.noun"]
    sources = {name: hashlib.sha256((wn / name).read_bytes()).hexdigest() for name in files}
    total: dict[str, int] = defaultdict(int)
    noun_tagged: dict[str, list[str]] = {}
    for name in POS_FILES.values():
        senses, tagged = _read_index(wn / f"index.{name}")
        for lemma, n in senses.items():
            total[lemma] += n
        if name == "noun":
            noun_tagged = tagged
    in_use = {off for offs in noun_tagged.values() for off in offs}
    lines = []
    for s in _read_nouns(wn / "data.noun"):
        if s["instance"] or s["offset"] not in in_use or not s["definition"]:
            continue
        if _UNFIT.search(s["definition"]):
            continue
        record = {
            "offset": s["offset"],
            "lexname": s["lexname"],
            # [display form, senses over all parts of speech]
            "words": [[w.replace("_", " "), total[w.lower()]] for w in s["words"]],
            "definition": s["definition"],
            "examples": s["examples"],
        }
        lines.append(json.dumps(record, ensure_ascii=False, sort_keys=True))
    return ("\n".join(lines) + "\n").encode("utf-8"), sources


def _package_version() -> str:
    try:
        out = subprocess.run(
            ["dpkg-query", "-W", "-f", "${Version}", PACKAGE],
            capture_output=True, text=True, check=True,
        )
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def _from_deb(deb: Path, into: Path) -> tuple[Path, Path, str]:
    """Unpack a wordnet-base .deb with dpkg-deb; return (wordnet dir, copyright, version)."""
    subprocess.run(["dpkg-deb", "-x", str(deb), str(into)], check=True)
    version = subprocess.run(
        ["dpkg-deb", "-f", str(deb), "Version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    return into / "usr/share/wordnet", into / "usr/share/doc/wordnet-base/copyright", version


def _gzip(data: bytes) -> bytes:
    """gzip with no name and mtime 0, so the file is the same bytes on every rebuild."""
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, mtime=0, compresslevel=9) as gz:
        gz.write(data)
    return buf.getvalue()


def write_slice(wn: Path, copyright_file: Path, version: str, out: Path = OUT) -> dict:
    data, sources = build(wn)
    out.mkdir(parents=True, exist_ok=True)
    (out / SLICE).write_bytes(_gzip(data))
    notice = (
        "memory_bench/scenarios/corpus/ holds a slice of WordNet 3.0 (the familiar, "
        "non-instance noun\nsynsets: words, definitions, example sentences), rebuilt by\n"
        f"scripts/build_corpus_slice.py from the Debian package {PACKAGE} {version}.\n"
        "WordNet is redistributed here under the WordNet 3.0 licence below, which\n"
        "must accompany every copy. Its debian/copyright file follows verbatim.\n\n"
        "WordNet 3.0 Copyright 2006 by Princeton University.  All rights reserved.\n"
        "George A. Miller (1995). WordNet: A Lexical Database for English.\n"
        "Communications of the ACM Vol. 38, No. 11: 39-41.\n\n"
        "----- /usr/share/doc/wordnet-base/copyright -----\n\n"
    )
    (out / "WORDNET-LICENSE").write_text(
        notice + copyright_file.read_text(encoding="utf-8"), encoding="utf-8"
    )
    manifest = {
        "slice": SLICE,
        "format": "gzip of JSON lines: offset, lexname, words [[word, senses]], definition, "
        "examples",
        "synsets": data.count(b"\n"),
        "sha256": hashlib.sha256(data).hexdigest(),  # of the uncompressed JSON lines
        "source": {
            "corpus": "WordNet 3.0 (Princeton University)",
            "package": PACKAGE,
            "version": version,
            "files_sha256": sources,
        },
        "selection": "noun synsets, not instances, with at least one word whose sense is "
        "tagged in WordNet's sense-tagged corpus (index.noun tagsense_cnt), without senses whose "
        "definition marks them obscene, vulgar, offensive, disparaging, derogatory or ethnic, "
        "or that use the word retarded",
        "licence": "WORDNET-LICENSE",
    }
    (out / "manifest.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return manifest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wordnet-dir", type=Path, default=Path("/usr/share/wordnet"))
    ap.add_argument("--copyright", type=Path,
                    default=Path("/usr/share/doc/wordnet-base/copyright"))
    ap.add_argument("--deb", type=Path, help="read a wordnet-base .deb instead of the system")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if args.deb:
            wn, cr, version = _from_deb(args.deb, Path(tmp))
        else:
            wn, cr, version = args.wordnet_dir, args.copyright, _package_version()
        if not (wn / "data.noun").is_file():
            print(f"no WordNet at {wn}: apt-get install -y {PACKAGE}", file=sys.stderr)
            return 1
        manifest = write_slice(wn, cr, version, args.out)
    size = (args.out / SLICE).stat().st_size
    print(f"{manifest['synsets']} synsets, {size / 1e6:.2f} MB, sha256 {manifest['sha256']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
