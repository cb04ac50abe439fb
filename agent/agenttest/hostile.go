package agenttest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// Hostile replies: what a model endpoint chosen by someone else may send.
// Each writes its body as it goes (Raw), so that the server holds little
// of it.

// SSE is the Header of a server-sent events reply.
var SSE = map[string]string{"Content-Type": "text/event-stream"}

// HostileManyCalls is one JSON answer with n tool calls of tool name,
// each with args as its arguments.
func HostileManyCalls(n int, name, args string) Reply {
	return Reply{Raw: func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		a, _ := json.Marshal(args)
		fmt.Fprint(bw, `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":null,"tool_calls":[`)
		for i := range n {
			if i > 0 {
				bw.WriteByte(',')
			}
			fmt.Fprintf(bw, `{"id":"c%d","type":"function","function":{"name":%q,"arguments":%s}}`, i, name, a)
		}
		fmt.Fprint(bw, `]}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
		return bw.Flush()
	}}
}

// chunkLine is one stream chunk whose delta is delta (JSON).
func chunkLine(delta string) string {
	return `data: {"id":"x","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":` + delta + `}]}` + "\n\n"
}

// HostileStream is a stream of n chunks, chunk i's delta being delta(i)
// (JSON), then [DONE]; n < 0: endless (until the client leaves).
func HostileStream(n int, delta func(i int) string) Reply {
	return Reply{Header: SSE, Raw: func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 64<<10)
		for i := 0; n < 0 || i < n; i++ {
			if _, err := bw.WriteString(chunkLine(delta(i))); err != nil {
				return err
			}
		}
		bw.WriteString("data: [DONE]\n\n")
		return bw.Flush()
	}}
}

// SparseCallDelta is a tool-call delta at index i*step (each chunk a new,
// far index), of tool name.
func SparseCallDelta(step int, name string) func(i int) string {
	return func(i int) string {
		return fmt.Sprintf(`{"tool_calls":[{"index":%d,"id":"s%d","type":"function","function":{"name":%q,"arguments":"{}"}}]}`, i*step, i, name)
	}
}

// ArgumentsDelta adds part to the arguments of tool call 0 (named name
// in chunk 0).
func ArgumentsDelta(name, part string) func(i int) string {
	p, _ := json.Marshal(part)
	return func(i int) string {
		if i == 0 {
			return fmt.Sprintf(`{"tool_calls":[{"index":0,"id":"big","type":"function","function":{"name":%q,"arguments":""}}]}`, name)
		}
		return fmt.Sprintf(`{"tool_calls":[{"index":0,"function":{"arguments":%s}}]}`, p)
	}
}

// ContentDelta adds part to the content.
func ContentDelta(part string) func(i int) string {
	p, _ := json.Marshal(part)
	return func(int) string { return `{"content":` + string(p) + `}` }
}

// HostileMalformedUTF8 is one JSON answer whose content, tool call ids,
// names and arguments hold invalid UTF-8 and control bytes, raw in the
// body: n calls of tool name whose string argument "text" has size bytes.
func HostileMalformedUTF8(n int, name string, size int) Reply {
	bad := "\xff\xfe\x01\x1f<&>\xc3"
	junk := strings.Repeat(bad, size/len(bad)+1)[:size]
	return Reply{Raw: func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		// invalid UTF-8 raw in strings; control bytes escaped as JSON wants
		esc := strings.NewReplacer("\x01", `\u0001`, "\x1f", `\u001f`)
		j := esc.Replace(junk)
		fmt.Fprintf(bw, `{"id":"x","object":"chat.completion","model":"m","choices":[{"index":0,"finish_reason":"tool_calls","message":{"role":"assistant","content":"%s","tool_calls":[`, esc.Replace(junk[:min(len(junk), 64<<10)]))
		for i := range n {
			if i > 0 {
				bw.WriteByte(',')
			}
			args := `{\"text\":\"` + strings.ReplaceAll(j, `\u`, `\\u`) + `\"}`
			fmt.Fprintf(bw, `{"id":"%s%d","type":"function","function":{"name":"%s","arguments":"%s"}}`, "\xff\xfe", i, name, args)
		}
		fmt.Fprint(bw, `]}}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`)
		return bw.Flush()
	}}
}
