package client

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
)

// credentialHeaders carry secrets whatever their scheme; they are masked in
// every transcript, curl line and JSON record of an exchange.
var credentialHeaders = map[string]bool{
	"authorization": true, "proxy-authorization": true, "x-api-key": true, "api-key": true,
	"x-auth-token": true, "cookie": true, "set-cookie": true,
}

// CredentialHeader tells whether a header (any casing) carries credentials.
func CredentialHeader(name string) bool {
	return credentialHeaders[strings.ToLower(strings.TrimSpace(name))]
}

// credentialTokens returns the candidate keys in a credential header value:
// the value, its token after a scheme, and for Basic the decoded user and
// password.
func credentialTokens(v string) []string {
	out := []string{v}
	scheme, tok, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok {
		return out
	}
	tok = strings.TrimSpace(tok)
	out = append(out, tok)
	if strings.EqualFold(scheme, "basic") {
		if dec, err := base64.StdEncoding.DecodeString(tok); err == nil {
			u, p, _ := strings.Cut(string(dec), ":")
			out = append(out, u, p)
		}
	}
	return out
}

// MaskCredential masks a credential header's value: the scheme and a key's
// public prefix stay, every secret goes. A Basic value is shown decoded with
// each part masked, so the evidence still says what was sent.
func MaskCredential(v string) string {
	scheme, tok, ok := strings.Cut(strings.TrimSpace(v), " ")
	if !ok {
		return maskToken(v)
	}
	tok = strings.TrimSpace(tok)
	if strings.EqualFold(scheme, "basic") {
		if dec, err := base64.StdEncoding.DecodeString(tok); err == nil {
			u, p, hasColon := strings.Cut(string(dec), ":")
			shown := maskToken(u)
			if hasColon {
				shown += ":" + maskToken(p)
			}
			return scheme + " *** (base64 of " + strings.TrimSpace(shown) + ")"
		}
	}
	return scheme + " " + maskToken(tok)
}

// maskToken keeps a key's public prefix (before the dot) and masks the rest.
func maskToken(s string) string {
	if s == "" {
		return ""
	}
	if prefix, _, ok := strings.Cut(s, "."); ok {
		return prefix + ".***"
	}
	return "***"
}

// MaskHeaders returns a copy of h with every credential header masked.
func MaskHeaders(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		cp := append([]string(nil), vs...)
		if CredentialHeader(k) {
			for i := range cp {
				cp[i] = MaskCredential(cp[i])
			}
		}
		out[k] = cp
	}
	return out
}

// MarshalJSON writes the request with credential headers and URL userinfo masked.
func (r RequestRecord) MarshalJSON() ([]byte, error) {
	type plain RequestRecord
	cp := plain(r)
	cp.Header = MaskHeaders(r.Header)
	cp.URL = MaskURL(r.URL)
	return json.Marshal(cp)
}

// MarshalJSON writes the response with credential headers masked.
func (r ResponseRecord) MarshalJSON() ([]byte, error) {
	type plain ResponseRecord
	cp := plain(r)
	cp.Header = MaskHeaders(r.Header)
	return json.Marshal(cp)
}

// MaskURL masks userinfo (user:password@) in a URL string.
func MaskURL(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	host, path := rest, ""
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host, path = rest[:i], rest[i:]
	}
	if at := strings.LastIndex(host, "@"); at >= 0 {
		host = "***@" + host[at+1:]
	}
	return scheme + "://" + host + path
}
