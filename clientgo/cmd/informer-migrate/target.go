package main

import (
	"fmt"
	"path"
	"strings"
)

// Import paths the command knows.
const (
	clientGoCache     = "k8s.io/client-go/tools/cache"
	clientGoInformers = "k8s.io/client-go/informers"
	dropInCache       = "github.com/informer-go/informer/clientgo/cache"
	dropInInformers   = "github.com/informer-go/informer/clientgo/informers"
	nativeCache       = "github.com/informer-go/informer/cache"
)

// target is what a migration moves to.
type target struct {
	// native is true for informer-go's own API, false for the drop-in.
	native bool
	// rewrites maps the import paths to replace to their replacements.
	rewrites map[string]string
	// cachePath is the import path, after the rewrite, of the package
	// whose informers and tombstones the analysis follows.
	cachePath string
	// module is the module that provides the rewritten imports.
	module string
}

// newTarget returns the target named to ("dropin" or "native"); factory
// adds the generated factory to the drop-in's rewrites.
func newTarget(to string, factory bool) (target, error) {
	switch to {
	case "dropin":
		t := target{rewrites: map[string]string{clientGoCache: dropInCache}, cachePath: dropInCache, module: "github.com/informer-go/informer/clientgo"}
		if factory {
			t.rewrites[clientGoInformers] = dropInInformers
		}
		return t, nil
	case "native":
		if factory {
			return target{}, fmt.Errorf("-factory goes with -to dropin; with -to native, use %s", dropInInformers)
		}
		return target{native: true, cachePath: nativeCache, module: "github.com/informer-go/informer", rewrites: map[string]string{
			clientGoCache:                nativeCache,
			clientGoCache + "/synctrack": nativeCache + "/synctrack",
			clientGoCache + "/testing":   nativeCache + "/testing",
		}}, nil
	}
	return target{}, fmt.Errorf(`-to %q: want "dropin" or "native"`, to)
}

// packageNames are the package names of the import paths the command
// rewrites from and to, where the last element of the path is not the name.
var packageNames = map[string]string{
	clientGoCache + "/testing": "framework",
	nativeCache + "/testing":   "framework",
}

// packageName returns the name of the package at import path p.
func packageName(p string) string {
	if name, ok := packageNames[p]; ok {
		return name
	}
	return path.Base(p)
}

// informerConstructors are the functions of the cache packages that build
// informers.
var informerConstructors = map[string]bool{
	"NewSharedInformer":                 true,
	"NewSharedIndexInformer":            true,
	"NewSharedIndexInformerWithOptions": true,
	"NewInformer":                       true,
	"NewIndexerInformer":                true,
	"NewTransformingInformer":           true,
	"NewTransformingIndexerInformer":    true,
	"NewInformerWithOptions":            true,
}

// notInNative are the names of client-go's tools/cache that informer-go's
// cache package lacks, because they need client-go's REST client; package
// github.com/informer-go/informer/clientgo has them.
var notInNative = []string{"Getter", "NewFilteredListWatchFromClient", "NewListWatchFromClient"}

// isFactory reports whether the import path p is of a factory of informers
// that client-go's code builds: client-go's generated SharedInformerFactory,
// the dynamic and metadata informer factories, and the generated factories
// of other modules (.../informers/externalversions). Their per-group
// informer packages only name types and are not factories.
func isFactory(p string) bool {
	switch p {
	case clientGoInformers, "k8s.io/client-go/dynamic/dynamicinformer", "k8s.io/client-go/metadata/metadatainformer":
		return true
	}
	return strings.HasSuffix(p, "/informers/externalversions")
}
