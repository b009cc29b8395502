//go:build race

package main

// raceDetector: this test binary was built with -race; TestDeclarations,
// which runs every check once, then leaves the measurement to the run
// without it (.ci/run).
const raceDetector = true
