"""Benchmark the library at scale: `note add`, `search` and `list --tag` latencies.

Builds a library of synthetic papers and notes (default 100,000 and 1,000,000; `--quick`
10,000 and 100,000), then times the store API, and a few runs through the real CLI for the
process overhead. Each figure is also given as a ratio to a reference measured in the same
run on the same file: a bare durable INSERT + COMMIT for `note add`, a bare FTS5 MATCH
(no join, no snippet) for `search`, a bare indexed SELECT for `list --tag`.
`--backend postgresql` measures the same operations on PostgreSQL (a throwaway server with
fsync on, or `--postgres-url`) against its own references (INSERT + COMMIT, a bare
tsquery @@ on the GIN index, the tag SELECT); `--backend both` runs each at the same sizes.

Papers are inserted through `Store.upsert` (the same path `bib add` uses); the notes are
bulk-inserted with SQL in one transaction, since adding a million notes one commit at a time
would only time the disk.

    python benchmarks/store.py --quick
    python benchmarks/store.py --json figures.json
    python benchmarks/store.py --quick --backend both
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from annotations import Filters, open_store  # noqa: E402
from annotations.sqlite import SQLiteStore, now  # noqa: E402
from bib.record import Author, Record, Tag, TagKind  # noqa: E402

TARGETS_MS = {"note add": 2.0, "search": 20.0}


def vocabulary(rng: random.Random, size: int = 6000) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = {"".join(rng.choices(letters, k=rng.randint(3, 10))) for _ in range(size * 2)}
    return sorted(words)[:size]


class Text:
    """Zipf-distributed words, so that some query terms are common and most are rare."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.words = vocabulary(rng)
        self.weights = [1 / (rank + 1) for rank in range(len(self.words))]

    def sentence(self, n: int) -> str:
        return " ".join(self.rng.choices(self.words, self.weights, k=n))


def papers(start: int, count: int, text: Text, topics: list[str]) -> list[Record]:
    rng = text.rng
    return [
        Record(
            id=f"bench:{i:07d}",
            key=f"paper{i:07d}",
            title=text.sentence(9).capitalize(),
            abstract=text.sentence(150),
            venue=rng.choice(["ICML", "NeurIPS", "ICLR", "ACL", "CVPR"]),
            year=rng.randint(2015, 2026),
            authors=(Author("Author", f"A{i % 997}"), Author("Writer", f"W{i % 991}")),
            tags=tuple(Tag(TagKind.TOPIC, t) for t in rng.sample(topics, 3)),
        )
        for i in range(start, start + count)
    ]


