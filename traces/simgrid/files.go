package simgrid

// Files returns the files the trace at path is read from: path itself and,
// for an index file, the action file of each rank it lists, in rank order.
func Files(path string) ([]string, error) {
	files, err := layout(path)
	if err != nil {
		return nil, err
	}
	if len(files) == 1 && files[0] == path {
		return files, nil
	}
	return append([]string{path}, files...), nil
}
