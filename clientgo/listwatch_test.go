package clientgo_test

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	"k8s.io/client-go/kubernetes/fake"
	metadatafake "k8s.io/client-go/metadata/fake"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/clientgo"
	"github.com/informer-go/informer/clientgo/internal/resttest"
)

var podsResource = schema.GroupVersionResource{Version: "v1", Resource: "pods"}

func pod(namespace, name string) *corev1.Pod {
	return &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, Labels: map[string]string{"app": name}},
	}
}

// TestTypedListWatchSyncsAtOnceWithFakeClients runs an informer on the
// one-line ListWatch of each of client-go's fake clients. The fakes never
// send the bookmark that ends a streaming list; the ListWatch must make the
// reflector list instead of waiting for it until the stall timeout. Inside
// the synctest bubble time only advances when every goroutine is blocked, so
// a wait for the timeout would show as at least a minute.
func TestTypedListWatchSyncsAtOnceWithFakeClients(t *testing.T) {
	const stallTimeout = time.Minute // the default WatchListStallTimeout
	tests := []struct {
		name    string
		example runtime.Object
		newLW   func() cache.ListerWatcher
	}{
		{
			name:    "typed clientset",
			example: &corev1.Pod{},
			newLW: func() cache.ListerWatcher {
				client := fake.NewClientset(pod("ns", "a"), pod("ns", "b"), pod("other", "c"))
				return cache.NewListWatchFromTypedClient(client.CoreV1().Pods("ns"), nil)
			},
		},
		{
			name:    "simple clientset with selector",
			example: &corev1.Pod{},
			newLW: func() cache.ListerWatcher {
				client := fake.NewSimpleClientset(pod("ns", "a"), pod("ns", "b"), pod("ns", "x"))
				return cache.NewListWatchFromTypedClient(client.CoreV1().Pods("ns"), func(o *metav1.ListOptions) {
					o.LabelSelector = "app in (a,b)"
				})
			},
		},
		{
			name:    "dynamic client",
			example: &unstructured.Unstructured{},
			newLW: func() cache.ListerWatcher {
				objs := []runtime.Object{toUnstructured(t, pod("ns", "a")), toUnstructured(t, pod("ns", "b"))}
				client := dynamicfake.NewSimpleDynamicClientWithCustomListKinds(runtime.NewScheme(),
					map[schema.GroupVersionResource]string{podsResource: "PodList"}, objs...)
				return cache.NewListWatchFromTypedClient(client.Resource(podsResource).Namespace("ns"), nil)
			},
		},
		{
			name:    "metadata client",
			example: &metav1.PartialObjectMetadata{},
			newLW: func() cache.ListerWatcher {
				s := metadatafake.NewTestScheme()
				if err := metav1.AddMetaToScheme(s); err != nil {
					t.Fatal(err)
				}
				client := metadatafake.NewSimpleMetadataClient(s, partialPod("ns", "a"), partialPod("ns", "b"))
				return cache.NewListWatchFromTypedClient(client.Resource(podsResource).Namespace("ns"), nil)
			},
		},
	}
	for _, tc := range tests {
		for _, inOrder := range []bool{false, true} {
			t.Run(tc.name+pipelineName(inOrder), func(t *testing.T) {
				synctest.Test(t, func(t *testing.T) {
					informer := cache.NewSharedIndexInformerWithOptions(tc.newLW(), tc.example, cache.SharedIndexInformerOptions{InOrder: inOrder})
					ctx, cancel := context.WithCancel(t.Context())
					defer cancel()
					go informer.RunWithContext(ctx)
					start := time.Now()
					if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
						t.Fatal("not synced")
					}
					if waited := time.Since(start); waited >= stallTimeout {
						t.Errorf("synced after %v: the reflector waited for the streaming list's end", waited)
					}
					keys := informer.GetStore().ListKeys()
					slices.Sort(keys)
					if diff := cmp.Diff([]string{"ns/a", "ns/b"}, keys); diff != "" {
						t.Errorf("cached keys (-want +got):\n%s", diff)
					}
					cancel()
					synctest.Wait()
				})
			})
		}
	}
}

func pipelineName(inOrder bool) string {
	if inOrder {
		return " InOrder"
	}
	return " DeltaFIFO"
}

func toUnstructured(t *testing.T, obj runtime.Object) *unstructured.Unstructured {
	t.Helper()
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

func partialPod(namespace, name string) *metav1.PartialObjectMetadata {
	return &metav1.PartialObjectMetadata{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name},
	}
}

// TestNewListWatchFromClient checks the requests the REST ListWatch sends.
func TestNewListWatchFromClient(t *testing.T) {
	var paths []string
	client := resttest.PodLister(&corev1.PodList{
		ListMeta: metav1.ListMeta{ResourceVersion: "5"},
		Items:    []corev1.Pod{*pod("ns", "a")},
	}, &paths)
	lw := clientgo.NewListWatchFromClient(client, "pods", "ns", fields.OneTermEqualSelector("spec.nodeName", "n1"))
	list, err := lw.ListWithContext(t.Context(), metav1.ListOptions{ResourceVersion: "0", Limit: 10})
	if err != nil {
		t.Fatal(err)
	}
	if pods, ok := list.(*corev1.PodList); !ok || len(pods.Items) != 1 || pods.Items[0].Name != "a" {
		t.Errorf("List returned %#v, want the one pod", list)
	}
	want := []string{"/namespaces/ns/pods?fieldSelector=spec.nodeName%3Dn1&limit=10&resourceVersion=0"}
	if diff := cmp.Diff(want, paths); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

func TestNewListWatchFromClientRejectsNilClient(t *testing.T) {
	// The fake clientset's RESTClient is a nil pointer.
	lw := clientgo.NewListWatchFromClient(fake.NewClientset().CoreV1().RESTClient(), "pods", "", fields.Everything())
	if _, err := lw.ListWithContext(t.Context(), metav1.ListOptions{}); err == nil {
		t.Error("List through a nil REST client succeeded")
	}
	if _, err := lw.WatchWithContext(t.Context(), metav1.ListOptions{}); err == nil {
		t.Error("Watch through a nil REST client succeeded")
	}
	lw = clientgo.NewFilteredListWatchFromClient(nil, "pods", "", nil)
	if _, err := lw.ListWithContext(t.Context(), metav1.ListOptions{}); err == nil {
		t.Error("List through a nil Getter succeeded")
	}
}
