package power

// RankProfiles returns each rank's power over [0, makespan] as a step
// function under m (see WaitPower); overlapping tasks of one rank, e.g.
// on two CPUs of one rank, add up. The job's power is the sum of the
// ranks' plus m.BaseW.
func (a *Accountant) RankProfiles(m JobModel, makespan int64) ([]Step, error) {
	if err := m.Validate(len(m.ActiveW)); err != nil {
		return nil, err
	}
	return a.curves(m, makespan)
}
