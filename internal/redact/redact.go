// Package redact removes secrets from anything Touchstone writes. Redaction
// happens before anything is rendered: a report's data passes through
// Value (every string in it masked) before it is encoded as JSON, XML or
// HTML, whose escaping would otherwise hide a secret from a search of the
// final bytes ('+' is "&#43;" in HTML, '<' is "\u003c" in JSON). The final
// bytes and every console line pass through the Redactor too, which also
// knows the escaped forms of each secret.
package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"html"
	"html/template"
	"io"
	"net/url"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Mask replaces a secret.
const Mask = "***"

// b64char is one character of a base64 secret as output may render it:
// itself, or '+', '/' and '=' escaped for HTML, JSON or a URL.
const b64char = `(?:[A-Za-z0-9_\-+/=]|&#43;|&#[xX]2[bB];|&#61;|&#[xX]3[dD];|&#47;|&#[xX]2[fF];|\\u00(?:2[bBfF]|3[dD])|\\/|%2[bBfF]|%3[dD])`

// keyPattern matches a full API key; the public prefix is kept.
var keyPattern = regexp.MustCompile(`\b([a-z0-9]+_(?:live|sandbox|test|dev|key)_[0-9a-fA-F]{16})\.(` + b64char + `+)`)

// webhookSecretPattern matches a webhook signing secret (10-character
// product prefix ending in whsec_, then 44 base64 characters; shorter or
// longer runs are masked whole too).
var webhookSecretPattern = regexp.MustCompile(`[A-Za-z0-9_]{4}whsec_` + b64char + `{8,}`)

// basicHeaderPattern matches a Basic credential after an Authorization
// header name in any rendering (HTTP text, JSON, curl line), any casing.
var basicHeaderPattern = regexp.MustCompile(`(?i)(authorization["']?\s*[:=]\s*\[?\s*["']?basic\s+)([A-Za-z0-9+/]{4,}={0,2})`)

// userinfoPattern matches user:password@ in a URL.
var userinfoPattern = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://)[^/@\s"'<>]+:[^/@\s"'<>]*@`)

// Redactor holds the secrets known to a run.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string
}

// New returns a Redactor that knows the given secrets.
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	r.Add(secrets...)
	return r
}

// Add registers more secrets (e.g. a webhook secret seen during the run).
func (r *Redactor) Add(secrets ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range secrets {
		if len(s) >= 4 {
			r.secrets = append(r.secrets, Forms(s)...)
		}
	}
	// Longest first so a secret containing another is masked whole.
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
}

// String masks every known secret, every API-key secret part, and every
// webhook secret in s.
func (r *Redactor) String(s string) string {
	if r != nil {
		r.mu.RLock()
		for _, sec := range r.secrets {
			s = maskRuns(s, sec)
		}
		r.mu.RUnlock()
	}
	s = keyPattern.ReplaceAllString(s, "$1."+Mask)
	s = basicHeaderPattern.ReplaceAllString(s, "${1}"+Mask)
	s = userinfoPattern.ReplaceAllString(s, "${1}"+Mask+"@")
	return webhookSecretPattern.ReplaceAllString(s, Mask)
}

// Bytes is String for byte slices.
func (r *Redactor) Bytes(b []byte) []byte { return []byte(r.String(string(b))) }

// Writer wraps w so that every write is redacted. Writes are buffered by
// line so that a secret split across two writes is still caught.
func (r *Redactor) Writer(w io.Writer) io.WriteCloser { return &lineWriter{r: r, w: w} }

type lineWriter struct {
	r   *Redactor
	w   io.Writer
	buf bytes.Buffer
	mu  sync.Mutex
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	for {
		i := bytes.IndexByte(l.buf.Bytes(), '\n')
		if i < 0 {
			break
		}
		line := l.buf.Next(i + 1)
		if _, err := l.w.Write(l.r.Bytes(line)); err != nil {
			return len(p), err
		}
	}
	return len(p), nil
}

func (l *lineWriter) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.buf.Len() > 0 {
		_, err := l.w.Write(l.r.Bytes(l.buf.Bytes()))
		l.buf.Reset()
		return err
	}
	return nil
}

