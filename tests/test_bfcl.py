"""BFCL wiring: converters, BFCL's checkers on known answers, resume, reports and comparisons.

The self-check feeds BFCL's ground truth through the real pipeline (written in a wire format, parsed back,
names mapped, executed in BFCL's environments for multi-turn) and must score what BFCL's own data allows.
"""

from __future__ import annotations

import asyncio
import gzip
import json
from pathlib import Path

import jsonschema
import pytest
from provider_server import ProviderServer, openai_call, openai_reply
from typer.testing import CliRunner

from toollab import FunctionModel, ToolCall, call
from toollab.eval import BfclRun, RunConfig, compare_runs
from toollab.eval.bfcl import SINGLE_TURN, load_category
from toollab.eval.bfcl.schema import parameters_schema, to_json_schema, tool_set
from toollab.eval.records import ItemRecord, Operations, RecordHead
from toollab.eval.results import ResultsFile
from toollab.eval.summary import summarize
from toollab.formats import FORMATS
from toollab.interfaces.cli import app
from toollab.models.http import RetryPolicy
from toollab.models.openai_compatible import OpenAIModel
from toollab.tools import safe_name

BASELINE = ["simple_python", "multiple", "parallel", "parallel_multiple", "irrelevance"]


def run(config: RunConfig, out, model=None, on_record=None) -> dict:
    return asyncio.run(BfclRun(config, out, model=model).run(on_record))


# ---- converters --------------------------------------------------------------------------------------------


def test_bfcl_types_become_json_schema():
    doc = {
        "type": "dict",
        "properties": {
            "ratio": {"type": "float", "description": "r", "default": 0.5},
            "point": {"type": "tuple", "items": {"type": "integer"}},
            "anything": {"type": "any"},
            "options": {"type": "dict", "properties": {"deep": {"type": "boolean"}}, "required": ["deep", "gone"]},
            "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
        },
        "required": ["ratio"],
    }
    schema = parameters_schema(doc)
    assert schema["type"] == "object" and schema["additionalProperties"] is False
    props = schema["properties"]
    assert props["ratio"] == {"type": "number", "description": "r", "default": 0.5}
    assert props["point"] == {"type": "array", "items": {"type": "integer"}}
    assert props["anything"] == {}
    assert props["options"]["type"] == "object" and props["options"]["required"] == ["deep"]
    assert props["tags"]["items"] == {"type": "string", "enum": ["a", "b"]}
    assert to_json_schema({"type": "float", "optional": True}) == {"type": "number"}


@pytest.mark.parametrize(
    "category", ["simple_python", "multiple", "parallel_multiple", "live_multiple", "multi_turn_base"]
)
def test_every_function_of_a_category_converts_to_a_valid_schema(category):
    for item in load_category(category, 300):
        for spec in tool_set(item.functions, keep_dots=False).specs:
            jsonschema.Draft202012Validator.check_schema(spec.parameters)
            assert spec.parameters["type"] == "object"
            assert safe_name(spec.name) == spec.name


def test_names_keep_dots_only_where_the_format_writes_text():
    functions = [{"name": "math.factorial", "description": "d", "parameters": {"type": "dict", "properties": {}}}]
    assert tool_set(functions, keep_dots=True).specs[0].name == "math.factorial"
    safe = tool_set(functions, keep_dots=False)
    assert safe.specs[0].name == "math_factorial" and safe.bfcl_name("math_factorial") == "math.factorial"
    assert safe.specs[0].description.endswith("Note that the provided function is in Python 3 syntax.")


def test_limit_takes_a_fixed_spread_sample_and_smaller_is_a_subset():
    small = [i.id for i in load_category("simple_python", 10)]
    large = [i.id for i in load_category("simple_python", 40)]
    assert small == large[:10]
    assert small != [f"simple_python_{i}" for i in range(10)]


def test_unknown_category_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown BFCL category 'simple_pyton'"):
        load_category("simple_pyton")


# ---- the self-check ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("format", ["hermes", "pythonic"])
def test_ground_truth_scores_as_bfcl_data_allows(tmp_path, format):
    categories = [*BASELINE, "multi_turn_base"]
    summary = run(RunConfig(model="ground-truth", format=format, categories=categories), tmp_path)
    accuracy = {c: (v["accuracy"]["k"], v["accuracy"]["n"]) for c, v in summary["categories"].items()}
    assert accuracy["simple_python"] == (400, 400)
    assert accuracy["multiple"] == (200, 200)
    assert accuracy["parallel"] == (200, 200)
    assert accuracy["irrelevance"] == (240, 240)
    assert accuracy["multi_turn_base"] == (200, 200)
    # one parallel_multiple answer in BFCL's data is unsatisfiable as written
    assert accuracy["parallel_multiple"][0] >= 198
    assert summary["categories"]["simple_python"]["operations"]["schema_valid"]["value"] == 1.0


