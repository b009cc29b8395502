package main

import (
	"crypto/ed25519"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/touchstone-harness/touchstone/internal/catalogue"
	"github.com/touchstone-harness/touchstone/internal/certify"
	"github.com/touchstone-harness/touchstone/internal/check"
	"github.com/touchstone-harness/touchstone/internal/profile"
	"github.com/touchstone-harness/touchstone/internal/redact"
	"github.com/touchstone-harness/touchstone/reports"
)

// certifyFlags checks the flags --certify allows: the whole catalogue runs,
// so no option may narrow it.
func certifyFlags(fs *flag.FlagSet, f *runFlags, stderr io.Writer) (int, bool) {
	if !f.certify {
		if f.signingKey != "" {
			fmt.Fprintln(stderr, "touchstone run: --signing-key needs --certify")
			return exitUsage, false
		}
		return 0, true
	}
	var narrowing []string
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "focus", "label-filter", "fault", "baseline":
			narrowing = append(narrowing, "--"+fl.Name)
		}
	})
	if len(narrowing) > 0 {
		fmt.Fprintf(stderr, "touchstone run: --certify runs the whole catalogue; drop %s\n", strings.Join(narrowing, ", "))
		return exitUsage, false
	}
	if f.signingKey != "" {
		if _, err := certify.LoadPrivateKey(f.signingKey); err != nil {
			fmt.Fprintf(stderr, "touchstone run: --signing-key: %v\n", oneLine(err))
			return exitUsage, false
		}
	}
	f.labelFilter = ""
	return 0, true
}

// certificate is certificate.json: what the bundle certifies.
type certificate struct {
	Statement   string             `json:"statement"`
	Target      reports.TargetInfo `json:"target"`
	Tool        reports.Tool       `json:"tool"`
	Spec        []reports.Spec     `json:"spec"`
	Started     time.Time          `json:"started"`
	Ended       time.Time          `json:"ended"`
	Counts      reports.Counts     `json:"counts"`
	Verified    int                `json:"rules_verified"`
	Catalogued  int                `json:"rules_catalogued"`
	NotVerified int                `json:"required_rules_not_verifiable_on_target"`
	// NotVerifiedRules name them, each with why (the statement groups
	// them by why).
	NotVerifiedRules []reports.NotVerifiedRule `json:"required_rules_not_verified,omitempty"`
	Signer           string                    `json:"signer_fingerprint"`
}

