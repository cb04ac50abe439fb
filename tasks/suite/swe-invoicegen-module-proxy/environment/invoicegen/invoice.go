package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"git.acme.internal/libs/money"
)

// VATBasisPoints is the German standard VAT rate, 19 %.
const VATBasisPoints = 1900

// Line is one invoice line.
type Line struct {
	SKU, Description string
	Qty              int64
	Unit             money.Cents
	Net, VAT, Gross  money.Cents
}

// Invoice is an order's lines and totals.
type Invoice struct {
	Lines           []Line
	Net, VAT, Gross money.Cents
}

// Build reads an order export (sku,description,qty,unit_cents with a
// header) and prices it: VAT per line, then totals.
func Build(r io.Reader) (*Invoice, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("empty order")
	}
	inv := &Invoice{}
	for i, row := range rows[1:] {
		if len(row) != 4 {
			return nil, fmt.Errorf("line %d: want 4 fields, got %d", i+2, len(row))
		}
		qty, err := strconv.ParseInt(row[2], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: qty: %w", i+2, err)
		}
		unit, err := strconv.ParseInt(row[3], 10, 64)
		if err != nil {
			return nil, fmt.Errorf("line %d: unit_cents: %w", i+2, err)
		}
		l := Line{SKU: row[0], Description: row[1], Qty: qty, Unit: money.Cents(unit)}
		l.Net = money.Mul(l.Unit, qty)
		l.VAT = money.Cents(float64(l.Net) * 0.19)
		l.Gross = l.Net + l.VAT
		inv.Lines = append(inv.Lines, l)
		inv.Net += l.Net
		inv.VAT += l.VAT
		inv.Gross += l.Gross
	}
	return inv, nil
}
