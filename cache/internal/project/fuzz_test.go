package project

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/informer-go/informer/cache/internal/share/podtest"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// FuzzProjectUnstructured projects arbitrary JSON objects with arbitrary
// paths: New either fails with a project: error or returns a projection
// whose result is the model's, marked; Apply never panics. The paths also
// project a typed Pod when they are valid for its type.
func FuzzProjectUnstructured(f *testing.F) {
	f.Add(`{"metadata":{"name":"a","labels":{"x":"y"}},"spec":{"a":[{"b":1,"c":2},3,[{"b":4}]],"d":"e"}}`, "spec.a.b,metadata.labels")
	f.Add(`{"spec":"scalar","status":{"phase":"Running"}}`, "spec.nodeName,status.phase")
	f.Add(`{"metadata":7}`, "metadata")
	f.Add(`{}`, "")
	f.Add(`{"a":{"b":{"c":null}}}`, "a.b.c,a..b")
	f.Add(string(podtest.JSON(5)), "metadata,spec.nodeName,status.phase")
	f.Add(`{}`, "spec.containers.ports.containerPort,status.podIPs")
	f.Add(`{}`, "metadata.ownerReferences,spec.volumes.projected.sources.configMap.items.key")
	f.Fuzz(func(t *testing.T, doc, pathList string) {
		var obj map[string]any
		if err := json.Unmarshal([]byte(doc), &obj); err != nil || obj == nil {
			return
		}
		obj = runtime.DeepCopyJSON(toJSONNumbers(obj).(map[string]any))
		var paths []string
		if pathList != "" {
			paths = strings.Split(pathList, ",")
		}
		if tp, err := New(&podtest.Pod{}, paths); err != nil {
			if !strings.HasPrefix(err.Error(), "project: ") {
				t.Fatalf("error %q does not say where it comes from", err)
			}
		} else {
			pod := podtest.Typed(2)
			want := model(podtest.Unstructured(2).Object, paths, strings.Join(tp.Paths(), ","))
			if _, err := tp.Apply(pod); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(toMap(want), toMap(pod)); diff != "" {
				t.Errorf("typed pod, paths %q (-model +projected):\n%s", paths, diff)
			}
		}
		p, err := New(&unstructured.Unstructured{}, paths)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "project: ") {
				t.Fatalf("error %q does not say where it comes from", err)
			}
			return
		}
		want := model(obj, paths, strings.Join(p.Paths(), ","))
		u := &unstructured.Unstructured{Object: runtime.DeepCopyJSON(obj)}
		if _, err := p.Apply(u); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, u.Object); diff != "" {
			t.Errorf("paths %q (-model +projected):\n%s", paths, diff)
		}
		if got, ok := ProjectedPaths(u); !ok || !cmp.Equal(got, p.Paths()) {
			t.Errorf("ProjectedPaths = %q, %v; want %q", got, ok, p.Paths())
		}
		DropManagedFields(u)
	})
}

// toJSONNumbers turns the float64 numbers of v into int64 where they are
// whole, as apimachinery's JSON decoder does, so that DeepCopyJSON takes
// them.
func toJSONNumbers(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = toJSONNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = toJSONNumbers(e)
		}
	case float64:
		if x == float64(int64(x)) {
			return int64(x)
		}
	}
	return v
}
