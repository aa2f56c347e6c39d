"""The dev set: generated items in BFCL's shapes and everyday agent tasks, kept apart from BFCL and judged right."""

from __future__ import annotations

import asyncio
import dataclasses
import json
import random
import re
from collections import defaultdict
from datetime import datetime
from typing import Any

import pytest
from conftest import bfcl_texts

from toollab import FunctionModel, ScriptedModel, call
from toollab.eval import BfclRun, RunConfig
from toollab.eval.synth import SPLITS, SYNTH_CATEGORIES, load_synth
from toollab.eval.synth.everyday import EVERYDAY_TOOLS, time_in, weather_of
from toollab.eval.synth.families import DECOYS, FAMILIES
from toollab.eval.synth.generate import SINGLE, families, split_of
from toollab.eval.synth.tasks import TEMPLATES, Expect, judge
from toollab.formats.markup import MARKUP
from toollab.harness import RunStatus

_DATE_FORMATS = ("%Y-%m-%d", "%m/%d/%Y", "%d-%m-%Y")


def _asked(item: Any) -> tuple[str, list[dict[str, Any]]]:
    """An item's question and its calls' accepted arguments (parameter: accepted values)."""
    return item.turns[0][0]["content"], [next(iter(a.values())) for a in item.answer]


def _said(value: object, text: str) -> bool:
    """Whether `text` writes `value`: as Python prints it, with thousands separators (money: "$18,500"), a count in
    words ("twenty"), or a date in words ("March 14, 2027" for "03/14/2027")."""
    from toollab.eval.synth.families import ADJECTIVES
    from toollab.eval.synth.generate import spelled, spoken_date

    counted = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 25
    if counted and isinstance(value, int) and re.search(rf"\b{spelled(value)}\b", text.lower()):
        return True  # a count in words (a flag is no count)

    grouped = isinstance(value, (int, float)) and f"{value:,.0f}" in text and float(value).is_integer()
    grouped |= isinstance(value, float) and f"{value:,}" in text  # "$15,000.5"
    if isinstance(value, float) and value < 1 and f"{value * 100:g}%" in text:  # a fraction said as a percentage
        return True
    if isinstance(value, str) and ADJECTIVES.get(value, "\0").lower() in text.lower():  # said by its adjective
        return True
    for form in _DATE_FORMATS:
        try:
            if spoken_date(datetime.strptime(str(value), form).date()).lower() in text.lower():
                return True
        except ValueError:
            continue
    return str(value).lower() in text.lower() or grouped


def test_nothing_in_it_comes_from_bfcl():
    bfcl = bfcl_texts()
    names, questions = bfcl.names, bfcl.questions
    assert len(names) > 1500 and len(questions) > 3000  # all of BFCL's categories were read
    ours = {fn.name for family in FAMILIES for fn in family.functions} | {t.name for t in EVERYDAY_TOOLS}
    assert not ours & names
    # descriptions too: training data is written from the train split's families, and no BFCL text may be in it
    # (a dev or test family's parameter may say "Day of the week.", as one of BFCL's does: nothing trains on it)
    written = {fn.description.strip().lower() for family in FAMILIES for fn in family.functions}
    written |= {prm.description.strip().lower() for family in families("train") for fn in family.functions
                for prm in fn.params}  # fmt: skip
    assert not written & (bfcl.descriptions | bfcl.parameter_descriptions)
    for split in SPLITS:
        items = load_synth(SYNTH_CATEGORIES, split, 60)
        assert not {it.turns[0][0]["content"].strip().lower() for it in items} & questions


def test_the_shipped_demonstrations_are_the_generators_train_items_and_nothing_of_bfcls():
    from toollab.eval.synth.demos import generate
    from toollab.models.demos import bank

    questions = bfcl_texts().questions
    shipped = bank()
    assert list(shipped) == generate()  # regenerate with `python -m toollab.eval.synth.demos`
    train = {fn.name for family in families("train") for fn in family.functions}
    assert {name for demo in shipped for name, _ in demo.calls} <= train
    assert not {demo.question.strip().lower() for demo in shipped} & questions


