package dumpi

// Files returns the files the trace at path is read from: its .meta file
// and then the .bin file of each rank, in rank order. path is what Read
// takes (the .meta file, its folder or one of its .bin files).
func Files(path string) ([]string, error) {
	mp, err := findMeta(path)
	if err != nil {
		return nil, err
	}
	m, err := readMeta(mp)
	if err != nil {
		return nil, err
	}
	return append([]string{mp}, m.files...), nil
}
