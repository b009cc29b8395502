// Package profile describes a target: where it is, which keys and fixtures it
// offers. The embedded sandbox writes one; users write one by hand for their
// own sandbox. It is the contract between target and harness.
package profile

import (
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"reflect"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// Profile is a target description. Field names are part of the public format.
type Profile struct {
	Name        string `json:"name"`
	BaseURL     string `json:"base_url"`
	Environment string `json:"environment"`

	Keys          Keys          `json:"keys"`
	Customers     Customers     `json:"customers"`
	Beneficiaries Beneficiaries `json:"beneficiaries"`
	Crypto        Crypto        `json:"crypto"`

	// WebhookURL is an https URL the target accepts as a public destination.
	WebhookURL string `json:"webhook_url,omitempty"`
	// ControlURL is the embedded sandbox's control API; absent for real targets.
	ControlURL string `json:"control_url,omitempty"`
	// CORSAllowedOrigin is an origin the target allowlists for browsers (the dashboard).
	CORSAllowedOrigin string `json:"cors_allowed_origin,omitempty"`
	// CABundle is a PEM file of extra trusted roots for an HTTPS target.
	CABundle string `json:"ca_bundle,omitempty"`
}

// Keys are full API keys (`<marker>_<env>_<16 hex>.<secret>`). A value of the
// form "env:NAME" is read from the environment variable NAME, so a profile
// file need not hold secrets.
type Keys struct {
	Tenant           string `json:"tenant,omitempty"`            // tenant-wide, every scope
	Subject          string `json:"subject,omitempty"`           // bound to customers.parent, every scope
	Child            string `json:"child,omitempty"`             // bound to customers.child (a key issued to an end customer)
	ReadOnly         string `json:"read_only,omitempty"`         // tenant-wide, only *:read scopes
	Unbound          string `json:"unbound,omitempty"`           // legacy unbound key
	OtherEnvironment string `json:"other_environment,omitempty"` // well-formed, minted for another environment
	PascalScopes     string `json:"pascal_scopes,omitempty"`     // tenant-wide, scopes granted in PascalCase spelling
	Umbrella         string `json:"umbrella,omitempty"`          // tenant-wide, granted transactions:read+write and onboarding:read only
	UnusedScopes     string `json:"unused_scopes,omitempty"`     // tenant-wide, granted only scopes no operation demands (compliance:read, open-banking:*, end-user-fees:write)
	IPRestricted     string `json:"ip_restricted,omitempty"`     // tenant-wide, allowlist excludes the harness's address
	NoEnvironment    string `json:"no_environment,omitempty"`    // no environment recorded: works everywhere
	OtherTenant      string `json:"other_tenant,omitempty"`      // tenant-wide key of the second tenant
	Live             string `json:"live,omitempty"`              // a key whose environment segment is live (refused for mutating work without opt-in)

	// Keys in states that must be refused (each a plain 401), and one rotation.
	Revoked         string `json:"revoked,omitempty"`          // revoked
	Expired         string `json:"expired,omitempty"`          // past its expiry
	NotYetActive    string `json:"not_yet_active,omitempty"`   // its validity starts in the future
	RotatedOld      string `json:"rotated_old,omitempty"`      // the old key of a rotation, still within its overlap window
	RotatedNew      string `json:"rotated_new,omitempty"`      // the key that rotation minted (successor of rotated_old)
	SuspendedTenant string `json:"suspended_tenant,omitempty"` // a key of a suspended tenant
	AccessOff       string `json:"access_off,omitempty"`       // a key for which API access is switched off

	// Keys holding one of two separate scope families (SCOPE-055).
	WithdrawalsOnly string `json:"withdrawals_only,omitempty"` // tenant-wide, withdrawals:read and withdrawals:write only (no withdrawal-addresses:*)
	WhitelistOnly   string `json:"whitelist_only,omitempty"`   // tenant-wide, withdrawal-addresses:read and withdrawal-addresses:write only (no withdrawals:*)

	// Lacking are tenant-wide keys each granted every scope but one, by
	// the scope it lacks in kebab-colon spelling ("accounts:write"): a
	// route's scope is judged with the key lacking exactly that scope, so
	// that a route requiring another scope than its documented one is
	// caught. LackingPascal are the same granted in PascalCase spelling
	// (SCOPE-074). A route whose scope has no such key here is not judged,
	// and the report names the key to add (keys.lacking["accounts:write"]).
	Lacking       map[string]string `json:"lacking,omitempty"`
	LackingPascal map[string]string `json:"lacking_pascal,omitempty"`
}

// LackingRole is the key role of the profile key lacking exactly scope
// (kebab-colon spelling), granted in PascalCase when pascal is set:
// "lacking.accounts:write", "lacking_pascal.accounts:write".
func LackingRole(scope string, pascal bool) string {
	if pascal {
		return "lacking_pascal." + scope
	}
	return "lacking." + scope
}

// RefusedAtKeyStep are the key roles a conformant target refuses at the
// key step (document 2, Authentication 9 and 10: revoked, expired, not
// yet active, another environment, a suspended tenant or API access off
// give 401; a request IP outside the allowlist gives 403), before the
// rate limits (Check order 3 and 4).
var RefusedAtKeyStep = map[string]bool{
	"revoked": true, "expired": true, "not_yet_active": true, "other_environment": true,
	"suspended_tenant": true, "access_off": true, "ip_restricted": true,
}

// Customers are ids of pre-made customers.
type Customers struct {
	ActivePersonal string `json:"active_personal,omitempty"`
	ActiveBusiness string `json:"active_business,omitempty"`
	Draft          string `json:"draft,omitempty"`
	Suspended      string `json:"suspended,omitempty"`
	BlockedCountry string `json:"blocked_country,omitempty"`
	Parent         string `json:"parent,omitempty"`
	Child          string `json:"child,omitempty"`
	OtherTenant    string `json:"other_tenant,omitempty"`
	// Exchange is an Active customer funded for conversions: Available GBP
	// and BTC (and ETH) well above the minimum trade sizes.
	Exchange string `json:"exchange,omitempty"`
}

// Beneficiaries are owned by customers.active_personal.
type Beneficiaries struct {
	GBP        string `json:"gbp,omitempty"`
	EUR        string `json:"eur,omitempty"`
	USD        string `json:"usd,omitempty"`
	GBPPending string `json:"gbp_pending,omitempty"`
	// Payout batches: a beneficiary still provisioning, and PROVIDER_B ones.
	GBPProvisioning string `json:"gbp_provisioning,omitempty"`
	GBPProviderB    string `json:"gbp_provider_b,omitempty"`
	EURProviderB    string `json:"eur_provider_b,omitempty"`
	// ChildGBP is a GBP beneficiary of customers.child (whose balance is readable).
	ChildGBP string `json:"child_gbp,omitempty"`
}

// Crypto are the crypto fixtures: an Active customer with funded BTC, ETH
// and USDT balances (ETH above 2^53 atomic units), an issued BTC deposit
// address (wallet) and an Active BTC whitelist entry.
type Crypto struct {
	Customer     string `json:"customer,omitempty"`
	WalletBTC    string `json:"wallet_btc,omitempty"`
	WhitelistBTC string `json:"whitelist_btc,omitempty"`
}

// CryptoMap returns the crypto fixtures by JSON field name.
func (p *Profile) CryptoMap() map[string]string { return fieldMap(p.Crypto) }

// Load reads and validates a profile file. Errors are one line, fit for a user.
func Load(path string) (*Profile, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("profile: %v", err)
	}
	return Parse(raw)
}

