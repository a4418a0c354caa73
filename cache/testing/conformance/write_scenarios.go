package conformance

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func writeScenarios() []Scenario {
	return []Scenario{
		{Name: "write/resource-version-precondition", Run: writePrecondition},
		{Name: "write/errors", Run: writeErrors},
	}
}

// writePrecondition: an update with a stale resourceVersion fails with 409
// Conflict; with the current one it succeeds; every write gets a new
// resourceVersion.
func writePrecondition(t *testing.T, target Target) {
	r := record(t, target)
	a := r.create("a", nil)
	a2 := r.update("a", map[string]string{"l": "1"}, nil)
	if a2.RV == a.RV {
		t.Errorf("update kept resourceVersion %s", a.RV)
	}
	_, err := target.Update(t.Context(), &metav1.ObjectMeta{Name: "a", ResourceVersion: a.RV, Labels: map[string]string{"l": "2"}})
	if !apierrors.IsConflict(err) {
		t.Errorf("update with a stale resourceVersion: %v, want 409 Conflict", err)
	}
	a3, err := target.Update(t.Context(), &metav1.ObjectMeta{Name: "a", ResourceVersion: a2.RV, Labels: map[string]string{"l": "3"}})
	if err != nil {
		t.Fatalf("update with the current resourceVersion: %v", err)
	}
	if a3.GetResourceVersion() == a2.RV || a3.GetLabels()["l"] != "3" {
		t.Errorf("update with the current resourceVersion gave %+v", itemOfMeta(a3))
	}
}

// writeErrors: creating an existing object, updating or deleting a missing
// one.
func writeErrors(t *testing.T, target Target) {
	record(t, target).create("a", nil)
	if _, err := target.Create(t.Context(), &metav1.ObjectMeta{Name: "a"}); !apierrors.IsAlreadyExists(err) {
		t.Errorf("create of an existing object: %v, want 409 AlreadyExists", err)
	}
	if _, err := target.Update(t.Context(), &metav1.ObjectMeta{Name: "missing", Labels: map[string]string{"l": "1"}}); !apierrors.IsNotFound(err) {
		t.Errorf("update of a missing object: %v, want 404", err)
	}
	if err := target.Delete(t.Context(), "missing"); !apierrors.IsNotFound(err) {
		t.Errorf("delete of a missing object: %v, want 404", err)
	}
}
