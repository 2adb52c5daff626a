"""Fetch the corpus documents that are not kept (``"committed": false`` in sources.json).

The public corpus is data beside the checkout, in ``../shared/corpus/`` (issue 27), not in
the project. Some of its documents may not be redistributed (no licence, or one that does
not allow it) or are too large to keep. ``sources.json`` names each one's repository, path
and commit; this script downloads them from their GitHub raw URLs into
``../shared/corpus/fetched/``, where ``bench/bench_import.py`` picks them up.

It needs a network: on a machine that only reaches the package registries (as where this
corpus was collected) every download fails, the script says so per document and exits 1.

    python tests/corpus/fetch.py            # every document not kept
    python tests/corpus/fetch.py stripe     # only the named ones
    python tests/corpus/fetch.py --corpus DIR stripe   # a corpus elsewhere
"""

from __future__ import annotations

import json
import sys
import urllib.request
from pathlib import Path

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"
RAW = "https://raw.githubusercontent.com/{repository}/{commit}/{path}"


def main(argv: list[str]) -> int:
    corpus = CORPUS
    if argv[:1] == ["--corpus"] and len(argv) > 1:
        corpus, argv = Path(argv[1]).resolve(), argv[2:]
    if not (corpus / "sources.json").is_file():
        print(f"no corpus at {corpus}: its sources.json is missing", file=sys.stderr)
        return 1
    sources = json.loads((corpus / "sources.json").read_text(encoding="utf-8"))
    wanted = set(argv)
    failed = 0
    for entry in sources:
        if entry["committed"] or (wanted and entry["name"] not in wanted):
            continue
        target = corpus / entry["file"]
        if target.exists():
            print(f"{entry['name']}: already at {target.relative_to(corpus)}")
            continue
        url = RAW.format(**entry)
        try:
            with urllib.request.urlopen(url, timeout=60) as response:
                data = response.read()
        except OSError as exc:
            print(f"{entry['name']}: not fetched from {url}: {exc}", file=sys.stderr)
            failed += 1
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        print(f"{entry['name']}: {len(data):,} bytes -> {target.relative_to(corpus)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
