package shard

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestPlanHandoverMatchesModel checks, on random shards of a window of the
// hash space, that a plan leaves exactly the hashes of from that to lacks
// and enters exactly those of to that from lacks.
func TestPlanHandoverMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	next := func(n uint64) uint64 { return rng.Uint64N(n) }
	for _, base := range []uint64{0, math.MaxUint64 - modelSpan + 1} {
		for range 1000 {
			ra, am := randomRanges(base, next)
			rb, bm := randomRanges(base, next)
			from, to := Set{Key: KeyUID, Ranges: Normalize(ra)}, Set{Key: KeyUID, Ranges: Normalize(rb)}
			plan, err := PlanHandover(from, to)
			if err != nil {
				t.Fatal(err)
			}
			if plan.Key != KeyUID || plan.LeavingSet().Key != KeyUID || plan.EnteringSet().Key != KeyUID {
				t.Fatalf("plan %v does not keep the key", plan)
			}
			checkRanges(t, "leaving", base, plan.Leaving, func(h uint64) bool { return am.inSet[h] && !bm.inSet[h] })
			checkRanges(t, "entering", base, plan.Entering, func(h uint64) bool { return bm.inSet[h] && !am.inSet[h] })
		}
	}
}

func TestPlanHandoverEverything(t *testing.T) {
	lower := Set{Key: KeyNamespace, Ranges: Ranges{{First: 0, Last: math.MaxUint64 / 2}}}
	upper := Ranges{{First: math.MaxUint64/2 + 1, Last: math.MaxUint64}}
	for _, tc := range []struct {
		name              string
		from, to          Set
		key               string
		leaving, entering Ranges
		wantErr           error
	}{
		{name: "everything to everything"},
		{name: "everything to a shard", to: lower, key: KeyNamespace, leaving: upper},
		{name: "a shard to everything", from: lower, key: KeyNamespace, entering: upper},
		{name: "same shard", from: lower, to: lower, key: KeyNamespace},
		{name: "other field", from: lower, to: Set{Key: KeyUID, Ranges: Ranges{FullRange}}, wantErr: ErrKeyChanged},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := PlanHandover(tc.from, tc.to)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if plan.Key != tc.key || !plan.LeavingSet().Equal(Set{Key: tc.key, Ranges: tc.leaving}) || !plan.EnteringSet().Equal(Set{Key: tc.key, Ranges: tc.entering}) {
				t.Errorf("plan %+v, want key %q leaving %v entering %v", plan, tc.key, tc.leaving, tc.entering)
			}
		})
	}
}
