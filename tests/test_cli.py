"""The real command line, run as a subprocess."""

from __future__ import annotations

import json

import pytest
from conftest import toollab

from toollab import read_events


def test_run_shows_each_round_and_the_answer():
    out = toollab("run", "What is (5.0 + 3.0) * 2.0?", "--model", "scripted")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "round 1" in text and "round 3" in text
    assert 'call add({"a": 5.0, "b": 3.0})' in text and "result add: 8.0" in text
    assert "result multiply: 16.0" in text
    assert "(5.0 + 3.0) * 2.0 = 16.0" in text
    assert "status completed, 3 rounds, 3 tool calls" in text


def test_run_json_and_log(tmp_path):
    log = tmp_path / "events.jsonl"
    out = toollab("run", "What is (5.0 + 3.0) * 2.0?", "--model", "scripted", "--json", "--log", str(log))
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["status"] == "completed" and data["answer"] == "(5.0 + 3.0) * 2.0 = 16.0"
    roles = [m["role"] for m in data["messages"]]
    assert roles == ["user", "assistant", "tool", "assistant", "tool", "assistant", "tool"]
    first_call = data["messages"][1]["tool_calls"][0]
    assert data["messages"][2]["tool_call_id"] == first_call["id"]
    assert json.loads(first_call["function"]["arguments"]) == {"a": 5.0, "b": 3.0}
    assert len(data["usage"]) == 3 and "input_tokens" in data["usage"][0]["usage"]
    assert [e.event for e in read_events(log)][-1] == "run_end"