// Forms returns a secret and every encoding of it that output may carry:
// escaped for HTML (html/template and html.EscapeString), XML and JSON,
// URL-encoded (query and path escaping), and base64 (standard and URL
// alphabets, padded or not) at each of the three byte alignments it can
// have inside a longer encoded string, so that base64("key:") or
// base64(":key") or base64 of a whole key all contain a masked form.
func Forms(secret string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(f string) {
		if len(f) >= 4 && !seen[f] {
			seen[f] = true
			out = append(out, f)
		}
	}
	add(secret)
	for _, f := range Escaped(secret) {
		add(f)
	}
	add(url.QueryEscape(secret))
	add(url.PathEscape(secret))
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
		for align := 0; align < 3; align++ {
			full := enc.EncodeToString(append(make([]byte, align), secret...))
			// Drop the characters that mix in the leading filler bytes
			// (ceil(align*8/6)) and the last two, which may mix in
			// whatever follows the secret.
			skip := (align*8 + 5) / 6
			core := strings.TrimRight(full, "=")
			if len(core) >= skip+2 {
				core = core[skip : len(core)-2]
			}
			if len(core) >= 6 {
				add(core)
				add(url.QueryEscape(core))
			}
		}
	}
	return out
}

// Escaped are the forms a text takes in what Touchstone writes: HTML
// (html/template's escaping, which also turns '+' into "&#43;", and
// html.EscapeString's), XML, a JSON string's body (Go's escaping of '<',
// '>' and '&', and the "\/" some encoders write), a Go-quoted string (%q),
// and a shell word in single or double quotes (a curl line).
func Escaped(s string) []string {
	var x strings.Builder
	_ = xml.EscapeText(&x, []byte(s))
	j, _ := json.Marshal(s)
	js := string(j[1 : len(j)-1])
	q := strconv.Quote(s)
	return []string{template.HTMLEscapeString(s), html.EscapeString(s), x.String(), js, strings.ReplaceAll(js, "/", `\/`), q[1 : len(q)-1],
		strings.ReplaceAll(s, "'", `'\''`), shellDouble.Replace(s)}
}

var shellDouble = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "$", `\$`, "`", "\\`")

// Value masks, in place, every string reachable from ptr (a pointer to a
// struct, slice or map; exported fields only): what a report renders is
// masked before any encoder escapes it.
func (r *Redactor) Value(ptr any) {
	r.value(reflect.ValueOf(ptr))
}

func (r *Redactor) value(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			r.value(v.Elem())
		}
	case reflect.Interface:
		if v.IsNil() {
			return
		}
		if e := v.Elem(); e.Kind() == reflect.Pointer || !v.CanSet() {
			r.value(e)
		} else {
			// A value held in an interface is not addressable: mask a
			// copy and store it back.
			c := reflect.New(e.Type()).Elem()
			c.Set(e)
			r.value(c)
			v.Set(c)
		}
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				r.value(v.Field(i))
			}
		}
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.Type().Elem().Kind() == reflect.Uint8 {
			if v.CanSet() && v.Len() > 0 {
				v.SetBytes(r.Bytes(v.Bytes()))
			}
			return
		}
		for i := 0; i < v.Len(); i++ {
			r.value(v.Index(i))
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		for _, k := range v.MapKeys() {
			// Map values are not addressable: mask a copy and store it
			// back (under a masked key, should the key hold a secret).
			e := reflect.New(v.Type().Elem()).Elem()
			e.Set(v.MapIndex(k))
			r.value(e)
			nk := k
			if k.Kind() == reflect.String {
				nk = reflect.ValueOf(r.String(k.String())).Convert(k.Type())
				if nk.String() != k.String() {
					v.SetMapIndex(k, reflect.Value{})
				}
			}
			v.SetMapIndex(nk, e)
		}
	case reflect.String:
		if v.CanSet() {
			v.SetString(r.String(v.String()))
		}
	}
}

// maskRuns replaces each occurrence of form, together with the base64
// characters around it, by Mask: a base64 form is only the core of an
// encoded string, whose edge characters would otherwise still carry a
// byte of the secret.
func maskRuns(s, form string) string {
	if !strings.Contains(s, form) {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, form)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		l, r := i, i+len(form)
		for l > 0 && isBase64(s[l-1]) {
			l--
		}
		for r < len(s) && isBase64(s[r]) {
			r++
		}
		b.WriteString(s[:l])
		b.WriteString(Mask)
		s = s[r:]
	}
}

func isBase64(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=' || c == '-' || c == '_' || c == '%'
}
