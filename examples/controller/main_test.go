package main

import (
	"testing"
	"time"
)

func TestCheckFlags(t *testing.T) {
	tests := []struct {
		name    string
		workers int
		runFor  time.Duration
		args    []string
		wantErr bool
	}{
		{name: "defaults", workers: 2},
		{name: "one worker, run for a while", workers: 1, runFor: time.Second},
		{name: "no workers", workers: 0, wantErr: true},
		{name: "negative workers", workers: -1, wantErr: true},
		{name: "negative run-for", workers: 2, runFor: -time.Second, wantErr: true},
		{name: "arguments", workers: 2, args: []string{"default"}, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkFlags(tc.workers, tc.runFor, tc.args)
			if gotErr := err != nil; gotErr != tc.wantErr {
				t.Errorf("checkFlags(%d, %v, %q) = %v, want error: %t", tc.workers, tc.runFor, tc.args, err, tc.wantErr)
			}
		})
	}
}
