"""The memory tools an agent is given: remember, recall and forget notes in a `NoteStore`. What a run recalled
is in its event log (each recall's result lists the notes with their ids)."""

from __future__ import annotations

from toollab.memory.store import NoteStore
from toollab.tools import Tool, ToolError, tool


def memory_tools(store: NoteStore, author: str = "") -> list[Tool]:
    """`remember(note, tags)`, `recall(query, k)`, `forget(note_id)` over `store`; `author` marks this agent's
    notes (agents sharing a store see each other's)."""

    @tool(name="remember")
    def remember(note: str, tags: list[str] | None = None) -> str:
        """Save a note for later runs: a fact, a preference or a result worth keeping.

        Args:
            note: The note, written to be understood on its own later.
            tags: A few words to find it by (optional).
        """
        try:
            saved = store.save(note, tags or (), author)
        except ValueError as exc:
            raise ToolError(f"{exc}: give the note's text in `note`") from None
        return f"Saved as note {saved.id}."

    @tool(name="recall", idempotent=True)
    def recall(query: str, k: int = 5) -> str:
        """Search the saved notes; returns the best matches with their ids.

        Args:
            query: Words the notes should contain.
            k: How many notes to return at most (1-20).
        """
        found = store.search(query, max(1, min(k, 20)))
        if not found:
            return f"No saved note matches {query!r}."
        return "\n".join(n.line() for n in found)

    @tool(name="forget", idempotent=True)
    def forget(note_id: int) -> str:
        """Delete a saved note that is wrong or no longer wanted.

        Args:
            note_id: The note's id, as recall shows it.
        """
        if not store.forget(note_id):
            raise ToolError(f"there is no note {note_id}; recall shows the ids of the notes that exist")
        return f"Forgot note {note_id}."

    return [remember, recall, forget]
