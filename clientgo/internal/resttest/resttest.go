// Package resttest has a fake REST client for the tests of the ListWatches
// built on client-go's RESTClient.
package resttest

import (
	"io"
	"net/http"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
	restfake "k8s.io/client-go/rest/fake"
)

// PodLister returns a REST client of the core API group that answers every
// request with list, as JSON, and appends the path and query of each
// request to *requests. It is not safe for concurrent use.
func PodLister(list *corev1.PodList, requests *[]string) *restfake.RESTClient {
	return &restfake.RESTClient{
		NegotiatedSerializer: scheme.Codecs.WithoutConversion(),
		GroupVersion:         corev1.SchemeGroupVersion,
		Client: restfake.CreateHTTPClient(func(req *http.Request) (*http.Response, error) {
			*requests = append(*requests, req.URL.Path+"?"+req.URL.RawQuery)
			body, err := runtime.Encode(scheme.Codecs.LegacyCodec(corev1.SchemeGroupVersion), list)
			if err != nil {
				return nil, err
			}
			return &http.Response{
				StatusCode: http.StatusOK,
				Header:     http.Header{"Content-Type": []string{runtime.ContentTypeJSON}},
				Body:       io.NopCloser(strings.NewReader(string(body))),
			}, nil
		}),
	}
}