@pytest.mark.parametrize("format", sorted(set(FORMATS) - {"hermes", "pythonic", "code"}))  # code: programs, not calls
def test_ground_truth_through_every_other_format(tmp_path, format):
    summary = run(
        RunConfig(model="ground-truth", format=format, categories=[*BASELINE, "multi_turn_base"], limit=25), tmp_path
    )
    assert summary["accuracy"]["k"] == summary["items"] == 150, summary["categories"]


def test_ground_truth_on_the_live_categories(tmp_path):
    live = [c for c in SINGLE_TURN if c.startswith("live")]
    summary = run(RunConfig(model="ground-truth", format="hermes", categories=live), tmp_path)
    for name, c in summary["categories"].items():
        assert c["accuracy"]["value"] >= 0.99, (name, c["error_types"])


# ---- scoring what models really do -------------------------------------------------------------------------


def first_item(category: str):
    return load_category(category, 1)[0]


def test_wrong_values_prose_and_bad_calls_fail_with_bfcl_error_types(tmp_path):
    item = first_item("simple_python")
    name = item.functions[0]["name"].replace(".", "_")
    wrong = {k: "nonsense" for k in item.functions[0]["parameters"]["properties"]}
    cases = {
        "wrong": [call(name, **wrong)],
        "prose": "I think the answer is 42.",
        "unreadable": [ToolCall(name=name, arguments="{oops", parse_error="invalid JSON")],
        "unknown": [call("no_such_tool", x=1)],
    }
    verdicts = {}
    for label, turn in cases.items():
        out = tmp_path / label
        run(
            RunConfig(model="m", categories=["simple_python"], limit=1),
            out,
            FunctionModel(lambda m, t, turn=turn: turn),
        )
        verdicts[label] = json.loads((out / "results.jsonl").read_text())
    assert verdicts["wrong"]["error_type"].startswith("type_error") or verdicts["wrong"]["error_type"].startswith(
        "value"
    )
    assert verdicts["wrong"]["ops"]["schema_failures"] == 1
    assert verdicts["prose"]["error_type"] == "ast_decoder:decoder_failed" and verdicts["prose"]["calls"] == []
    assert verdicts["unreadable"]["ops"]["parse_failures"] == 1
    assert verdicts["unreadable"]["error_type"] == "ast_decoder:decoder_failed"
    assert verdicts["unknown"]["ops"]["unknown_tools"] == 1
    assert verdicts["unknown"]["layers"]["selection"]["extra"] == 1
    assert all(v["failure_source"] == "model" for v in verdicts.values())


def test_irrelevance_passes_only_without_a_call(tmp_path):
    item = first_item("irrelevance")
    tool = item.functions[0]["name"].replace(".", "_")
    quiet = run(
        RunConfig(model="m", categories=["irrelevance"], limit=1),
        tmp_path / "a",
        FunctionModel(lambda m, t: "No tool fits."),
    )
    eager = run(
        RunConfig(model="m", categories=["irrelevance"], limit=1),
        tmp_path / "b",
        FunctionModel(lambda m, t: call(tool)),
    )
    assert quiet["accuracy"]["k"] == 1 and eager["accuracy"]["k"] == 0
    assert eager["categories"]["irrelevance"]["error_types"] == {"irrelevance:called": 1}


def test_model_errors_and_crashes_cost_one_item_and_are_attributed(tmp_path):
    from toollab import ModelError

    def flaky(messages, tools):
        text = messages[-1].content
        if "triangle" in text:
            raise ModelError("429 forever", source="provider")
        if "factorial" in text:
            raise RuntimeError("bug in a backend")
        return "no"

    summary = run(RunConfig(model="m", categories=["simple_python"], limit=30), tmp_path, FunctionModel(flaky))
    assert summary["items"] == 30
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    sources = {r["failure_source"] for r in records}
    assert sources <= {"model", "provider", "harness"}
    crashed = [r for r in records if r["failure_source"] == "harness"]
    assert all("RuntimeError: bug in a backend" in r["errors"][0] for r in crashed)


