package main

import (
	"github.com/touchstone-harness/touchstone/fixtures/sandbox"
	"github.com/touchstone-harness/touchstone/internal/profile"
)

// targetInputError is what starting the target would refuse as bad input
// (an unreadable or invalid profile, an unknown fault mode), checked before
// --out is made so that a refused run leaves no empty directory behind.
func targetInputError(profilePath, fault string) error {
	if profilePath != "" {
		_, err := profile.Load(profilePath)
		return err
	}
	if fault != "" {
		_, err := sandbox.LookupFault(fault)
		return err
	}
	return nil
}
