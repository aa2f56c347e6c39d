"""Lower layers never import higher ones: tools < harness < formats, models, constrain < interfaces, eval, lab,
train."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "toollab"
LEVEL = {"tools": 0, "sandbox": 0, "harness": 1, "formats": 2, "models": 2, "constrain": 2, "retrieval": 2}
LEVEL |= {"workflows": 2, "memory": 2, "rag": 2, "scale": 2}
LEVEL |= {"interfaces": 3, "eval": 3, "lab": 3, "train": 3, "toolformer": 3}
# Same-level packages that may use each other, and only these (the last test holds the list to what the code
# uses): the local and HTTP backends speak the wire formats, and `load_model` gives local models their grammar
# and their tool selection (a retriever);
# grammars follow each format's call envelope; the command line fronts the evaluation and the lab (which never
# import it back); the lab reports with the evaluation's statistics; training data comes from the dev set's
# generator; the lab runs the Toolformer experiments; the sandbox offers `python(code)` as a tool; document search
# scores with the tool retrievers' BM25 and MiniLM; executors ship models as the arguments `load_model` took.
ALLOWED_SIDEWAYS = {
    ("sandbox", "tools"),
    ("models", "formats"),
    ("constrain", "formats"),
    ("models", "constrain"),
    ("models", "retrieval"),
    ("interfaces", "eval"),
    ("interfaces", "lab"),
    ("lab", "eval"),
    ("interfaces", "train"),
    ("train", "eval"),
    ("lab", "toolformer"),
    ("interfaces", "toolformer"),
    ("toolformer", "train"),
    ("rag", "retrieval"),
    ("rag", "workflows"),
    ("scale", "models"),
}


def imported_layers(path: Path) -> set[str]:
    layers = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [node.module] if isinstance(node, ast.ImportFrom) and node.module else []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] == "toollab" and len(parts) > 1 and parts[1] in LEVEL:
                layers.add(parts[1])
    return layers


def test_no_layer_imports_a_higher_one():
    violations = []
    for layer, level in LEVEL.items():
        for path in sorted((PACKAGE / layer).rglob("*.py")) if (PACKAGE / layer).is_dir() else []:
            for other in imported_layers(path) - {layer}:
                if LEVEL[other] > level or (LEVEL[other] == level and (layer, other) not in ALLOWED_SIDEWAYS):
                    violations.append(f"{path.relative_to(PACKAGE)} imports toollab.{other}")
    assert violations == []


def test_every_package_is_placed_in_a_layer():
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert packages <= set(LEVEL), packages - set(LEVEL)


def test_every_allowed_sideways_import_is_used():
    used = set()
    for layer, level in LEVEL.items():
        for path in (PACKAGE / layer).rglob("*.py"):
            used |= {(layer, other) for other in imported_layers(path) if other != layer and LEVEL[other] == level}
    assert used == ALLOWED_SIDEWAYS
