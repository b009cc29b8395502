package headers

// Document 1, Response envelope: request and response bodies on the v1
// surface are snake_case (the nested transparency object of a fiat
// withdrawal excepted). Document 2, Versioning 2: no Deprecated/Sunset
// header exists.

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// snakeCase asserts every member name of every v1 JSON body in the sample
// is snake_case; it returns how many bodies and member names it walked.
func snakeCase(t *check.T, sample []sampled) (walked, names int) {
	for _, s := range sample {
		if !s.v1 || len(s.r.Body) == 0 {
			continue
		}
		ct := s.r.ContentType()
		if ct != "application/json" && ct != "application/problem+json" {
			continue
		}
		m, err := s.r.JSON()
		if err != nil {
			continue // another rule's finding; nothing to walk
		}
		walked++
		var bad []string
		names += badKeys(m, "", &bad)
		sort.Strings(bad)
		if len(bad) > 0 {
			t.Errorf("ENV-008", "%s (%d): member names not snake_case: %s; body: %s", s.what, s.r.Status, strings.Join(bad, ", "), shape.Clip(s.r.Body))
		}
	}
	return walked, names
}

// deprecatedHeaderNames are the headers document 2 says do not exist
// ("No ... Deprecated/Sunset header"), with the registered Deprecation
// header (RFC 9745).
var deprecatedHeaderNames = []string{"Deprecation", "Deprecated", "Sunset"}

// noDeprecation asserts no sampled response carries one of them.
func noDeprecation(t *check.T, sample []sampled) {
	for _, s := range sample {
		for _, h := range deprecatedHeaderNames {
			if vs := s.r.Header.Values(h); len(vs) > 0 {
				t.Errorf("VER-002", "%s (%d) carries %s: %q; no deprecation or sunset header exists", s.what, s.r.Status, h, vs)
			}
		}
	}
}

// casingChecks are the checks of casing.go.
func casingChecks() []check.Check {
	return []check.Check{
		{
			ID:    "headers/v1-keys-snake-case",
			Title: "every member name of v1 JSON bodies (reads and utility paths, and 400, 401, 403, 404 and 422 refusals) is snake_case",
			Rules: []string{"ENV-008"},
			Needs: []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				// A sample with (almost) no member names proves nothing about
				// their casing: no verdict rather than a vacuous pass.
				if n, names := snakeCase(t, sampleReads(t, true)); n < 10 || names < 40 {
					t.NoVerdict(fmt.Errorf("the sample has %d v1 JSON bodies with %d member names in all; the check needs its reads and refusals answered with bodies to judge", n, names))
				}
			},
		},
		{
			ID:     "headers/v1-keys-snake-case-writes",
			Title:  "every member name of v1 write responses (create, PATCH, initiate, token, a 422 refusal) is snake_case, and none carries a deprecation header",
			Rules:  []string{"ENV-008", "VER-002"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.tenant"},
			Run: func(t *check.T) {
				sample := sampleWrites(t)
				if n, names := snakeCase(t, sample); n < 3 || names < 15 {
					t.NoVerdict(fmt.Errorf("the sample has %d v1 JSON bodies with %d member names in all; the check needs its writes answered with bodies to judge", n, names))
				}
				noDeprecation(t, sample)
			},
		},
		{
			ID:    "headers/no-deprecation-headers",
			Title: "no Deprecation, Deprecated or Sunset header on any response: v1 and v2 reads, utility paths, 400/401/404/422 refusals, OpenAPI documents, CORS preflights",
			Rules: []string{"VER-002"},
			Needs: []string{"keys.tenant", "customers.active_personal"},
			Run: func(t *check.T) {
				sample := sampleReads(t, false) // one refusal: VER-002 is one rule for every response
				statuses := map[int]bool{}
				for _, s := range sample {
					statuses[s.r.Status] = true
				}
				noDeprecation(t, sample)
				if !statuses[http.StatusOK] || len(statuses) < 4 {
					t.Logf("the sample covered statuses %v", statuses)
				}
			},
		},
	}
}
