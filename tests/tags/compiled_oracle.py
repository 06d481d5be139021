"""Every extractor stage as one function that both builds can be asked (`tagged`), and a
child process that answers it from the sources (`python tests/tags/compiled_oracle.py`,
with `BIB_PURE_PYTHON=1`): the oracle of `test_compiled.py`, which holds the compiled
extractors to the plain sources they are compiled from."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence

from bib.convert import tag_stages
from bib.extract import tags as tagging
from bib.extract.tags import EXTRACTED_KINDS
from bib.extract.vocabulary import shipped
from bib.record import Record


def tagged(papers: Sequence[tuple[str, str]]) -> list[str]:
    """The `repr` of each (title, abstract) as `bib convert` leaves it with every tag kind
    asked for, and tagged again with `loose` (keeping the topics a list's generic topics may
    leave out)."""
    records = [
        Record(id=str(i), title=title, abstract=abstract)
        for i, (title, abstract) in enumerate(papers)
    ]
    finished = records
    for stage in tag_stages(kinds=EXTRACTED_KINDS):
        finished = list(stage(finished))
    loose = tagging.tag_stream(records, vocabulary=shipped(), loose=True)
    return [repr(record) for record in [*finished, *loose]]


def serve() -> None:
    """Answer each line of JSON papers with a line of JSON `tagged` results."""
    for line in sys.stdin:
        print(json.dumps(tagged([tuple(p) for p in json.loads(line)])), flush=True)


if __name__ == "__main__":
    serve()