// Parse decodes and validates a profile document.
func Parse(raw []byte) (*Profile, error) {
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.DisallowUnknownFields()
	var p Profile
	if err := dec.Decode(&p); err != nil {
		return nil, fmt.Errorf("profile: malformed JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("profile: malformed JSON: unexpected content after the profile's JSON object")
	}
	if err := p.resolveEnv(); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &p, nil
}

// Validate checks the fields every run needs.
func (p *Profile) Validate() error {
	if p.BaseURL == "" {
		return errors.New("profile: base_url is required")
	}
	if userinfo.MatchString(p.BaseURL) {
		// Go would send its own Authorization header from it; never echo it.
		return errors.New("profile: base_url must not carry user:password@ credentials; put API keys under keys")
	}
	u, err := url.Parse(p.BaseURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("profile: base_url %q must be an absolute http(s) URL", p.BaseURL)
	}
	if u.User != nil {
		return errors.New("profile: base_url must not carry user:password@ credentials; put API keys under keys")
	}
	if port := u.Port(); port != "" {
		if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("profile: base_url %q has an invalid port (want 1-65535)", p.BaseURL)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return fmt.Errorf("profile: base_url %q has an empty port", p.BaseURL)
	}
	if strings.HasSuffix(p.BaseURL, "/") {
		return fmt.Errorf("profile: base_url %q must not end with a slash", p.BaseURL)
	}
	if u.Path != "" {
		return fmt.Errorf("profile: base_url %q must be scheme, host and port only", p.BaseURL)
	}
	if p.Keys.Tenant == "" && p.Keys.Subject == "" {
		return errors.New("profile: keys.tenant or keys.subject is required")
	}
	for name, k := range p.KeyMap() {
		if k == "" {
			continue
		}
		if !strings.Contains(k, ".") {
			return fmt.Errorf("profile: keys.%s is not of the form <prefix>.<secret>", name)
		}
	}
	if p.CABundle != "" {
		raw, err := os.ReadFile(p.CABundle)
		if err != nil {
			return fmt.Errorf("profile: ca_bundle: %v", err)
		}
		if !hasPEMCertificate(raw) {
			return fmt.Errorf("profile: ca_bundle %s holds no PEM certificate", p.CABundle)
		}
	}
	if p.ControlURL != "" {
		if cu, err := url.Parse(p.ControlURL); err != nil || cu.Host == "" {
			return fmt.Errorf("profile: control_url %q is not an absolute URL", p.ControlURL)
		}
	}
	return nil
}

// userinfo matches credentials in a URL's authority.
var userinfo = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9+.\-]*://[^/?#]*@`)

