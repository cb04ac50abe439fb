package bucket

import (
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func at(ms int) time.Time { return t0.Add(time.Duration(ms) * time.Millisecond) }

func TestStartsFull(t *testing.T) {
	b := New(5, 1, t0)
	for i := 0; i < 5; i++ {
		if !b.Allow(t0, 1) {
			t.Fatalf("request %d refused from a full bucket of 5", i+1)
		}
	}
	if b.Allow(t0, 1) {
		t.Fatal("sixth request allowed from a bucket of 5")
	}
}

func TestRefillsContinuously(t *testing.T) {
	b := New(2, 10, t0) // one token every 100 ms
	b.Allow(t0, 2)
	if b.Allow(at(50), 1) {
		t.Fatal("allowed after 50 ms at 10/s (half a token)")
	}
	if !b.Allow(at(120), 1) {
		t.Fatal("refused after 120 ms at 10/s (1.2 tokens)")
	}
}

func TestNeverExceedsCapacity(t *testing.T) {
	b := New(3, 2, t0)
	if got := b.Tokens(at(60_000)); got != 3 {
		t.Fatalf("after a quiet minute the bucket holds %v tokens, capacity is 3", got)
	}
	for i := 0; i < 3; i++ {
		b.Allow(at(60_000), 1)
	}
	if b.Allow(at(60_000), 1) {
		t.Fatal("a burst larger than the capacity was allowed")
	}
}

func TestClockGoingBackwards(t *testing.T) {
	b := New(1, 1, at(1000))
	b.Allow(at(1000), 1)
	if b.Allow(at(500), 1) {
		t.Fatal("an earlier timestamp refilled the bucket")
	}
}
