//go:build race

package faultproof_test

// raceDetector: this test binary was built with -race, which makes every
// request several times dearer; the fault proof then samples (see
// sampledUnderRace) and .ci/run runs the whole proof without -race.
const raceDetector = true
