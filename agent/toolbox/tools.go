package toolbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/authbench/authbench/agent"
)

// Tool names.
const (
	ToolShell     = "shell"
	ToolReadFile  = "read_file"
	ToolWriteFile = "write_file"
	ToolFinish    = "finish"
	ToolListDir   = "list_dir"
	ToolGrep      = "grep"
	ToolStat      = "stat"
	ToolWhich     = "which"
)

// ExecutionTools are the tools of the execution agent: shell, read_file,
// write_file, and finish (which ends the loop with its summary in
// Observation.Extra["summary"]).
func ExecutionTools(c *Client) []agent.Tool {
	return []agent.Tool{shellTool(c), readFileTool(c), writeFileTool(c), finishTool()}
}

// ExplorationTools are the read-only tools of permission generation:
// list_dir, read_file, grep, stat and which.
func ExplorationTools(c *Client) []agent.Tool {
	return []agent.Tool{listDirTool(c), readFileTool(c), grepTool(c), statTool(c), whichTool(c)}
}

func schema(required []string, props map[string]any) map[string]any {
	return map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false}
}

func str(desc string) map[string]any { return map[string]any{"type": "string", "description": desc} }
func num(desc string) map[string]any { return map[string]any{"type": "number", "description": desc} }
func integer(desc string) map[string]any {
	return map[string]any{"type": "integer", "description": desc, "minimum": 0}
}

// decode reads a tool's arguments; missing keys stay zero, unknown keys
// are an error (a misspelt argument would otherwise be ignored).
func decode(args json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("arguments: %w", err)
	}
	return nil
}

// observe calls the toolbox and turns its result into what the model
// reads; a failed operation is an observation (with its real error),
// not an error, so that its call window is kept.
func observe(ctx context.Context, c *Client, req Request, format func(Result) string) (agent.Observation, error) {
	res, err := c.Call(ctx, req)
	if err != nil {
		return agent.Observation{}, err
	}
	extra := map[string]any{"start_ns": res.StartNS, "end_ns": res.EndNS}
	if res.Errno != "" {
		extra["errno"] = res.Errno
	}
	text := res.Output
	if format != nil {
		text = format(res)
	}
	return agent.Observation{Text: text, Extra: extra}, nil
}

func shellTool(c *Client) agent.Tool {
	return agent.Tool{
		Name: ToolShell,
		Description: "Run a command with bash (sh if bash is missing) in the task's environment, like one line of an " +
			"interactive shell session: `cd` and `export` carry over to later calls. stdout and stderr come back " +
			"interleaved (long output keeps its beginning and end), with the exit code. The command's process group " +
			"is killed after timeout_s seconds (default 120). Some files may be denied by the security policy: the " +
			"error you see is the real one.",
		Parameters: schema([]string{"command"}, map[string]any{
			"command":   str("the shell command line"),
			"timeout_s": num("seconds before the command is killed (default 120)"),
		}),
		Run: func(ctx context.Context, args json.RawMessage) (agent.Observation, error) {
			var a struct {
				Command  string  `json:"command"`
				TimeoutS float64 `json:"timeout_s"`
			}
			if err := decode(args, &a); err != nil {
				return agent.Observation{}, err
			}
			if a.Command == "" {
				return agent.Observation{}, errors.New("command is empty")
			}
			if a.TimeoutS < 0 || math.IsNaN(a.TimeoutS) {
				return agent.Observation{}, errors.New("timeout_s must be a positive number of seconds")
			}
			if dl, ok := ctx.Deadline(); ok {
				left := time.Until(dl).Seconds()
				if a.TimeoutS == 0 {
					a.TimeoutS = DefaultTimeout.Seconds()
				}
				a.TimeoutS = math.Max(0.001, math.Min(a.TimeoutS, left))
			}
			return observe(ctx, c, Request{Op: OpShell, Command: a.Command, TimeoutS: a.TimeoutS}, formatShell)
		},
	}
}

// formatShell is the shell's output with its exit code.
func formatShell(r Result) string {
	if r.ExitCode == nil {
		return r.Output
	}
	out := r.Output
	if out != "" && out[len(out)-1] != '\n' {
		out += "\n"
	}
	return fmt.Sprintf("%s[exit code: %d]", out, *r.ExitCode)
}

