"""Long-term memory: notes in a SQLite file, searched with its full-text index (FTS5, ranked by BM25).

A note survives restarts, and several agents (threads or processes) may share one file: the database runs in
WAL mode, waits for a writer instead of failing, and each operation opens its own connection, so a tool running
in a worker thread never shares one.
"""

from __future__ import annotations

import re
import sqlite3
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS notes (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    text TEXT NOT NULL,
    tags TEXT NOT NULL DEFAULT '',
    author TEXT NOT NULL DEFAULT '',
    created REAL NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS notes_index USING fts5(text, tags, content='notes', content_rowid='id');
CREATE TRIGGER IF NOT EXISTS notes_added AFTER INSERT ON notes BEGIN
    INSERT INTO notes_index(rowid, text, tags) VALUES (new.id, new.text, new.tags);
END;
CREATE TRIGGER IF NOT EXISTS notes_removed AFTER DELETE ON notes BEGIN
    INSERT INTO notes_index(notes_index, rowid, text, tags) VALUES ('delete', old.id, old.text, old.tags);
END;
"""
_WORD = re.compile(r"\w+", re.UNICODE)
# Words that would make every note match a question ("where does the user live?" is about "user" and "live")
STOPWORDS = frozenset(
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it its me "  # noqa: SIM905
    "my no not of on or our she he so than that the their them then there these they this to was we were what "
    "when where which who why will with would you your".split()
)


@dataclass(frozen=True, slots=True)
class Note:
    id: int
    text: str
    tags: tuple[str, ...]
    author: str
    created: float

    def line(self) -> str:
        """The note as a recall result shows it to a model."""
        day = time.strftime("%Y-%m-%d", time.gmtime(self.created))
        tags = f"; tags: {', '.join(self.tags)}" if self.tags else ""
        return f"[note {self.id}, {day}{tags}] {self.text}"


def match_query(text: str) -> str | None:
    """Free text as an FTS5 query: its words, quoted (so nothing a model writes is read as query syntax), any of
    them matching, common function words left out. None when nothing is left."""
    words = dict.fromkeys(w.lower() for w in _WORD.findall(text) if w.lower() not in STOPWORDS)
    return " OR ".join(f'"{w}"' for w in words) or None


class NoteStore:
    def __init__(self, path: str | Path, *, timeout: float = 30.0):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.timeout = timeout
        with self._connect() as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.executescript(SCHEMA)

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        db = sqlite3.connect(self.path, timeout=self.timeout)
        try:
            with db:  # one transaction: committed on success, rolled back on error
                yield db
        finally:
            db.close()

    def save(self, text: str, tags: Iterable[str] = (), author: str = "") -> Note:
        text = text.strip()
        if not text:
            raise ValueError("a note needs some text")
        clean = tuple(dict.fromkeys(t.strip().lower() for t in tags if t.strip()))
        created = time.time()
        with self._connect() as db:
            cursor = db.execute(
                "INSERT INTO notes(text, tags, author, created) VALUES (?, ?, ?, ?)",
                (text, " ".join(clean), author, created),
            )
            note_id = int(cursor.lastrowid or 0)
        return Note(note_id, text, clean, author, created)

    def search(self, query: str, k: int = 5, tags: Sequence[str] = ()) -> list[Note]:
        """The `k` notes that best match `query` (BM25 over text and tags), those with every tag in `tags`."""
        match = match_query(query)
        if match is None:
            return []
        wanted = [t.strip().lower() for t in tags if t.strip()]
        sql = (
            "SELECT n.id, n.text, n.tags, n.author, n.created FROM notes_index "
            "JOIN notes n ON n.id = notes_index.rowid WHERE notes_index MATCH ?"
            + " AND (' ' || n.tags || ' ') LIKE ?" * len(wanted)
            + " ORDER BY rank LIMIT ?"
        )
        with self._connect() as db:
            rows = db.execute(sql, (match, *(f"% {t} %" for t in wanted), k)).fetchall()
        return [_note(r) for r in rows]

    def get(self, note_id: int) -> Note | None:
        with self._connect() as db:
            row = db.execute("SELECT id, text, tags, author, created FROM notes WHERE id = ?", (note_id,)).fetchone()
        return None if row is None else _note(row)

    def forget(self, note_id: int) -> bool:
        """Delete a note; False when there was none with that id."""
        with self._connect() as db:
            return db.execute("DELETE FROM notes WHERE id = ?", (note_id,)).rowcount > 0

    def recent(self, k: int = 10) -> list[Note]:
        with self._connect() as db:
            rows = db.execute("SELECT id, text, tags, author, created FROM notes ORDER BY id DESC LIMIT ?", (k,))
            return [_note(r) for r in rows.fetchall()]

    def __len__(self) -> int:
        with self._connect() as db:
            return int(db.execute("SELECT count(*) FROM notes").fetchone()[0])


def _note(row: tuple[int, str, str, str, float]) -> Note:
    return Note(row[0], row[1], tuple(row[2].split()), row[3], row[4])
