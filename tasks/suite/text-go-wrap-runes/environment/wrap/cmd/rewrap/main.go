// Command rewrap re-flows the paragraphs of standard input to -w columns.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"example.com/wrap/wrap"
)

func main() {
	width := flag.Int("w", 72, "column width")
	flag.Parse()
	in, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "rewrap:", err)
		os.Exit(1)
	}
	fmt.Print(wrap.Paragraphs(string(in), *width))
}