def test_splits_hold_their_functions_and_templates_apart():
    owner: dict[str, str] = {}
    for split in SPLITS:
        for family in families(split):
            for fn in family.functions:
                assert owner.setdefault(fn.name, split) == split
                if fn.name in DECOYS:  # a decoy is its function's split's, and no function of any family
                    assert owner.setdefault(DECOYS[fn.name].name, split) == split
        for item in load_synth(SINGLE, split, 30):
            assert all(owner[f["name"]] == split for f in item.functions), item.id
    assert {split_of(f.name) for f in FAMILIES} == set(SPLITS)
    assert not {d.name for d in DECOYS.values()} & {fn.name for f in FAMILIES for fn in f.functions}
    kinds: dict[object, set[str]] = defaultdict(set)
    for template in TEMPLATES.values():  # a kind: one tool (which), no tool, or two steps
        kinds[template.tools if len(template.tools) < 2 else "two steps"].add(template.split)
    assert all(splits == set(SPLITS) for splits in kinds.values()), kinds  # every kind of task in every split
    task_ids = {it.entry["template"] for it in load_synth(["synth_task"], "dev", 200)}
    assert all(TEMPLATES[name].split == "dev" for name in task_ids)


def test_every_template_draws_the_calls_of_its_declared_tools_in_order():
    for name, template in TEMPLATES.items():  # Template.tools and Drawn.calls say the same thing twice: agree
        for seed in range(3):
            drawn = template.draw(random.Random(seed))
            assert tuple(tool for tool, _ in drawn.calls) == template.tools, name


def test_the_same_items_every_time_and_a_smaller_limit_is_a_prefix():
    big, small = load_synth(SYNTH_CATEGORIES, "dev", 12), load_synth(SYNTH_CATEGORIES, "dev", 5)
    again = load_synth(SYNTH_CATEGORIES, "dev", 12)
    assert [i.turns for i in big] == [i.turns for i in again]
    by_category = defaultdict(list)
    for item in big:
        by_category[item.category].append(item.id)
    assert [i.id for i in small] == [i for c in SYNTH_CATEGORIES for i in by_category[c][:5]]
    with pytest.raises(ValueError, match="unknown split"):
        load_synth(["synth_simple"], "holdout")


def test_half_the_parallel_items_list_one_parameters_values_in_one_question():
    items = load_synth(["synth_parallel"], "dev", 40)
    joins = re.compile(
        r"[?.!] (?:Also|Additionally|Then|Next|After that|Finally|Lastly)[:,] |, (?:and )?(?:then|also) "
    )
    odd = [it for n, it in enumerate(items) if n % 2 and n % 8 != 1]  # an eighth ask the same again (below)
    listed = [it for it in odd if not joins.search(it.turns[0][0]["content"])]
    assert len(listed) >= 12 and all(joins.search(it.turns[0][0]["content"]) for it in items[::8])
    for item in listed:
        question, calls = _asked(item)
        assert 2 <= len(calls) <= 4 and " and " in question
        varied = [p for p in calls[0] if len({repr(c[p]) for c in calls}) == len(calls)]
        assert len(varied) == 1, item.id  # the calls differ in one parameter, each value once
        assert all(_said(c[varied[0]][0], question) for c in calls if c[varied[0]][0] is not True)


@pytest.mark.parametrize("split", SPLITS)
def test_list_items_pass_numbers_written_in_brackets_in_order_and_words_listed_in_any_order(split):
    from toollab.eval.synth.generate import LISTS

    items = load_synth(LISTS, split, 12)
    kinds = set()
    for item in items:
        question, calls = _asked(item)
        assert len(calls) == (2 if "parallel" in item.category else 1), item.id  # two calls of one function
        for arguments, doc in ((c, item.functions[0]) for c in calls):
            for name, accepted in arguments.items():
                schema = doc["parameters"]["properties"][name]
                if schema["type"] != "array":
                    continue
                kinds.add(schema["items"]["type"])
                if schema["items"]["type"] in ("integer", "float"):  # one order: as the request writes it
                    (written,) = accepted
                    assert "[" + ", ".join(map(str, written)) + "]" in question, item.id
                else:  # any order of the words it lists
                    assert all(sorted(order) == sorted(accepted[0]) for order in accepted)
                    assert all(word in question for word in accepted[0])
    assert kinds & {"integer", "float"} and "string" in kinds  # both kinds of list in every split


