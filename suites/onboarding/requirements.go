package onboarding

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/api"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// snakePathRe is a JSON path of snake_case members.
var snakePathRe = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)*$`)

func requirementsResp(t *check.T, q url.Values) *client.Response {
	return t.Do(t.Client("tenant"), client.Request{Method: http.MethodGet, Path: api.P + "/onboarding/requirements", Query: q})
}

// requirements reads GET onboarding/requirements and asserts the documented
// fields; business tells which level is expected (business_sectors an
// array) or not (null).
func requirements(t *check.T, q url.Values, business bool) map[string]any {
	d := shape.EnvelopeAnswer(t, requirementsResp(t, q), shape.Want{Rule: "ONB-031", Status: http.StatusOK})
	shape.String(t, "ONB-022", d, "level")
	shape.String(t, "ONB-022", d, "applicant_type")
	fields := shape.Array(t, "ONB-023", d, "required_fields")
	if len(fields) == 0 {
		t.Fatalf("ONB-023", "required_fields is empty (query %s)", q.Encode())
	}
	for _, f := range fields {
		s, _ := f.(string)
		if !snakePathRe.MatchString(s) {
			t.Fatalf("ONB-023", "required_fields entry %v is not a snake_case JSON path of the submit body", f)
		}
	}
	docs := shape.Array(t, "ONB-024", d, "required_documents")
	for _, x := range docs {
		if _, ok := x.(string); !ok {
			t.Fatalf("ONB-024", "required_documents entry %v is not a string", x)
		}
	}
	if _, ok := d["questionnaire_required"].(bool); !ok {
		t.Fatalf("ONB-025", "questionnaire_required is %v, want a boolean", d["questionnaire_required"])
	}
	bs, present := d["business_sectors"]
	switch {
	case !present:
		t.Fatalf("ONB-026", "business_sectors is missing (array or null)")
	case business:
		if _, ok := bs.([]any); !ok {
			t.Fatalf("ONB-026", "business level (query %s): business_sectors is %v, want an array", q.Encode(), bs)
		}
	case bs != nil:
		t.Fatalf("ONB-026", "individual level (query %s): business_sectors is %v, want null", q.Encode(), bs)
	}
	return d
}

// requirementsChecks are the checks of requirements.go.
func requirementsChecks() []check.Check {
	return []check.Check{
		{
			ID:    "onboarding/requirements-individual",
			Title: "GET onboarding/requirements without a business selector gives the individual level with its documents",
			Rules: []string{"ONB-031", "ONB-032", "ONB-022", "ONB-023", "ONB-024", "ONB-025", "ONB-026"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				// Neither level nor type: the individual level (reading
				// ONB-032), the one type=kyc selects (ONB-031: any type but
				// kyb).
				kyc := shape.EnvelopeAnswer(t, requirementsResp(t, url.Values{"type": {"kyc"}}), shape.Want{Rule: "ONB-031", Status: http.StatusOK})
				none := shape.EnvelopeAnswer(t, requirementsResp(t, nil), shape.Want{Rule: "ONB-032", Status: http.StatusOK, What: "GET onboarding/requirements with neither level nor type"})
				if none["level"] != kyc["level"] {
					t.Fatalf("ONB-032", "with neither level nor type the requirements are level %v, want the individual level %v (as type=kyc)", none["level"], kyc["level"])
				}
				ind := requirements(t, nil, false)
				docs := shape.Array(t, "ONB-024", ind, "required_documents")
				var all []string
				for _, x := range docs {
					all = append(all, x.(string))
				}
				text := strings.Join(all, "\n")
				for _, w := range []string{"PASSPORT", "ID_CARD", "RESIDENCE_PERMIT", "DRIVERS", "FRONT_SIDE", "BACK_SIDE", "SELFIE", "UTILITY_BILL"} {
					if !strings.Contains(text, w) {
						t.Errorf("ONB-024", "individual required_documents do not name %s: %q", w, text)
					}
				}
				for _, typ := range []string{"kyc", "individual", "kyb2", "anything"} {
					// The level first (which level the type selects), then the
					// individual level's shape.
					d := shape.EnvelopeAnswer(t, requirementsResp(t, url.Values{"type": {typ}}), shape.Want{Rule: "ONB-031", Status: http.StatusOK})
					if d["level"] != ind["level"] {
						t.Fatalf("ONB-031", "type=%s gives level %v, want the individual level %v", typ, d["level"], ind["level"])
					}
					d = requirements(t, url.Values{"type": {typ}}, false)
					if d["level"] != ind["level"] {
						t.Fatalf("ONB-031", "type=%s gives level %v, want the individual level %v", typ, d["level"], ind["level"])
					}
				}
				d := requirements(t, url.Values{"level": {shape.String(t, "ONB-022", ind, "level")}}, false)
				if d["level"] != ind["level"] {
					t.Fatalf("ONB-031", "level=%v gives level %v", ind["level"], d["level"])
				}
			},
		},
		{
			ID:    "onboarding/requirements-business",
			Title: "GET onboarding/requirements?type=kyb gives the business level, also reachable by its level name; level wins over type",
			Rules: []string{"ONB-031", "ONB-032", "ONB-022", "ONB-023", "ONB-026"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				biz := requirements(t, url.Values{"type": {"kyb"}}, true)
				// The individual level as type=kyc selects it (ONB-031); what
				// no selector gives is requirements-individual's (ONB-032).
				ind := requirements(t, url.Values{"type": {"kyc"}}, false)
				bl := shape.String(t, "ONB-022", biz, "level")
				if bl == ind["level"] {
					t.Fatalf("ONB-031", "type=kyb gives level %s, the same as the individual level", bl)
				}
				d := requirements(t, url.Values{"level": {bl}}, true)
				if d["level"] != bl {
					t.Fatalf("ONB-031", "level=%s gives level %v", bl, d["level"])
				}
				d = requirements(t, url.Values{"level": {shape.String(t, "ONB-022", ind, "level")}, "type": {"kyb"}}, false)
				if d["level"] != ind["level"] {
					t.Fatalf("ONB-032", "level=%v&type=kyb gives level %v; level takes precedence", ind["level"], d["level"])
				}
			},
		},
		{
			ID:    "onboarding/requirements-unknown-level",
			Title: "GET onboarding/requirements with an unknown level is 422 unknown_level",
			Rules: []string{"ONB-033", "ERR-047"},
			Needs: []string{"keys.tenant"},
			Run: func(t *check.T) {
				shape.EnvelopeAnswer(t, requirementsResp(t, url.Values{"level": {"no-such-level"}}), shape.Want{Rule: "ONB-033", Status: http.StatusUnprocessableEntity, Code: "unknown_level"})
			},
		},
	}
}
