// Package onboarding checks verification sessions, onboarding status,
// requirements and manual submission (document 1, Onboarding).
package onboarding