def test_item_timeout_is_recorded(tmp_path):
    async def slow(messages, tools):
        await asyncio.sleep(5)
        return "late"

    summary = run(
        RunConfig(model="m", categories=["simple_python"], limit=2, item_timeout=0.05, concurrency=2),
        tmp_path,
        FunctionModel(slow),
    )
    ops = summary["operations"]
    assert ops["timeouts"] == 2 and summary["categories"]["simple_python"]["error_types"] == {"timeout:provider": 2}


def test_multi_turn_that_loops_is_force_quit_and_one_that_idles_fails(tmp_path):
    looping = FunctionModel(lambda m, t: call("pwd"))
    summary = run(RunConfig(model="m", categories=["multi_turn_base"], limit=1), tmp_path / "loop", looping)
    record = json.loads((tmp_path / "loop" / "results.jsonl").read_text())
    assert record["error_type"] == "multi_turn:force_quit" and record["ops"]["model_calls"] == 21
    idle = run(
        RunConfig(model="m", categories=["multi_turn_base"], limit=1),
        tmp_path / "idle",
        FunctionModel(lambda m, t: "ok"),
    )
    assert idle["categories"]["multi_turn_base"]["error_types"] == {"multi_turn:empty_turn_model_response": 1}
    assert summary["categories"]["multi_turn_base"]["layers"]["trajectory"]["in_order"] < 1


# ---- resume ------------------------------------------------------------------------------------------------


def test_an_interrupted_run_resumes_without_losing_or_repeating_items(tmp_path):
    config = RunConfig(model="m", categories=["simple_python", "irrelevance"], limit=6)
    asked: list[str] = []

    def model(messages, tools):
        asked.append(messages[-1].content)
        return "no call"

    async def interrupted():
        task = asyncio.current_task()
        seen = 0

        def on_record(record):
            nonlocal seen
            seen += 1
            if seen == 4:
                task.cancel()

        with pytest.raises(asyncio.CancelledError):
            await BfclRun(config, tmp_path, FunctionModel(model)).run(on_record)

    asyncio.run(interrupted())
    first = (tmp_path / "results.jsonl").read_text().splitlines()
    assert len(first) >= 4
    with (tmp_path / "results.jsonl").open("a") as f:
        f.write('{"id": "simple_python_9", "categ')  # the process died mid-write
    asked.clear()
    resumed = BfclRun(config, tmp_path, FunctionModel(model))
    assert len(resumed.pending) == 12 - len(first)
    summary = asyncio.run(resumed.run())
    lines = (tmp_path / "results.jsonl").read_text().splitlines()
    assert lines[: len(first)] == first  # finished items untouched
    ids = [json.loads(line)["id"] for line in lines]
    assert len(ids) == len(set(ids)) == 12 and summary["items"] == 12
    assert len(asked) == 12 - len(first)


def test_resuming_with_another_model_is_refused_and_changes_nothing(tmp_path):
    run(RunConfig(model="m", categories=["irrelevance"], limit=2), tmp_path, FunctionModel(lambda m, t: "no"))
    before = (tmp_path / "results.jsonl").read_text()
    with pytest.raises(ValueError, match="holds a run of"):
        BfclRun(
            RunConfig(model="other", categories=["irrelevance"], limit=2), tmp_path, FunctionModel(lambda m, t: "no")
        )
    assert (tmp_path / "results.jsonl").read_text() == before


# ---- reports and comparisons -------------------------------------------------------------------------------


def test_report_is_one_file_with_plots_and_escapes_model_output(tmp_path):
    evil = "<script>alert('x')</script>"
    run(
        RunConfig(model="m", categories=["simple_python", "irrelevance"], limit=3),
        tmp_path,
        FunctionModel(lambda m, t: evil),
    )
    html = (tmp_path / "report.html").read_text()
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert html.count("data:image/png;base64,") == 3
    assert "simple_python" in html and "Failing items" in html
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["categories"]["irrelevance"]["accuracy"]["k"] == 3


