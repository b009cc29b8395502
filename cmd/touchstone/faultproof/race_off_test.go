//go:build !race

package faultproof_test

const raceDetector = false
