VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: install native clean-native test lint format bench bench-onnx bench-service bench-zoo bench-symbolic gpu-bundle gpu-rehearsal \
	gpu-check golden demo clean

install: $(STAMP) native

# The modules on the tuner's per-candidate path (loop IR nodes, schedule replay, lowering,
# simplification, features: `[tool.autotune] native` in pyproject.toml), compiled by mypyc
# into C extensions beside their sources, which Python then imports instead (about 1.8x
# the candidates per second). Rebuilt whenever a source under ir/ or tuner/ changes; where
# mypyc fails (no C compiler), the sources run as they are.
NATIVE_STAMP := build/native.stamp

native: $(NATIVE_STAMP)

$(NATIVE_STAMP): $(STAMP) $(shell find ir tuner -name '*.py')
	@mkdir -p build
	@$(MAKE) --no-print-directory clean-native
	@if $(PY) -m ir.native > build/native.log 2>&1; then \
		tail -n 1 build/native.log; \
	else \
		tail -n 20 build/native.log; \
		echo "mypyc failed (log: build/native.log): the modules run as Python sources"; \
		$(MAKE) --no-print-directory clean-native; \
	fi
	@touch $@

clean-native:
	find ir tuner -name '*.so' -delete
	rm -f $(NATIVE_STAMP)

# Reinstall only when pyproject.toml changes (or the venv is missing).
$(STAMP): pyproject.toml
	test -x $(PY) || python3 -m venv $(VENV)
	$(VENV)/bin/pip install -e '.[dev]'
	touch $(STAMP)

# One pytest process per core (pytest-xdist; each takes a test when it is free), each
# with its own PostgreSQL database (tests/service/conftest.py); then, alone, the tests
# marked `serial`, whose outcome depends on timings that a busy second core distorts.
test: install
	$(PY) -m pytest -q -n auto --dist worksteal -m 'not serial' --durations=15; parallel=$$?; \
	$(PY) -m pytest -q -m serial; serial=$$?; \
	test $$parallel -eq 0 -a $$serial -eq 0

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	$(VENV)/bin/lint-imports

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

bench: install
	$(PY) bench/parallel_overhead.py
	$(PY) bench/kernels.py
	$(PY) bench/models.py
	$(PY) bench/search_overhead.py
	$(PY) bench/tune.py --trials 64 256
	$(PY) bench/tuning_curves.py --trials 256 --keep-records build/curve-records
	$(PY) bench/cost_model_accuracy.py build/curve-records
	$(PY) bench/record_fidelity.py build/curve-records
	$(PY) bench/int8.py
	$(PY) bench/control_flow.py
	$(PY) bench/forests.py

# The model zoo (bench/zoo.py): real PyTorch exports against ONNX Runtime and OpenVINO. Its
# own venv holds torch (CPU kernels; on x86_64 pip takes torch 2.14.1 with torchvision
# 0.29.1), transformers and openvino beside this project, installed editable.
ZOO_VENV := .zoo-venv
ZOO_ARGS ?=
$(ZOO_VENV)/bin/autotune:
	python3 -m venv $(ZOO_VENV) && \
		$(ZOO_VENV)/bin/pip install -e . torch==2.14.1 torchvision==0.29.1 transformers \
		openvino onnxruntime onnxscript

bench-zoo: install $(ZOO_VENV)/bin/autotune
	$(ZOO_VENV)/bin/python bench/zoo.py $(ZOO_ARGS)

# One artifact for a range of shapes vs specialised artifacts and onnxruntime (transformers
# exports with dynamic axes; the zoo's venv).
bench-symbolic: install $(ZOO_VENV)/bin/autotune
	$(ZOO_VENV)/bin/python bench/symbolic_shapes.py

# ONNX's own backend node tests through autotune and onnxruntime; raises the committed floor
# of autotune's pass count (bench/onnx_conformance_floor.json) when more pass.
bench-onnx: install
	$(PY) bench/onnx_conformance.py --jobs 2 --write-floor \
		--output bench/results/onnx_conformance_$$($(PY) -c 'from bench.onnx_conformance import host_name; print(host_name())').txt

# Service under load: 8 simulated workers + 50 polling clients, on SQLite and PostgreSQL.
bench-service: install
	$(PY) bench/service_load.py --duration 60

# The GPU check runs on a GPU host that reaches no package index (bench/gpu_host/check.py):
# `make gpu-bundle` gathers here, in .gpu-bundle/, the wheels of what that host lacks and a
# pycuda built for it; `make gpu-rehearsal` runs the check here on a stand-in host with a
# driver that has no GPU; `make gpu-check`, there, installs the bundle with no index and
# runs the CUDA tests, the models, a tuning job through the service and the kernels next to
# PyTorch, writing everything under $OUT (default build/gpu-check).
gpu-bundle: install
	$(PY) bench/gpu_host/bundle.py

gpu-rehearsal: install
	test -f .gpu-bundle/MANIFEST.json || $(PY) bench/gpu_host/bundle.py
	$(PY) bench/gpu_host/rehearse.py

gpu-check:
	python3 bench/gpu_host/check.py $(GPU_CHECK_ARGS)

golden: install
	if [ -f tests/golden/regenerate.py ]; then $(PY) -m tests.golden.regenerate; \
	else echo "no golden corpus yet (tests/golden/regenerate.py is missing)"; fi

demo: install
	$(VENV)/bin/autotune demo

clean: clean-native
	rm -rf $(VENV) build dist .gpu-bundle *.egg-info .pytest_cache .mypy_cache .ruff_cache .hypothesis
	find . -name __pycache__ -type d -prune -exec rm -rf {} +
