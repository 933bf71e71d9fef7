package importer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Input is one file a trace is read from, with its content's hash: a
// file, or a member of an archive.
type Input struct {
	// Path is the file, or the archive that holds the member.
	Path string
	// Member is the member's name in the archive at Path; "" for a file.
	Member string
	// Rel names the file within the trace, the same whether the trace is
	// a folder or an archive of it: "" for the file the trace is named by
	// (the file itself, or the one file in an archive that is the
	// trace), else its slash-separated path relative to the trace's
	// folder (or the folder of its file).
	Rel string
	// Hash is the SHA-256 of the file's content, in hex.
	Hash string
}

// Name is the input in messages: its path, or ARCHIVE:MEMBER.
func (in Input) Name() string {
	if in.Member != "" {
		return in.Path + ":" + in.Member
	}
	return in.Path
}

// Inputs returns every file that Read reads for the trace at path (see
// Files) with the hash of its content. For an archive they are the
// members that the trace in it reads (unpacked within opt.Archive's
// limits), each named by the archive and its member name: a result
// computed from the archive depends on them, and on nothing else in it.
func Inputs(path string, opt Options) ([]Input, error) {
	if kind := archiveOf(path); kind != "" {
		u, err := unpack(path, path, kind, opt)
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(u.dir)
		files, err := Files(u.trace, opt)
		if err != nil {
			return nil, u.rename(err)
		}
		out, err := hashInputs(u.trace, files)
		if err != nil {
			return nil, u.rename(err)
		}
		for i := range out {
			if m := u.member(out[i].Path); m != "" {
				out[i].Path, out[i].Member = path, m
			}
		}
		return out, nil
	}
	files, err := Files(path, opt)
	if err != nil {
		return nil, err
	}
	return hashInputs(path, files)
}

// hashInputs hashes files, read for the trace at trace, and names each
// within the trace (Input.Rel).
func hashInputs(trace string, files []string) ([]Input, error) {
	root := trace
	if st, err := os.Stat(trace); err == nil && !st.IsDir() {
		root = filepath.Dir(trace)
	}
	var out []Input
	for _, f := range files {
		h, err := HashFile(f)
		if err != nil {
			return nil, err
		}
		in := Input{Path: f, Hash: h}
		if f != trace {
			rel, err := filepath.Rel(root, f)
			if err != nil {
				rel = f
			}
			in.Rel = filepath.ToSlash(rel)
		}
		out = append(out, in)
	}
	return out, nil
}

// HashFile returns the SHA-256 of a file's content, in hex: the hash
// Inputs gives each file, for callers that hash other inputs alike.
func HashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
