package faultproof

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/touchstone-harness/touchstone/internal/webhooks/verify"
)

// The webhook-delivery variants (document 2, Events): each changes one
// member or header of the deliveries of one event type (signed again), so
// that one sentence of the events chapter is broken.

// eventType is a delivery body's event type: the legacy envelope's type
// or the newer shape's eventType.
func eventType(m map[string]any) string {
	if t, ok := m["type"].(string); ok {
		return t
	}
	t, _ := m["eventType"].(string)
	return t
}

// editEvent applies f to the decoded body of deliveries whose event type is
// one of types (all when none is given).
func editEvent(f func(m map[string]any), types ...string) func(d *Delivery) {
	return func(d *Delivery) {
		dec := json.NewDecoder(bytes.NewReader(d.Body))
		dec.UseNumber()
		var m map[string]any
		if dec.Decode(&m) != nil {
			return
		}
		if len(types) > 0 && !slices.Contains(types, eventType(m)) {
			return
		}
		f(m)
		if raw, err := json.Marshal(m); err == nil {
			d.Body = raw
		}
	}
}

// setPath sets a dotted path ("data.bank_address") in m; a path whose
// parent is missing is left alone.
func setPath(m map[string]any, path string, v any) {
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			return
		}
		m = next
	}
	m[parts[len(parts)-1]] = v
}

// dropPath removes a dotted path from m.
func dropPath(m map[string]any, path string) {
	parts := strings.Split(path, ".")
	for _, p := range parts[:len(parts)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			return
		}
		m = next
	}
	delete(m, parts[len(parts)-1])
}

// eventSet is a variant setting one member of an event type's deliveries.
func eventSet(rule, name, path string, v any, types ...string) Variant {
	return Variant{Name: "event-" + name, Rule: rule,
		Description: "webhook deliveries of " + strings.Join(types, ", ") + " carry " + path + " = " + jsonText(v),
		Deliver:     editEvent(func(m map[string]any) { setPath(m, path, v) }, types...)}
}

// eventDrop is a variant leaving one member out of an event type's
// deliveries.
func eventDrop(rule, name, path string, types ...string) Variant {
	return Variant{Name: "event-" + name, Rule: rule,
		Description: "webhook deliveries of " + strings.Join(types, ", ") + " lack " + path,
		Deliver:     editEvent(func(m map[string]any) { dropPath(m, path) }, types...)}
}

// eventEdit is a variant applying f to the deliveries of the event types.
func eventEdit(rule, name, what string, f func(m map[string]any), types ...string) Variant {
	return Variant{Name: "event-" + name, Rule: rule, Description: "webhook deliveries of " + strings.Join(types, ", ") + ": " + what,
		Deliver: editEvent(f, types...)}
}

// eventDropped is a variant whose deliveries of the event types never
// reach the receiver (the event is not emitted, as far as it can tell).
func eventDropped(rule string, types ...string) Variant {
	return Variant{Name: "event-not-emitted-" + strings.Join(types, "-"), Rule: rule,
		Description: "no delivery of " + strings.Join(types, ", ") + " reaches the endpoint",
		Deliver: func(d *Delivery) {
			var m map[string]any
			if json.Unmarshal(d.Body, &m) == nil && slices.Contains(types, eventType(m)) {
				d.Drop = true
			}
		}}
}

// headerSet is a variant setting one delivery header (after signing).
func headerSet(rule, name, header, value string) Variant {
	return Variant{Name: "delivery-" + name, Rule: rule, Unsigned: true,
		Description: "webhook deliveries carry " + header + ": " + value,
		Deliver:     func(d *Delivery) { d.Header.Set(header, value) }}
}

// receiverStatus is a variant under which the sandbox sees another status
// than the receiver answered.
func receiverStatus(rule, name, what string, f func(int) int) Variant {
	return Variant{Name: "receiver-" + name, Rule: rule, Description: what, Deliver: func(*Delivery) {}, Receiver: f}
}

func jsonText(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}

