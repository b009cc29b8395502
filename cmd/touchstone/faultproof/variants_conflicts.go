package faultproof

import (
	"net/http"
	"strings"
)

// Variants of the 409 body forms (document 2, Errors / Status meaning):
// a compliance hold is answered in the envelope of an operation refusal,
// its status and code kept, so that only the sentence giving each kind of
// 409 its body (ERR-005) is broken.
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
