package importer

// WithKeepGaps returns o set to keep (true) or leave out (false) the
// measurement gaps of the formats that have them (see graph.Recorded):
// OTF2's time with recording switched off, before MPI_Init returns and
// after MPI_Finalize is entered. DUMPI and liballprof record no time
// outside MPI_Init … MPI_Finalize and cannot switch recording off.
func (o Options) WithKeepGaps(keep bool) Options {
	o.OTF2.KeepGaps = keep
	return o
}

// WithStamps returns o set to keep (true) or not (false) each event's
// recorded time (mpi.Rank.Stamps) in the formats that have one: OTF2,
// DUMPI and liballprof. Calibration needs them; replay does not.
func (o Options) WithStamps(keep bool) Options {
	o.OTF2.Stamps = keep
	o.DUMPI.Stamps = keep
	o.Liballprof.Stamps = keep
	return o
}

// WithAlignStarts returns o set to start every rank at 0 (true) or, by
// default (false), each at its recorded start where the trace recorded
// its ranks starting apart (Options.AlignStarts).
func (o Options) WithAlignStarts(align bool) Options {
	o.AlignStarts = align
	return o
}
