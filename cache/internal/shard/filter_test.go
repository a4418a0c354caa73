package shard

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/sharding"
	"k8s.io/apimachinery/pkg/types"
)

// podWithUID returns an object with uid and namespace ns.
func podWithUID(uid, ns string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{UID: types.UID(uid), Namespace: ns, Name: "p"}}
}

// hashOf is the apiserver's hash of value.
func hashOf(t *testing.T, value string) uint64 {
	t.Helper()
	h, err := strconv.ParseUint(sharding.HashField(value), 16, 64)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestFilterMatchesModel checks, for random shards and objects, that a
// filter keeps an object exactly when the hash of its field falls in one of
// the shard's ranges.
func TestFilterMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for range 200 {
		key := KeyUID
		if rng.IntN(2) == 0 {
			key = KeyNamespace
		}
		var rs []Range
		for range 1 + rng.IntN(3) {
			a, b := rng.Uint64(), rng.Uint64()
			rs = append(rs, Range{First: min(a, b), Last: max(a, b)})
		}
		set := Set{Key: key, Ranges: Normalize(rs)}
		f := NewFilter(set)
		if f.Everything() || !f.Set().Equal(set) || f.RequestSelector() != set.Selector().String() {
			t.Fatalf("NewFilter(%v) = %+v", set, f)
		}
		for range 50 {
			obj := podWithUID(fmt.Sprintf("uid-%x", rng.Uint64()), fmt.Sprintf("ns-%d", rng.IntN(1000)))
			field := string(obj.UID)
			if key == KeyNamespace {
				field = obj.Namespace
			}
			h := hashOf(t, field)
			want := false
			for _, r := range set.Ranges {
				want = want || (r.First <= h && h <= r.Last)
			}
			if got := f.Matches(obj); got != want {
				t.Fatalf("filter %s: Matches(%s=%q, hash %#x) = %v, want %v", f.RequestSelector(), key, field, h, got, want)
			}
		}
	}
}

// TestFilterKeepsWhatItCannotRead checks that the filter keeps objects
// whose field cannot be read, and that the zero filter keeps everything.
func TestFilterKeepsWhatItCannotRead(t *testing.T) {
	none := NewFilter(Set{Key: KeyUID, Ranges: Ranges{{First: 0, Last: 0}}})
	var nilPod *metav1.PartialObjectMetadata
	for _, obj := range []runtime.Object{nil, nilPod, &runtime.Unknown{}} {
		if !none.Matches(obj) {
			t.Errorf("Matches(%#v) = false, want true", obj)
		}
	}
	var everything Filter
	if !everything.Everything() || everything.RequestSelector() != "" || !everything.Matches(podWithUID("a", "b")) {
		t.Errorf("the zero filter does not keep everything")
	}
	if !NewFilter(Set{}).Everything() {
		t.Errorf("the filter of everything is not Everything")
	}
}
