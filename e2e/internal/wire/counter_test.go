package wire

import (
	"net/http"
	"testing"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		name, method, url string
		kind              Kind
		beginsList        bool
	}{
		{"list", "GET", "/api/v1/namespaces/ns/configmaps?limit=500&resourceVersion=0", List, true},
		{"next page", "GET", "/api/v1/namespaces/ns/configmaps?continue=abc&limit=500", List, false},
		{"cluster-wide list", "GET", "/api/v1/configmaps", List, true},
		{"list of a group", "GET", "/apis/apps/v1/namespaces/ns/deployments", List, true},
		{"list of namespaces", "GET", "/api/v1/namespaces", List, true},
		{"streaming list", "GET", "/api/v1/namespaces/ns/configmaps?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true", StreamingList, true},
		{"watch", "GET", "/api/v1/namespaces/ns/configmaps?allowWatchBookmarks=true&resourceVersion=42&watch=true", Watch, false},
		{"watch without initial events", "GET", "/api/v1/namespaces/ns/configmaps?sendInitialEvents=false&watch=true", Watch, false},
		{"get", "GET", "/api/v1/namespaces/ns/configmaps/cm", Other, false},
		{"get of a namespace", "GET", "/api/v1/namespaces/ns", Other, false},
		{"subresource", "GET", "/api/v1/namespaces/ns/pods/p/status", Other, false},
		{"create", "POST", "/api/v1/namespaces/ns/configmaps", Other, false},
		{"discovery", "GET", "/apis/apps/v1", Other, false},
		{"health", "GET", "/readyz", Other, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, err := http.NewRequest(tc.method, "https://127.0.0.1:6443"+tc.url, nil)
			if err != nil {
				t.Fatal(err)
			}
			kind, begins := Classify(req)
			if kind != tc.kind || begins != tc.beginsList {
				t.Errorf("Classify(%s %s) = %v, %v; want %v, %v", tc.method, tc.url, kind, begins, tc.kind, tc.beginsList)
			}
		})
	}
}
