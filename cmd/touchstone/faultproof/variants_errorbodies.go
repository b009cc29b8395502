package faultproof

import (
	"net/http"
	"strings"
)

// Variants of error body forms (document 2, Errors): a compliance hold is
// answered in the envelope of an operation refusal, its status and code
// kept, so that only the sentence giving each kind of 409 its body (ERR-005)
// is broken; an operation code is answered at the top level of the body,
// not in the envelope's data.code (ERR-041).
func init() {
	areaVariants = append(areaVariants,
		apiVariant("ERR-005", "compliance-hold-409-in-envelope", "the flat 409 of a compliance hold (compliance_subject_*) is answered in the envelope (success, status_code, message, data.code)", "", `.`,
			func(_ *http.Request, a *Answer, body map[string]any) {
				code, _ := body["code"].(string)
				if a.Status != http.StatusConflict || !strings.HasPrefix(code, "compliance_subject_") || body["success"] != nil {
					return
				}
				title := body["title"]
				detail := body["detail"]
				for k := range body {
					delete(body, k)
				}
				body["success"] = false
				body["status_code"] = http.StatusConflict
				body["message"] = title
				body["data"] = map[string]any{"code": code, "detail": detail}
			}),
	)
}

func init() {
	areaVariants = append(areaVariants,
		apiVariant("ERR-041", "operation-code-at-top-level", "the 422 and 409 operation refusals of account opening carry their code at the top level (code) instead of in the envelope's data.code", http.MethodPost, `/banking/accounts$`,
			func(_ *http.Request, a *Answer, body map[string]any) {
				data, ok := body["data"].(map[string]any)
				if !ok || body["success"] != false || (a.Status != http.StatusUnprocessableEntity && a.Status != http.StatusConflict) {
					return
				}
				if code, ok := data["code"]; ok {
					body["code"] = code
					delete(data, "code")
				}
			}),
	)
}
