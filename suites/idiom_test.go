package suites_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestOneWayToAssertAResponse: a check asserts a documented answer with
// the helper of its body shape (shape.ProblemAnswer, FlatAnswer,
// EnvelopeAnswer), which checks the status and formats the evidence; no
// hand-written "if r.Status != X { t.Fatalf(...) }" followed by a body
// shape assertion on the same response. It reads the areas and
// internal/fresh, which creates their fixtures (not internal/shape, which
// defines the helpers).
func TestOneWayToAssertAResponse(t *testing.T) {
	statusIf := regexp.MustCompile(`if (\w+)\.Status != [^{]+\{\s*$`)
	var found []string
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
			m := statusIf.FindStringSubmatch(l)
			if m == nil || i+3 >= len(lines) || !strings.Contains(lines[i+1], "t.Fatalf(") {
				continue
			}
			next := lines[i+3]
			for _, h := range []string{"shape.ContentType(t, ", "shape.ProblemJSON(t, ", "shape.Flat(t, ", "shape.NotFound(t, ", "shape.Envelope(t, ", "shape.Refusal(t, "} {
				if strings.Contains(next, h) && strings.Contains(next, ", "+m[1]) {
					found = append(found, path+":"+itoa(i+1))
				}
			}
		}
		return nil
	}
	for _, root := range []string{".", "../internal/fresh"} {
		if err := filepath.WalkDir(root, walk); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range found {
		t.Errorf("%s: status checked by hand, then the body shape: use shape.ProblemAnswer / FlatAnswer / EnvelopeAnswer", f)
	}
}

func itoa(i int) string {
	s := ""
	for ; i > 0; i /= 10 {
		s = string(rune('0'+i%10)) + s
	}
	return s
}
