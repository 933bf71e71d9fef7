package chakra

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var (
	pgNameRE  = regexp.MustCompile(`["']pg_name["']\s*:\s*["']([^"']*)["']`)
	pgRanksRE = regexp.MustCompile(`["']ranks["']\s*:\s*\[([0-9,\s]*)\]`)
)

// processGroups reads the process-group table of a process_group:init
// METADATA node: entries with a pg_name followed by a list of ranks. An
// empty or missing rank list means every NPU.
func processGroups(s string) (map[string][]int32, error) {
	groups := map[string][]int32{}
	names := pgNameRE.FindAllStringSubmatchIndex(s, -1)
	for i, m := range names {
		end := len(s)
		if i+1 < len(names) {
			end = names[i+1][0]
		}
		name := s[m[2]:m[3]]
		r := pgRanksRE.FindStringSubmatch(s[m[1]:end]) // the entry's ranks follow its name
		var ranks []int32
		if r != nil {
			for _, f := range strings.FieldsFunc(r[1], func(c rune) bool { return c == ',' || c == ' ' || c == '\n' || c == '\t' }) {
				v, err := strconv.ParseInt(f, 10, 32)
				if err != nil || v < 0 {
					return nil, fmt.Errorf("process group %q: bad rank %q", name, f)
				}
				ranks = append(ranks, int32(v))
			}
		}
		groups[name] = ranks
	}
	return groups, nil
}
