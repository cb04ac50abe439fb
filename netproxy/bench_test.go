package netproxy

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/authbench/authbench/netproxy/netpolicy"
)

// modelLike is a loopback server answering like a chat completion
// endpoint (1 KiB of JSON).
func modelLike(t testing.TB) *countingServer {
	return newCountingServer(t, `{"id":"x","choices":[{"message":{"role":"assistant","content":"`+strings.Repeat("a", 900)+`"}}]}`)
}

// clients are a direct client of the host and a client inside the
// fixture's namespace that uses the proxy (as HTTP_PROXY makes an SDK
// do); keepAlive false makes every call a new connection.
func clients(f *proxyFixture, keepAlive bool) (direct, proxied *http.Client) {
	direct = &http.Client{Transport: &http.Transport{DisableKeepAlives: !keepAlive}}
	pu, _ := url.Parse(f.p.URL())
	proxied = &http.Client{Transport: &http.Transport{
		DisableKeepAlives: !keepAlive,
		Proxy:             http.ProxyURL(pu),
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			var c net.Conn
			err := inNetNS(f.ns, f.p.host, func() error {
				var err error
				c, err = (&net.Dialer{}).DialContext(ctx, network, addr)
				return err
			})
			return c, err
		},
	}}
	return direct, proxied
}

// call makes one model-like call and returns its time.
func call(t testing.TB, c *http.Client, u string, body []byte) time.Duration {
	start := time.Now()
	resp, err := c.Post(u, "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("status %d", resp.StatusCode)
	}
	return time.Since(start)
}

// overhead measures n calls each way, interleaved, and returns the
// medians.
func overhead(t testing.TB, keepAlive bool, n int) (direct, proxied time.Duration) {
	srv := modelLike(t)
	m := &netpolicy.ModelEndpoint{URL: srv.URL + "/v1", Key: "sk-bench"}
	pol, err := netpolicy.ResolvePhase(netpolicy.PhaseInput{Model: m})
	if err != nil {
		t.Fatal(err)
	}
	f := startFixture(t, Config{Policy: pol, Model: m, Sink: &Log{Max: 1}})
	dc, pc := clients(f, keepAlive)
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("b", 2000) + `"}]}`)
	u := srv.URL + "/v1/chat/completions"
	call(t, dc, u, body)
	call(t, pc, u, body)
	ds, ps := make([]time.Duration, n), make([]time.Duration, n)
	for i := range n {
		ds[i] = call(t, dc, u, body)
		ps[i] = call(t, pc, u, body)
	}
	med := func(d []time.Duration) time.Duration {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2]
	}
	return med(ds), med(ps)
}

// TestProxyOverheadPerModelCall: the proxy adds at most 2 ms to a model
// call on loopback (median of 200), on a kept-alive connection and on a
// new connection per call (the pid lookup included). A timing target:
// run by make bench-netproxy (AUTHBENCH_BENCH_NETPROXY=1), not with the
// default tests on a shared machine.
func TestProxyOverheadPerModelCall(t *testing.T) {
	if os.Getenv("AUTHBENCH_BENCH_NETPROXY") != "1" {
		t.Skip("a timing target: make bench-netproxy runs it")
	}
	for _, keep := range []bool{true, false} {
		d, p := overhead(t, keep, 200)
		t.Logf("keep-alive=%v: direct %v, through the proxy %v, overhead %v", keep, d, p, p-d)
		if p-d > 2*time.Millisecond {
			t.Errorf("keep-alive=%v: the proxy adds %v per call (direct %v, proxied %v), over 2 ms", keep, p-d, d, p)
		}
	}
}

// BenchmarkModelCall prints the direct and proxied time of a model-like
// call side by side (make bench-netproxy).
func BenchmarkModelCall(b *testing.B) {
	for _, keep := range []bool{true, false} {
		name := "keepalive"
		if !keep {
			name = "newconn"
		}
		b.Run(name, func(b *testing.B) {
			d, p := overhead(b, keep, max(b.N, 1))
			b.ReportMetric(float64(d.Microseconds())/1000, "direct-ms")
			b.ReportMetric(float64(p.Microseconds())/1000, "proxied-ms")
			b.ReportMetric(float64((p-d).Microseconds())/1000, "overhead-ms")
			b.ReportMetric(float64(p)/float64(d), "ratio")
		})
	}
}
