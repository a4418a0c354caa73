package framework_test

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	framework "github.com/informer-go/informer/cache/testing"
)

// ExampleServer creates objects, lists them page by page, then watches from
// the list's resourceVersion and prints the events of later writes.
func ExampleServer() {
	srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
	defer srv.Close()
	ctx := context.Background()

	for _, name := range []string{"a", "b", "c"} {
		obj := &metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name}}
		if _, err := srv.Create(obj); err != nil {
			fmt.Println(err)
			return
		}
	}

	// A paginated list: every page comes from the first page's snapshot.
	lw := srv.Namespace("default")
	opts := metav1.ListOptions{Limit: 2}
	var listRV string
	for {
		obj, err := lw.ListWithContext(ctx, opts)
		if err != nil {
			fmt.Println(err)
			return
		}
		list := obj.(*metav1.PartialObjectMetadataList)
		var names []string
		for _, item := range list.Items {
			names = append(names, item.Name)
		}
		fmt.Printf("page %v at resourceVersion %s\n", names, list.ResourceVersion)
		listRV = list.ResourceVersion
		if list.Continue == "" {
			break
		}
		opts.Continue = list.Continue
	}

	// A watch from the list's resourceVersion sees only later writes.
	w, err := lw.WatchWithContext(ctx, metav1.ListOptions{ResourceVersion: listRV})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Stop()
	b, _ := srv.Get("default", "b")
	b.Labels = map[string]string{"tier": "web"}
	if _, err := srv.Update(b); err != nil {
		fmt.Println(err)
		return
	}
	if _, err := srv.Delete("default", "a"); err != nil {
		fmt.Println(err)
		return
	}
	for range 2 {
		e := <-w.ResultChan()
		accessor, _ := meta.Accessor(e.Object)
		fmt.Printf("%s %s at resourceVersion %s\n", e.Type, accessor.GetName(), accessor.GetResourceVersion())
	}
	// Output:
	// page [a b] at resourceVersion 4
	// page [c] at resourceVersion 4
	// MODIFIED b at resourceVersion 5
	// DELETED a at resourceVersion 6
}

// ExampleServer_Compact shows what a client sees when it resumes a watch
// from a resourceVersion the server no longer has: the watch opens, then
// delivers one ERROR event with a 410 status, and the client must relist.
func ExampleServer_Compact() {
	srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
	defer srv.Close()

	a, _ := srv.Create(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "a"}})
	_, _ = srv.Create(&metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Name: "b"}})
	srv.Compact()

	w, err := srv.WatchWithContext(context.Background(), metav1.ListOptions{ResourceVersion: a.ResourceVersion})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer w.Stop()
	e := <-w.ResultChan()
	fmt.Println(e.Type, apierrors.IsResourceExpired(apierrors.FromObject(e.Object)))
	_, open := <-w.ResultChan()
	fmt.Println("open:", open)
	// Output:
	// ERROR true
	// open: false
}

// ExampleServer_FailNextLists injects a failure into the next list, as a
// test of a client's retry logic would.
func ExampleServer_FailNextLists() {
	srv := framework.NewServer(framework.Options[*metav1.PartialObjectMetadata]{})
	defer srv.Close()

	srv.FailNextLists(1, apierrors.NewTooManyRequests("slow down", 1))
	for range 2 {
		_, err := srv.ListWithContext(context.Background(), metav1.ListOptions{})
		fmt.Println("too many requests:", apierrors.IsTooManyRequests(err))
	}
	fmt.Println("requests:", len(srv.Requests()))
	// Output:
	// too many requests: true
	// too many requests: false
	// requests: 2
}
