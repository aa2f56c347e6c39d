"""Long-term memory: notes in SQLite that survive restarts and concurrent agents, used through the agent's tools,
with what was recalled in the event log."""

from __future__ import annotations

import subprocess
import sys
import textwrap

from toollab.harness import Agent, RunStatus, read_events
from toollab.harness.events import ToolReturned
from toollab.memory import NoteStore, memory_tools
from toollab.models.scripted import ScriptedModel, call


def test_notes_are_found_by_their_words_and_tags_and_forgotten(tmp_path):
    store = NoteStore(tmp_path / "notes.db")
    oslo = store.save("The user lives in Oslo and prefers metric units.", ["user", "preferences"])
    store.save("The Q3 report is due on 14 October.", ["work"])
    assert [n.id for n in store.search("where does the user live?")] == [oslo.id]
    assert store.search("units", tags=["work"]) == []
    assert store.search('"); DROP TABLE notes; --') == []  # model text is never query syntax
    assert store.forget(oslo.id) and not store.forget(oslo.id)
    assert len(store) == 1 and store.search("Oslo") == []


WRITER = textwrap.dedent(
    """
    import sys
    from toollab.memory import NoteStore
    store = NoteStore(sys.argv[1], timeout=60)
    for i in range(40):
        store.save(f"note {i} from writer {sys.argv[2]} about zebras", ["w" + sys.argv[2]])
    """
)


def test_concurrent_writers_in_several_processes_lose_nothing(tmp_path):
    path = tmp_path / "shared.db"
    NoteStore(path)
    writers = [subprocess.Popen([sys.executable, "-c", WRITER, str(path), str(w)]) for w in range(4)]
    assert [p.wait(timeout=120) for p in writers] == [0, 0, 0, 0]
    store = NoteStore(path)  # as after a restart
    assert len(store) == 160
    assert len(store.search("zebras", k=500)) == 160
    assert len(store.search("zebras", k=500, tags=["w3"])) == 40


def test_an_agent_remembers_in_one_run_and_recalls_in_the_next(tmp_path):
    path = tmp_path / "agent.db"
    first = Agent(
        ScriptedModel(
            [call("remember", note="The user's dog is called Biscuit.", tags=["pets"]), call("finish", answer="Noted.")]
        ),
        memory_tools(NoteStore(path), author="assistant"),
    )
    assert first.run_sync("My dog is called Biscuit.").answer == "Noted."

    log = tmp_path / "second.jsonl"
    second = Agent(
        ScriptedModel([call("recall", query="dog name"), call("forget", note_id=99), call("finish", answer="Biscuit")]),
        memory_tools(NoteStore(path)),  # a new store object on the same file: a restarted process
    )
    result = second.run_sync("What is my dog called?", log=log)
    assert result.status == RunStatus.COMPLETED and result.answer == "Biscuit"
    recalled = [e.result for e in read_events(log) if isinstance(e, ToolReturned) and e.result.name == "recall"]
    assert "[note 1, " in recalled[0].content and "tags: pets] The user's dog is called Biscuit." in recalled[0].content
    missing = result.tool_results[1]
    assert missing.is_error and "there is no note 99" in missing.content