def test_a_quarter_of_the_parallel_items_state_their_cases_one_by_one():
    items = load_synth(["synth_parallel"], "dev", 40)[2::4]
    cases = [it for it in items if " cases of this, please: " in it.turns[0][0]["content"]]
    assert len(cases) >= 8
    for item in cases:
        question, calls = _asked(item)
        assert 2 <= len(calls) <= 4 and len({repr(c) for c in calls}) == len(calls)
        ordinals = ("first", "second", "third", "fourth")[: len(calls)]
        assert [question.lower().index(f"the {o} has ") for o in ordinals] == sorted(
            question.lower().index(f"the {o} has ") for o in ordinals
        )
        for n, case in enumerate(calls):  # each case's values are in its own clause
            clause = question.lower().split(f"the {ordinals[n]} has ")[1].split(", the ")[0]
            values = [v[0] for v in case.values() if v[0] not in ("", None) and not isinstance(v[0], bool)]
            assert all(_said(v, clause) for v in values), item.id
    numbered = [it.turns[0][0]["content"] for it in load_synth(["synth_parallel_multiple"], "dev", 40)[2::4]]
    ways = (r"[.?] First: .+[.?] Second: ", r"[.?] First, .+[.?] Second, ", r"[.?] Firstly, .+[.?] Secondly, ")
    ways += (r"[.?] First, .+[.?] Lastly, .+[.?] Could you do these for me\?$",)
    used = [[w for w in ways if re.search(w, q)] for q in numbered]
    assert all(used), numbered  # each numbers its asks where sentences open, one of four ways, several ways used
    assert len({w[0] for w in used}) >= 3, numbered


def test_a_sixteenth_of_the_parallel_items_pair_two_lists_in_order_respectively():
    items = load_synth(["synth_parallel"], "dev", 160)[4::16]
    paired = [it for it in items if ", respectively" in it.turns[0][0]["content"]]
    assert len(paired) >= 5
    for item in paired:
        question, calls = _asked(item)
        varied = [p for p in calls[0] if len({repr(c[p]) for c in calls}) == len(calls)]
        assert 2 <= len(calls) <= 3 and len(varied) == 2, item.id
        for name in varied:  # each list is said in the calls' order
            at = [_at(c[name][0], question) for c in calls]
            assert at == sorted(at) and -1 not in at, (item.id, name, at)


def test_a_sixteenth_of_the_parallel_items_ask_every_pairing_of_two_lists():
    items = load_synth(["synth_parallel"], "dev", 160)[12::16]
    crossed = [it for it in items if len(it.answer) == 4 and "respectively" not in it.turns[0][0]["content"]]
    assert len(crossed) >= 5
    for item in crossed:
        question, calls = _asked(item)
        varied = [p for p in calls[0] if len({repr(c[p]) for c in calls}) == 2]
        assert len(varied) == 2 and " and " in question, item.id
        pairs = {tuple(repr(c[p]) for p in varied) for c in calls}
        assert len(pairs) == 4, item.id  # each value of one list with each of the other


def _at(value: object, text: str) -> int:
    """Where `text` first writes `value` as a whole word (as is, with thousands separators, "%g", a count in words
    or a percentage), or -1."""
    from toollab.eval.synth.generate import spelled

    forms = [str(value)]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        forms += [f"{value:,.0f}", f"{value:g}"]
        if isinstance(value, int) and (0 <= value <= 25 or value in (30, 40, 50)):
            forms.append(spelled(value))
    if isinstance(value, float) and value < 1:
        forms.append(f"{value * 100:g}%")  # a fraction said as a percentage
    for form in forms:
        found = re.search(rf"(?<![\w,.]){re.escape(form.lower())}(?![\w]|[.,]\d)", text.lower())
        if found:
            return found.start()
    return -1


def test_an_eighth_of_the_parallel_items_ask_the_same_again_for_other_values():
    for category, fns in (("synth_parallel", 1), ("synth_parallel_multiple", 2)):
        items = load_synth([category], "dev", 60)[1::8]
        for item in items:
            question, calls = _asked(item)
            assert re.search(r"\bthe same\b", question) and 2 <= len(calls) <= 3 + fns, item.id
            again = calls[-1]  # the last call is the earlier one of its function with one value changed
            earlier = [c for c in calls[:-1] if c.keys() == again.keys()]
            assert any(sum(c[p] != again[p] for p in again) == 1 for c in earlier), item.id
            assert len({json.dumps(a, sort_keys=True) for a in item.answer}) == len(item.answer)


def test_half_the_parallel_multiple_items_ask_a_function_for_several_values():
    items = load_synth(["synth_parallel_multiple"], "dev", 40)
    assert all(len(it.answer) == 2 for it in items[::2])
    counts = [len(it.answer) for it in items[1::2]]
    assert all(2 <= n <= 6 for n in counts) and sum(n >= 3 for n in counts) >= 15, counts
    for item in items[1::2]:  # both functions are called, each call once
        names = {next(iter(a)) for a in item.answer}
        assert len(names) == 2 and len({json.dumps(a, sort_keys=True) for a in item.answer}) == len(item.answer)


