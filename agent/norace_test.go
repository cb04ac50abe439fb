//go:build !race

package agent_test

// raceMemoryFactor scales the memory bounds of the hostile-model tests;
// without the race detector they hold as they are.
const raceMemoryFactor = 1