// byKind applies fiat or crypto to the data of a delivery, by its
// data.deposit_type (deposit.received) or data.type (withdrawal.completed).
func byKind(fiat, crypto func(data map[string]any)) func(m map[string]any) {
	return func(m map[string]any) {
		data, ok := m["data"].(map[string]any)
		if !ok {
			return
		}
		kind, _ := data["deposit_type"].(string)
		if kind == "" {
			kind, _ = data["type"].(string)
		}
		switch kind {
		case "fiat":
			fiat(data)
		case "crypto":
			crypto(data)
		}
	}
}

func set(k string, v any) func(map[string]any) { return func(d map[string]any) { d[k] = v } }

// plusOne adds one to an integer member.
func plusOne(k string) func(map[string]any) {
	return func(d map[string]any) {
		if n, ok := d[k].(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				d[k] = i + 1
			}
		}
	}
}

// onCurrency applies f to data when data.currency is cur.
func onCurrency(cur string, f func(map[string]any)) func(m map[string]any) {
	return func(m map[string]any) {
		if data, ok := m["data"].(map[string]any); ok && data["currency"] == cur {
			f(data)
		}
	}
}

func inData(f func(map[string]any)) func(m map[string]any) {
	return func(m map[string]any) {
		if data, ok := m["data"].(map[string]any); ok {
			f(data)
		}
	}
}

const otherUUID = "0b9d5c1e-7a51-4f7e-9a3e-5d1c2b3a4f60"

var (
	accountFamily = []string{"virtual_account_request.completed", "virtual_account_request.needs_correction", "virtual_account_request.rejected", "customer.account_ready", "customer.needs_information"}
	kycEvents     = []string{"kyc.approved", "kyc.pending_review", "kyc.rejected"}
	kybEvents     = []string{"kyb.approved", "kyb.pending_review", "kyb.rejected"}
)

