package cache

import (
	"errors"
	"fmt"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

func TestIsInvalidResourceVersion(t *testing.T) {
	invalidOptions := func(errs ...*field.Error) error {
		return apierrors.NewInvalid(metav1.SchemeGroupVersion.WithKind("ListOptions").GroupKind(), "", errs)
	}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{name: "list at a malformed version (kube-apiserver)", err: errListInvalidRV, want: true},
		{name: "watch from a malformed version (kube-apiserver)", err: errWatchInvalidRV, want: true},
		{name: "invalid resource version (fake server)", err: errInvalidRV, want: true},
		{name: "bad request naming the resource version", err: apierrors.NewBadRequest(`invalid resource version "abc"`), want: true},
		{name: "wrapped", err: fmt.Errorf("list pods: %w", errInvalidRV), want: true},
		{name: "malformed version in an answer", err: fmt.Errorf("stream: %w", errMalformedResourceVersion), want: true},
		{name: "invalid metadata.resourceVersion", err: invalidOptions(field.Invalid(field.NewPath("metadata", "resourceVersion"), "x", "bad")), want: true},
		{
			name: "sendInitialEvents refused",
			err: invalidOptions(field.Forbidden(field.NewPath("sendInitialEvents"), "sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled"),
				field.Forbidden(field.NewPath("resourceVersionMatch"), "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided")),
		},
		{name: "bad request about resourceVersionMatch", err: apierrors.NewBadRequest(`resourceVersionMatch: Unsupported value: "Newest"`)},
		{name: "internal error mentioning the resource version", err: apierrors.NewInternalError(errors.New("resourceVersion: unexpected"))},
		{name: "expired", err: errExpired},
		{name: "too large", err: errRVTooLarge},
		{name: "legacy too large", err: errLegacyTooBig},
		{name: "forbidden", err: errForbidden},
		{name: "not a status", err: errors.New("invalid resource version")},
		{name: "nil", err: nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := isInvalidResourceVersion(tc.err); got != tc.want {
				t.Errorf("isInvalidResourceVersion(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

func TestCheckResourceVersion(t *testing.T) {
	for rv, wantOK := range map[string]bool{
		"":                     true,
		"0":                    true,
		"123":                  true,
		"18446744073709551615": true,
		"18446744073709551616": false, // past uint64
		"abc":                  false,
		"-1":                   false,
		"+1":                   false,
		"1.5":                  false,
		" 1":                   false,
	} {
		err := checkResourceVersion(rv, "the list")
		if (err == nil) != wantOK {
			t.Errorf("checkResourceVersion(%q) = %v, want ok=%v", rv, err, wantOK)
		}
		if err != nil && !errors.Is(err, errMalformedResourceVersion) {
			t.Errorf("checkResourceVersion(%q) = %v, which does not wrap errMalformedResourceVersion", rv, err)
		}
	}
}
