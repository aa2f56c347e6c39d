"""BFCL's own checkers, imported without BFCL's broken import path, and its relevance rules.

`bfcl_eval.constants.model_config` imports every model handler BFCL ships (and their SDKs); the checkers only
ask it whether a model name turns dots into underscores. A stub answering "no" stands in for it: toollab maps
names back to BFCL's own before scoring.
"""

from __future__ import annotations

import functools
import sys
import types
from typing import Any

from pydantic import BaseModel, Field

MODEL_CONFIG = "bfcl_eval.constants.model_config"


class Verdict(BaseModel):
    """A checker's judgement of one item. `error_type` is BFCL's own label of the failure ("" when valid)."""

    valid: bool
    errors: list[str] = Field(default_factory=list)
    error_type: str = ""

    @classmethod
    def from_bfcl(cls, raw: dict[str, Any]) -> Verdict:
        """BFCL's verdict dict: AST checkers list their errors under "error", multi-turn ones say "error_message"."""
        found = raw.get("error") or []
        errors = [str(e) for e in found] if isinstance(found, list) else [str(found)]
        if raw.get("error_message"):
            errors.insert(0, str(raw["error_message"]))
        return cls(valid=bool(raw.get("valid")), errors=errors, error_type=str(raw.get("error_type") or ""))


class _NoUnderscoreToDot(dict[str, Any]):
    def __missing__(self, key: str) -> Any:
        return types.SimpleNamespace(underscore_to_dot=False)


def _install_model_config_stub() -> None:
    if MODEL_CONFIG not in sys.modules:
        stub = types.ModuleType(MODEL_CONFIG)
        stub.MODEL_CONFIG_MAPPING = _NoUnderscoreToDot()  # type: ignore[attr-defined]
        sys.modules[MODEL_CONFIG] = stub


@functools.cache
def _checkers() -> types.SimpleNamespace:
    _install_model_config_stub()
    try:
        from bfcl_eval.constants.enums import Language
        from bfcl_eval.eval_checker.ast_eval.ast_checker import ast_checker
        from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
        from bfcl_eval.eval_checker.multi_turn_eval.multi_turn_checker import multi_turn_checker
    except ImportError as exc:
        raise RuntimeError("BFCL is not installed: pip install --no-deps bfcl-eval mpmath (see DEVELOPERS.md)") from exc
    return types.SimpleNamespace(
        ast_checker=ast_checker,
        python=Language.PYTHON,
        multi_turn_checker=multi_turn_checker,
        execute=multi_turn_utils.execute_multi_turn_func_call,
    )


def failure(error: str, error_type: str) -> Verdict:
    return Verdict(valid=False, errors=[error], error_type=error_type)


PASSED = Verdict(valid=True)
UNREADABLE = failure("A call could not be read.", "ast_decoder:decoder_failed")  # BFCL cannot decode the output


def check_ast(
    functions: list[dict[str, Any]], calls: list[dict[str, dict[str, Any]]], answer: list[Any], category: str
) -> Verdict:
    """BFCL's AST verdict for single-turn calls written as [{bfcl_name: {arg: value}}]."""
    bfcl = _checkers()
    if not calls:
        return failure("The model made no call.", "ast_decoder:decoder_failed")
    try:
        return Verdict.from_bfcl(bfcl.ast_checker(functions, calls, answer, bfcl.python, category, "toollab"))
    except Exception as exc:  # the checker indexes into model output; odd shapes must fail the item, not the run
        return failure(f"{type(exc).__name__}: {exc}", "ast_checker:crashed")


def check_relevance(category: str, called: bool) -> Verdict:
    """BFCL's rule: irrelevance passes with no call, relevance with any call (arguments unchecked)."""
    if "irrelevance" in category:
        return failure("The model called a tool.", "irrelevance:called") if called else PASSED
    return PASSED if called else failure("The model made no call.", "relevance:no_call")


def check_multi_turn(
    entry: dict[str, Any], model_steps: list[list[list[str]]], ground_truth: list[list[str]], run_name: str
) -> Verdict:
    """BFCL's multi-turn verdict: the environment state and results after each turn, against the ground truth's."""
    bfcl = _checkers()
    if len(model_steps) != len(ground_truth):
        return failure("The run stopped before the last turn.", "multi_turn:force_quit")
    try:
        return Verdict.from_bfcl(
            bfcl.multi_turn_checker(model_steps, ground_truth, entry, entry["id"].rsplit("_", 1)[0], run_name)
        )
    except Exception as exc:
        return failure(f"{type(exc).__name__}: {exc}", "multi_turn:checker_crashed")


def execute(calls: list[str], entry: dict[str, Any], run_name: str) -> list[str]:
    """Run call strings in the item's BFCL environment (instances live per `run_name` and item)."""
    results, _ = _checkers().execute(
        calls, entry["initial_config"], entry["involved_classes"], run_name, entry["id"], long_context=False
    )
    return list(results)
