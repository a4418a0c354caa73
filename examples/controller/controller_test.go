package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"k8s.io/klog/v2/ktesting"

	"github.com/informer-go/informer/cache"
	"github.com/informer-go/informer/wait"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// configMap returns a ConfigMap in namespace "default" with the given data
// keys, labels and annotations.
func configMap(name string, keys []string, labels, annotations map[string]string) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name, Labels: labels, Annotations: annotations},
		Data:       map[string]string{},
	}
	for _, k := range keys {
		cm.Data[k] = "v"
	}
	return cm
}

// counted returns the labels of a ConfigMap the controller annotates.
func counted() map[string]string { return map[string]string{CountLabel: "true"} }

func TestReconcile(t *testing.T) {
	tests := []struct {
		name        string
		cached      *corev1.ConfigMap // in the cache and on the server; nil: neither
		failUpdates bool
		wantErr     bool
		wantUpdates int
		// wantAnnotations are the ConfigMap's annotations on the server
		// after the reconcile.
		wantAnnotations map[string]string
	}{{
		name:            "labelled, not annotated",
		cached:          configMap("cm", []string{"a", "b"}, counted(), nil),
		wantUpdates:     1,
		wantAnnotations: map[string]string{CountAnnotation: "2"},
	}, {
		name:            "labelled, stale annotation",
		cached:          configMap("cm", []string{"a", "b", "c"}, counted(), map[string]string{CountAnnotation: "2", "other": "kept"}),
		wantUpdates:     1,
		wantAnnotations: map[string]string{CountAnnotation: "3", "other": "kept"},
	}, {
		name:            "labelled, up to date",
		cached:          configMap("cm", nil, counted(), map[string]string{CountAnnotation: "0"}),
		wantAnnotations: map[string]string{CountAnnotation: "0"},
	}, {
		name:   "not labelled",
		cached: configMap("cm", []string{"a"}, map[string]string{CountLabel: "no"}, nil),
	}, {
		name: "gone",
	}, {
		name:        "update fails",
		cached:      configMap("cm", []string{"a"}, counted(), nil),
		failUpdates: true,
		wantErr:     true,
		wantUpdates: 1,
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, ctx := ktesting.NewTestContext(t)
			client := fake.NewClientset()
			if tc.failUpdates {
				client.PrependReactor("update", "configmaps", func(clienttesting.Action) (bool, runtime.Object, error) {
					return true, nil, apierrors.NewConflict(corev1.Resource("configmaps"), "cm", errors.New("changed"))
				})
			}
			c, err := NewController(ctx, client, "")
			if err != nil {
				t.Fatal(err)
			}
			defer c.queue.ShutDown() // Run would do it
			if tc.cached != nil {
				// Fill the server and the cache directly: the informer
				// does not run in this test.
				if err := client.Tracker().Add(tc.cached); err != nil {
					t.Fatal(err)
				}
				if err := c.informer.GetIndexer().Add(tc.cached); err != nil {
					t.Fatal(err)
				}
			}
			client.ClearActions()

			err = c.reconcile(ctx, cache.ObjectName{Namespace: "default", Name: "cm"})
			if gotErr := err != nil; gotErr != tc.wantErr {
				t.Errorf("reconcile error = %v, want error: %v", err, tc.wantErr)
			}
			updates := 0
			for _, action := range client.Actions() {
				if action.GetVerb() == "update" {
					updates++
				}
			}
			if updates != tc.wantUpdates {
				t.Errorf("%d updates, want %d", updates, tc.wantUpdates)
			}
			if tc.cached == nil {
				return
			}
			got, err := client.CoreV1().ConfigMaps("default").Get(ctx, "cm", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.wantAnnotations, got.Annotations); diff != "" {
				t.Errorf("annotations (-want +got):\n%s", diff)
			}
		})
	}
}

// TestRun runs the whole controller against a fake clientset: it annotates
// the labelled ConfigMaps, follows their changes, and stops cleanly.
func TestRun(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	client := fake.NewClientset(
		configMap("counted", []string{"a", "b"}, counted(), nil),
		configMap("plain", []string{"a"}, nil, nil),
	)
	// The fake clientset does not replay changes made between a list and
	// its watch: tell the test when the informer's watch is open.
	watching := make(chan struct{}, 1)
	client.PrependWatchReactor("configmaps", func(action clienttesting.Action) (bool, watch.Interface, error) {
		var opts metav1.ListOptions
		if a, ok := action.(clienttesting.WatchActionImpl); ok {
			opts = a.ListOptions
		}
		w, err := client.Tracker().Watch(action.GetResource(), action.GetNamespace(), opts)
		if err == nil {
			select {
			case watching <- struct{}{}:
			default:
			}
		}
		return true, w, err
	})

	c, err := NewController(ctx, client, "")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, 2) }()
	select {
	case <-watching:
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("the informer did not start watching")
	}

	waitForAnnotation := func(name, want string) {
		t.Helper()
		err := wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, wait.ForeverTestTimeout, true, func(ctx context.Context) (bool, error) {
			cm, err := client.CoreV1().ConfigMaps("default").Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			return cm.Annotations[CountAnnotation] == want, nil
		})
		if err != nil {
			t.Fatalf("ConfigMap %s not annotated with %q: %v", name, want, err)
		}
	}
	waitForAnnotation("counted", "2")

	// A change of the data is picked up through the watch. So is a label
	// added to a ConfigMap that was not counted.
	cm, err := client.CoreV1().ConfigMaps("default").Get(ctx, "counted", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data["c"] = "v"
	if _, err := client.CoreV1().ConfigMaps("default").Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	plain, err := client.CoreV1().ConfigMaps("default").Get(ctx, "plain", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	plain.Labels = counted()
	if _, err := client.CoreV1().ConfigMaps("default").Update(ctx, plain, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitForAnnotation("counted", "3")
	waitForAnnotation("plain", "1")

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run: %v", err)
		}
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("Run did not return after cancel")
	}
}

// TestRunStoppedBeforeSync checks that Run fails when it is stopped before
// the cache could sync, here because every list fails.
func TestRunStoppedBeforeSync(t *testing.T) {
	_, ctx := ktesting.NewTestContext(t)
	ctx, cancel := context.WithCancel(ctx)
	client := fake.NewClientset()
	listed := make(chan struct{}, 1)
	client.PrependReactor("list", "configmaps", func(clienttesting.Action) (bool, runtime.Object, error) {
		select {
		case listed <- struct{}{}:
		default:
		}
		return true, nil, apierrors.NewServiceUnavailable("down")
	})
	c, err := NewController(ctx, client, "")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx, 1) }()
	select {
	case <-listed:
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("the informer did not list")
	}
	cancel()
	select {
	case err := <-done:
		if err == nil {
			t.Error("Run succeeded without a synced cache")
		}
	case <-time.After(wait.ForeverTestTimeout):
		t.Fatal("Run did not return after cancel")
	}
}
