// Package money does currency arithmetic in integer cents, rounding the
// way Acme's finance department books amounts.
package money

import "fmt"

// Cents is an amount in cents.
type Cents int64

// ApplyRate returns c × bp / 10000 (bp in basis points: 1900 is 19 %),
// rounded half away from zero, as invoices must be.
func ApplyRate(c Cents, bp int64) Cents {
	n := int64(c) * bp
	q, r := n/10000, n%10000
	switch {
	case r >= 5000:
		q++
	case r <= -5000:
		q--
	}
	return Cents(q)
}

// Mul returns c × n.
func Mul(c Cents, n int64) Cents { return Cents(int64(c) * n) }

// String formats c as "1234.56" ("-0.05" for negative amounts).
func (c Cents) String() string {
	sign := ""
	v := int64(c)
	if v < 0 {
		sign, v = "-", -v
	}
	return fmt.Sprintf("%s%d.%02d", sign, v/100, v%100)
}
