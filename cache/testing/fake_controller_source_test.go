package framework_test

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"

	framework "github.com/informer-go/informer/cache/testing"
)

// listedKeys returns the sorted keys and resourceVersion of a list.
func listedKeys(t *testing.T, lister interface {
	List(metav1.ListOptions) (runtime.Object, error)
}) page {
	t.Helper()
	obj, err := lister.List(metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := obj.(*metav1.List); !ok {
		t.Fatalf("list is a %T, want *metav1.List", obj)
	}
	p, _ := summarizeList(t, obj)
	sortStrings(p.Names)
	return p
}

func watchSource(t *testing.T, source *framework.FakeControllerSource, rv string) watch.Interface {
	t.Helper()
	w, err := source.Watch(metav1.ListOptions{ResourceVersion: rv})
	if err != nil {
		t.Fatalf("watch from %s: %v", rv, err)
	}
	t.Cleanup(w.Stop)
	return w
}

func sortStrings(s []string) {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
}

func TestFakeControllerSource(t *testing.T) {
	source := framework.NewFakeControllerSource()
	defer source.Shutdown()

	a := object("", "a", nil)
	source.Add(a)
	if a.ResourceVersion != "1" {
		t.Errorf("Add stamped resourceVersion %q, want 1", a.ResourceVersion)
	}
	w := watchSource(t, source, "1")
	b := object("", "b", nil)
	source.Add(b)
	source.Modify(object("", "a", map[string]string{"l": "1"}))
	source.DeleteDropWatch(object("", "b", nil))
	source.Delete(object("", "a", map[string]string{"l": "1"}))

	expectEvents(t, w,
		event{Type: watch.Added, Key: "b", RV: "2"},
		event{Type: watch.Modified, Key: "a", RV: "3", Label: "1"},
		event{Type: watch.Deleted, Key: "a", RV: "5", Label: "1"},
	)
	if diff := cmp.Diff(page{RV: "5"}, listedKeys(t, source)); diff != "" {
		t.Errorf("list (-want +got):\n%s", diff)
	}

	// A watch from an older resourceVersion replays the log, dropped
	// changes included.
	replay := watchSource(t, source, "3")
	expectEvents(t, replay, event{Type: watch.Deleted, Key: "b", RV: "4"}, event{Type: watch.Deleted, Key: "a", RV: "5", Label: "1"})

	if _, err := source.Watch(metav1.ListOptions{ResourceVersion: "6"}); err == nil {
		t.Error("watch from the future succeeded")
	}
	if _, err := source.Watch(metav1.ListOptions{ResourceVersion: ""}); err == nil {
		t.Error("watch from \"\" succeeded")
	}
	source.ResetWatch()
	expectClosed(t, w)
	if _, err := source.Watch(metav1.ListOptions{ResourceVersion: "4"}); !apierrors.IsResourceExpired(err) {
		t.Errorf("watch after ResetWatch: %v, want 410", err)
	}

	source.ListError = apierrors.NewInternalError(errors.New("boom"))
	if _, err := source.List(metav1.ListOptions{}); !apierrors.IsInternalError(err) {
		t.Errorf("list with ListError: %v", err)
	}
	source.ListError = nil

	// No metadata: reported, not applied, no panic.
	source.Add(&metav1.Status{})
	if diff := cmp.Diff(page{RV: "5"}, listedKeys(t, source)); diff != "" {
		t.Errorf("list after a bad change (-want +got):\n%s", diff)
	}

	source.Shutdown()
	source.Shutdown()
	if _, err := source.List(metav1.ListOptions{}); err == nil {
		t.Error("list after Shutdown succeeded")
	}
	if _, err := source.Watch(metav1.ListOptions{ResourceVersion: "5"}); err == nil {
		t.Error("watch after Shutdown succeeded")
	}
	source.Add(object("", "c", nil)) // ignored
}

func TestFakePVControllerSources(t *testing.T) {
	pv := framework.NewFakePVControllerSource()
	defer pv.Shutdown()
	pvc := framework.NewFakePVCControllerSource()
	defer pvc.Shutdown()
	pv.Add(object("", "pv", nil))
	pvc.Add(object("ns", "claim", nil))
	pvc.AddDropWatch(object("ns", "other", nil))

	if diff := cmp.Diff(page{Names: []string{"pv"}, RV: "1"}, listedKeys(t, pv)); diff != "" {
		t.Errorf("pv list (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(page{Names: []string{"ns/claim", "ns/other"}, RV: "2"}, listedKeys(t, pvc)); diff != "" {
		t.Errorf("pvc list (-want +got):\n%s", diff)
	}
	obj, _ := pvc.List(metav1.ListOptions{})
	items, _ := meta.ExtractList(obj)
	items[0].(*pom).Name = "mutated"
	if diff := cmp.Diff(page{Names: []string{"ns/claim", "ns/other"}, RV: "2"}, listedKeys(t, pvc)); diff != "" {
		t.Errorf("list shares its items (-want +got):\n%s", diff)
	}
}