def test_a_quarter_of_the_irrelevance_items_offer_a_decoy_of_the_function_asked():
    """Same domain, same things, another task: "When is the last frost in Tromso?" offered the first autumn frost."""
    decoys = {d.name: asked for asked, d in DECOYS.items()}
    for split in ("dev", "test"):
        items = load_synth(["synth_irrelevance"], split, 40)
        offered = [[f["name"] for f in it.functions if f["name"] in decoys] for it in items]
        assert all(len(names) == 1 for names in offered[3::4]) and not any(offered[i] for i in range(40) if i % 4 != 3)
        for item in items[3::4]:  # the decoy's function was asked, and is not offered
            asked = decoys[next(f["name"] for f in item.functions if f["name"] in decoys)]
            assert asked not in {f["name"] for f in item.functions} and item.answer == []
    assert not any(f["name"] in decoys for it in load_synth(["synth_irrelevance"], "train", 40) for f in it.functions)


def test_half_the_single_call_items_add_an_aside_no_argument_takes():
    from toollab.eval.synth.generate import ASIDES

    for category in ("synth_simple", "synth_multiple"):
        items = load_synth([category], "dev", 20)
        asked = [it.turns[0][0]["content"] for it in items]
        assert all(q.endswith(ASIDES) for q in asked[1::2]) and not any(q.endswith(ASIDES) for q in asked[::2])
    names = {"Juniper", "Kestrel", "Marlow", "Orbit", "Atlas"}  # the asides' names, in no pool of values
    assert {w.strip(".,") for a in ASIDES for w in a.split()} >= names
    for item in load_synth(SINGLE, "dev", 60):
        assert not any(name in json.dumps(item.answer) for name in names)


@pytest.mark.parametrize("split", SPLITS)
def test_its_own_ground_truth_scores_everything_through_the_pipeline(tmp_path, split):
    """Written in a wire format, parsed back, judged by BFCL's checker: the items and answers fit each other."""
    config = RunConfig(model="ground-truth", categories=list(SINGLE), limit=25, dataset="synth", split=split)
    summary = asyncio.run(BfclRun(config, tmp_path).run())
    assert summary["accuracy"]["k"] == summary["items"] == 125, summary["categories"]
    from toollab.eval.synth.generate import LISTS

    lists = RunConfig(model="ground-truth", categories=list(LISTS), limit=10, dataset="synth", split=split)
    summary = asyncio.run(BfclRun(lists, tmp_path / "lists").run())
    assert summary["accuracy"]["k"] == summary["items"] == 20, summary["categories"]


def test_answers_are_judged_by_value_and_without_markup():
    assert Expect(391).met_by("17 times 23 is 391.") and Expect(391).met_by("391.0")
    assert Expect(30.447).met_by("about 30.45 miles") and not Expect(30.447).met_by("31 miles")
    assert Expect(1234).met_by("1,234") and Expect(text="blue").met_by("Blue.")
    assert judge("<tool_response>\n391\n</tool_response>", Expect(391), RunStatus.COMPLETED) == (False, "task:markup")
    assert judge(None, Expect(391), RunStatus.MAX_STEPS) == (False, "task:max_steps")
    assert judge("", Expect(391), RunStatus.COMPLETED) == (False, "task:no_answer")
    assert judge("It is 391", Expect(391), RunStatus.COMPLETED) == (True, "")
    marked = ("<tool_call>", "[TOOL_CALLS]", 'CALL {"tool"', "<|im_start|>", '<tool_call\n>"yes"\n</tool_call>')
    assert all(MARKUP.search(m) for m in (*marked, "<tool_callismhero>", "</tool_call>"))


def test_an_everyday_task_run_by_a_right_agent_passes_and_a_wrong_one_fails(tmp_path):
    items = load_synth(["synth_task"], "dev", 40)
    item = next(i for i in items if i.entry["template"] == "fahrenheit")
    city = item.turns[0][0]["content"].split(" in ")[1].split(" in degrees")[0]
    celsius = weather_of(city)[0]
    right = ScriptedModel(
        [
            call("weather_now", city=city),
            call("arith", expression=f"{celsius} * 9 / 5 + 32"),
            call("finish", answer=f"It is {celsius * 9 / 5 + 32:g} °F in {city}."),
        ]
    )
    config = RunConfig(model="right", categories=["synth_task"], limit=40, dataset="synth", split="dev")
    run = BfclRun(config, tmp_path / "right", model=right)
    record = asyncio.run(run.run_item(item))
    assert record.valid and record.layers.selection.recall == 1.0 and record.layers.trajectory.in_order == 1.0
    invented = FunctionModel(lambda m, t: "<tool_response>\n70\n</tool_response>")
    wrong = asyncio.run(BfclRun(config, tmp_path / "wrong", model=invented).run_item(item))
    assert not wrong.valid and wrong.error_type == "task:markup" and wrong.layers.selection.recall == 0.0
    json.loads(wrong.model_dump_json())


