// Command authbench scores, enforces and traces file-level permission
// policies for coding agents. See README.md. It is the thin front
// (package cli/front): it serves exec, score and --version itself and hands
// every other command to authbench-full, installed next to it.
package main

import (
	"os"

	"github.com/authbench/authbench/cli/front"
)

func main() {
	os.Exit(front.Main(os.Args[1:]))
}