def test_compare_pairs_items_and_tests_the_difference(tmp_path):
    def write(folder, verdicts):
        folder.mkdir()
        results = ResultsFile(folder / "results.jsonl")
        for i, v in enumerate(verdicts):
            head = RecordHead(id=f"x_{i}", category="simple_python", model="m", format="hermes")
            results.append(ItemRecord(**head, valid=v, ops=Operations(latency_seconds=0.1, model_calls=1)))

    write(tmp_path / "a", [True] * 10 + [False] * 10 + [True] * 5)
    write(tmp_path / "b", [True] * 10 + [True] * 10 + [False] * 5)
    plain = tmp_path / "b" / "results.jsonl"  # a finished run may be kept compressed
    (tmp_path / "b" / "results.jsonl.gz").write_bytes(gzip.compress(plain.read_bytes()))
    plain.unlink()
    result = compare_runs(tmp_path / "a", tmp_path / "b")
    row = result["all"]
    assert (row["both"], row["only_a"], row["only_b"], row["neither"]) == (10, 5, 10, 0)
    assert row["p_value"] == pytest.approx(0.30175781, abs=1e-6)  # exact binomial, 15 discordant pairs
    table = CliRunner().invoke(app, ["eval", "compare", str(tmp_path / "a"), str(tmp_path / "b")])
    assert table.exit_code == 0 and "simple_python" in table.output
    as_json = CliRunner().invoke(app, ["eval", "compare", str(tmp_path / "a"), str(tmp_path / "b"), "--json"])
    assert json.loads(as_json.output)["all"]["only_b"] == 10
    missing = CliRunner().invoke(app, ["eval", "compare", str(tmp_path / "a"), str(tmp_path / "nope")])
    assert missing.exit_code == 2


# ---- HTTP backends: concurrency and retries ----------------------------------------------------------------


def test_an_http_model_runs_items_concurrently_and_retries_are_counted(tmp_path):
    from provider_server import Reply

    items = load_category("simple_python", 6)
    by_question = {i.turns[0][-1]["content"]: i for i in items}
    first_seen: set[str] = set()

    def reply(body):
        question = body["messages"][-1]["content"]
        item = by_question[question]
        if question not in first_seen:  # every item's first attempt is rate limited once
            first_seen.add(question)
            return Reply({"error": "slow down"}, 429, {"retry-after": "0"})
        answer = item.answer[0]
        name, acceptable = next(iter(answer.items()))
        arguments = {k: v[0] for k, v in acceptable.items() if v and v[0] != "" and not isinstance(v[0], dict)}
        return openai_reply(tool_calls=[openai_call("c1", name.replace(".", "_"), json.dumps(arguments))])

    fast = RetryPolicy(max_retries=2, base_delay=0.01, max_delay=0.02)
    with ProviderServer([reply] * 12) as server:
        model = OpenAIModel("m", base_url=server.url, api_key="sk-test", retry=fast)
        summary = run(
            RunConfig(model="openai:m", categories=["simple_python"], limit=6, concurrency=4), tmp_path, model
        )
    assert summary["operations"]["retries"] == 6
    assert summary["accuracy"]["k"] >= 5  # answers with nested dict values are left out above


# ---- the command line --------------------------------------------------------------------------------------


def test_cli_self_check_and_resume_message(tmp_path):
    args = [
        "eval",
        "bfcl",
        "--model",
        "ground-truth",
        "--format",
        "pythonic",
        "--categories",
        "simple_python,irrelevance",
    ]
    first = CliRunner().invoke(app, [*args, "--limit", "5", "--out", str(tmp_path)])
    assert first.exit_code == 0, first.output
    assert "100.0%" in first.output and (tmp_path / "report.html").exists()
    again = CliRunner().invoke(app, [*args, "--limit", "8", "--out", str(tmp_path)])
    assert again.exit_code == 0 and "10 items done, 6 to go" in " ".join(again.output.split())
    bad = CliRunner().invoke(
        app, ["eval", "bfcl", "--model", "ground-truth", "--categories", "nope", "--out", str(tmp_path / "x")]
    )
    assert bad.exit_code == 2 and "unknown BFCL category" in bad.output
    rebuilt = CliRunner().invoke(app, ["eval", "report", str(tmp_path)])
    assert rebuilt.exit_code == 0 and "simple_python" in rebuilt.output


def test_parse_and_schema_validity_count_every_call_attempt(tmp_path):
    item = first_item("simple_python")
    name = item.functions[0]["name"].replace(".", "_")
    turn = [call(name, nonsense=1), ToolCall(name=name, arguments="{", parse_error="invalid JSON")]
    summary = run(
        RunConfig(model="m", categories=["simple_python"], limit=1), tmp_path, FunctionModel(lambda m, t: turn)
    )
    ops = summary["operations"]
    assert ops["calls"] == 2 and ops["parse_failures"] == 1 and ops["schema_failures"] == 1
    assert (ops["parse_valid"]["k"], ops["parse_valid"]["n"]) == (1, 2)
    assert (ops["schema_valid"]["k"], ops["schema_valid"]["n"]) == (0, 2)


