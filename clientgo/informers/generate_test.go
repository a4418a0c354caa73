package informers

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"go/format"
	"os"
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/fake"
)

var update = flag.Bool("update", false, "rewrite zz_generated.go")

// generatedFile is the file TestGeneratedSourceIsUpToDate writes.
const generatedFile = "zz_generated.go"

// TestGeneratedSourceIsUpToDate generates zz_generated.go from client-go's
// types and fails if the file differs; with -update (go generate) it writes
// the file instead.
func TestGeneratedSourceIsUpToDate(t *testing.T) {
	src, err := generateSource()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(generatedFile, src, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	current, err := os.ReadFile(generatedFile)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(string(src), string(current)); diff != "" {
		t.Errorf("%s is out of date: run go generate (-want +got):\n%s", generatedFile, diff)
	}
}

// factoryMethods are the methods of client-go's SharedInformerFactory that
// are not group accessors.
var factoryMethods = []string{"ForResource", "InformerFor", "InformerName", "Shutdown", "Start", "StartWithContext", "WaitForCacheSync", "WaitForCacheSyncWithContext"}

// generateSource returns the source of zz_generated.go: a group accessor per
// group of client-go's SharedInformerFactory, and a resource per typed
// resource client of kubernetes.Interface that has List and Watch.
func generateSource() ([]byte, error) {
	imports := map[string]string{} // path -> alias
	var body bytes.Buffer

	factoryType := reflect.TypeFor[clientgoinformers.SharedInformerFactory]()
	for i := range factoryType.NumMethod() {
		m := factoryType.Method(i)
		if slices.Contains(factoryMethods, m.Name) {
			continue
		}
		ret := m.Type.Out(0)
		alias := path.Base(ret.PkgPath()) + "informers"
		imports[ret.PkgPath()] = alias
		fmt.Fprintf(&body, "\n// %s returns the informers of API group %s.\n", m.Name, path.Base(ret.PkgPath()))
		fmt.Fprintf(&body, "func (f *sharedInformerFactory) %s() %s.Interface {\n\treturn %s.New(f, f.namespace, f.tweakListOptions)\n}\n", m.Name, alias, alias)
	}

	body.WriteString("\n// resources are the resources of kubernetes.Interface that can be listed and watched.\nvar resources = []resource{\n")
	client := fake.NewClientset()
	clientValue := reflect.ValueOf(kubernetes.Interface(client))
	clientType := reflect.TypeFor[kubernetes.Interface]()
	listOptionsType := reflect.TypeFor[metav1.ListOptions]()
	for i := range clientType.NumMethod() {
		gv := clientType.Method(i)
		if gv.Type.NumIn() != 0 || gv.Type.NumOut() != 1 || gv.Type.Out(0).Kind() != reflect.Interface {
			continue
		}
		gvClient := clientValue.MethodByName(gv.Name).Call(nil)[0]
		gvType := gv.Type.Out(0)
		for j := range gvType.NumMethod() {
			res := gvType.Method(j)
			namespaced := res.Type.NumIn() == 1 && res.Type.In(0).Kind() == reflect.String
			if (res.Type.NumIn() != 0 && !namespaced) || res.Type.NumOut() != 1 || res.Type.Out(0).Kind() != reflect.Interface {
				continue
			}
			list, ok := res.Type.Out(0).MethodByName("List")
			if _, watchable := res.Type.Out(0).MethodByName("Watch"); !ok || !watchable ||
				list.Type.NumIn() != 2 || list.Type.In(1) != listOptionsType {
				continue
			}
			items, ok := list.Type.Out(0).Elem().FieldByName("Items")
			if !ok || items.Type.Kind() != reflect.Slice {
				continue
			}
			object := items.Type.Elem()
			objAlias := path.Base(path.Dir(object.PkgPath())) + path.Base(object.PkgPath())
			imports[object.PkgPath()] = objAlias

			// Learn the resource's name from the request the fake records.
			var args []reflect.Value
			call := "()"
			if namespaced {
				args = []reflect.Value{reflect.ValueOf("ns")}
				call = "(namespace)"
			}
			client.ClearActions()
			resClient := gvClient.MethodByName(res.Name).Call(args)[0]
			resClient.MethodByName("List").Call([]reflect.Value{reflect.ValueOf(context.Background()), reflect.ValueOf(metav1.ListOptions{})})
			actions := client.Actions()
			if len(actions) != 1 {
				return nil, fmt.Errorf("%s().%s: %d actions recorded, want 1", gv.Name, res.Name, len(actions))
			}
			gvr := actions[0].GetResource()
			fmt.Fprintf(&body, "\t{\n\t\tobject: &%s.%s{},\n", objAlias, object.Name())
			fmt.Fprintf(&body, "\t\tgvr:    schema.GroupVersionResource{Group: %q, Version: %q, Resource: %q},\n", gvr.Group, gvr.Version, gvr.Resource)
			fmt.Fprintf(&body, "\t\tnewListerWatcher: func(c kubernetes.Interface, namespace string, tweak internalinterfaces.TweakListOptionsFunc) cache.ListerWatcher {\n")
			if !namespaced {
				body.WriteString("\t\t\t_ = namespace // cluster-scoped\n")
			}
			fmt.Fprintf(&body, "\t\t\treturn cache.NewListWatchFromTypedClient(c.%s().%s%s, tweak)\n\t\t},\n\t},\n", gv.Name, res.Name, call)
		}
	}
	body.WriteString("}\n")

	for _, p := range []string{"k8s.io/apimachinery/pkg/runtime/schema", "k8s.io/client-go/informers/internalinterfaces", "k8s.io/client-go/kubernetes", "github.com/informer-go/informer/cache"} {
		imports[p] = ""
	}
	paths := make([]string, 0, len(imports))
	for p := range imports {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	var out bytes.Buffer
	out.WriteString("// Code generated by TestGeneratedSourceIsUpToDate (go generate); DO NOT EDIT.\n\n" +
		"//lint:file-ignore SA1019 every resource of kubernetes.Interface is listed, deprecated ones too\n\npackage informers\n\nimport (\n")
	for _, p := range paths {
		if alias := imports[p]; alias != "" {
			fmt.Fprintf(&out, "\t%s %q\n", alias, p)
		} else {
			fmt.Fprintf(&out, "\t%q\n", p)
		}
	}
	out.WriteString(")\n")
	out.WriteString(body.String())
	src, err := format.Source(out.Bytes())
	if err != nil {
		return nil, fmt.Errorf("format: %w\n%s", err, strings.TrimSpace(out.String()))
	}
	return src, nil
}
