package faultproof

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// The API-answer variants: each changes one member or status of the
// answers to one route, so that one sentence of the documents is broken.

// apiVariant changes the JSON answers to method (any when "") on the paths
// matching path: f gets the request and the decoded answer (numbers kept
// exact) and may change a.Status too.
func apiVariant(rule, name, what, method, path string, f func(r *http.Request, a *Answer, body map[string]any)) Variant {
	re := regexp.MustCompile(path)
	return Variant{Name: name, Rule: rule, Description: what,
		Match: func(r *http.Request) bool { return (method == "" || r.Method == method) && re.MatchString(r.URL.Path) },
		Change: func(r *http.Request, a *Answer) {
			dec := json.NewDecoder(bytes.NewReader(a.Body))
			dec.UseNumber()
			var m map[string]any
			if dec.Decode(&m) != nil {
				return
			}
			f(r, a, m)
			a.SetJSON(m)
		}}
}

// walk calls f on every object in v (depth first), whatever its nesting.
func walk(v any, f func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		f(x)
		for _, y := range x {
			walk(y, f)
		}
	case []any:
		for _, y := range x {
			walk(y, f)
		}
	}
}

// accepted turns a refusal into a 200 (v1 envelope) or 201 (v2) success.
func accepted(a *Answer, body map[string]any, status int) {
	a.Status = status
	for k := range body {
		delete(body, k)
	}
	if status == http.StatusOK {
		body["success"], body["status_code"], body["message"], body["data"] = true, status, "ok", map[string]any{}
		return
	}
	body["subscriptionId"] = otherUUID
}

// batches applies f to every payout batch in an answer (data.payout_batch,
// data.payout_batches[]).
func batches(f func(b map[string]any)) func(*http.Request, *Answer, map[string]any) {
	return func(_ *http.Request, _ *Answer, body map[string]any) {
		data, _ := body["data"].(map[string]any)
		if b, ok := data["payout_batch"].(map[string]any); ok {
			f(b)
		}
		if list, ok := data["payout_batches"].([]any); ok {
			for _, x := range list {
				if b, ok := x.(map[string]any); ok {
					f(b)
				}
			}
		}
	}
}

// items applies f to every item of every payout batch in an answer.
func items(f func(b, it map[string]any)) func(*http.Request, *Answer, map[string]any) {
	return batches(func(b map[string]any) {
		list, _ := b["items"].([]any)
		for _, x := range list {
			if it, ok := x.(map[string]any); ok {
				f(b, it)
			}
		}
	})
}

// itemsWhere changes items with status st: set k to v.
func itemsWhere(st, k string, v any) func(*http.Request, *Answer, map[string]any) {
	return items(func(_, it map[string]any) {
		if it["status"] == st {
			it[k] = v
		}
	})
}

// unskip makes intake refusals matching cond Pending items.
func unskip(cond func(b, it map[string]any) bool) func(*http.Request, *Answer, map[string]any) {
	return items(func(b, it map[string]any) {
		if it["status"] == "Skipped" && cond(b, it) {
			it["status"], it["failure_code"], it["failure_reason"] = "Pending", nil, nil
		}
	})
}

func amountIs(pred func(int64) bool) func(b, it map[string]any) bool {
	return func(_, it map[string]any) bool {
		n, ok := it["amount"].(json.Number)
		if !ok {
			return false
		}
		i, err := n.Int64()
		return err == nil && pred(i)
	}
}

// refLonger: the batch's rail is rail and the item's reference is longer
// than n bytes.
func refLonger(rail string, n int) func(b, it map[string]any) bool {
	return func(b, it map[string]any) bool {
		ref, _ := it["reference"].(string)
		return b["rail"] == rail && len(ref) > n
	}
}

// failureCode renames an execution failure code.
func failureCode(code string) func(*http.Request, *Answer, map[string]any) {
	return items(func(_, it map[string]any) {
		if it["failure_code"] == code {
			it["failure_code"] = "execution_failed"
		}
	})
}

// renameRail answers a canonical rail under another name.
func renameRail(from, to string) func(*http.Request, *Answer, map[string]any) {
	return batches(func(b map[string]any) {
		if b["rail"] == from {
			b["rail"] = to
		}
	})
}

// requestURL is the url member of the request body, "" when none.
func requestURL(a *Answer) string {
	s, _ := a.RequestJSON()["url"].(string)
	return s
}