def build(path: Path, n_papers: int, n_notes: int, seed: int) -> tuple[list[str], list[str], Text]:
    rng = random.Random(seed)
    text = Text(rng)
    topics = [f"topic-{n:03d}" for n in range(500)]
    started = time.perf_counter()
    with open_store(path) as store:
        batch = 10_000
        for start in range(0, n_papers, batch):
            store.upsert(papers(start, min(batch, n_papers - start), text, topics))
        ids = [row[0] for row in store.conn.execute("SELECT id FROM records")]
        print(f"  papers: {len(ids):,} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        started = time.perf_counter()
        with store.transaction() as conn:
            stamp = now()
            for start in range(0, n_notes, 50_000):
                conn.executemany(
                    "INSERT INTO notes (uuid, record_id, body, created, updated)"
                    " VALUES (?, ?, ?, ?, ?)",
                    [
                        (str(uuid.uuid4()), rng.choice(ids), text.sentence(30), stamp, stamp)
                        for _ in range(min(50_000, n_notes - start))
                    ],
                )
            conn.executemany(
                "INSERT OR IGNORE INTO personal_tags (record_id, tag, added) VALUES (?, ?, ?)",
                [
                    (rid, f"mine-{rng.randrange(50)}", stamp)
                    for rid in rng.sample(ids, len(ids) // 10)
                ],
            )
        print(f"  notes: {n_notes:,} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        store.conn.execute("PRAGMA optimize")
    return ids, topics, text


def reuse(path: Path, seed: int) -> tuple[list[str], list[str], Text]:
    """The ids, topics and word list of a library `build` made with the same seed."""
    text = Text(random.Random(seed))
    with sqlite3.connect(path) as conn:
        ids = [row[0] for row in conn.execute("SELECT id FROM records")]
    return ids, [f"topic-{n:03d}" for n in range(500)], text


def count_notes(path: Path) -> int:
    with sqlite3.connect(path) as conn:
        return int(conn.execute("SELECT count(*) FROM notes").fetchone()[0])


def timed(action: Callable[[], object], samples: int) -> list[float]:
    times = []
    for _ in range(samples):
        start = time.perf_counter()
        action()
        times.append((time.perf_counter() - start) * 1000)
    return times


def summary(times: list[float]) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "p50_ms": round(statistics.median(ordered), 3),
        "p95_ms": round(ordered[int(0.95 * (len(ordered) - 1))], 3),
        "n": len(ordered),
    }


def measure(path: Path, ids: list[str], topics: list[str], text: Text, samples: int) -> dict:
    rng = random.Random(7)
    keys = [f"paper{int(i.split(':')[1]):07d}" for i in rng.sample(ids, samples)]
    results: dict[str, dict] = {}
    with open_store(path) as store:
        key_iter = iter(keys * 3)
        results["note add"] = summary(
            timed(lambda: store.add_note(next(key_iter), text.sentence(30)), samples)
        )
        results["reference: INSERT + COMMIT"] = summary(timed(lambda: bare_insert(store), samples))
        store.conn.execute("PRAGMA synchronous = NORMAL")
        results["note add, synchronous=NORMAL (not used)"] = summary(
            timed(lambda: store.add_note(next(key_iter), text.sentence(30)), samples)
        )
        store.conn.execute("PRAGMA synchronous = FULL")

        words = text.words
        bands = {
            "search (common word)": words[:50],
            "search (mid word)": words[200:1000],
            "search (rare word)": words[3000:],
        }
        all_search: list[float] = []
        for label, pool in bands.items():
            times = timed(lambda pool=pool: store.search(rng.choice(pool)), samples // 3)
            results[label] = summary(times) | {"matching_notes": matches(store, pool, rng)}
            all_search += times
        two = timed(
            lambda: store.search(f"{rng.choice(words[200:1000])} {rng.choice(words[:200])}"),
            samples // 3,
        )
        results["search (two words)"] = summary(two)
        all_search += two
        results["search"] = summary(all_search)
        results["reference: bare FTS5 MATCH"] = summary(
            timed(lambda: bare_match(store, rng.choice(words[200:1000])), samples)
        )

        results["list --tag"] = summary(
            timed(lambda: store.entries(Filters(tags=(rng.choice(topics),))), samples)
        )
        results["reference: SELECT ids by tag"] = summary(
            timed(lambda: bare_tag(store, rng.choice(topics)), samples)
        )
    return results


def matches(store: SQLiteStore, pool: list[str], rng: random.Random) -> int:
    """Median number of notes a word of the band occurs in (how much bm25 has to rank)."""
    counts = [
        store.conn.execute(
            "SELECT count(*) FROM notes_fts WHERE notes_fts MATCH ?", (f'"{w}"',)
        ).fetchone()[0]
        for w in rng.sample(pool, 5)
    ]
    return int(statistics.median(counts))


def bare_insert(store: SQLiteStore) -> None:
    conn = store.conn
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("INSERT INTO bench_ref (body) VALUES (?)", ("x" * 200,))
    conn.execute("COMMIT")


def bare_match(store: SQLiteStore, word: str) -> None:
    store.conn.execute(
        "SELECT rowid FROM notes_fts WHERE notes_fts MATCH ? ORDER BY rank LIMIT 20", (word,)
    ).fetchall()


def bare_tag(store: SQLiteStore, tag: str) -> None:
    store.conn.execute("SELECT record_id FROM record_tags WHERE value = ?", (tag,)).fetchall()


def cli_runs(path: Path, topics: list[str], word: str, runs: int) -> dict:
    env = {**os.environ, "BIB_LIBRARY": str(path), "PYTHONPATH": str(ROOT), "NO_COLOR": "1"}
    commands = {
        "CLI: bib note add": ["note", "add", "paper0000001", "a note from the CLI"],
        "CLI: bib search": ["search", word],
        "CLI: bib list --tag": ["list", "--tag", topics[0]],
        "CLI: bib --version (start-up only)": ["--version"],
    }
    results = {}
    for label, args in commands.items():
        times = timed(
            lambda args=args: subprocess.run(
                [sys.executable, "-m", "bib", *args], env=env, capture_output=True, check=True
            ),
            runs,
        )
        results[label] = summary(times)
    return results


def build_pg(url: str, n_papers: int, n_notes: int, seed: int) -> tuple[list[str], list[str], Text]:
    """`build` on PostgreSQL: papers through `Store.upsert`, notes bulk-loaded with COPY."""
    rng = random.Random(seed)
    text = Text(rng)
    topics = [f"topic-{n:03d}" for n in range(500)]
    started = time.perf_counter()
    with open_store(url) as store:
        for start in range(0, n_papers, 10_000):
            store.upsert(papers(start, min(10_000, n_papers - start), text, topics))
        conn = store.conn
        ids = [row[0] for row in conn.execute("SELECT id FROM records")]
        print(f"  papers: {len(ids):,} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
        started = time.perf_counter()
        stamp = now()
        with conn.transaction(), conn.cursor() as cursor:
            with cursor.copy(
                "COPY notes (uuid, record_id, body, created, updated) FROM STDIN"
            ) as copy:
                for _ in range(n_notes):
                    copy.write_row(
                        (str(uuid.uuid4()), rng.choice(ids), text.sentence(30), stamp, stamp)
                    )
            cursor.executemany(
                "INSERT INTO personal_tags (record_id, tag, added) VALUES (%s, %s, %s)"
                " ON CONFLICT DO NOTHING",
                [
                    (rid, f"mine-{rng.randrange(50)}", stamp)
                    for rid in rng.sample(ids, len(ids) // 10)
                ],
            )
        conn.execute("VACUUM ANALYZE")
        conn.execute("CREATE TABLE IF NOT EXISTS bench_ref (id BIGSERIAL PRIMARY KEY, body TEXT)")
        print(f"  notes: {n_notes:,} in {time.perf_counter() - started:.1f} s", file=sys.stderr)
    return ids, topics, text


def measure_pg(url: str, ids: list[str], topics: list[str], text: Text, samples: int) -> dict:
    """`measure` on PostgreSQL, with the same operations and its own bare references."""
    rng = random.Random(7)
    keys = [f"paper{int(i.split(':')[1]):07d}" for i in rng.sample(ids, samples)]
    results: dict[str, dict] = {}
    with open_store(url) as store:
        conn = store.conn
        key_iter = iter(keys * 3)
        results["note add"] = summary(
            timed(lambda: store.add_note(next(key_iter), text.sentence(30)), samples)
        )

        def bare_insert_pg() -> None:
            with conn.transaction():
                conn.execute("INSERT INTO bench_ref (body) VALUES (%s)", ("x" * 200,))

        results["reference: INSERT + COMMIT"] = summary(timed(bare_insert_pg, samples))
        words = text.words
        bands = {
            "search (common word)": words[:50],
            "search (mid word)": words[200:1000],
            "search (rare word)": words[3000:],
        }
        all_search: list[float] = []
        for label, pool in bands.items():
            times = timed(lambda pool=pool: store.search(rng.choice(pool)), samples // 3)
            results[label] = summary(times)
            all_search += times
        two = timed(
            lambda: store.search(f"{rng.choice(words[200:1000])} {rng.choice(words[:200])}"),
            samples // 3,
        )
        results["search (two words)"] = summary(two)
        results["search"] = summary(all_search + two)
        results["reference: bare tsquery @@ (GIN)"] = summary(
            timed(
                lambda: conn.execute(
                    "SELECT id FROM notes WHERE search @@ to_tsquery('simple', %s) LIMIT 20",
                    (rng.choice(words[200:1000]),),
                ).fetchall(),
                samples,
            )
        )
        results["list --tag"] = summary(
            timed(lambda: store.entries(Filters(tags=(rng.choice(topics),))), samples)
        )
        results["reference: SELECT ids by tag"] = summary(
            timed(
                lambda: conn.execute(
                    "SELECT record_id FROM record_tags WHERE lower(value) = lower(%s)",
                    (rng.choice(topics),),
                ).fetchall(),
                samples,
            )
        )
    return results


def run_sqlite(
    args: argparse.Namespace, n_papers: int, n_notes: int
) -> tuple[dict, int, int, float]:
    with tempfile.TemporaryDirectory() as tmp:
        path = args.library or Path(tmp) / "bench.sqlite"
        if args.reuse and path.exists():
            ids, topics, text = reuse(path, seed=1)
            n_papers, n_notes = len(ids), count_notes(path)
            print(f"reusing {n_papers:,} papers and {n_notes:,} notes in {path}", file=sys.stderr)
        else:
            print(f"building {n_papers:,} papers and {n_notes:,} notes in {path}", file=sys.stderr)
            ids, topics, text = build(path, n_papers, n_notes, seed=1)
        with sqlite3.connect(path) as conn:
            conn.execute("CREATE TABLE IF NOT EXISTS bench_ref (id INTEGER PRIMARY KEY, body TEXT)")
        results = measure(path, ids, topics, text, args.samples)
        results.update(cli_runs(path, topics, text.words[500], args.cli_runs))
        size = sum(p.stat().st_size for p in Path(path).parent.glob(Path(path).name + "*"))
    return results, n_papers, n_notes, round(size / 1e6, 1)


@contextlib.contextmanager
def postgres(url: str | None) -> Iterator[str]:
    """The database to measure: `--postgres-url`, else a fresh durable throwaway server."""
    if url:
        yield url
        return
    sys.path.insert(0, str(ROOT / "tests"))
    from postgres_server import throwaway

    with throwaway(durable=True) as server:
        yield server.url


def run_pg(args: argparse.Namespace, n_papers: int, n_notes: int) -> tuple[dict, int, int, float]:
    with postgres(args.postgres_url) as url:
        print(f"building {n_papers:,} papers and {n_notes:,} notes on PostgreSQL", file=sys.stderr)
        ids, topics, text = build_pg(url, n_papers, n_notes, seed=1)
        results = measure_pg(url, ids, topics, text, args.samples)
        results.update(cli_runs(url, topics, text.words[500], args.cli_runs))  # type: ignore[arg-type]
        with open_store(url) as store:
            row = store.conn.execute("SELECT pg_database_size(current_database())").fetchone()
    return results, n_papers, n_notes, round(row[0] / 1e6, 1)


def ratios_of(results: dict) -> dict[str, float]:
    match = results.get("reference: bare FTS5 MATCH") or results["reference: bare tsquery @@ (GIN)"]
    return {
        "note add / INSERT+COMMIT": results["note add"]["p50_ms"]
        / results["reference: INSERT + COMMIT"]["p50_ms"],
        "search / bare index match": results["search"]["p50_ms"] / match["p50_ms"],
        "list --tag / bare SELECT": results["list --tag"]["p50_ms"]
        / results["reference: SELECT ids by tag"]["p50_ms"],
    }


def print_table(backend: str, results: dict, n_papers: int, n_notes: int, size_mb: float) -> None:
    print(f"\n{backend}: {n_papers:,} papers, {n_notes:,} notes, library {size_mb} MB")
    print(f"{'operation':40} {'p50 ms':>9} {'p95 ms':>9}  target")
    for label, figures in results.items():
        target = TARGETS_MS.get(label)
        verdict = ""
        if target is not None:
            verdict = f"<= {target} ms: " + ("met" if figures["p50_ms"] <= target else "MISSED")
        extra = (
            f"  (a word of the band is in {figures['matching_notes']:,} notes)"
            if ("matching_notes" in figures)
            else ""
        )
        print(f"{label:40} {figures['p50_ms']:9.3f} {figures['p95_ms']:9.3f}  {verdict}{extra}")
    for label, ratio in ratios_of(results).items():
        print(f"ratio {label:34} {ratio:9.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="10,000 papers, 100,000 notes")
    parser.add_argument("--papers", type=int)
    parser.add_argument("--notes", type=int)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--cli-runs", type=int, default=7)
    parser.add_argument("--library", type=Path, help="Keep the library here (default: temp)")
    parser.add_argument("--reuse", action="store_true", help="Measure an existing --library")
    parser.add_argument("--json", type=Path, help="Also write the figures as JSON here")
    parser.add_argument(
        "--backend",
        choices=["sqlite", "postgresql", "both"],
        default="sqlite",
        help="Which store to measure; `both` measures each at the same sizes in one run",
    )
    parser.add_argument(
        "--postgres-url", help="Measure this (empty) database; default: a throwaway server"
    )
    args = parser.parse_args()
    n_papers = args.papers or (10_000 if args.quick else 100_000)
    n_notes = args.notes or (100_000 if args.quick else 1_000_000)
    runners = {"sqlite": run_sqlite, "postgresql": run_pg}
    chosen = list(runners) if args.backend == "both" else [args.backend]
    figures: dict[str, dict] = {}
    for backend in chosen:
        results, papers_n, notes_n, size_mb = runners[backend](args, n_papers, n_notes)
        print_table(backend, results, papers_n, notes_n, size_mb)
        figures[backend] = {
            "papers": papers_n,
            "notes": notes_n,
            "size_mb": size_mb,
            "results": results,
            "ratios": ratios_of(results),
        }
    if len(chosen) > 1:
        print(f"\n{'p50 ms':24}" + "".join(f"{b:>12}" for b in chosen))
        for label in ("note add", "search", "list --tag"):
            row = "".join(f"{figures[b]['results'][label]['p50_ms']:12.3f}" for b in chosen)
            print(f"{label:24}{row}")
    if args.json:
        args.json.write_text(
            json.dumps(figures if len(chosen) > 1 else figures[chosen[0]], indent=2)
        )


if __name__ == "__main__":
    main()
