package hugepage

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unsafe"
)

// TestAdviseLinux advises a fresh 32 MiB slice, writes it, and finds the
// advice on its mapping (/proc/self/smaps: VmFlags hg, which a plain
// slice's mapping lacks), where the system's transparent huge pages follow
// the advice. Whether the kernel then finds free huge pages for it is the
// kernel's business (a fragmented or loaded machine may have none at
// that moment): the huge pages it holds are logged, not required.
func TestAdviseLinux(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !strings.Contains(string(mode), "[madvise]") && !strings.Contains(string(mode), "[always]") {
		t.Skipf("transparent huge pages off here (%q)", strings.TrimSpace(string(mode)))
	}
	plain := make([]int64, 4<<20) // 32 MiB
	for i := range plain {
		plain[i] = int64(i)
	}
	s := make([]int64, 4<<20) // 32 MiB
	Advise(s)
	for i := range s {
		s[i] = int64(i)
	}
	if _, advised, err := mappings(plain); err != nil {
		t.Fatal(err)
	} else if advised {
		t.Skip("the Go runtime advised a plain slice already: the advice cannot be told apart")
	}
	kb, advised, err := mappings(s)
	if err != nil {
		t.Fatal(err)
	}
	if !advised {
		t.Errorf("the mapping of an advised 32 MiB slice is not advised for huge pages (VmFlags without hg)")
	}
	t.Logf("%d KiB in huge pages", kb)
	runtime.KeepAlive(plain)
}

// mappings returns the AnonHugePages of the mappings that overlap s (the
// advice splits a mapping where the huge pages begin), and whether one of
// them is advised for huge pages (VmFlags hg).
func mappings(s []int64) (kb int64, advised bool, err error) {
	lo := uintptr(unsafe.Pointer(&s[0]))
	hi := lo + uintptr(len(s))*8
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		return 0, false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in, found := false, false
	for sc.Scan() {
		l := sc.Text()
		var a, b uintptr
		if n, _ := fmt.Sscanf(l, "%x-%x ", &a, &b); n == 2 && !strings.HasSuffix(strings.Fields(l)[0], ":") {
			in = a < hi && lo < b
			found = found || in
			continue
		}
		if !in {
			continue
		}
		if rest, ok := strings.CutPrefix(l, "AnonHugePages:"); ok {
			var n int64
			fmt.Sscanf(strings.TrimSpace(rest), "%d", &n)
			kb += n
		}
		if rest, ok := strings.CutPrefix(l, "VmFlags:"); ok && slices.Contains(strings.Fields(rest), "hg") {
			advised = true
		}
	}
	if !found {
		return 0, false, fmt.Errorf("no mapping holds %#x-%#x", lo, hi)
	}
	return kb, advised, sc.Err()
}
