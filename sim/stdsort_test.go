package sim

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestSortMatchesLibstdcxx checks stdSort against g++ 12's std::sort on
// the same inputs (testdata/libstdcxx_sort.cpp prints them).
func TestSortMatchesLibstdcxx(t *testing.T) {
	f, err := os.Open("testdata/libstdcxx_sort.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	cases := 0
	for sc.Scan() {
		in, out, _ := strings.Cut(sc.Text(), ":")
		fs := strings.Fields(in)
		n, _ := strconv.Atoi(fs[0])
		a := make([]readyOp, n)
		for i := 0; i < n; i++ {
			typ, _ := strconv.Atoi(fs[i+1]) // LogGOPSim's types: 1 send, 2 recv, 3 calc
			a[i] = readyOp{op: int32(i), typ: uint8(typ)}
		}
		stdSort(a)
		ids := make([]string, n)
		for i, r := range a {
			ids[i] = fmt.Sprint(r.op)
		}
		if got, want := strings.Join(ids, " "), strings.TrimSpace(out); got != want {
			t.Errorf("n=%d: got %s, libstdc++ %s", n, got, want)
		}
		cases++
	}
	if cases < 50 {
		t.Fatalf("only %d cases read", cases)
	}
}