// writeCertificate writes OUT/certificate (and OUT/certificate.tar.gz)
// when the run is certifiable; otherwise it says why and which fixtures
// to add, and returns exitFailed.
func writeCertificate(f runFlags, doc *reports.Document, cat *catalogue.Catalogue, tgt *check.Target, console, stderr io.Writer) int {
	v := reports.Certify(doc, cat)
	if !v.Certifiable {
		fmt.Fprintln(console, "\nno certificate:")
		for _, r := range v.Reasons {
			fmt.Fprintf(console, "  - %s\n", r)
		}
		if len(v.MissingFixtures) > 0 {
			fmt.Fprintf(console, "add to the profile: %s\n", strings.Join(v.MissingFixtures, ", "))
		}
		return exitFailed
	}
	var priv ed25519.PrivateKey
	var err error
	if f.signingKey != "" {
		priv, err = certify.LoadPrivateKey(f.signingKey)
	} else {
		priv, err = certify.NewKey()
	}
	if err != nil {
		fmt.Fprintf(stderr, "touchstone run: signing key: %v\n", err)
		return exitNoVerdict
	}
	dir := filepath.Join(f.out, "certificate")
	if err := os.RemoveAll(dir); err != nil {
		fmt.Fprintf(stderr, "touchstone run: %v\n", err)
		return exitNoVerdict
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fmt.Fprintf(stderr, "touchstone run: %v\n", err)
		return exitNoVerdict
	}
	for _, name := range []string{"results.json", "junit.xml", "report.html"} {
		raw, err := os.ReadFile(filepath.Join(f.out, name))
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, name), raw, 0o644)
		}
		if err != nil {
			fmt.Fprintf(stderr, "touchstone run: certificate: %v\n", err)
			return exitNoVerdict
		}
	}
	pub := priv.Public().(ed25519.PublicKey)
	proven := ""
	if k := doc.Kinds; k != nil {
		// What a verified rule is worth: whether the harness has shown its
		// checks failing under it against a server that breaks it.
		proven = fmt.Sprintf(" Of the %d checked spec rules, %d are proven able to fail under their own id (decisions %d of %d, each by a fault in the reference sandbox's decision; answers %d of %d, by a fault or a change of the answer on the wire); a verified rule not proven is verified by checks not yet shown to catch a server that breaks it.",
			k.SpecChecked, k.SpecProven, k.DecisionsProven, k.DecisionsChecked, k.AnswersProven, k.AnswersChecked)
	}
	cert := certificate{
		Statement: strings.TrimSpace(fmt.Sprintf("Every check of the Touchstone catalogue was run against %s: %d passed, none failed, %d skipped, none for a missing fixture (each skip's reason is in results.json); %d of %d catalogued rules were verified.%s %s",
			doc.Target, doc.Total.Passed, doc.Total.Skipped, len(doc.Verified), cat.Counted(), proven, v.NotVerifiedStatement())),
		Target: doc.TargetInfo, Tool: doc.Tool, Spec: doc.Spec, Started: doc.Started, Ended: doc.Ended,
		Counts: doc.Total, Verified: len(doc.Verified), Catalogued: cat.Counted(), NotVerified: v.NotVerifiedHere,
		NotVerifiedRules: v.NotVerified,
		Signer:           certify.Fingerprint(pub),
	}
	red := tgt.Redactor
	if err := writeJSONFile(filepath.Join(dir, "certificate.json"), &cert, red); err != nil {
		fmt.Fprintf(stderr, "touchstone run: certificate: %v\n", err)
		return exitNoVerdict
	}
	if err := writeJSONFile(filepath.Join(dir, "profile.json"), publicProfile(tgt.Profile), red); err != nil {
		fmt.Fprintf(stderr, "touchstone run: certificate: %v\n", err)
		return exitNoVerdict
	}
	archive := filepath.Join(f.out, "certificate.tar.gz")
	if _, err := certify.Seal(dir, priv, archive); err != nil {
		fmt.Fprintf(stderr, "touchstone run: certificate: %v\n", err)
		return exitNoVerdict
	}
	fmt.Fprintf(console, "\ncertificate: %s (and %s), signed by key %s\n", dir, archive, certify.Fingerprint(pub))
	fmt.Fprintf(console, "check it: touchstone verify %s --key %s\n", archive, filepath.Join(dir, certify.PublicKeyFile))
	return exitOK
}

// publicProfile is the profile with every secret removed: each key by its
// public prefix only, the CA bundle by its file name.
func publicProfile(p *profile.Profile) *profile.Profile {
	cp := *p
	cp.Keys = profile.Keys{}
	raw, _ := json.Marshal(p.Keys)
	var keys map[string]string
	json.Unmarshal(raw, &keys)
	for role, key := range keys {
		if key != "" {
			keys[role] = profile.PublicPrefix(key)
		}
	}
	raw, _ = json.Marshal(keys)
	json.Unmarshal(raw, &cp.Keys)
	if cp.CABundle != "" {
		cp.CABundle = filepath.Base(cp.CABundle)
	}
	return &cp
}

// writeJSONFile writes v (a pointer, masked in place first: JSON escaping
// would hide a secret from the final bytes' redaction) as indented JSON.
func writeJSONFile(path string, v any, red *redact.Redactor) error {
	red.Value(v)
	raw, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, red.Bytes(append(raw, '\n')), 0o644)
}
