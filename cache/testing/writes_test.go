package framework_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	testingclock "k8s.io/utils/clock/testing"

	framework "github.com/informer-go/informer/cache/testing"
)

func TestCreateStampsMetadata(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 600, time.UTC)
	srv := newServer(t, framework.Options[*pom]{Clock: testingclock.NewFakeClock(now)})

	in := object("ns", "a", map[string]string{"l": "x"})
	a := mustCreate(t, srv, in)
	b := mustCreate(t, srv, &pom{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", GenerateName: "gen-"}})

	if in.ResourceVersion != "" || in.UID != "" {
		t.Errorf("Create modified its argument: %+v", in.ObjectMeta)
	}
	if a.UID == "" || b.UID == "" || a.UID == b.UID {
		t.Errorf("uids %q and %q, want distinct non-empty ones", a.UID, b.UID)
	}
	if want := metav1.NewTime(now.Truncate(time.Second)); !a.CreationTimestamp.Equal(&want) {
		t.Errorf("creationTimestamp %v, want %v", a.CreationTimestamp, want)
	}
	if len(b.Name) != len("gen-")+5 || b.Name[:4] != "gen-" {
		t.Errorf("generated name %q, want gen- and 5 characters", b.Name)
	}
	rvA, rvB := a.ResourceVersion, b.ResourceVersion
	if rvA == "" || rvB == "" || rvA == rvB || srv.ResourceVersion() != rvB {
		t.Errorf("resourceVersions %q, %q (server at %q), want distinct, the server at the last", rvA, rvB, srv.ResourceVersion())
	}

	// What Create returns is the caller's.
	a.Labels["l"] = "mutated"
	got, err := srv.Get("ns", "a")
	if err != nil {
		t.Fatal(err)
	}
	if got.Labels["l"] != "x" {
		t.Errorf("stored label %q after mutating the returned object, want x", got.Labels["l"])
	}
}

func TestWriteErrors(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{})
	a := mustCreate(t, srv, object("ns", "a", nil))
	mustUpdate(t, srv, object("ns", "a", map[string]string{"l": "1"}))

	tests := []struct {
		name  string
		write func() error
		is    func(error) bool
	}{
		{"create nil", func() error { _, err := srv.Create(nil); return err }, func(err error) bool { return err != nil }},
		{"create existing", func() error { _, err := srv.Create(object("ns", "a", nil)); return err }, apierrors.IsAlreadyExists},
		{"create without name", func() error { _, err := srv.Create(object("ns", "", nil)); return err }, apierrors.IsInvalid},
		{"create with resourceVersion", func() error {
			o := object("ns", "b", nil)
			o.ResourceVersion = "5"
			_, err := srv.Create(o)
			return err
		}, apierrors.IsBadRequest},
		{"update missing", func() error { _, err := srv.Update(object("ns", "missing", nil)); return err }, apierrors.IsNotFound},
		{"update stale", func() error {
			o := object("ns", "a", map[string]string{"l": "2"})
			o.ResourceVersion = a.ResourceVersion
			_, err := srv.Update(o)
			return err
		}, apierrors.IsConflict},
		{"update other uid", func() error {
			o := object("ns", "a", map[string]string{"l": "2"})
			o.UID = types.UID("other")
			_, err := srv.Update(o)
			return err
		}, apierrors.IsConflict},
		{"update malformed resourceVersion", func() error {
			o := object("ns", "a", nil)
			o.ResourceVersion = "x"
			_, err := srv.Update(o)
			return err
		}, apierrors.IsInvalid},
		{"delete missing", func() error { _, err := srv.Delete("ns", "missing"); return err }, apierrors.IsNotFound},
		{"get missing", func() error { _, err := srv.Get("other", "a"); return err }, apierrors.IsNotFound},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := srv.ResourceVersion()
			err := tc.write()
			if !tc.is(err) {
				t.Errorf("got error %v", err)
			}
			if after := srv.ResourceVersion(); after != before {
				t.Errorf("resourceVersion moved from %s to %s on a failed write", before, after)
			}
		})
	}
}

func TestUpdate(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{})
	a := mustCreate(t, srv, object("ns", "a", map[string]string{"l": "1"}))
	w := mustWatch(t, srv, metav1.ListOptions{ResourceVersion: a.ResourceVersion})

	// With the current resourceVersion as precondition.
	a.Labels["l"] = "2"
	a2 := mustUpdate(t, srv, a)
	if a2.UID != a.UID || !a2.CreationTimestamp.Equal(&a.CreationTimestamp) {
		t.Errorf("update lost uid or creationTimestamp: %+v", a2.ObjectMeta)
	}
	// Unconditional, and without uid: both are kept.
	a3 := mustUpdate(t, srv, object("ns", "a", map[string]string{"l": "3"}))
	if a3.UID != a.UID {
		t.Errorf("uid %q after an update without one, want %q", a3.UID, a.UID)
	}
	// No-op: nothing written, no event.
	noop := mustUpdate(t, srv, object("ns", "a", map[string]string{"l": "3"}))
	if noop.ResourceVersion != a3.ResourceVersion {
		t.Errorf("no-op update moved the resourceVersion from %s to %s", a3.ResourceVersion, noop.ResourceVersion)
	}
	gone := mustDelete(t, srv, "ns", "a")

	expectEvents(t, w,
		event{Type: watch.Modified, Key: "ns/a", RV: a2.ResourceVersion, Label: "2"},
		event{Type: watch.Modified, Key: "ns/a", RV: a3.ResourceVersion, Label: "3"},
		event{Type: watch.Deleted, Key: "ns/a", RV: gone.ResourceVersion, Label: "3"},
	)
	if gone.ResourceVersion == a3.ResourceVersion {
		t.Errorf("deletion carries the last update's resourceVersion %s, want its own", gone.ResourceVersion)
	}
}

