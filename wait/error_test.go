package wait

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestInterrupted(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name            string
		err             error
		wantInterrupted bool
		wantIsTimeout   bool // errors.Is(err, ErrWaitTimeout)
		wantMessage     string
	}{
		{name: "nil", err: nil},
		{name: "plain error", err: boom, wantMessage: "boom"},
		{name: "ErrWaitTimeout", err: ErrWaitTimeout, wantInterrupted: true, wantIsTimeout: true, wantMessage: "timed out waiting for the condition"},
		{name: "wrapped ErrWaitTimeout", err: fmt.Errorf("sync: %w", ErrWaitTimeout), wantInterrupted: true, wantIsTimeout: true, wantMessage: "sync: timed out waiting for the condition"},
		{name: "ErrorInterrupted(nil)", err: ErrorInterrupted(nil), wantInterrupted: true, wantMessage: "timed out waiting for the condition"},
		{name: "ErrorInterrupted(cause)", err: ErrorInterrupted(boom), wantInterrupted: true, wantMessage: "boom"},
		{name: "ErrorInterrupted(context.Canceled)", err: ErrorInterrupted(context.Canceled), wantInterrupted: true, wantMessage: "context canceled"},
		{name: "context.Canceled", err: context.Canceled, wantInterrupted: true, wantMessage: "context canceled"},
		{name: "context.DeadlineExceeded", err: context.DeadlineExceeded, wantInterrupted: true, wantMessage: "context deadline exceeded"},
		{name: "wrapped DeadlineExceeded", err: fmt.Errorf("poll: %w", context.DeadlineExceeded), wantInterrupted: true, wantMessage: "poll: context deadline exceeded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := struct {
				Interrupted, IsTimeout bool
				Message                string
			}{Interrupted: Interrupted(tc.err), IsTimeout: errors.Is(tc.err, ErrWaitTimeout)}
			if tc.err != nil {
				got.Message = tc.err.Error()
			}
			want := struct {
				Interrupted, IsTimeout bool
				Message                string
			}{tc.wantInterrupted, tc.wantIsTimeout, tc.wantMessage}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestErrorInterrupted(t *testing.T) {
	boom := errors.New("boom")
	err := ErrorInterrupted(boom)
	if !errors.Is(err, boom) {
		t.Errorf("errors.Is(ErrorInterrupted(boom), boom) = false, want true")
	}
	if again := ErrorInterrupted(err); again != err {
		t.Errorf("ErrorInterrupted of an interrupted error wrapped it again: %#v", again)
	}
	if again := ErrorInterrupted(ErrWaitTimeout); again != ErrWaitTimeout {
		t.Errorf("ErrorInterrupted(ErrWaitTimeout) = %#v, want ErrWaitTimeout itself", again)
	}
	if errors.Is(ErrorInterrupted(boom), ErrorInterrupted(errors.New("other"))) {
		t.Errorf("two interrupted errors with different causes match each other")
	}
}
