package wait

import (
	"fmt"
	"testing"
	"time"
)

func TestJitterFormula(t *testing.T) {
	tests := []struct {
		duration  time.Duration
		maxFactor float64
		random    float64
		want      time.Duration
	}{
		{duration: 10 * time.Second, maxFactor: 0.5, random: 0, want: 10 * time.Second},
		{duration: 10 * time.Second, maxFactor: 0.5, random: 0.5, want: 12500 * time.Millisecond},
		{duration: 10 * time.Second, maxFactor: 0, random: 0.5, want: 15 * time.Second},
		{duration: 10 * time.Second, maxFactor: -2, random: 0.25, want: 12500 * time.Millisecond},
		{duration: 10 * time.Second, maxFactor: 2, random: 0.25, want: 15 * time.Second},
		{duration: 0, maxFactor: 1, random: 0.9, want: 0},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("%v*%v@%v", tc.duration, tc.maxFactor, tc.random), func(t *testing.T) {
			if got := jitter(tc.duration, tc.maxFactor, func() float64 { return tc.random }); got != tc.want {
				t.Errorf("jitter = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestJitterRange(t *testing.T) {
	tests := []struct {
		maxFactor float64
		wantMax   time.Duration // exclusive
	}{
		{maxFactor: 0.1, wantMax: 1100 * time.Millisecond},
		{maxFactor: 1, wantMax: 2 * time.Second},
		{maxFactor: 0, wantMax: 2 * time.Second},
		{maxFactor: -1, wantMax: 2 * time.Second},
		{maxFactor: 3, wantMax: 4 * time.Second},
	}
	for _, tc := range tests {
		t.Run(fmt.Sprintf("maxFactor=%v", tc.maxFactor), func(t *testing.T) {
			for range 1000 {
				if got := Jitter(time.Second, tc.maxFactor); got < time.Second || got >= tc.wantMax {
					t.Fatalf("Jitter(1s, %v) = %v, want in [1s, %v)", tc.maxFactor, got, tc.wantMax)
				}
			}
		})
	}
}
