package hugepage

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// TestAdviseLinux advises a fresh 32 MiB slice, writes it, and finds huge
// pages in its mapping (/proc/self/smaps), where the system's transparent
// huge pages follow the advice.
func TestAdviseLinux(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !strings.Contains(string(mode), "[madvise]") && !strings.Contains(string(mode), "[always]") {
		t.Skipf("transparent huge pages off here (%q)", strings.TrimSpace(string(mode)))
	}
	s := make([]int64, 4<<20) // 32 MiB
	Advise(s)
	for i := range s {
		s[i] = int64(i)
	}
	start := uintptr(unsafe.Pointer(&s[0]))
	kb, err := anonHuge(start, start+uintptr(len(s))*8)
	if err != nil {
		t.Fatal(err)
	}
	if kb == 0 {
		t.Errorf("no huge pages in the mapping of an advised 32 MiB slice")
	}
	t.Logf("%d KiB in huge pages", kb)
}

// anonHuge returns the AnonHugePages of the mappings that overlap
// [lo, hi) (the advice splits a mapping where the huge pages begin).
func anonHuge(lo, hi uintptr) (int64, error) {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in, found := false, false
	var total int64
	for sc.Scan() {
		l := sc.Text()
		var a, b uintptr
		if n, _ := fmt.Sscanf(l, "%x-%x ", &a, &b); n == 2 && !strings.HasSuffix(strings.Fields(l)[0], ":") {
			in = a < hi && lo < b
			found = found || in
			continue
		}
		if rest, ok := strings.CutPrefix(l, "AnonHugePages:"); in && ok {
			var kb int64
			fmt.Sscanf(strings.TrimSpace(rest), "%d", &kb)
			total += kb
		}
	}
	if !found {
		return 0, fmt.Errorf("no mapping holds %#x-%#x", lo, hi)
	}
	return total, sc.Err()
}
