"""Long-term memory: notes that outlive a run, in SQLite, and the tools an agent uses to keep and find them.
(Short-term memory, the context budget of one conversation, is the harness's: `toollab.harness.ContextBudget`.)"""

from toollab.memory.store import Note, NoteStore
from toollab.memory.tools import memory_tools

__all__ = ["Note", "NoteStore", "memory_tools"]
