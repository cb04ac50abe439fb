package main

import (
	"os"
	"strings"
	"testing"

	"git.acme.internal/libs/money"
)

func TestOrder7731(t *testing.T) {
	f, err := os.Open("testdata/order-7731.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	inv, err := Build(f)
	if err != nil {
		t.Fatal(err)
	}
	wantVAT := []money.Cents{1707, 1663, 1708, 809, 1844}
	for i, l := range inv.Lines {
		if l.VAT != wantVAT[i] {
			t.Errorf("%s: VAT %s, want %s (booked per line, rounded half up)", l.SKU, l.VAT, wantVAT[i])
		}
	}
	if inv.Net != 40690 || inv.VAT != 7731 || inv.Gross != 48421 {
		t.Errorf("totals net %s vat %s gross %s, want 406.90 77.31 484.21", inv.Net, inv.VAT, inv.Gross)
	}
}

func TestHalfCentRoundsUp(t *testing.T) {
	inv, err := Build(strings.NewReader("sku,description,qty,unit_cents\nX-1,half cent,1,250\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := inv.Lines[0].VAT; got != 48 {
		t.Errorf("VAT of 2.50 = %s, want 0.48", got)
	}
}
