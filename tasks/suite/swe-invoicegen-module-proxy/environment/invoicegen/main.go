// invoicegen prints the invoice of an order export.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: invoicegen ORDER.csv")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "invoicegen:", err)
		os.Exit(1)
	}
	defer f.Close()
	inv, err := Build(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "invoicegen:", err)
		os.Exit(1)
	}
	for _, l := range inv.Lines {
		fmt.Printf("%-10s %-28s %4d x %9s  net %10s  vat %9s  gross %10s\n", l.SKU, l.Description, l.Qty, l.Unit, l.Net, l.VAT, l.Gross)
	}
	fmt.Printf("total net %s vat %s gross %s\n", inv.Net, inv.VAT, inv.Gross)
}
