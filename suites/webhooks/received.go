package webhooks

import (
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/webhooks/verify"
)

// What an event check does to receive events: listen on the inbox with one
// subscription, then pick the verified deliveries of a type about a
// resource. The idiom:
//
//	in, subID, stop := listen(t, "tenant", "deposit.received")
//	defer stop()
//	... produce the outcome ...
//	in.await(subID, 1)
//	d := one(t, rule, in.events(subID, "deposit.received", id), "deposit.received of the deposit")

// listen starts the inbox and registers the key's endpoint for the event
// types (WHM-003), with the inbox holding its secret. It returns the inbox,
// the subscription id and stop, which the caller defers: stop disables the
// subscription, then closes the inbox. If the registration fails the inbox
// is closed before the check ends.
func listen(t *check.T, key string, eventTypes ...string) (in *inbox, subID string, stop func()) {
	in = startInbox(t)
	registered := false
	defer func() {
		if !registered {
			in.close()
		}
	}()
	s := in.subscribe("WHM-003", key, nil, eventTypes...)
	subID = s["subscriptionId"].(string)
	registered = true
	return in, subID, func() {
		disable(t, key, subID)
		in.close()
	}
}

// deliveries returns the envelopes (decoded under rule) of the verified
// deliveries of typ to the subscription whose member idMember is the
// resource. Every delivery of typ is verified, about the resource or not.
func deliveries(t *check.T, recs []verify.Record, subID, typ, rule, idMember, resource string) []map[string]any {
	var out []map[string]any
	for _, r := range forSub(recs, subID) {
		if r.EventType != typ {
			continue
		}
		verified(t, r, typ+" delivery")
		if env := envelopeOf(t, rule, r); env[idMember] == resource {
			out = append(out, env)
		}
	}
	return out
}

// dataOf returns the data object of each envelope (nil where it is not an
// object).
func dataOf(envs []map[string]any) []map[string]any {
	var out []map[string]any
	for _, env := range envs {
		d, _ := env["data"].(map[string]any)
		out = append(out, d)
	}
	return out
}

// envsOf returns the legacy envelopes (EVT-006) of the verified deliveries
// of typ to the subscription about the resource id.
func envsOf(t *check.T, recs []verify.Record, subID, typ, resource string) []map[string]any {
	return deliveries(t, recs, subID, typ, "EVT-006", "id", resource)
}

// eventsOf returns the data objects of the verified legacy deliveries of
// typ to the subscription, about the resource id.
func eventsOf(t *check.T, recs []verify.Record, subID, typ, resource string) []map[string]any {
	return dataOf(envsOf(t, recs, subID, typ, resource))
}

// v1Events returns the data of the verified svc.webhooks.v1 deliveries
// (EVT-007) of typ to the subscription about the resource (resourceId).
func v1Events(t *check.T, recs []verify.Record, subID, typ, resource string) []map[string]any {
	return dataOf(deliveries(t, recs, subID, typ, "EVT-007", "resourceId", resource))
}

// events is eventsOf over what the inbox has received so far.
func (in *inbox) events(subID, typ, resource string) []map[string]any {
	return eventsOf(in.t, in.records(), subID, typ, resource)
}

// envs is envsOf over what the inbox has received so far.
func (in *inbox) envs(subID, typ, resource string) []map[string]any {
	return envsOf(in.t, in.records(), subID, typ, resource)
}

// one asserts exactly one delivery and returns its data.
func one(t *check.T, rule string, ds []map[string]any, what string) map[string]any {
	if len(ds) != 1 {
		t.Fatalf(rule, "%s: received %d deliveries, want 1", what, len(ds))
	}
	return ds[0]
}

// oneEnv asserts exactly one envelope and returns it with its data.
func oneEnv(t *check.T, rule string, envs []map[string]any, what string) (map[string]any, map[string]any) {
	if len(envs) != 1 {
		t.Fatalf(rule, "%s: received %d deliveries, want 1", what, len(envs))
	}
	d, _ := envs[0]["data"].(map[string]any)
	if d == nil {
		t.Fatalf(rule, "%s: data is not an object", what)
	}
	return envs[0], d
}