// urlRefusalAccepted: a registration refused with 400 whose url matches
// is answered 201 instead.
func urlRefusalAccepted(rule, name, what string, match func(u *url.URL, raw string) bool) Variant {
	return apiVariant(rule, "webhook-url-accepted-"+name, "registration accepts a URL "+what, http.MethodPost, `/webhook-subscriptions$`,
		func(_ *http.Request, a *Answer, body map[string]any) {
			raw := requestURL(a)
			u, err := url.Parse(raw)
			if a.Status == http.StatusBadRequest && err == nil && match(u, raw) {
				accepted(a, body, http.StatusCreated)
			}
		})
}

func hostPrefix(prefixes ...string) func(u *url.URL, raw string) bool {
	return func(u *url.URL, _ string) bool {
		for _, p := range prefixes {
			if strings.HasPrefix(u.Hostname(), p) {
				return true
			}
		}
		return false
	}
}

// attempts applies f to every delivery attempt of an attempts answer.
func attempts(f func(r *http.Request, it map[string]any)) func(*http.Request, *Answer, map[string]any) {
	return func(r *http.Request, _ *Answer, body map[string]any) {
		list, _ := body["items"].([]any)
		for _, x := range list {
			if it, ok := x.(map[string]any); ok {
				f(r, it)
			}
		}
	}
}

const (
	pathBatches     = `/payout-batches(/[^/]+)?$`
	pathBatch       = `/payout-batches/[^/]+$`
	pathAttempts    = `/webhook-subscriptions/[^/]+/delivery-attempts$`
	pathSubs        = `/webhook-subscriptions(/[^/]+)?$`
	pathSub         = `/webhook-subscriptions/[^/]+$`
	zeroSHA         = "0000000000000000000000000000000000000000000000000000000000000000"
	otherAttemptRef = "11111111-2222-4333-8444-555555555555"
)

