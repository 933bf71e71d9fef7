# capsim: the two commands of the README are `make demo` and `make test`.
GO ?= go
export PATH := $(PATH):/usr/local/go/bin

.PHONY: demo test check-tree build deps bench repro clean

## demo: install what is missing, build, and run the main job on the embedded default scenario
demo: deps build
	@mkdir -p out/demo
	./bin/capsim gen stencil --dims 4x4 --iterations 20 --imbalance charged-field --balance 0.5 -o out/demo/stencil.arrow
	./bin/capsim replay out/demo/stencil.arrow --timeline out/demo/stencil.timeline.json
	./bin/capsim replay out/demo/stencil.arrow --models examples/models/stencil.json --config-region 'stencil.compute=device=gpu0' --power out/demo/power.arrow
	./bin/capsim bound --caps 290:380:30
	./bin/capsim sweep -o out/demo/sweep --restart
	./bin/capsim report out/demo/sweep
	./bin/capsim sweep examples/scenarios/gpu-node.toml -o out/demo/gpu --restart
	./bin/capsim report out/demo/gpu --detail machine=gpu-node,policy=uncapped
	@echo "demo done: open out/demo/sweep/report.html and out/demo/gpu/report.html; load out/demo/stencil.timeline.json in https://ui.perfetto.dev"

## test: install what is missing, check the tree (gofmt, go mod tidy, no
## binaries or large files: scripts/check-tree.sh), then vet and run every test
## (TEST_TIMEOUT per package: go test's default of 10 minutes is a hang guard
## that cmd/capsim's tests, some 3 minutes of CPU, outrun on a slow or shared
## machine)
TEST_TIMEOUT ?= 45m
test: deps
	GO=$(GO) scripts/check-tree.sh
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) build ./...
	$(GO) test -timeout $(TEST_TIMEOUT) ./...

## check-tree: what CI rejects in the tracked tree (also the first step of test)
check-tree:
	GO=$(GO) scripts/check-tree.sh

build:
	$(GO) build -o bin/capsim ./cmd/capsim

deps:
	@scripts/deps.sh

## bench: rerun the benchmarks and write docs/perf/README.md and its plots
## (at the sizes of that page: about an hour, 16 GB of memory and 32 GB of
## disk at the peak, the 10^9-event trace's file; plain `go run ./bench/run`
## stops at 10^7 events, 10^8 for the scale targets, and 3 minutes a bound
## size). With CAPSIM_LOGGOPSIM and CAPSIM_TXT2BIN naming a LogGOPSim build
## it also prints LogGOPSim's columns and the scale targets' ratios.
bench: deps
	$(GO) run ./bench/run -max-events 1e8 -scale-max 1e9 -bound-timeout 10m -plot docs/perf -md docs/perf/README.md

## repro: recompute every checkable number of the notes into docs/reference/reproductions.md
repro: deps
	$(GO) run ./bench/repro

clean:
	rm -rf bin out
