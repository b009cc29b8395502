package webhooks

import (
	"net/http"

	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/client"
	"github.com/touchstone-harness/touchstone/internal/fresh"
	"github.com/touchstone-harness/touchstone/internal/shape"
)

// Secret rotation (document 2, Endpoints: Secret rotation).

func rotationChecks() []check.Check {
	return []check.Check{
		{
			ID:     "webhooks/rotation-new-secret",
			Title:  "Rotation returns a new well-formed secret once, increments secretVersion, and GET shows its SHA-256",
			Rules:  []string{"WHM-008", "WHM-049", "WHM-052", "WHM-036", "WHM-003", "WHM-012", "WHM-014"},
			Labels: []string{check.Mutating},
			Needs:  []string{"keys.subject", "webhook_url"},
			Run: func(t *check.T) {
				m, id, undo := subscribed(t, "subject")
				defer undo()
				old := shape.String(t, "WHM-003", m, "secret")
				version := shape.Int(t, "WHM-012", m, "secretVersion")
				r := t.Do(t.Client("subject"), client.Request{Method: http.MethodPost, Path: sub(id) + "/secret-rotations",
					JSON: map[string]any{"reason": "touchstone rotation check"}, IdempotencyKey: t.NewKey()})
				fresh.HoldSecret(t, r)
				if r.Status != http.StatusOK && r.Status != http.StatusCreated {
					t.FatalAt(r, "WHM-008", "rotation: status %d, want 200 or 201", r.Status)
				}
				rm := shape.Object(t, "WHM-049", r)
				secret := shape.String(t, "WHM-049", rm, "secret")
				if secret == old {
					// The secret was not rotated (WHM-008's decision): what the
					// answer and GET show after it is built on that.
					t.FatalAt(r, "WHM-008", "rotation did not rotate the secret: it returned the same one")
				}
				if len(secret) != 54 || !secretRE.MatchString(secret) {
					t.ErrorAt(r, "WHM-036", "the rotated secret (length %d) is not a 10-character prefix ending in whsec_ followed by 44 base64 characters", len(secret))
				}
				if v := shape.Int(t, "WHM-049", rm, "secretVersion"); v != version+1 {
					t.ErrorAt(r, "WHM-049", "rotation: secretVersion %d, want %d", v, version+1)
				}
				got := readSub(t, "WHM-052", id)
				if _, ok := got["secret"]; ok {
					t.Errorf("WHM-014", "GET after rotation carries a secret member")
				}
				if h := shape.String(t, "WHM-052", got, "secretSha256"); h != sha256Hex(secret) {
					t.Errorf("WHM-052", "after rotation GET secretSha256 %s is not the SHA-256 of the new secret", h)
				}
				if v := shape.Int(t, "WHM-049", got, "secretVersion"); v != version+1 {
					t.Errorf("WHM-049", "after rotation GET secretVersion %d, want %d", v, version+1)
				}
			},
		},
	}
}
