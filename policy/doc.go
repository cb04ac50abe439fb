// Package policy is the model of a permission policy π and of a task's
// permission spec S: parsing and validation with errors that name the
// file, the field and the index; the one pattern matcher that every other
// package uses; and static scoring of π against S over an environment
// root, with the semantics of the published AuthBench verifier
// (docs/scoring.md).
package policy
