package shape

import (
	"sync"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
)

var (
	codeStatusOnce sync.Once
	codeStatuses   map[string][]catalogue.CodeStatus
)

// codeStatusRule is the rule of the error catalogue that gives code the
// status want and that the running check declares, or "".
func codeStatusRule(t *check.T, code string, want int) string {
	codeStatusOnce.Do(func() {
		codeStatuses = map[string][]catalogue.CodeStatus{}
		if cat, err := catalogue.Load(); err == nil {
			for _, cs := range cat.CodeStatuses() {
				codeStatuses[cs.Code] = append(codeStatuses[cs.Code], cs)
			}
		}
	})
	for _, cs := range codeStatuses[code] {
		if cs.Status == want && t.Declares(cs.Rule) {
			return cs.Rule
		}
	}
	return ""
}

// BodyCode is the code an error answer carries: the envelope's data.code,
// or the code member of a flat or problem+json body; "" when none.
func BodyCode(r *client.Response) string {
	m, err := r.JSON()
	if err != nil {
		return ""
	}
	return CodeIn(m)
}

// CodeIn is the code a decoded error body carries: the envelope's
// data.code, or its code member; "" when none.
func CodeIn(m map[string]any) string {
	if data, ok := m["data"].(map[string]any); ok {
		if c, ok := data["code"].(string); ok {
			return c
		}
	}
	c, _ := m["code"].(string)
	return c
}

// codeAtWrongStatus: the answer carries the wanted code at another status
// than want. The error catalogue's sentence giving that code its status
// is then broken: it is reported under that rule (when the check declares
// it), besides the check's own rule.
func codeAtWrongStatus(t *check.T, r *client.Response, want int, code string) {
	if code == "" || r.Status == want || BodyCode(r) != code {
		return
	}
	if rule := codeStatusRule(t, code, want); rule != "" {
		t.ErrorAt(r, rule, "code %s came with status %d; the error catalogue gives it %d; body: %s", code, r.Status, want, Clip(r.Body))
	}
}
