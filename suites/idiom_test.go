package suites_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestOneWayToAssertAResponse: a check asserts a documented answer one
// way, a shape.Want passed to the helper of the answer's body shape
// (shape.ProblemAnswer, FlatAnswer, EnvelopeAnswer, FlatOrRefusalAnswer;
// StatusAnswer when the documents leave the body open), which checks the status, media type,
// members and code and writes the evidence itself. So the areas and
// internal/fresh, which creates their fixtures, hold
//   - no shape.Envelope( or shape.Refusal( (the helpers EnvelopeAnswer
//     replaced), no shape.Status(, StatusOfCode( (StatusAnswer),
//     ProblemJSON( (ProblemAnswer), Flat(, NotFound( (FlatAnswer) or
//     FlatOrRefusal( (FlatOrRefusalAnswer), and
//   - no hand-written "if r.Status != X {" whose next statement fails the
//     check (t.Fatalf, FatalAt, Errorf, ErrorAt), but the few below, where
//     the documents give either of two statuses.
//
// A status comparison that is no verdict is not caught: a precondition
// (t.NoVerdict, Skipf), a series that counts answers ("200 or 429"), one
// answer's status against another's (a retry repeats the first), and "if
// r.Status == X" (the answer must not be X: a check-order finding).
func TestOneWayToAssertAResponse(t *testing.T) {
	// Either of two statuses is documented: file and rule of the failure.
	allowed := map[string]string{
		"accounts/nested.go FIAT-023":    "a missing prerequisite is 409 or 422",
		"crypto/wallets.go CRYP-012":     "TRX not convertible: a 422 or 409 refusal",
		"exchange/price.go CRYP-012":     "TRX not convertible: a 422 or 409 refusal",
		"crypto/withdrawals.go CRYP-009": "a taken crypto withdrawal is 200 or 202",
		"exchange/helpers.go rule":       "a taken conversion is 200 or 201",
		"webhooks/manage.go WHM-047":     "DELETE is 200 or 204",
		"webhooks/retries.go WHM-008":    "a rotation is 200 or 201",
		"webhooks/rotation.go WHM-008":   "a rotation is 200 or 201",
	}
	oldHelper := regexp.MustCompile(`\bshape\.(Envelope|Refusal|Status|StatusOfCode|ProblemJSON|Flat|NotFound|FlatOrRefusal)\(`)
	statusIf := regexp.MustCompile(`\bif (?:[^{]*; )?[\w.\[\]()]+\.Status != [^{]+\{\s*$`)
	twoAnswers := regexp.MustCompile(`\.Status != \w+\.Status\b`) // a retry's status against the first's
	fails := regexp.MustCompile(`^\s*\w+\.(Fatalf|FatalAt|Errorf|ErrorAt)\((?:\w+, )?("[A-Z][A-Z0-9]*-\d{3}"|\w+)`)
	var found []string
	used := map[string]bool{}
	walk := func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return err
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		lines := strings.Split(string(raw), "\n")
		for i, l := range lines {
			at := filepath.ToSlash(path) + ":" + strconv.Itoa(i+1)
			if oldHelper.MatchString(l) {
				found = append(found, at+": shape."+oldHelper.FindStringSubmatch(l)[1]+": use the Want helper of the body shape (shape.EnvelopeAnswer, ProblemAnswer, FlatAnswer, FlatOrRefusalAnswer, StatusAnswer)(t, r, shape.Want{...})")
			}
			if !statusIf.MatchString(l) || twoAnswers.MatchString(l) {
				continue
			}
			next := ""
			for _, n := range lines[i+1:] {
				if s := strings.TrimSpace(n); s != "" && !strings.HasPrefix(s, "//") {
					next = n
					break
				}
			}
			m := fails.FindStringSubmatch(next)
			if m == nil {
				continue
			}
			key := filepath.ToSlash(path) + " " + strings.Trim(m[2], `"`)
			if _, ok := allowed[key]; ok {
				used[key] = true
				continue
			}
			found = append(found, at+": status checked by hand: use shape.StatusAnswer / ProblemAnswer / FlatAnswer / EnvelopeAnswer with a shape.Want")
		}
		return nil
	}
	for _, root := range []string{".", "../internal/fresh"} {
		if err := filepath.WalkDir(root, walk); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range found {
		t.Error(f)
	}
	for k, why := range allowed {
		if !used[k] {
			t.Errorf("allowed %q (%s) no longer checks a status by hand: take it off the list", k, why)
		}
	}
}
