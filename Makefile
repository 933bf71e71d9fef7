# capsim: the two commands of the README are `make demo` and `make test`.
GO ?= go
export PATH := $(PATH):/usr/local/go/bin

.PHONY: demo test build deps bench clean

## demo: install what is missing, build, and run the main job on the embedded default scenario
demo: deps build
	@mkdir -p out/demo
	./bin/capsim gen stencil --dims 4x4 --iterations 20 --imbalance charged-field --balance 0.5 -o out/demo/stencil.arrow
	./bin/capsim replay out/demo/stencil.arrow --timeline out/demo/stencil.timeline.json
	./bin/capsim sweep -o out/demo/sweep
	./bin/capsim report out/demo/sweep
	@echo "demo done: open out/demo/sweep/report.html; load out/demo/stencil.timeline.json in https://ui.perfetto.dev"

## test: install what is missing, then vet and run every test
test: deps
	$(GO) vet ./...
	CGO_ENABLED=0 $(GO) build ./...
	$(GO) test ./...

build:
	$(GO) build -o bin/capsim ./cmd/capsim

deps:
	@scripts/deps.sh

## bench: the benchmarks behind the README's performance numbers
bench: deps
	$(GO) test -run '^$$' -bench . -benchmem ./bench/...

clean:
	rm -rf bin out
