// Package suggest finds the names closest to a misspelt one, for "did you mean" hints.
package suggest

import (
	"fmt"
	"sort"
	"strings"
)

// Closest returns up to n of names closest to word: those within an edit distance of a third of
// word's length (at least 2), or that contain word or the part of word after its last '/',
// nearest first (ties in the order of names). Case is ignored.
func Closest(word string, names []string, n int) []string {
	w := strings.ToLower(word)
	_, tail, _ := cutLast(w, "/")
	limit := max(2, len([]rune(w))/3)
	type scored struct {
		name string
		dist int
		at   int
	}
	var found []scored
	for i, name := range names {
		l := strings.ToLower(name)
		d := Distance(w, l)
		switch {
		case d <= limit:
		case len(w) >= 3 && strings.Contains(l, w):
			d = limit + 1
		case len(tail) >= 3 && strings.Contains(l, tail):
			d = limit + 2
		default:
			continue
		}
		found = append(found, scored{name, d, i})
	}
	sort.SliceStable(found, func(i, j int) bool { return found[i].dist < found[j].dist })
	var out []string
	for _, s := range found[:min(n, len(found))] {
		out = append(out, s.name)
	}
	return out
}

// DidYouMean is " (did you mean "a" or "b"?)" for the closest names to word, "" when none is
// close.
func DidYouMean(word string, names []string) string {
	close := Closest(word, names, 3)
	if len(close) == 0 {
		return ""
	}
	quoted := make([]string, len(close))
	for i, c := range close {
		quoted[i] = fmt.Sprintf("%q", c)
	}
	return " (did you mean " + strings.Join(quoted, " or ") + "?)"
}

// cutLast splits s around its last sep; without sep, tail is s.
func cutLast(s, sep string) (head, tail string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return "", s, false
	}
	return s[:i], s[i+len(sep):], true
}

// distance is the Levenshtein distance between a and b, in runes.
func Distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}