def test_user_tools_and_a_script(tmp_path):
    (tmp_path / "mytools.py").write_text(
        "from toollab import tool\n\n"
        "@tool\n"
        "def shout(text: str) -> str:\n"
        '    """Upper-case text.\n\n    Args:\n        text: What to shout.\n    """\n'
        "    return text.upper()\n\n"
        "TOOLS = [shout]\n"
    )
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps(
            [
                {
                    "tool_calls": [{"name": "shout", "arguments": {"text": "hi"}}],
                    "usage": {"input_tokens": 12, "output_tokens": 4},
                },
                {"tool_calls": [{"name": "shout", "arguments": "{broken"}]},
                "HI it is",
            ]
        )
    )
    out = toollab(
        "run", "shout hi", "--tools", "mytools.py:TOOLS", "--model", f"scripted:{script}", "--json", cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["answer"] == "HI it is"
    assert data["messages"][2]["content"] == "HI"
    assert "not valid JSON" in data["messages"][4]["content"]
    assert data["total_usage"]["input_tokens"] == 12
    schema = json.loads(toollab("tools", "mytools.py:TOOLS", cwd=tmp_path).stdout)
    assert schema[0]["parameters"]["properties"]["text"]["description"] == "What to shout."


def test_the_command_exits_after_pythons_own_shutdown(tmp_path):
    """`main` leaves only the native teardown out: atexit handlers still run, the output is whole, codes hold."""
    (tmp_path / "mytools.py").write_text(
        "import atexit, pathlib\n"
        "from toollab import tool\n\n"
        "atexit.register(lambda: pathlib.Path('atexit-ran').write_text('yes'))\n\n"
        "@tool\n"
        "def echo(text: str) -> str:\n"
        '    """Say text back."""\n'
        "    return text\n\n"
        "TOOLS = [echo]\n"
    )
    out = toollab("tools", "mytools.py:TOOLS", cwd=tmp_path)
    assert out.returncode == 0 and json.loads(out.stdout)[0]["name"] == "echo"
    assert (tmp_path / "atexit-ran").read_text() == "yes"
    assert toollab("tools", "nosuch.py:TOOLS", cwd=tmp_path).returncode == 2  # a usage error, as before


def test_max_steps_model_errors_and_bad_input(tmp_path):
    out = toollab("run", "x", "--model", "scripted", "--max-steps", "1")
    assert out.returncode == 0 and "status max_steps, 2 rounds" in out.stdout
    assert "tools are disabled now" in out.stdout  # the script's second call arrives in the final request
    script = tmp_path / "short.json"
    script.write_text('[{"tool_calls": [{"name": "add", "arguments": {"a": 1, "b": 2}}]}]')
    short = toollab("run", "x", "--model", f"scripted:{script}")
    assert short.returncode == 1 and "the script has only 1 turns" in short.stdout
    bad_model = toollab("run", "x", "--model", "gpt-9")
    assert bad_model.returncode == 2 and "unknown model 'gpt-9'" in bad_model.stderr
    bad_tools = toollab("run", "x", "--model", "scripted", "--tools", "no_such_module:TOOLS")
    assert bad_tools.returncode == 2 and "cannot import 'no_such_module'" in bad_tools.stderr
    assert toollab("run", "x", "--model", "scripted:/nonexistent.json").returncode == 2
    bad_format = toollab("run", "x", "--format", "xml")
    assert bad_format.returncode == 2 and "unknown format 'xml'" in bad_format.stderr
    assert toollab("run", "x", "--model", "local:/nonexistent.gguf").returncode == 2


@pytest.mark.slow
def test_the_demo_question_is_answered_right_by_the_default_agent():
    """`make demo`'s question with nothing chosen: the embedded model with the shipped adapter answers 16."""
    out = toollab("run", "What is (5.0 + 3.0) * 2.0?", "--json")
    assert out.returncode == 0, out.stderr + "\nstdout: " + out.stdout[-400:]
    assert "loaded SmolLM2-135M-Instruct + the shipped adapter in" in out.stderr
    data = json.loads(out.stdout)
    assert data["status"] == "completed" and data["answer"].strip().startswith("16"), data


@pytest.mark.slow
@pytest.mark.parametrize(
    ("asked", "answer"),
    [
        ("What is twelve times three?", "36"),
        ("Add 17 and 25, then multiply the total by 3.", "126"),
        ("What is 15% of 200?", "30"),
        ("What is the sum of 4, 5 and 6?", "15"),
        ("Divide 100 by 4, then add 5 to the result.", "30"),
        ("Multiply 6 by 7, then subtract 2.", "40"),
        ("What is the sum of [12, 7, 30, 1]?", "50"),
    ],
)
def test_arithmetic_said_in_words_or_in_steps_is_answered_right_by_the_default_agent(asked: str, answer: str):
    """On an AMD EPYC the default agent added 12 and 3 (MiniLM ranks `add` first), split the steps into two
    parts, the second multiplying 3 by 3 (it had no total), made no call for "15% of 200", added 4 and 5 and
    multiplied 4 by 6 for the sum (33.0), added 100 and 5 before dividing (109.0), split "then subtract 2" off
    as a part of its own (42 and 4.0), and summed a list in brackets as 12 + 7 and 12 + 30 (61.0)."""
    out = toollab("run", asked, "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["answer"].strip().split(".")[0] == answer, data


@pytest.mark.slow
def test_run_with_the_embedded_model_shows_loading_and_rounds():
    out = toollab("run", "What is 2 + 2?", "--adapter", "none", "--max-new-tokens", "12", "--max-steps", "1")
    assert out.returncode == 0, out.stderr
    assert "loaded SmolLM2-135M-Instruct in" in out.stdout and "format hermes" in out.stdout
    assert "round 1" in out.stdout and "raw model output" in out.stdout
    assert "tokens in " in out.stdout and "status " in out.stdout


@pytest.mark.slow
def test_json_run_with_the_embedded_model_in_the_text_format():
    out = toollab("run", "What is 2 + 2?", "--format", "text", "--max-new-tokens", "12", "--max-steps", "1", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)  # stdout holds the JSON object only; the loading note goes to stderr
    assert data["status"] in ("completed", "max_steps")
    assert data["usage"][0]["usage"]["input_tokens"] > 100 and data["usage"][0]["usage"]["output_tokens"] > 0


@pytest.mark.slow
def test_run_constrains_local_models_by_default():
    out = toollab("run", "What is 2 + 2?", "--max-new-tokens", "48", "--max-steps", "1")
    assert out.returncode == 0, out.stderr
    assert "constrained; tool choice auto on the first turn, answer after results" in " ".join(out.stdout.split())
    assert "call " in out.stdout  # the request fits the calculator: the gate made the first turn call
    forced = toollab("run", "Say hi.", "--max-new-tokens", "16", "--max-steps", "1", "--tool-choice", "required")
    assert forced.returncode == 0 and "call " in forced.stdout
    free = toollab("run", "What is 2 + 2?", "--max-new-tokens", "8", "--max-steps", "1", "--no-constrained")
    assert free.returncode == 0 and "unconstrained" in free.stdout


def test_constrained_is_refused_for_http_models():
    out = toollab("run", "x", "--model", "openai:gpt-4o-mini", "--constrained")
    assert out.returncode == 2 and "applies to local models" in out.stderr


def test_the_live_view_prints_what_a_model_writes_as_text_not_markup(tmp_path):
    """Brackets that rich would read as markup, and a lone surrogate, in names, arguments, results and answers."""
    script = tmp_path / "hostile.json"
    script.write_text(
        json.dumps(
            [
                {"content": "[/] [bold]", "tool_calls": [{"name": "[/]x", "arguments": '{"a": "[/red]"}'}]},
                {"tool_calls": [{"name": "add", "arguments": {"a": "\ud800", "b": 1}}]},
                "answer [/] \ud800",
            ]
        )
    )
    log = tmp_path / "run.jsonl"
    out = toollab("run", "x", "--model", f"scripted:{script}", "--log", str(log))
    assert out.returncode == 0, out.stderr
    assert 'call [/]x({"a": "[/red]"})' in out.stdout and "Unknown tool" in out.stdout
    assert "status completed, 3 rounds" in out.stdout
    assert [e.event for e in read_events(log)][-1] == "run_end"


def test_run_with_code_actions_runs_the_program_in_a_sandbox(tmp_path):
    program = "x = add(a=5.0, b=3.0)\nprint(multiply(a=x, b=2.0))"
    script = tmp_path / "script.json"
    script.write_text(json.dumps([{"tool_calls": [{"name": "python", "arguments": {"code": program}}]}, "16.0"]))
    log = tmp_path / "run.jsonl"
    out = toollab("run", "What is (5.0 + 3.0) * 2.0?", "--model", f"scripted:{script}", "--code-actions",
                  "--json", "--log", str(log))  # fmt: skip
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["answer"] == "16.0" and data["messages"][2]["content"] == "16.0"
    inner = [e for e in read_events(log) if getattr(e, "parent", None) is not None and e.event == "tool_call"]
    assert [e.call.name for e in inner] == ["add", "multiply"]
