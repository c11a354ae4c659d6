package vault

import (
	"slices"
	"testing"
)

func TestSuggest(t *testing.T) {
	v := newVault(t, map[string]string{
		"Projects/plan.md":     "",
		"Archive/Plan.md":      "",
		"Projects/Plans.md":    "",
		"Archive/Plant.md":     "",
		"Projects/Planning.md": "",
		"Projects/Budget.md":   "",
		".trash/Plan.md":       "",
	})
	for _, tc := range []struct {
		p    string
		n    int
		want []string
	}{
		// Same path in another case, same name elsewhere, then similar names: nearest first,
		// and for equal distance the same folder first.
		{"Projects/Plan.md", 9, []string{"Projects/plan.md", "Archive/Plan.md", "Projects/Plans.md", "Archive/Plant.md", "Projects/Planning.md"}},
		{"Projects/Plan.md", 2, []string{"Projects/plan.md", "Archive/Plan.md"}},
		{"Plan.md", 2, []string{"Archive/Plan.md", "Projects/plan.md"}},
		{"Projects/Budgte.md", 3, []string{"Projects/Budget.md"}},
		{"Projects/Plan.md", 0, nil},
		{"Recipes/Soup.md", 3, nil},
	} {
		if got := v.Suggest(tc.p, tc.n); !slices.Equal(got, tc.want) {
			t.Errorf("Suggest(%q, %d) = %q; want %q", tc.p, tc.n, got, tc.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"abc", "", 3},
		{"plan", "plan", 0},
		{"kitten", "sitting", 3},
		{"⏰ todo lists", "⏰ todo list", 1}, // runes, not bytes
		{"café", "cafe", 1},
	} {
		if got := distance(tc.a, tc.b); got != tc.want {
			t.Errorf("distance(%q, %q) = %d; want %d", tc.a, tc.b, got, tc.want)
		}
		if got := distance(tc.b, tc.a); got != tc.want {
			t.Errorf("distance(%q, %q) = %d; want %d", tc.b, tc.a, got, tc.want)
		}
	}
}
