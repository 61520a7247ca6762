"""Write the README's and docs' tables from the result files they cite.

    python scripts/tables.py            # rewrite every table of docs/tables.toml
    python scripts/tables.py --check    # exit 1, naming each table that differs

Each table sits between ``<!-- table:NAME begin -->`` and ``<!-- table:NAME end -->``
in its document; ``memory_bench/render/doctables.py`` says how a spec reads. Bad input
(a spec, a marker or a file that cannot be read): one line on stderr, exit 2.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from memory_bench.errors import BadInput
from memory_bench.render.doctables import apply_tables, load_specs, loader

ROOT = Path(__file__).resolve().parents[1]


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(prog="tables.py")
    ap.add_argument("--check", action="store_true", help="compare only; exit 1 on a difference")
    ap.add_argument("--spec", type=Path, default=ROOT / "docs" / "tables.toml")
    ap.add_argument("--only", action="append", default=[], metavar="NAME",
                    help="only this table (repeatable)")
    args = ap.parse_args(argv)
    try:
        specs = [s for s in load_specs(args.spec) if not args.only or s.name in args.only]
        changed = apply_tables(ROOT, specs, loader(ROOT), write=not args.check)
    except BadInput as exc:
        print(f"tables: {exc}", file=sys.stderr)
        return 2
    for name in changed:
        print(f"{'differs' if args.check else 'rewrote'}: {name}")
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