var apiVariants = []Variant{
	// Payout batches (document 1, Endpoints / Payout batches).
	apiVariant("PB-002", "batch-no-total-amount", "data.payout_batch lacks total_amount", "", pathBatches, batches(func(b map[string]any) { delete(b, "total_amount") })),
	apiVariant("PB-007", "batch-item-no-failure-reason", "items lack failure_reason", "", pathBatches, items(func(_, it map[string]any) { delete(it, "failure_reason") })),
	apiVariant("PB-008", "batch-item-sequence-zero-based", "item sequence is 0-based", "", pathBatches, items(func(_, it map[string]any) {
		if n, ok := it["sequence"].(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				it["sequence"] = i - 1
			}
		}
	})),
	apiVariant("PB-009", "batch-item-payment-id-early", "Pending items carry a fiat_payment_id", "", pathBatches, itemsWhere("Pending", "fiat_payment_id", otherUUID)),
	apiVariant("PB-016", "batch-rejected-read-pending", "a rejected batch reads PendingApproval", http.MethodGet, pathBatch, batches(func(b map[string]any) {
		if b["status"] == "Rejected" {
			b["status"] = "PendingApproval"
		}
	})),
	apiVariant("PB-020", "batch-failed-read-partial", "a batch with no Completed item reads PartiallyCompleted", http.MethodGet, pathBatch, batches(func(b map[string]any) {
		if b["status"] == "Failed" {
			b["status"] = "PartiallyCompleted"
		}
	})),
	apiVariant("PB-024", "batch-item-pending-renamed", "valid items read Valid, not Pending", "", pathBatches, itemsWhere("Pending", "status", "Valid")),
	apiVariant("PB-026", "batch-item-executing-resolves", "a stuck Executing item reads Failed", http.MethodGet, pathBatch, itemsWhere("Executing", "status", "Failed")),
	apiVariant("PB-027", "batch-item-completed-no-payment", "Completed items have no fiat_payment_id", "", pathBatches, itemsWhere("Completed", "fiat_payment_id", nil)),
	apiVariant("PB-028", "batch-item-failed-no-code", "Failed items carry no failure_code", "", pathBatches, itemsWhere("Failed", "failure_code", nil)),
	apiVariant("PB-041", "batch-created-message-retrieved", "a created batch answers the message 'Payout batch retrieved successfully'", http.MethodPost, `/payout-batches$`, func(_ *http.Request, a *Answer, body map[string]any) {
		if a.Status == http.StatusOK && body["message"] == "Payout batch created successfully" {
			body["message"] = "Payout batch retrieved successfully"
		}
	}),
	apiVariant("PB-029", "batch-item-pending-code", "Pending items carry failure_code validation", "", pathBatches, itemsWhere("Pending", "failure_code", "validation")),
	// No PB-032 variant: an item fails subject_unavailable only once its
	// customer no longer exists for the tenant, and then every public read
	// of the batch is the customer 404 (PB-101); the check reads the
	// operator's answer (control API), which no answer variant changes.
	// The fault pb-execution-erased-customer-read-inactive proves it.
	apiVariant("PB-033", "batch-code-subject-inactive", "subject_inactive answered as execution_failed", "", pathBatches, failureCode("subject_inactive")),
	apiVariant("PB-034", "batch-code-beneficiary-not-payable", "beneficiary_not_payable answered as execution_failed", "", pathBatches, failureCode("beneficiary_not_payable")),
	apiVariant("PB-035", "batch-code-configuration", "configuration answered as execution_failed", "", pathBatches, failureCode("configuration")),
	apiVariant("PB-036", "batch-code-pot-missing", "source_account_pot_missing answered as execution_failed", "", pathBatches, failureCode("source_account_pot_missing")),
	apiVariant("PB-037", "batch-code-withdrawal-failed", "withdrawal_failed answered as execution_failed", "", pathBatches, failureCode("withdrawal_failed")),
	apiVariant("PB-038", "batch-code-withdrawal-error", "withdrawal_error answered as execution_failed", "", pathBatches, failureCode("withdrawal_error")),
	apiVariant("PB-049", "batch-zero-amount-accepted", "zero-amount items are Pending", "", pathBatches, unskip(amountIs(func(n int64) bool { return n == 0 }))),
	apiVariant("PB-050", "batch-negative-amount-accepted", "negative-amount items are Pending", "", pathBatches, unskip(amountIs(func(n int64) bool { return n < 0 }))),
	apiVariant("PB-053", "batch-no-beneficiary-accepted", "items without beneficiary_id are Pending", "", pathBatches, unskip(func(_, it map[string]any) bool { return it["beneficiary_id"] == nil })),
	apiVariant("PB-054", "batch-zero-beneficiary-accepted", "items with the all-zero beneficiary_id are Pending", "", pathBatches, unskip(func(_, it map[string]any) bool {
		return it["beneficiary_id"] == "00000000-0000-0000-0000-000000000000"
	})),
	apiVariant("PB-067", "batch-eur-default-rail", "an EUR batch without a rail gets SEPA_INSTANT", http.MethodPost, `/payout-batches$`, func(r *http.Request, a *Answer, body map[string]any) {
		if req := a.RequestJSON(); req != nil && req["rail"] == nil && req["currency"] == "EUR" {
			batches(func(b map[string]any) { b["rail"] = "SEPA_INSTANT" })(r, a, body)
		}
	}),
	apiVariant("PB-076", "batch-default-reference-null", "an omitted reference reads null, not 'Batch payout'", "", pathBatches, items(func(_, it map[string]any) {
		if it["reference"] == "Batch payout" {
			it["reference"] = nil
		}
	})),
	apiVariant("PB-078", "batch-chaps-long-reference-accepted", "CHAPS references over 35 bytes are Pending", "", pathBatches, unskip(refLonger("CHAPS", 35))),
	apiVariant("PB-079", "batch-sct-long-reference-accepted", "SCT references over 140 bytes are Pending", "", pathBatches, unskip(refLonger("SCT", 140))),
	apiVariant("PB-083", "batch-bacs-reference-checked", "BACS items with references over 18 bytes are Skipped at intake", "", pathBatches, items(func(b, it map[string]any) {
		if ref, _ := it["reference"].(string); b["rail"] == "BACS" && len(ref) > 18 && it["status"] == "Pending" {
			it["status"], it["failure_code"], it["failure_reason"] = "Skipped", "validation", "reference too long"
		}
	})),
	apiVariant("PB-089", "batch-no-idempotency-key-accepted", "a create without Idempotency-Key is accepted", http.MethodPost, `/payout-batches$`, func(r *http.Request, a *Answer, body map[string]any) {
		if r.Header.Get("Idempotency-Key") == "" && a.Status == http.StatusBadRequest {
			accepted(a, body, http.StatusOK)
		}
	}),
	apiVariant("PB-046", "batch-operator-route", "POST payout-batches/{id}/approve|submit|execute is answered 200", http.MethodPost, `/payout-batches/[^/]+/[a-z]+$`, func(_ *http.Request, a *Answer, body map[string]any) {
		if a.Status == http.StatusNotFound {
			accepted(a, body, http.StatusOK)
		}
	}),

	// Webhook management (document 2, Webhook management).
	apiVariant("WHM-007", "webhook-deleted-gone", "a disabled subscription reads 404", http.MethodGet, pathSub, func(_ *http.Request, a *Answer, body map[string]any) {
		if body["enabled"] == false {
			a.Status = http.StatusNotFound
			for k := range body {
				delete(body, k)
			}
			body["title"], body["detail"], body["status"], body["code"] = "Not Found", "not found", 404, nil
		}
	}),
	apiVariant("WHM-012", "webhook-register-no-updated-at", "the register answer lacks updatedAt", http.MethodPost, `/webhook-subscriptions$`, func(_ *http.Request, _ *Answer, body map[string]any) {
		delete(body, "updatedAt")
	}),
	apiVariant("WHM-001", "webhook-register-snake-case", "the register answer uses event_types, not eventTypes", http.MethodPost, `/webhook-subscriptions$`, func(_ *http.Request, _ *Answer, body map[string]any) {
		if v, ok := body["eventTypes"]; ok {
			delete(body, "eventTypes")
			body["event_types"] = v
		}
	}),
	apiVariant("WHM-013", "webhook-secret-sha-wrong", "secretSha256 is not the secret's hash", "", pathSubs, func(_ *http.Request, _ *Answer, body map[string]any) {
		walk(body, func(m map[string]any) {
			if _, ok := m["secretSha256"]; ok {
				m["secretSha256"] = zeroSHA
			}
		})
	}),
	apiVariant("WHM-052", "webhook-read-sha-stale", "reading a rotated subscription shows a stale secretSha256", http.MethodGet, pathSub, func(_ *http.Request, _ *Answer, body map[string]any) {
		if v, ok := body["secretVersion"].(json.Number); ok && v.String() != "1" {
			body["secretSha256"] = zeroSHA
		}
	}),
	urlRefusalAccepted("WHM-018", "over-2048", "over 2048 characters", func(_ *url.URL, raw string) bool { return len(raw) > 2048 }),
	urlRefusalAccepted("WHM-019", "credentials", "carrying credentials", func(u *url.URL, _ string) bool { return u.User != nil }),
	urlRefusalAccepted("WHM-021", "private", "on a private address", hostPrefix("10.", "192.168.", "172.16.", "172.17.", "172.20.", "172.31.")),
	urlRefusalAccepted("WHM-022", "cgnat", "on a carrier-grade NAT address", hostPrefix("100.64.", "100.100.", "100.127.")),
	urlRefusalAccepted("WHM-023", "link-local", "on a link-local, multicast or reserved address", hostPrefix("169.254.", "224.", "239.", "240.", "255.", "0.")),
	apiVariant("WHM-032", "webhook-wildcard-accepted", "registration accepts a wildcard event type", http.MethodPost, `/webhook-subscriptions$`, func(_ *http.Request, a *Answer, body map[string]any) {
		types, _ := a.RequestJSON()["eventTypes"].([]any)
		for _, t := range types {
			if s, _ := t.(string); strings.Contains(s, "*") && a.Status == http.StatusBadRequest {
				accepted(a, body, http.StatusCreated)
				return
			}
		}
	}),
	apiVariant("WHM-034", "webhook-default-attempts-3", "maxAttempts omitted or null reads 3", "", pathSubs, func(_ *http.Request, a *Answer, body map[string]any) {
		if req := a.RequestJSON(); req != nil && req["maxAttempts"] == nil {
			if v, ok := body["maxAttempts"].(json.Number); ok && v.String() == "5" {
				body["maxAttempts"] = 3
			}
		}
	}),
	apiVariant("WHM-041", "webhook-patch-partial-accepted", "a PATCH missing url, eventTypes or enabled is accepted", http.MethodPatch, pathSub, func(_ *http.Request, a *Answer, body map[string]any) {
		if a.Status == http.StatusBadRequest {
			a.Status = http.StatusOK
			body["subscriptionId"] = otherUUID
		}
	}),
	apiVariant("WHM-006", "webhook-patch-answer-keeps-dropped-type", "a PATCH answer lists kyb.approved when the body dropped it", http.MethodPatch, pathSub, func(_ *http.Request, a *Answer, body map[string]any) {
		if types, ok := body["eventTypes"].([]any); ok && a.Status == http.StatusOK && !slices.Contains(types, any("kyb.approved")) {
			body["eventTypes"] = append(types, "kyb.approved")
		}
	}),
	apiVariant("WHM-042", "webhook-patch-null-attempts-4", "a PATCH with maxAttempts null is answered maxAttempts 4", http.MethodPatch, pathSub, func(_ *http.Request, a *Answer, body map[string]any) {
		if req := a.RequestJSON(); req != nil && a.Status == http.StatusOK && req["maxAttempts"] == nil {
			if v, ok := body["maxAttempts"].(json.Number); ok && v.String() == "5" {
				body["maxAttempts"] = 4
			}
		}
	}),
	apiVariant("WHM-028", "webhook-reenable-over-limit", "re-enabling past 10 by PATCH is accepted (the limit not counted again on re-enable)", http.MethodPatch, pathSub, func(_ *http.Request, a *Answer, body map[string]any) {
		if a.Status == http.StatusConflict {
			a.Status = http.StatusOK
			for k := range body {
				delete(body, k)
			}
			body["subscriptionId"], body["enabled"] = otherUUID, true
		}
	}),
	apiVariant("WHM-009", "webhook-attempts-empty-lists-one", "an empty delivery attempts list lists one attempt (a list no attempt filter narrows: an empty filtered list is WHM-057's)", http.MethodGet, pathAttempts, func(r *http.Request, a *Answer, body map[string]any) {
		q := r.URL.Query()
		filtered := q.Has("outboundWebhookEventId") || q.Has("deliveryId") || q.Has("deliveryAttemptId") || q.Has("eventType")
		if items, ok := body["items"].([]any); ok && len(items) == 0 && a.Status == http.StatusOK && !filtered {
			body["items"] = []any{map[string]any{"attemptId": otherUUID, "eventId": otherUUID, "eventType": "customer.created", "status": "Delivered", "attemptNumber": 1, "isReplay": false, "recordedAt": "2026-11-02T10:00:00Z"}}
			body["count"] = 1
		}
	}),
	apiVariant("WHM-058", "webhook-attempts-oldest-first", "delivery attempts are listed oldest first", http.MethodGet, pathAttempts, func(_ *http.Request, _ *Answer, body map[string]any) {
		if list, ok := body["items"].([]any); ok {
			for i, j := 0, len(list)-1; i < j; i, j = i+1, j-1 {
				list[i], list[j] = list[j], list[i]
			}
		}
	}),
	apiVariant("WHM-054", "webhook-attempts-status-case-sensitive", "a status filter not in canonical case matches nothing", http.MethodGet, pathAttempts, func(r *http.Request, _ *Answer, body map[string]any) {
		st := r.URL.Query().Get("status")
		if st != "" && st != "Pending" && st != "Delivered" && st != "Failed" && st != "DeadLettered" {
			body["items"], body["count"] = []any{}, 0
		}
	}),
	apiVariant("WHM-061", "webhook-attempts-delivery-id-per-attempt", "each attempt carries its own deliveryId", http.MethodGet, pathAttempts, attempts(func(_ *http.Request, it map[string]any) { it["deliveryId"] = it["deliveryAttemptId"] })),
	apiVariant("WHM-063", "webhook-attempts-other-subscription", "attempts name another subscriptionId", http.MethodGet, pathAttempts, attempts(func(_ *http.Request, it map[string]any) { it["subscriptionId"] = otherUUID })),
	apiVariant("WHM-064", "webhook-attempts-other-event-type", "attempts name another eventType", http.MethodGet, pathAttempts, attempts(func(_ *http.Request, it map[string]any) { it["eventType"] = "customer.updated" })),
	apiVariant("WHM-065", "webhook-attempts-payload-hash-wrong", "payloadHash is not the hash of the posted body", http.MethodGet, pathAttempts, attempts(func(_ *http.Request, it map[string]any) { it["payloadHash"] = zeroSHA })),
	apiVariant("WHM-070", "webhook-attempts-failure-reason-no-status", "failureReason does not end with 'Status <code>.'", http.MethodGet, pathAttempts, attempts(func(_ *http.Request, it map[string]any) {
		if s, ok := it["failureReason"].(string); ok {
			if i := strings.LastIndex(s, "Status "); i >= 0 {
				it["failureReason"] = strings.TrimSpace(s[:i])
			}
		}
	})),
}