func readFileTool(c *Client) agent.Tool {
	return agent.Tool{
		Name: ToolReadFile,
		Description: "Read a text file (at most 64 KiB per call; use offset to read on). Relative paths start in the " +
			"shell's current directory. A file the security policy denies fails with the real error.",
		Parameters: schema([]string{"path"}, map[string]any{
			"path":   str("the file's path"),
			"offset": integer("the first byte to read (default 0)"),
			"limit":  integer("how many bytes to read at most (default and maximum 65536)"),
		}),
		Run: func(ctx context.Context, args json.RawMessage) (agent.Observation, error) {
			var a struct {
				Path          string `json:"path"`
				Offset, Limit int64
			}
			if err := decode(args, &a); err != nil {
				return agent.Observation{}, err
			}
			return observe(ctx, c, Request{Op: OpReadFile, Path: a.Path, Offset: a.Offset, Limit: a.Limit}, nil)
		},
	}
}

func writeFileTool(c *Client) agent.Tool {
	return agent.Tool{
		Name: ToolWriteFile,
		Description: "Write content to a file, creating it or replacing what it held. Its directory must exist. " +
			"A file the security policy denies fails with the real error.",
		Parameters: schema([]string{"path", "content"}, map[string]any{
			"path":    str("the file's path"),
			"content": str("the file's whole new content"),
		}),
		Run: func(ctx context.Context, args json.RawMessage) (agent.Observation, error) {
			var a struct{ Path, Content string }
			if err := decode(args, &a); err != nil {
				return agent.Observation{}, err
			}
			return observe(ctx, c, Request{Op: OpWriteFile, Path: a.Path, Content: a.Content}, nil)
		},
	}
}

func finishTool() agent.Tool {
	return agent.Tool{
		Name:        ToolFinish,
		Description: "Call when the task is done (or cannot be done), with a short summary of what you did.",
		Parameters:  schema([]string{"summary"}, map[string]any{"summary": str("what was done, and what could not be")}),
		Run: func(_ context.Context, args json.RawMessage) (agent.Observation, error) {
			var a struct{ Summary string }
			if err := decode(args, &a); err != nil {
				return agent.Observation{}, err
			}
			return agent.Observation{Text: "finished", Done: true, Extra: map[string]any{"summary": a.Summary}}, nil
		},
	}
}

func listDirTool(c *Client) agent.Tool {
	return agent.Tool{
		Name:        ToolListDir,
		Description: "List a directory: sub-directories end with /, files show their size, symbolic links their target.",
		Parameters:  schema([]string{"path"}, map[string]any{"path": str("the directory")}),
		Run: func(ctx context.Context, args json.RawMessage) (agent.Observation, error) {
			var a struct{ Path string }
			if err := decode(args, &a); err != nil {
				return agent.Observation{}, err
			}
			return observe(ctx, c, Request{Op: OpListDir, Path: a.Path}, nil)
		},
	}
}

func grepTool(c *Client) agent.Tool {
	return agent.Tool{
		Name: ToolGrep,
		Description: "Search a file, or every file under a directory, for a regular expression (Go RE2 syntax); " +
			"prints path:line:text for each matching line (at most 200 matches; binary files are skipped).",
		Parameters: schema([]string{"pattern", "path"}, map[string]any{
			"pattern": str("the regular expression"),
			"path":    str("a file or a directory"),
			"limit":   integer("the most matches to show (default and maximum 200)"),
		}),
		Run: func(ctx context.Context, args json.RawMessage) (agent.Observation, error) {
			var a struct {
				Pattern, Path string
				Limit         int64
			}
			if err := decode(args, &a); err != nil {
				return agent.Observation{}, err
			}
			return observe(ctx, c, Request{Op: OpGrep, Pattern: a.Pattern, Path: a.Path, Limit: a.Limit}, nil)
		},
	}
}

func statTool(c *Client) agent.Tool {
	return agent.Tool{
		Name:        ToolStat,
		Description: "Show a path's type, mode, size, owner and modification time (a symbolic link itself, with its target).",
		Parameters:  schema([]string{"path"}, map[string]any{"path": str("the path")}),
		Run: func(ctx context.Context, args json.RawMessage) (agent.Observation, error) {
			var a struct{ Path string }
			if err := decode(args, &a); err != nil {
				return agent.Observation{}, err
			}
			return observe(ctx, c, Request{Op: OpStat, Path: a.Path}, nil)
		},
	}
}

func whichTool(c *Client) agent.Tool {
	return agent.Tool{
		Name:        ToolWhich,
		Description: "Find a program in PATH, as a shell would: every match, with the file a symbolic link leads to.",
		Parameters:  schema([]string{"name"}, map[string]any{"name": str("the program's name")}),
		Run: func(ctx context.Context, args json.RawMessage) (agent.Observation, error) {
			var a struct{ Name string }
			if err := decode(args, &a); err != nil {
				return agent.Observation{}, err
			}
			return observe(ctx, c, Request{Op: OpWhich, Path: a.Name}, nil)
		},
	}
}
