// Command authbench scores, enforces and traces file-level permission
// policies for coding agents. See README.md.
package main

import (
	"os"

	"github.com/authbench/authbench/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}
