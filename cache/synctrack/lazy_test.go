package synctrack

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

func TestLazyCachesUntilNotify(t *testing.T) {
	var calls atomic.Int32
	z := Lazy[int]{Evaluate: func() (int, error) { return int(calls.Add(1)), nil }}
	for range 3 {
		if v, err := z.Get(); v != 1 || err != nil {
			t.Fatalf("Get() = %v, %v; want 1, nil", v, err)
		}
	}
	z.Notify()
	if v, err := z.Get(); v != 2 || err != nil {
		t.Fatalf("after Notify, Get() = %v, %v; want 2, nil", v, err)
	}
}

func TestLazyDoesNotCacheErrors(t *testing.T) {
	fail := true
	z := Lazy[string]{Evaluate: func() (string, error) {
		if fail {
			return "", errors.New("boom")
		}
		return "ok", nil
	}}
	if _, err := z.Get(); err == nil {
		t.Fatal("want the evaluation error")
	}
	fail = false
	if v, err := z.Get(); v != "ok" || err != nil {
		t.Fatalf("Get() = %q, %v; want ok, nil", v, err)
	}
}

func TestLazyNilEvaluate(t *testing.T) {
	var z Lazy[int]
	if _, err := z.Get(); !errors.Is(err, errNoEvaluate) {
		t.Fatalf("Get() error = %v, want %v", err, errNoEvaluate)
	}
}

func TestLazyConcurrentGetsShareOneEvaluation(t *testing.T) {
	var calls atomic.Int32
	z := Lazy[int]{Evaluate: func() (int, error) { return int(calls.Add(1)), nil }}
	var wg sync.WaitGroup
	for range 50 {
		wg.Go(func() {
			if v, _ := z.Get(); v != 1 {
				t.Errorf("Get() = %d, want 1", v)
			}
		})
	}
	wg.Wait()
	if calls.Load() != 1 {
		t.Fatalf("Evaluate ran %d times, want 1", calls.Load())
	}
}
