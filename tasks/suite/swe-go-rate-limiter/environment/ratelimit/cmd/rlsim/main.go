// Command rlsim replays a request trace against per-client token buckets and
// prints, per client, how many requests were allowed and refused.
//
//	rlsim -burst 10 -rate 5 < trace.txt
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	"corp.example/ratelimit/bucket"
	"corp.example/ratelimit/trace"
)

func main() {
	burst := flag.Int("burst", 10, "bucket capacity (tokens)")
	rate := flag.Float64("rate", 5, "refill rate (tokens per second)")
	flag.Parse()
	reqs, err := trace.Read(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rlsim:", err)
		os.Exit(1)
	}
	epoch := time.Unix(0, 0)
	buckets := map[string]*bucket.Bucket{}
	allowed, refused := map[string]int{}, map[string]int{}
	for _, r := range reqs {
		now := epoch.Add(time.Duration(r.Millis) * time.Millisecond)
		b, ok := buckets[r.Client]
		if !ok {
			b = bucket.New(*burst, *rate, now)
			buckets[r.Client] = b
		}
		if b.Allow(now, r.Cost) {
			allowed[r.Client]++
		} else {
			refused[r.Client]++
		}
	}
	clients := make([]string, 0, len(buckets))
	for c := range buckets {
		clients = append(clients, c)
	}
	sort.Strings(clients)
	for _, c := range clients {
		fmt.Printf("%s allowed=%d refused=%d\n", c, allowed[c], refused[c])
	}
}
