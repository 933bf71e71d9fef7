package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzDetect feeds arbitrary file contents to Detect and Read: they must
// never panic, errors must name the file and carry no raw control bytes
// (excerpts are quoted), and a detected format's reader must take it or
// fail with an error.
func FuzzDetect(f *testing.F) {
	for _, s := range []string{
		"num_ranks 2\nrank 0 {\nl1: send 8b to 1 tag 18446744073709551615\n}\nrank 1 {\nl1: recv 8b from 0 tag -1\n}\n",
		"/* c */ // d\nnum_ranks 1\n",
		"# collprof 0.9 output file\nMPI_Init:-:1:2:1.0\nMPI_Finalize:2.0:-\n",
		"MPI_Bcast:3.0:5:12:13,1,1:0:5641280,0,4:4.0\n",
		"\x1f\x8b\x08\x00", "\x28\xb5\x2f\xfd", "PK\x03\x04", "\x03BOTF2\x00", "\xff\xaa\xdd\x44DUMPI",
		"hostname=h\nnumprocs=2\nfileprefix=x\n", "ARROW1\x00\x00",
		"\xff\xff\xff\xff\x10\x00\x00\x00", "",
		"\x07\n\x050.0.4\x06\x08\x01\x18\x048\x0a", // a Chakra trace: metadata and one COMP node
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz-0.dat")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		check := func(err error) {
			msg := err.Error()
			if !strings.Contains(msg, "fuzz-0.dat") {
				t.Fatalf("error does not name the file: %v", err)
			}
			for _, c := range msg {
				if c < 0x20 && c != '\n' && c != '\t' {
					t.Fatalf("raw byte %q in %q", c, msg)
				}
			}
		}
		if _, err := Detect(path); err != nil {
			check(err)
			return
		}
		if _, err := Read(path, Options{}); err != nil {
			if _, ok := err.(*Error); ok {
				check(err)
			}
		}
	})
}
