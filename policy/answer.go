package policy

import "strings"

// ParseAnswer parses a generator's answer (a program's output or a
// model's reply) with ParsePolicy, the parser of every policy file. The
// answer is the JSON object alone (surrounding white space is allowed);
// else a single fenced ```json block holding it, as models often answer;
// else the object starting on the last line that begins with "{" (after
// a program's chatter). The error is the parser's message on the answer
// as given.
func ParseAnswer(answer string) (*Policy, error) { return ParseAnswerFor(answer, nil) }

// ParseAnswerFor is ParseAnswer for a policy of the task whose spec is
// spec: the network key is accepted when the spec declares the network
// axis (ParsePolicyFor).
func ParseAnswerFor(answer string, spec *Spec) (*Policy, error) {
	pol, err := ParsePolicyFor([]byte(strings.TrimSpace(answer)), "answer", spec)
	if err == nil {
		return pol, nil
	}
	if block, ok := fencedJSON(answer); ok {
		if p, ferr := ParsePolicyFor([]byte(block), "answer", spec); ferr == nil {
			return p, nil
		}
	}
	if i := strings.LastIndex(answer, "\n{"); i >= 0 {
		if p, ferr := ParsePolicyFor([]byte(strings.TrimSpace(answer[i+1:])), "answer", spec); ferr == nil {
			return p, nil
		}
	}
	return nil, err
}

// fencedJSON returns the content of the only ``` fenced block of s.
func fencedJSON(s string) (string, bool) {
	parts := strings.Split(s, "```")
	if len(parts) != 3 {
		return "", false
	}
	body := parts[1]
	if i := strings.IndexByte(body, '\n'); i >= 0 && !strings.Contains(body[:i], "{") {
		body = body[i+1:] // the info string ("json")
	}
	return strings.TrimSpace(body), true
}
