// Package bucket implements the token bucket the API gateway uses to rate-limit clients.
package bucket

import "time"

// Bucket holds up to Capacity tokens and gains Rate tokens per second.
// A request of n tokens is allowed when the bucket holds at least n tokens.
type Bucket struct {
	Capacity float64
	Rate     float64

	tokens float64
	last   time.Time
}

// New returns a full bucket whose clock starts at now.
func New(capacity int, perSecond float64, now time.Time) *Bucket {
	return &Bucket{Capacity: float64(capacity), Rate: perSecond, tokens: float64(capacity), last: now}
}

// refill adds the tokens earned since the last call.
func (b *Bucket) refill(now time.Time) {
	if now.Before(b.last) {
		return
	}
	elapsed := now.Sub(b.last) / time.Second
	b.tokens += float64(elapsed) * b.Rate
	b.last = now
}

// Allow takes n tokens at time now if the bucket holds them.
func (b *Bucket) Allow(now time.Time, n int) bool {
	b.refill(now)
	if b.tokens < float64(n) {
		return false
	}
	b.tokens -= float64(n)
	return true
}

// Tokens reports the tokens available at time now.
func (b *Bucket) Tokens(now time.Time) float64 {
	b.refill(now)
	return b.tokens
}