def test_the_everyday_tools_are_deterministic():
    assert weather_of("Oslo") == weather_of(" oslo ") and time_in("Lima") == time_in("lima")
    assert len({weather_of(c) for c in ("Oslo", "Lima", "Cusco", "Porto", "Bergen")}) > 1


def test_a_run_records_every_switch_and_is_not_resumed_under_other_defaults(tmp_path):
    import asyncio

    from toollab.eval.bfcl.run import BfclRun, RunConfig
    from toollab.models.scripted import ScriptedModel
    from toollab.models.switches import Switches

    config = RunConfig(model="local", categories=["synth_simple"], limit=1, dataset="synth", switches="one_call=on")
    run = BfclRun(config, tmp_path, model=ScriptedModel(["I cannot tell."]))
    assert run.config.switches == Switches.parse("one_call=on").describe() and "gate=on" in run.config.switches
    asyncio.run(run.run())
    again = RunConfig(model="local", categories=["synth_simple"], limit=1, dataset="synth", switches="one_call=on")
    assert BfclRun(again, tmp_path, model=ScriptedModel([])).pending == []  # the same switches: resumed
    defaults = RunConfig(model="local", categories=["synth_simple"], dataset="synth")
    with pytest.raises(ValueError, match="Use another --out folder"):
        BfclRun(defaults, tmp_path, model=ScriptedModel([]))
    # a folder written before a switch existed (it does not name `vote`) ran without it: resumed with it off
    meta = tmp_path / "run.json"
    recorded = json.loads(meta.read_text())
    recorded["switches"] = recorded["switches"].replace(",vote=off", "")
    meta.write_text(json.dumps(recorded))
    assert BfclRun(again, tmp_path, model=ScriptedModel([])).pending == []
    with pytest.raises(ValueError, match="Use another --out folder"):
        BfclRun(dataclasses.replace(again, switches="one_call=on,vote=on"), tmp_path, model=ScriptedModel([]))
    # read back for `toollab eval gate`, it opens as it ran (`vote` off), whatever today's defaults say
    from toollab.eval.bfcl.run import recorded_config

    assert "vote=off" in recorded_config(tmp_path).switches
    assert BfclRun(recorded_config(tmp_path), tmp_path, model=ScriptedModel([])).pending == []


def test_eval_synth_on_the_command_line_runs_the_split_asked_for(tmp_path):
    import json

    from typer.testing import CliRunner

    from toollab.interfaces.cli import app

    args = ["eval", "synth", "--model", "ground-truth", "--split", "test", "--categories", "synth_simple"]
    result = CliRunner().invoke(app, [*args, "--limit", "2", "--out", str(tmp_path)])
    assert result.exit_code == 0, result.output
    config = json.loads((tmp_path / "run.json").read_text())
    assert (config["dataset"], config["split"], config["categories"]) == ("synth", "test", ["synth_simple"])
    records = [json.loads(line) for line in (tmp_path / "results.jsonl").read_text().splitlines()]
    assert [r["id"] for r in records] == ["synth_simple_test_0", "synth_simple_test_1"]
    assert all(r["valid"] for r in records)  # the ground truth, written and read back


def test_a_spoken_date_is_written_in_words_and_answered_in_the_parameters_format():
    from datetime import date

    from toollab.eval.synth.generate import spoken_date

    ways = [spoken_date(date(2027, 3, d)) for d in range(1, 5)]
    assert ways == ["1 March 2027", "March 2nd, 2027", "the 3rd of March 2027", "March 4, 2027"]
    formats = {"ferry_sailings": "%Y-%m-%d", "bike_service_booking": "%m/%d/%Y", "concert_ticket_prices": "%d-%m-%Y"}
    seen = set()
    for item in load_synth(["synth_simple", "synth_multiple"], "dev", 60):
        asked = item.turns[0][0]["content"]
        for answer in item.answer:
            ((name, arguments),) = answer.items()
            if name in formats:
                (value,) = arguments["date"]
                day = datetime.strptime(value, formats[name]).date()
                assert value not in asked and spoken_date(day) in asked, (asked, value)
                seen.add(name)
    assert seen == set(formats)