func TestDeleteWithFinalizers(t *testing.T) {
	srv := newServer(t, framework.Options[*pom]{})
	o := object("ns", "a", map[string]string{"l": "1"})
	o.Finalizers = []string{"example.com/f"}
	a := mustCreate(t, srv, o)
	w := mustWatch(t, srv, metav1.ListOptions{ResourceVersion: a.ResourceVersion})

	terminating := mustDelete(t, srv, "ns", "a")
	if terminating.DeletionTimestamp == nil {
		t.Fatalf("delete of an object with finalizers gave %+v, want a deletionTimestamp", terminating.ObjectMeta)
	}
	again := mustDelete(t, srv, "ns", "a")
	if again.ResourceVersion != terminating.ResourceVersion {
		t.Errorf("second delete moved the resourceVersion from %s to %s", terminating.ResourceVersion, again.ResourceVersion)
	}
	// Removing the finalizer deletes the object.
	terminating.Finalizers = nil
	last, err := srv.Update(terminating)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Get("ns", "a"); !apierrors.IsNotFound(err) {
		t.Errorf("get after the last finalizer was removed: %v, want NotFound", err)
	}
	expectEvents(t, w,
		event{Type: watch.Modified, Key: "ns/a", RV: terminating.ResourceVersion, Label: "1"},
		event{Type: watch.Deleted, Key: "ns/a", RV: last.ResourceVersion, Label: "1"},
	)
}

// widget is a typed object with its own Go type, served with the default
// ObjectList and a registered field.
type widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Color             string `json:"color"`
}

func (w *widget) DeepCopyObject() runtime.Object {
	out := *w
	w.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	return &out
}

func TestTypedServer(t *testing.T) {
	srv := framework.NewServer(framework.Options[*widget]{
		Fields: map[string]func(*widget) string{"spec.color": func(w *widget) string { return w.Color }},
	})
	defer srv.Close()
	for _, w := range []*widget{
		{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Color: "red"},
		{ObjectMeta: metav1.ObjectMeta{Name: "b"}, Color: "blue"},
	} {
		if _, err := srv.Create(w); err != nil {
			t.Fatal(err)
		}
	}
	obj, err := srv.ListWithContext(t.Context(), metav1.ListOptions{FieldSelector: "spec.color=blue"})
	if err != nil {
		t.Fatal(err)
	}
	list, ok := obj.(*framework.ObjectList[*widget])
	if !ok {
		t.Fatalf("list is a %T, want *ObjectList[*widget]", obj)
	}
	var got []string
	for _, w := range list.Items {
		got = append(got, w.Name+"="+w.Color)
	}
	if diff := cmp.Diff([]string{"b=blue"}, got); diff != "" {
		t.Errorf("items (-want +got):\n%s", diff)
	}
	copied := list.DeepCopyObject().(*framework.ObjectList[*widget])
	copied.Items[0].Color = "green"
	if list.Items[0].Color != "blue" {
		t.Error("DeepCopyObject shares items")
	}
}

func TestCreateValidatesNames(t *testing.T) {
	tests := []struct {
		name    string
		opts    framework.Options[*pom]
		obj     *pom
		wantErr bool
	}{
		{name: "dns subdomain", obj: object("ns", "a.b-c", nil)},
		{name: "trailing dash", obj: object("ns", "sentinel-", nil), wantErr: true},
		{name: "upper case", obj: object("ns", "Upper", nil), wantErr: true},
		{name: "slash", obj: object("ns", "a/b", nil), wantErr: true},
		{name: "generateName may end in a dash", obj: &pom{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", GenerateName: "gen-"}}},
		{name: "bad generateName", obj: &pom{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", GenerateName: "Gen-"}}, wantErr: true},
		{name: "namespace must be a dns label", obj: object("a.b", "x", nil), wantErr: true},
		{name: "cluster scoped", obj: object("", "x", nil)},
		{
			name:    "custom rule",
			opts:    framework.Options[*pom]{ValidateName: func(string, bool) []string { return []string{"never"} }},
			obj:     object("ns", "fine", nil),
			wantErr: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := newServer(t, tc.opts)
			_, err := srv.Create(tc.obj)
			if tc.wantErr != (err != nil) {
				t.Fatalf("Create() error = %v, wantErr %v", err, tc.wantErr)
			}
			if err != nil && !apierrors.IsInvalid(err) {
				t.Fatalf("Create() error = %v, want 422 Invalid", err)
			}
		})
	}
}
