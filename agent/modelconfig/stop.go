package modelconfig

// StopReason says why a loop ended.
type StopReason string

// The reasons a loop ends.
const (
	StopFinished      StopReason = "finished"       // finish tool, or an accepted final answer
	StopTurnLimit     StopReason = "turn_limit"     // MaxTurns model calls without finishing
	StopTimeout       StopReason = "timeout"        // ctx ended (the run's time is up)
	StopModelError    StopReason = "model_error"    // retries exhausted, 4xx, garbage body
	StopInvalidAnswer StopReason = "invalid_answer" // Final rejected the answer after the repairs
	// StopLimits: the conversation would have passed max_history_bytes or
	// the trajectory MaxTrajectoryBytes.
	StopLimits StopReason = "limits"
)
