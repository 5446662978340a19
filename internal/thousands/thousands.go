// Package thousands writes integers with a comma between each group of three digits
// ("1,528,438"), as the server's picture notes do; the replay notes and the result tables
// share it so that a figure reads the same in both.
package thousands

import "strconv"

// Format returns n in decimal with thousands separators.
func Format(n int64) string {
	var buf [32]byte
	return string(Append(buf[:0], n))
}

// Append appends n with thousands separators to dst.
func Append(dst []byte, n int64) []byte {
	if n < 0 {
		dst = append(dst, '-')
		if n == -n { // math.MinInt64 has no positive counterpart
			return append(dst, "9,223,372,036,854,775,808"...)
		}
		n = -n
	}
	var digits [20]byte
	d := strconv.AppendInt(digits[:0], n, 10)
	for i, c := range d {
		if i > 0 && (len(d)-i)%3 == 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, c)
	}
	return dst
}
