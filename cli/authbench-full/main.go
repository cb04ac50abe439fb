// Command authbench-full is the full authbench CLI (package cli): every
// command. The thin front, bin/authbench, hands it the commands it does
// not serve itself; it is installed next to it.
package main

import (
	"os"

	"github.com/authbench/authbench/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}
