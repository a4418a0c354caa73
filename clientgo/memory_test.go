package clientgo_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	toolscache "k8s.io/client-go/tools/cache"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/clientgo"
)

// TestNewSharedIndexInformerFuncMemory builds, through the client-go
// signature, informers of Pods that project them, in both pipelines, and
// reads them through client-go's interfaces: the objects are projected
// and marked, the index of the informer sees the kept field.
func TestNewSharedIndexInformerFuncMemory(t *testing.T) {
	for _, inOrder := range []bool{false, true} {
		t.Run(pipelineName(inOrder), func(t *testing.T) {
			srv := newPodServer(t)
			newInformer := clientgo.NewSharedIndexInformerFunc(cache.SharedIndexInformerOptions{
				InOrder: inOrder,
				Memory:  &cache.MemoryOptions{DropManagedFields: true, Keep: []string{"spec.nodeName"}, Share: true},
			})
			informer := newInformer(srv, &corev1.Pod{}, 0, toolscache.Indexers{
				"node": func(obj any) ([]string, error) { return []string{obj.(*corev1.Pod).Spec.NodeName}, nil },
			})
			runUntilSynced(t, informer)
			objs, err := informer.GetIndexer().ByIndex("node", "")
			if err != nil || len(objs) != 2 {
				t.Fatalf("ByIndex: %d objects, %v; want 2", len(objs), err)
			}
			for _, o := range objs {
				p := o.(*corev1.Pod)
				if !cache.IsProjected(p) || !errors.Is(cache.CheckWritable(p), cache.ErrProjected) {
					t.Errorf("pod %s is not marked projected", p.Name)
				}
				if p.Labels["app"] != p.Name {
					t.Errorf("pod %s lost its labels: %v", p.Name, p.Labels)
				}
			}
		})
	}
}

// roundTripperFunc is an http.RoundTripper.
type roundTripperFunc func(*http.Request) (*http.Response, error)

func (f roundTripperFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// TestRefuseProjectedWrites checks that writes of projected objects never
// reach the server, and that every other request passes with its body.
func TestRefuseProjectedWrites(t *testing.T) {
	full := pod("ns", "a")
	projected := pod("ns", "a")
	projected.Annotations = map[string]string{cache.ProjectedAnnotation: "spec.nodeName"}
	body := func(p *corev1.Pod) []byte {
		b, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, tc := range []struct {
		name    string
		method  string
		body    []byte
		refused bool
	}{
		{"update of a full object", http.MethodPut, body(full), false},
		{"update of a projected object", http.MethodPut, body(projected), true},
		{"create of a projected object", http.MethodPost, body(projected), true},
		{"patch naming the marker", http.MethodPatch, []byte(`{"metadata":{"annotations":{"informer-go.io/projected":null}}}`), true},
		{"patch of a field", http.MethodPatch, []byte(`{"spec":{"nodeName":"n"}}`), false},
		{"get", http.MethodGet, nil, false},
		{"delete", http.MethodDelete, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []byte
			reached := false
			rt := clientgo.RefuseProjectedWrites(roundTripperFunc(func(r *http.Request) (*http.Response, error) {
				reached = true
				if r.Body != nil {
					got, _ = io.ReadAll(r.Body)
				}
				return &http.Response{StatusCode: http.StatusOK, Body: io.NopCloser(strings.NewReader("{}"))}, nil
			}))
			var rd io.Reader
			if tc.body != nil {
				rd = bytes.NewReader(tc.body)
			}
			req, err := http.NewRequest(tc.method, "https://example.invalid/api/v1/namespaces/ns/pods/a", rd)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := rt.RoundTrip(req)
			if resp != nil {
				resp.Body.Close()
			}
			if tc.refused {
				if !errors.Is(err, cache.ErrProjected) || reached {
					t.Errorf("RoundTrip: %v, reached the server %v; want ErrProjected and not reached", err, reached)
				}
				return
			}
			if err != nil || !reached || !bytes.Equal(got, tc.body) {
				t.Errorf("RoundTrip: %v, reached %v, body %q; want the request passed with body %q", err, reached, got, tc.body)
			}
		})
	}
}
