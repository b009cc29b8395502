package client

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"time"

	"github.com/touchstone-harness/touchstone/internal/profile"
)

// Exchange is one request and its response, kept as evidence.
type Exchange struct {
	Time     time.Time       `json:"time"`
	Duration time.Duration   `json:"duration_ns"`
	KeyName  string          `json:"key,omitempty"`
	Request  RequestRecord   `json:"request"`
	Response *ResponseRecord `json:"response,omitempty"`
	Error    string          `json:"error,omitempty"`
	// Roles names the profile's keys (full key -> role), so that the
	// reproduction line stands for any key the request carries by its
	// role's variable, whichever client sent it.
	Roles KeyRoles `json:"-"`
}

// KeyRoles maps each profile key to its role ("tenant", ...).
type KeyRoles map[string]string

// NewKeyRoles indexes a profile's keys by value.
func NewKeyRoles(keys map[string]string) KeyRoles {
	out := KeyRoles{}
	for role, k := range keys {
		if k != "" {
			if _, dup := out[k]; !dup || role < out[k] {
				out[k] = role
			}
		}
	}
	return out
}

// stand returns what a reproduction line shows for a credential token:
// a profile key by its role's variable; a token built from a profile
// key's secret (a malformed variant) with the secret replaced by the
// role's variable stripped of its public prefix; any other key-like token
// as is (it holds no profile secret: a fabricated key). ok is false when
// the roles are unknown.
func (kr KeyRoles) stand(tok string) (string, bool) {
	if kr == nil {
		return "", false
	}
	if role, found := kr[tok]; found {
		return "${" + profile.KeyEnvVar(role) + "}", true
	}
	roles := make([]string, 0, len(kr))
	for k := range kr {
		roles = append(roles, k)
	}
	sort.Strings(roles)
	for _, k := range roles {
		if _, secret, found := strings.Cut(k, "."); found && len(secret) >= 8 && strings.Contains(tok, secret) {
			return strings.ReplaceAll(tok, secret, "${"+profile.KeyEnvVar(kr[k])+"#*.}"), true
		}
	}
	return tok, true
}

// RequestRecord is what was sent.
type RequestRecord struct {
	Method string      `json:"method"`
	URL    string      `json:"url"`
	Header http.Header `json:"headers"`
	Body   []byte      `json:"-"`
}

// ResponseRecord is what came back.
type ResponseRecord struct {
	Status int         `json:"status"`
	Header http.Header `json:"headers"`
	Body   []byte      `json:"-"`
}

// Curl renders a shell line that reproduces the request. The API key is
// replaced by an environment-variable placeholder named after the profile
// key ($TOUCHSTONE_KEY_TENANT), so the line holds no secret.
func (e *Exchange) Curl() string {
	var b strings.Builder
	fmt.Fprintf(&b, "curl -sS -i -X %s %s", e.Request.Method, shellQuote(MaskURL(e.Request.URL)))
	names := make([]string, 0, len(e.Request.Header))
	for k := range e.Request.Header {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range e.Request.Header[k] {
			b.WriteString(" -H ")
			b.WriteString(headerArg(k, v, e.KeyName, e.Roles))
		}
	}
	if len(e.Request.Body) > 0 {
		if len(e.Request.Body) > 4096 {
			fmt.Fprintf(&b, " --data-binary @body.json  # %d-byte body not inlined", len(e.Request.Body))
		} else {
			b.WriteString(" --data-binary ")
			b.WriteString(shellQuote(string(e.Request.Body)))
		}
	}
	return b.String()
}

func headerArg(name, value, keyName string, roles KeyRoles) string {
	env := ""
	if keyName != "" {
		env = profile.KeyEnvVar(keyName)
	}
	placeholder := func(tok, env string) string {
		if tok == "" {
			return ""
		}
		if s, ok := roles.stand(tok); ok {
			return s
		}
		return placeholder(tok, env)
	}
	if !CredentialHeader(name) {
		return shellQuote(name + ": " + value)
	}
	scheme, tok, hasScheme := strings.Cut(strings.TrimSpace(value), " ")
	if !hasScheme {
		scheme, tok = "", value
	}
	if strings.EqualFold(scheme, "basic") {
		if dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(tok)); err == nil {
			u, p, hasColon := strings.Cut(string(dec), ":")
			plain := placeholder(u, env)
			if hasColon {
				plain += ":" + placeholder(p, env)
			}
			return `"` + name + `: ` + scheme + ` $(printf '%s' "` + plain + `" | base64 -w0)"`
		}
		return `"` + name + `: ` + scheme + ` ***"`
	}
	if scheme != "" {
		return `"` + name + `: ` + scheme + ` ` + placeholder(tok, env) + `"`
	}
	return `"` + name + `: ` + placeholder(tok, env) + `"`
}

// placeholder stands for a credential in a curl line when the profile's
// keys are unknown: a key (it has a dot) sent by a client holding a named
// key becomes that key's environment variable; anything else is masked
// (never a bare variable that names no key).
func placeholder(tok, env string) string {
	switch {
	case tok == "":
		return ""
	case strings.Contains(tok, ".") && env != "":
		return "${" + env + "}"
	}
	return "***"
}

func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Transcript renders the exchange as HTTP text for a report. Key secrets are
// masked; the caller's redactor masks anything else it knows.
func (e *Exchange) Transcript() string {
	var b strings.Builder
	fmt.Fprintf(&b, "> %s %s\n", e.Request.Method, MaskURL(e.Request.URL))
	writeHeaders(&b, "> ", e.Request.Header)
	if len(e.Request.Body) > 0 {
		fmt.Fprintf(&b, ">\n> %s\n", clip(e.Request.Body))
	}
	if e.Response == nil {
		fmt.Fprintf(&b, "< (no response: %s)\n", e.Error)
		return b.String()
	}
	fmt.Fprintf(&b, "< %d %s  (%s)\n", e.Response.Status, http.StatusText(e.Response.Status), e.Duration.Round(time.Microsecond))
	writeHeaders(&b, "< ", e.Response.Header)
	if len(e.Response.Body) > 0 {
		fmt.Fprintf(&b, "<\n< %s\n", clip(e.Response.Body))
	}
	return b.String()
}

func writeHeaders(b *strings.Builder, p string, h http.Header) {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		for _, v := range h[k] {
			if CredentialHeader(k) {
				v = MaskCredential(v)
			}
			fmt.Fprintf(b, "%s%s: %s\n", p, k, v)
		}
	}
}

func clip(b []byte) string {
	const max = 8192
	if len(b) > max {
		return string(b[:max]) + fmt.Sprintf("… (%d bytes in all)", len(b))
	}
	return string(b)
}
