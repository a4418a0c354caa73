package main

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func lease(holder string, renewed time.Time, seconds int32) *coordinationv1.Lease {
	return &coordinationv1.Lease{Spec: coordinationv1.LeaseSpec{
		HolderIdentity:       ptr.To(holder),
		RenewTime:            ptr.To(metav1.NewMicroTime(renewed)),
		LeaseDurationSeconds: ptr.To(seconds),
	}}
}

func TestAssign(t *testing.T) {
	for _, tc := range []struct {
		members []string
		slots   int
		want    []string
	}{
		{members: []string{"a", "b", "c"}, slots: 12, want: []string{"a", "a", "a", "a", "b", "b", "b", "b", "c", "c", "c", "c"}},
		{members: []string{"a", "c"}, slots: 12, want: []string{"a", "a", "a", "a", "a", "a", "c", "c", "c", "c", "c", "c"}},
		{members: []string{"a", "b", "c"}, slots: 4, want: []string{"a", "a", "b", "c"}},
		{members: nil, slots: 2, want: []string{"", ""}},
	} {
		if diff := cmp.Diff(tc.want, Assign(tc.members, tc.slots)); diff != "" {
			t.Errorf("Assign(%v, %d) (-want +got):\n%s", tc.members, tc.slots, diff)
		}
	}
}

func TestLiveMembers(t *testing.T) {
	now := time.Now()
	members := []*coordinationv1.Lease{
		lease("b", now.Add(-5*time.Second), 10),
		lease("a", now.Add(-9*time.Second), 10),
		lease("gone", now.Add(-10*time.Second), 10), // expires exactly now
		lease("", now, 10),                          // released
		{},                                          // never written
	}
	if diff := cmp.Diff([]string{"a", "b"}, LiveMembers(members, now)); diff != "" {
		t.Errorf("LiveMembers (-want +got):\n%s", diff)
	}
}

func TestFree(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		name  string
		lease *coordinationv1.Lease
		want  bool
	}{
		{name: "no lease yet", want: true},
		{name: "released", lease: lease("", now, 10), want: true},
		{name: "ours", lease: lease("me", now, 10), want: true},
		{name: "another's", lease: lease("other", now.Add(-9*time.Second), 10), want: false},
		{name: "another's, expired", lease: lease("other", now.Add(-10*time.Second), 10), want: true},
	} {
		if got := Free(tc.lease, "me", now); got != tc.want {
			t.Errorf("%s: Free = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestCheckFlags(t *testing.T) {
	ok := func(namespace, id string, slots int, d time.Duration) error {
		return checkFlags(namespace, id, slots, d, 2, 0, nil)
	}
	if err := ok("ns", "replica-0", 12, 15*time.Second); err != nil {
		t.Errorf("valid flags: %v", err)
	}
	for name, err := range map[string]error{
		"no namespace":   ok("", "r", 12, 15*time.Second),
		"bad id":         ok("ns", "R_0", 12, 15*time.Second),
		"no slots":       ok("ns", "r", 0, 15*time.Second),
		"short duration": ok("ns", "r", 12, time.Second),
		"arguments":      checkFlags("ns", "r", 12, 15*time.Second, 2, 0, []string{"x"}),
	} {
		if err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