func hasPEMCertificate(raw []byte) bool {
	for {
		var b *pem.Block
		b, raw = pem.Decode(raw)
		if b == nil {
			return false
		}
		if b.Type == "CERTIFICATE" {
			if _, err := x509.ParseCertificate(b.Bytes); err == nil {
				return true
			}
		}
	}
}

// KeyMap returns the keys by their role: the JSON field name, and for
// the keys of a map field (lacking), the field name, a dot and the map
// key ("lacking.accounts:write").
func (p *Profile) KeyMap() map[string]string {
	out := map[string]string{}
	v := reflect.ValueOf(p.Keys)
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
		if f := v.Field(i); f.Kind() == reflect.Map {
			for _, k := range f.MapKeys() {
				out[name+"."+k.String()] = f.MapIndex(k).String()
			}
			continue
		}
		out[name] = v.Field(i).String()
	}
	return out
}

// Key returns the key named by its JSON field name ("tenant", "subject", ...).
func (p *Profile) Key(name string) string { return p.KeyMap()[name] }

// CustomerMap returns the customer fixtures by JSON field name.
func (p *Profile) CustomerMap() map[string]string { return fieldMap(p.Customers) }

// BeneficiaryMap returns the beneficiary fixtures by JSON field name.
func (p *Profile) BeneficiaryMap() map[string]string { return fieldMap(p.Beneficiaries) }

func fieldMap(s any) map[string]string {
	out := map[string]string{}
	v := reflect.ValueOf(s)
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		name := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
		out[name] = v.Field(i).String()
	}
	return out
}

// Secrets returns every secret part (after the dot) of every key, for redaction.
func (p *Profile) Secrets() []string {
	var out []string
	for _, k := range p.KeyMap() {
		if _, secret, ok := strings.Cut(k, "."); ok && secret != "" {
			out = append(out, secret)
		}
	}
	return out
}

// KeyEnvVar is the environment variable a reproduction line uses for a key.
// Characters other than letters and digits become underscores:
// lacking.accounts:write is TOUCHSTONE_KEY_LACKING_ACCOUNTS_WRITE.
func KeyEnvVar(name string) string {
	return "TOUCHSTONE_KEY_" + strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, name)
}

// PublicPrefix returns the part of a key before the dot, safe to show.
func PublicPrefix(key string) string {
	prefix, _, _ := strings.Cut(key, ".")
	return prefix
}

// LiveRole is the first role (in name order) whose key is a live key, ""
// when none is. The roles live and other_environment are left out: a
// live key there is the fixture they name (a key refused for mutating
// work, a key of another environment), not the target's environment.
func (p *Profile) LiveRole() string {
	m := p.KeyMap()
	names := make([]string, 0, len(m))
	for name, k := range m {
		if k != "" && name != "live" && name != "other_environment" && IsLive(k) {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return ""
	}
	return names[0]
}

// IsLive tells whether a key's environment segment is "live".
func IsLive(key string) bool {
	parts := strings.Split(PublicPrefix(key), "_")
	return len(parts) >= 3 && parts[len(parts)-2] == "live"
}

func (p *Profile) resolveEnv() error {
	resolve := func(field, s string) (string, error) {
		name, ok := strings.CutPrefix(s, "env:")
		if !ok {
			return s, nil
		}
		val := os.Getenv(name)
		if val == "" {
			return "", fmt.Errorf("profile: keys.%s names environment variable %s, which is empty", field, name)
		}
		return val, nil
	}
	v := reflect.ValueOf(&p.Keys).Elem()
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		field := strings.Split(t.Field(i).Tag.Get("json"), ",")[0]
		f := v.Field(i)
		if f.Kind() == reflect.Map {
			for _, k := range f.MapKeys() {
				val, err := resolve(field+"."+k.String(), f.MapIndex(k).String())
				if err != nil {
					return err
				}
				f.SetMapIndex(k, reflect.ValueOf(val))
			}
			continue
		}
		val, err := resolve(field, f.String())
		if err != nil {
			return err
		}
		f.SetString(val)
	}
	return nil
}

// Write stores the profile as indented JSON.
func (p *Profile) Write(path string) error {
	raw, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(raw, '\n'), 0o600)
}