var eventVariants = []Variant{
	// The legacy envelope and the headers.
	eventSet("EVT-002", "legacy-id-not-resource", "id", otherUUID, "customer.created"),
	eventSet("EVT-003", "legacy-type-wrong", "type", "customer.updated", "customer.created"),
	eventSet("EVT-004", "legacy-occurred-at-not-utc", "occurred_at", "2026-11-02T11:00:30+01:00", "customer.created"),
	eventSet("EVT-005", "legacy-api-version", "api_version", "2026-06-legacy", "customer.created"),
	eventSet("EVT-006", "legacy-data-not-object", "data", []any{}, "customer.created"),
	{Name: "delivery-content-type-text", Rule: "EVT-001", Unsigned: true, Description: "webhook deliveries are sent as text/plain",
		Deliver: func(d *Delivery) { d.Header.Set("Content-Type", "text/plain") }},
	headerSet("EVT-011", "event-header-other-type", verify.SvcEvent, "customer.updated"),
	headerSet("EVT-012", "endpoint-header-other-id", verify.SvcEndpointID, otherUUID),
	headerSet("EVT-013", "attempt-id-repeated", verify.HeaderAttemptID, otherUUID),
	{Name: "delivery-svc-timestamp-off", Rule: "EVT-016", Resign: true, Description: "x-svc-signature-timestamp is one second after X-Webhook-Timestamp (signatures valid)",
		Deliver: func(d *Delivery) {
			if n, err := strconv.ParseInt(d.Header.Get(verify.SvcTimestamp), 10, 64); err == nil {
				d.Header.Set(verify.SvcTimestamp, strconv.FormatInt(n+1, 10))
			}
		}},
	{Name: "delivery-payload-hash-wrong", Rule: "EVT-017", Unsigned: true, Description: "x-svc-payload-sha256 is not the SHA-256 of the body (x-svc-signature made over it)",
		Deliver: func(d *Delivery) {
			if d.Secret == "" {
				return
			}
			wrong := strings.Repeat("ab", 32)
			d.Header.Set(verify.SvcPayloadSHA256, wrong)
			d.Header.Set(verify.SvcSignature, hmacHex([]byte(d.Secret), d.Header.Get(verify.SvcTimestamp), ".", d.Header.Get(verify.SvcID), ".", wrong, ".", string(d.Body)))
		}},
	{Name: "delivery-signed-with-decoded-secret", Rule: "EVT-021", Unsigned: true, Description: "both signatures are made with the secret's base64-decoded bytes (the part after whsec_), not its UTF-8 bytes",
		Deliver: func(d *Delivery) {
			i := strings.LastIndex(d.Secret, "whsec_")
			if i < 0 {
				return
			}
			if key, err := base64.StdEncoding.DecodeString(d.Secret[i+len("whsec_"):]); err == nil && len(key) > 0 {
				signWith(d, key)
			}
		}},
	headerSet("EVT-018", "svc-signature-wrong", verify.SvcSignature, "sha256="+strings.Repeat("0", 64)),
	receiverStatus("EVT-026", "408-final", "a 408 from the endpoint is taken as final (the sandbox sees 400)", func(s int) int { return mapStatus(s, 408, 400) }),
	receiverStatus("EVT-027", "425-final", "a 425 from the endpoint is taken as final (the sandbox sees 400)", func(s int) int { return mapStatus(s, 425, 400) }),
	receiverStatus("EVT-029", "5xx-final", "a 5xx from the endpoint is taken as final (the sandbox sees 400)", func(s int) int {
		if s/100 == 5 {
			return 400
		}
		return s
	}),
	receiverStatus("EVT-025", "2xx-retried", "a 2xx from the endpoint is taken as a failure (the sandbox sees 500)", func(s int) int { return mapStatus(s, 200, 500) }),

	// Which events are emitted.
	eventDropped("EVT-047", "customer.created"),
	eventDropped("EVT-049", "kyc.approved", "kyb.approved"),
	eventDropped("EVT-050", "kyc.pending_review", "kyb.pending_review"),
	eventDropped("EVT-051", "kyc.rejected", "kyb.rejected"),
	eventDropped("EVT-052", "viban.ready"),
	eventDropped("EVT-054", "virtual_account_request.needs_correction"),
	eventDropped("EVT-055", "virtual_account_request.rejected"),
	eventDropped("EVT-056", "deposit.received"),
	eventDropped("EVT-057", "withdrawal.completed"),
	eventDropped("EVT-061", "beneficiary.approved", "beneficiary.rejected"),
	eventDropped("EVT-062", "fiat.beneficiary.updated"),

	// Payloads.
	eventEdit("EVT-064", "tenant-id-not-uuid", "data.tenant_id is not a uuid", inData(set("tenant_id", "tenant-1")), "customer.created"),
	eventDrop("EVT-065", "customer-created-no-user-type", "data.user_type", "customer.created"),
	eventSet("EVT-068", "customer-created-status-cased", "data.status", "Started", "customer.created"),
	eventDrop("EVT-069", "kyb-no-business-id", "data.business_id", kybEvents...),
	eventSet("EVT-070", "kyc-customer-email-set", "data.customer_email", "someone@example.com", kycEvents...),
	eventSet("EVT-071", "kyb-business-name-other", "data.business_name", "Another Name Ltd", kybEvents...),
	eventEdit("EVT-072", "kyb-status-mismatch", "kyc_status/kyb_status rejected on approval", inData(func(d map[string]any) {
		for _, k := range []string{"kyc_status", "kyb_status"} {
			if _, ok := d[k]; ok {
				d[k] = "rejected"
			}
		}
	}), "kyc.approved", "kyb.approved"),
	eventSet("EVT-073", "approval-rejection-reasons", "data.rejection_reasons", []any{"DOCUMENT_EXPIRED"}, "kyc.approved", "kyb.approved", "kyc.pending_review", "kyb.pending_review"),
	eventSet("EVT-076", "viban-user-id-other", "data.user_id", otherUUID, "viban.ready"),
	eventEdit("EVT-077", "viban-eur-sort-code", "EUR account with a sort code", onCurrency("EUR", set("sort_code", "040004")), "viban.ready"),
	eventEdit("EVT-078", "viban-gbp-iban", "GBP account with an IBAN", onCurrency("GBP", set("iban", "GB33BUKB20201555555555")), "viban.ready"),
	eventEdit("EVT-079", "viban-currency-lowercase", "data.currency in lower case (not ISO 4217)", inData(func(d map[string]any) {
		if c, ok := d["currency"].(string); ok {
			d["currency"] = strings.ToLower(c)
		}
	}), "viban.ready"),
	eventSet("EVT-080", "viban-provider-name-friendly", "data.provider_name", "Provider A Bank plc", "viban.ready"),
	eventDrop("EVT-081", "viban-no-bank-name", "data.bank_name", "viban.ready"),
	eventSet("EVT-083", "viban-bank-address-set", "data.bank_address", "1 Bank Street", "viban.ready"),
	eventDrop("EVT-084", "account-family-no-event", "data.event", accountFamily...),
	eventSet("EVT-086", "account-family-request-id-other", "data.request_id", otherUUID, accountFamily...),
	eventSet("EVT-087", "account-family-status-unknown", "data.status", "done", "virtual_account_request.completed", "customer.account_ready"),
	eventSet("EVT-089", "account-family-vendor-code-set", "data.vendor_error_code", "E42", "virtual_account_request.completed", "customer.account_ready"),
	eventSet("EVT-090", "account-family-officer-note-differs", "data.officer_note", "a different note", "virtual_account_request.needs_correction", "customer.needs_information", "virtual_account_request.rejected"),
	eventSet("EVT-091", "account-family-missing-fields", "data.missing_fields", []any{"iban"}, accountFamily...),
	eventSet("EVT-092", "account-family-updated-at-other", "data.updated_at", "2020-01-01T00:00:00Z", accountFamily...),
	eventSet("EVT-093", "account-family-completed-at-null", "data.completed_at", nil, "virtual_account_request.completed", "customer.account_ready"),
	eventDrop("EVT-094", "deposit-no-tenant-id", "data.tenant_id", "deposit.received"),
	eventSet("EVT-095", "deposit-customer-email-other", "data.customer_email", "not-the-customer@example.com", "deposit.received"),
	eventEdit("EVT-097", "deposit-type-swapped", "data.deposit_type swapped", byKind(set("deposit_type", "crypto"), set("deposit_type", "fiat")), "deposit.received"),
	eventEdit("EVT-098", "deposit-sender-crypto", "crypto deposits name a sender, fiat ones a number", byKind(set("sender", 12345), set("sender", "A Payer")), "deposit.received"),
	eventEdit("EVT-099", "deposit-virtual-account-swapped", "virtual_account_id null for fiat, set for crypto", byKind(set("virtual_account_id", nil), set("virtual_account_id", otherUUID)), "deposit.received"),
	eventEdit("EVT-100", "deposit-wallet-id-swapped", "crypto_wallet_id set for fiat, null for crypto", byKind(set("crypto_wallet_id", otherUUID), set("crypto_wallet_id", nil)), "deposit.received"),
	eventEdit("EVT-101", "deposit-iban-wrong", "iban wrong for fiat, set for crypto", byKind(set("iban", "GB00WRONG0000000000000"), set("iban", "GB33BUKB20201555555555")), "deposit.received"),
	eventEdit("EVT-102", "deposit-amount-off", "amount_minor one more than the gross", inData(plusOne("amount_minor")), "deposit.received"),
	eventEdit("EVT-105", "deposit-asset-code-swapped", "asset_code set for fiat, null for crypto", byKind(set("asset_code", "BTC"), set("asset_code", nil)), "deposit.received"),
	eventSet("EVT-107", "deposit-provider-other", "data.provider", "PROVIDER_OTHER", "deposit.received"),
	eventSet("EVT-108", "deposit-provider-transaction-id-other", "data.provider_transaction_id", "prv_not_the_reference", "deposit.received"),
	eventEdit("EVT-106", "deposit-currency-wrong", "currency lower-case for fiat, ISO for crypto", byKind(set("currency", "gbp"), set("currency", "GBP")), "deposit.received"),
	eventSet("EVT-109", "deposit-ledger-id-number", "data.ledger_transaction_id", 42, "deposit.received"),
	eventSet("EVT-110", "deposit-reference-other", "data.reference", "another reference", "deposit.received"),
	eventSet("EVT-059", "returned-balance-not-adjusted", "data.balance_adjusted", false, "withdrawal.returned"),
	eventDrop("EVT-113", "withdrawal-no-fee", "data.fee_minor", "withdrawal.completed"),
	eventSet("EVT-114", "withdrawal-type-card", "data.type", "card", "withdrawal.completed"),
	eventEdit("EVT-115", "withdrawal-amount-off", "amount_minor one more", inData(plusOne("amount_minor")), "withdrawal.completed"),
	eventEdit("EVT-116", "withdrawal-currency-wrong", "currency lower-case for fiat, set for crypto", byKind(set("currency", "gbp"), set("currency", "BTC")), "withdrawal.completed"),
	eventSet("EVT-117", "withdrawal-status-settled", "data.status", "settled", "withdrawal.completed"),
	eventSet("EVT-120", "withdrawal-completed-at-other", "data.completed_at", "2020-01-01T00:00:00Z", "withdrawal.completed"),
	eventSet("EVT-121", "withdrawal-beneficiary-name-set", "data.beneficiary_name", "A Name", "withdrawal.completed"),
	eventEdit("EVT-122", "withdrawal-asset-code-swapped", "asset_code set for fiat, null for crypto", byKind(set("asset_code", "BTC"), set("asset_code", nil)), "withdrawal.completed"),
	eventEdit("EVT-123", "withdrawal-address-unmasked", "destination_address_masked set for fiat, unmasked for crypto", byKind(set("destination_address_masked", "abc"), set("destination_address_masked", "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq")), "withdrawal.completed"),
	eventDrop("EVT-126", "conversion-no-destination-amount", "data.destination_amount_minor", "conversion.completed"),
	eventDrop("EVT-129", "beneficiary-decision-no-provider", "data.provider", "beneficiary.approved", "beneficiary.rejected"),
	eventSet("EVT-130", "beneficiary-approved-reason", "data.rejection_reason", "a reason", "beneficiary.approved"),
	eventDrop("EVT-132", "beneficiary-updated-no-provider-code", "data.provider_code", "fiat.beneficiary.updated"),
	eventEdit("EVT-133", "beneficiary-updated-superseded-set", "superseded_by_beneficiary_id set while active", inData(func(d map[string]any) {
		if d["superseded_by_beneficiary_id"] == "" {
			d["superseded_by_beneficiary_id"] = otherUUID
		}
	}), "fiat.beneficiary.updated"),
	eventSet("EVT-134", "beneficiary-updated-change-other", "data.change", "update", "fiat.beneficiary.updated"),
}

func mapStatus(s, from, to int) int {
	if s == from {
		return to
	}
	return s
}

func hmacHex(key []byte, parts ...string) string {
	h := hmac.New(sha256.New, key)
	for _, p := range parts {
		h.Write([]byte(p))
	}
	return "sha256=" + hex.EncodeToString(h.Sum(nil))
}

// signWith signs the delivery's body with key, both header families.
func signWith(d *Delivery, key []byte) {
	sum := sha256.Sum256(d.Body)
	payload := hex.EncodeToString(sum[:])
	d.Header.Set(verify.HeaderSignature, hmacHex(key, d.Header.Get(verify.HeaderTimestamp), ".", string(d.Body)))
	d.Header.Set(verify.SvcPayloadSHA256, payload)
	d.Header.Set(verify.SvcSignature, hmacHex(key, d.Header.Get(verify.SvcTimestamp), ".", d.Header.Get(verify.SvcID), ".", payload, ".", string(d.Body)))
}
