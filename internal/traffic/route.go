package traffic

import (
	"cmp"
	"net/http"
	"regexp"
	"strings"
)

// Bucket is one per-route budget: an API key (its public prefix, the part
// before the dot, safe to log; "-" for none), an HTTP method and a route
// template (document 2, Limits: GET /customers/{a} and GET /customers/{b}
// share a counter; GET and POST on one path do not).
type Bucket struct {
	Key, Method, Template string
}

func (b Bucket) String() string {
	return b.Method + " " + b.Template + " (key " + b.Key + ")"
}

// BucketOf is the per-route budget a request spends.
func BucketOf(r *http.Request) Bucket {
	prefix, _, _ := strings.Cut(keyOf(r.Header), ".")
	return Bucket{Key: cmp.Or(prefix, "-"), Method: r.Method, Template: Template(r.URL.Path)}
}

var idSegment = regexp.MustCompile(`^([0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|[0-9]+)$`)

// Template is the route template a path belongs to, as far as the harness
// can tell without the target's route table: a segment that is an id (a
// UUID, a number, an asset code under crypto/wallets, a client reference)
// becomes a parameter. Two routes the target counts apart but this joins
// only make the plan more careful; two it counts together but this keeps
// apart are caught by the 429 the plan then waits out.
func Template(path string) string {
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	segs := strings.Split(path, "/")
	for i, s := range segs {
		switch {
		case s == "":
		case idSegment.MatchString(s):
			segs[i] = "{id}"
		case i > 0 && segs[i-1] == "wallets" && i+1 < len(segs):
			segs[i] = "{asset}"
		case i > 0 && segs[i-1] == "by-client-reference":
			segs[i] = "{ref}"
		}
	}
	return strings.Join(segs, "/")
}

// keyOf is the API key a request carries (X-Api-Key, else a bearer token),
// or "". The secret is never kept.
func keyOf(h http.Header) string {
	if k := h.Get("X-Api-Key"); k != "" {
		return k
	}
	if a := h.Get("Authorization"); len(a) > 7 && strings.EqualFold(a[:7], "bearer ") {
		return strings.TrimSpace(a[7:])
	}
	return ""
}
