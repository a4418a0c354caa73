package cache

import (
	"errors"
	"testing"
	"time"

	testingclock "k8s.io/utils/clock/testing"
)

func TestRetryWithDeadline(t *testing.T) {
	retryable := errors.New("retryable")
	other := errors.New("other")
	isRetryable := func(err error) bool { return errors.Is(err, retryable) }
	type act struct {
		step  time.Duration
		err   error // recorded with After when not nil
		check bool  // call ShouldRetry
		want  bool
	}
	tests := []struct {
		name string
		max  time.Duration
		acts []act
	}{
		{name: "disabled", max: 0, acts: []act{{err: retryable}, {check: true, want: false}}},
		{name: "nothing recorded", max: time.Minute, acts: []act{{check: true, want: false}}},
		{
			name: "retries within the deadline, then stops", max: time.Minute,
			acts: []act{
				{err: retryable}, {check: true, want: true},
				{step: 30 * time.Second, err: retryable}, {check: true, want: true},
				{step: 30 * time.Second, err: retryable}, {check: true, want: true},
				{step: 30 * time.Second, err: retryable}, {check: true, want: false},
			},
		},
		{
			name: "other errors are ignored", max: time.Minute,
			acts: []act{{err: other}, {check: true, want: false}},
		},
		{
			name: "a quiet period starts a new run", max: time.Minute,
			acts: []act{
				{err: retryable}, {step: 50 * time.Second, err: retryable},
				{step: 2 * time.Minute, err: retryable}, {check: true, want: true},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			clk := testingclock.NewFakeClock(time.Unix(1000, 0))
			r := NewRetryWithDeadline(tc.max, time.Minute, isRetryable, clk)
			for i, a := range tc.acts {
				clk.Step(a.step)
				if a.err != nil {
					r.After(a.err)
				}
				if a.check {
					if got := r.ShouldRetry(); got != a.want {
						t.Errorf("act %d: ShouldRetry = %v, want %v", i, got, a.want)
					}
				}
			}
		})
	}
}

func TestRetryWithDeadlineDefaults(t *testing.T) {
	r := NewRetryWithDeadline(time.Hour, time.Minute, nil, nil)
	r.After(nil)
	if r.ShouldRetry() {
		t.Errorf("ShouldRetry after a nil error")
	}
	r.After(errors.New("any"))
	if !r.ShouldRetry() {
		t.Errorf("a nil isRetryable should treat errors as retryable")
	}
}
