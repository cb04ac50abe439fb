//go:build race

package agent_test

// raceMemoryFactor scales the memory bounds of the hostile-model tests:
// the race detector's shadow memory and instrumented allocations use
// several times the memory of a plain build (Go's documentation: 5-10x).
const raceMemoryFactor = 10
