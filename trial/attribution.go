package trial

// MaxAttributionRounds bounds the re-runs of one failed run: a re-run that
// fails on new denials is run again with their permissions added too, at
// most this many times in all.
const MaxAttributionRounds = 8

// Attribution says which permissions a failed run lacked, as confirmed by
// re-running it with exactly them added (bench --attribute).
type Attribution struct {
	// Permissions are the permissions added, "axis path", in the order
	// the re-runs asked for them; after a round that added the task's
	// missing required entries at once, only those the passing re-run
	// used (entries as the spec writes them).
	Permissions []string `json:"permissions"`
	// Rounds is how many re-runs were made.
	Rounds int `json:"rounds"`
	// Confirmed: the last re-run passed V_u and exposed nothing, so the
	// permissions are why the run failed.
	Confirmed bool `json:"confirmed"`
	// Unattributable says why no re-run was made (the run failed with no
	// deciding denial: no permission reason).
	Unattributable string `json:"unattributable,omitempty"`
	// Stop says why an unconfirmed attribution ended.
	Stop string `json:"stop,omitempty"`
	// Refused are the permissions a denial called for that no re-run was
	// given, each with the sensitive file it would grant once enforced
	// (a listed directory's hierarchy, a missing file's ancestor).
	Refused []string `json:"refused,omitempty"`
	// RerunS is the wall time of the re-runs.
	RerunS float64 `json:"rerun_s"`
}

// SkippedTask is a task of the tasks dir the bench could not run.
type SkippedTask struct {
	Dir    string `json:"dir"`
	Reason string `json:"reason"`
}
