package cache

import (
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/util/sets"
	testingclock "k8s.io/utils/clock/testing"
)

func newTestTTLStore(ttl time.Duration) (*ExpirationCache, *testingclock.FakeClock) {
	clk := testingclock.NewFakeClock(time.Now())
	return newExpirationCache(MetaNamespaceKeyFunc, &TTLPolicy{TTL: ttl, Clock: clk}, clk, NewThreadSafeStore(Indexers{}, Indices{})), clk
}

func TestExpirationCacheTTL(t *testing.T) {
	c, clk := newTestTTLStore(time.Minute)
	a, b := storeObj("ns", "a", "1"), storeObj("ns", "b", "1")
	if err := c.Add(a); err != nil {
		t.Fatal(err)
	}
	clk.Step(30 * time.Second)
	if err := c.Add(b); err != nil {
		t.Fatal(err)
	}
	clk.Step(30 * time.Second) // a is exactly one TTL old: not expired yet
	if got, ok, err := c.Get(a); !ok || err != nil || got != a {
		t.Fatalf("Get(a) at age == TTL = %v, %v, %v", got, ok, err)
	}
	clk.Step(time.Second)
	if _, ok, _ := c.GetByKey("ns/a"); ok {
		t.Error("a found after its TTL")
	}
	if diff := cmp.Diff([]string{"ns/b"}, storeSorted(c.ListKeys())); diff != "" {
		t.Errorf("expired entry not deleted when read (-want +got):\n%s", diff)
	}

	if err := c.Update(b); err != nil { // refreshes the time stamp
		t.Fatal(err)
	}
	clk.Step(45 * time.Second)
	if diff := cmp.Diff([]string{"ns/b"}, storeKeysOf(t, c.List())); diff != "" {
		t.Errorf("updated entry expired early (-want +got):\n%s", diff)
	}
	clk.Step(time.Minute)
	if diff := cmp.Diff([]string{"ns/b"}, storeSorted(c.ListKeys())); diff != "" {
		t.Errorf("ListKeys must list expired entries not read yet (-want +got):\n%s", diff)
	}
	if got := c.List(); len(got) != 0 {
		t.Errorf("List returned expired entries: %v", got)
	}
	if keys := c.ListKeys(); len(keys) != 0 {
		t.Errorf("List did not delete expired entries: %v", keys)
	}
}

func TestExpirationCacheReplaceAndVersions(t *testing.T) {
	c, clk := newTestTTLStore(time.Minute)
	if err := c.Add(storeObj("ns", "old", "5")); err != nil {
		t.Fatal(err)
	}
	if got := c.LastStoreSyncResourceVersion(); got != "" {
		t.Errorf("Add changed the resource version to %q; client-go's does not", got)
	}
	if err := c.Replace([]any{storeObj("ns", "a", "1"), storeObj("ns", "b", "1")}, "10"); err != nil {
		t.Fatal(err)
	}
	if got := c.LastStoreSyncResourceVersion(); got != "10" {
		t.Errorf("resource version %q after Replace", got)
	}
	c.Bookmark("11")
	if got := c.LastStoreSyncResourceVersion(); got != "11" {
		t.Errorf("resource version %q after Bookmark", got)
	}
	if err := c.Delete(storeObj("ns", "a", "12")); err != nil {
		t.Fatal(err)
	}
	if got := c.LastStoreSyncResourceVersion(); got != "12" {
		t.Errorf("resource version %q after Delete", got)
	}
	clk.Step(2 * time.Minute)
	if got := c.List(); len(got) != 0 {
		t.Errorf("replaced entries did not expire together: %v", got)
	}
	if err := c.Replace([]any{storeObj("ns", "c", "1"), nil}, "13"); !errors.As(err, new(KeyError)) {
		t.Errorf("Replace with nil: error %v, want a KeyError", err)
	}
	if err := c.Resync(); err != nil {
		t.Error(err)
	}
}

func TestExpirationCacheBadInput(t *testing.T) {
	for _, tc := range storeBadObjects {
		c, _ := newTestTTLStore(time.Minute)
		for name, call := range map[string]func() error{
			"Add":    func() error { return c.Add(tc.obj) },
			"Update": func() error { return c.Update(tc.obj) },
			"Delete": func() error { return c.Delete(tc.obj) },
			"Get":    func() error { _, _, err := c.Get(tc.obj); return err },
		} {
			if err := call(); !errors.As(err, new(KeyError)) {
				t.Errorf("%s(%s): error %v, want a KeyError", name, tc.name, err)
			}
		}
	}
	// No key function, no policy, a policy without clock: no panic.
	s := NewExpirationStore(nil, nil)
	if err := s.Add(storeObj("", "a", "")); !errors.Is(err, errNoKeyFunc) {
		t.Errorf("Add without key function: %v", err)
	}
	s = NewExpirationStore(MetaNamespaceKeyFunc, nil)
	if err := s.Add(storeObj("", "a", "")); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := s.GetByKey("a"); !ok {
		t.Error("entry of a store without policy expired")
	}
	if (&TTLPolicy{TTL: time.Hour}).IsExpired(&TimestampedEntry{Timestamp: time.Now()}) {
		t.Error("fresh entry expired under a policy without clock")
	}
	if (&TTLPolicy{TTL: 0}).IsExpired(nil) || !(&TTLPolicy{TTL: time.Hour}).IsExpired(nil) {
		t.Error("TTL <= 0 must never expire; an entry of unknown age must")
	}
	if NewTTLStore(MetaNamespaceKeyFunc, time.Hour) == nil {
		t.Error("NewTTLStore returned nil")
	}
}

func TestFakeExpirationStore(t *testing.T) {
	deleted := make(chan string, 10)
	policy := &FakeExpirationPolicy{
		NeverExpire: sets.New("ns/keep"),
		RetrieveKeyFunc: func(obj any) (string, error) {
			return MetaNamespaceKeyFunc(obj.(*TimestampedEntry).Obj)
		},
	}
	s := NewFakeExpirationStore(MetaNamespaceKeyFunc, deleted, policy, testingclock.NewFakeClock(time.Now()))
	keep, drop := storeObj("ns", "keep", "1"), storeObj("ns", "drop", "1")
	for _, o := range []any{keep, drop} {
		if err := s.Add(o); err != nil {
			t.Fatal(err)
		}
	}
	if diff := cmp.Diff([]string{"ns/keep"}, storeKeysOf(t, s.List())); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}
	select {
	case key := <-deleted:
		if key != "ns/drop" {
			t.Errorf("deleted %q", key)
		}
	default:
		t.Error("expired key not reported")
	}
	// Delete is not expiry: not reported.
	if err := s.Delete(keep); err != nil {
		t.Fatal(err)
	}
	select {
	case key := <-deleted:
		t.Errorf("Delete reported %q", key)
	default:
	}

	// Without RetrieveKeyFunc the stored key is used; a failing one expires.
	p := &FakeExpirationPolicy{NeverExpire: sets.New("k")}
	if p.IsExpired(&TimestampedEntry{key: "k"}) || !p.IsExpired(&TimestampedEntry{key: "other"}) || !p.IsExpired(nil) {
		t.Error("FakeExpirationPolicy without RetrieveKeyFunc")
	}
	p.RetrieveKeyFunc = func(any) (string, error) { return "", errors.New("no key") }
	if !p.IsExpired(&TimestampedEntry{key: "k"}) {
		t.Error("entry whose key cannot be computed did not expire")
	}
}