# ---- records written before they were typed ---------------------------------------------------------------

DATA = Path(__file__).parent / "data"
EVALS = Path(__file__).parent.parent / "evals"


def test_records_written_before_typing_read_back_to_the_same_json_and_summary():
    path = DATA / "bfcl-results-0ce5985.jsonl"  # single- and multi-turn, passing and failing, by 0ce5985
    records = ResultsFile(path).read()
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    assert [r.model_dump(mode="json") for r in records] == lines
    summary = json.loads(json.dumps(summarize(records, {"model": "fixture"})))
    assert summary == json.loads((DATA / "bfcl-summary-0ce5985.json").read_text())


@pytest.mark.parametrize("run", sorted(p.name for p in EVALS.iterdir()))
def test_the_committed_runs_still_summarize_to_their_summary(run):
    saved = json.loads((EVALS / run / "summary.json").read_text())
    records = ResultsFile(EVALS / run / "results.jsonl").read()  # kept as results.jsonl.gz
    assert json.loads(json.dumps(summarize(records, saved["config"]))) == saved


def test_a_record_that_is_not_one_is_refused_with_its_line(tmp_path):
    path = tmp_path / "results.jsonl"
    path.write_text((DATA / "bfcl-results-0ce5985.jsonl").read_text().splitlines()[0] + '\n{"id": "x"}\n{"id": "y"}\n')
    with pytest.raises(ValueError, match=r"results.jsonl:2: not an evaluation record"):
        ResultsFile(path).read()


def test_tools_per_turn_shows_the_model_the_best_fitting_tools_and_the_judge_still_knows_them_all(tmp_path):
    from toollab.eval.bfcl.data import load
    from toollab.eval.bfcl.oracle import answer_calls
    from toollab.retrieval.catalogue import best_fits

    items = load(["multiple"], 6)
    shown: list[list[str]] = []

    def model(messages, tools):
        shown.append([t.name for t in tools])
        item = next(i for i in items if i.turns[0][-1]["content"] == messages[-1].content)
        (right,) = answer_calls(item)
        name = safe_name(right.name)
        return [call(name if name in shown[-1] else shown[-1][0], right.args_as_dict())]

    summary = run(
        RunConfig(model="m", categories=["multiple"], limit=6, tools_per_turn=1), tmp_path, FunctionModel(model)
    )
    assert all(len(names) == 1 for names in shown) and len(shown) == 6
    for item, names in zip(items, shown, strict=True):  # the request's best fit, as a catalogue of them ranks
        specs = tool_set(item.functions, keep_dots=False).specs
        assert names == [t.name for t in best_fits(item.turns[0][-1]["content"], specs, 1)]
    assert summary["items"] == 6
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    for item, names, record in zip(items, shown, records, strict=True):  # right exactly when the right tool was shown
        assert record["valid"] == (safe_name(next(iter(item.answer[0]))) in names), record["errors"]
    recorded = json.loads((tmp_path / "run.json").read_text())
    assert recorded["tools_per_turn"] == 1
    with pytest.raises(ValueError, match="holds a run of"):  # a folder is not resumed with another k
        BfclRun(RunConfig(model="m", categories=["multiple"], limit=6), tmp_path, FunctionModel(model))


def test_a_run_records_the_local_models_token_budget_and_is_not_resumed_under_another(tmp_path):
    from toollab.models.local import MAX_NEW_TOKENS

    config = RunConfig(model="local", categories=["simple_python"], limit=1)
    run_ = BfclRun(config, tmp_path)  # the weights load at the first decode, not here
    assert run_.model.max_new_tokens == MAX_NEW_TOKENS  # type: ignore[attr-defined]
    assert run_.config.max_new_tokens == MAX_NEW_TOKENS  # what the model was given, spelled out
    run_.start()
    assert json.loads((tmp_path / "run.json").read_text())["max_new_tokens"] == MAX_NEW_TOKENS
    BfclRun(RunConfig(model="local", categories=["simple_python"], limit=1, max_new_tokens=MAX_NEW_TOKENS), tmp_path)
    with pytest.raises(ValueError, match="holds a run of"):  # another budget is another run
        BfclRun(RunConfig(model="local", categories=["simple_python"], limit=1, max_new_tokens=192), tmp_path)
