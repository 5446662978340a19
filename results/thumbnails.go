package results

import "github.com/strata-eval/strata-eval/records"

// ThumbnailSet gathers the thumbnails of a report page: the pictures of the cases in case
// order, arm by arm, each picture before what the agent made of it, one thumbnail per digest,
// until Budget bytes are spent. The first thumbnail that does not fit cuts the set, so that the
// page holds the same prefix however the thumbnails were made.
type ThumbnailSet struct {
	// Budget is the most thumbnail bytes (records.ThumbnailBudget when 0).
	Budget int
	// List holds the admitted thumbnails in order; Cut says the budget was spent.
	List []records.Thumbnail
	Cut  bool
	used int
	has  map[string]bool
}

// Admit adds the thumbnails of c's pictures that lookup has, in order, until the budget is spent.
func (s *ThumbnailSet) Admit(c *Case, lookup func(digest string) (records.Thumbnail, bool)) {
	if s.has == nil {
		s.has = map[string]bool{}
	}
	budget := s.Budget
	if budget <= 0 {
		budget = records.ThumbnailBudget
	}
	add := func(digest string) {
		if s.Cut || digest == "" || s.has[digest] {
			return
		}
		t, ok := lookup(digest)
		if !ok {
			return
		}
		if s.used+len(t.Data) > budget {
			s.Cut = true
			return
		}
		t.SHA256 = digest
		s.has[digest] = true
		s.used += len(t.Data)
		s.List = append(s.List, t)
	}
	for _, a := range c.Arms {
		for _, p := range a.Pictures {
			add(p.SHA256)
			if p.Resized != nil {
				add(p.Resized.ToSHA256)
			}
		}
	}
}

// PageThumbnails chooses the thumbnails of a page from thumbs (any order, duplicates allowed):
// those the cases meet, in their order, within records.ThumbnailBudget.
func PageThumbnails(cases []Case, thumbs []records.Thumbnail) ThumbnailSet {
	byDigest := make(map[string]records.Thumbnail, len(thumbs))
	for _, t := range thumbs {
		byDigest[t.SHA256] = t
	}
	var set ThumbnailSet
	for i := range cases {
		set.Admit(&cases[i], func(digest string) (records.Thumbnail, bool) {
			t, ok := byDigest[digest]
			return t, ok
		})
	}
	return set
}
