package framework

import (
	"fmt"
	"net"
	"os"
	"syscall"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Error texts of the apiserver, kept verbatim because clients match on some
// of them.
const (
	tooLargeResourceVersionCause = "Too large resource version"
	listTooOldMessage            = "The resourceVersion for the provided list is too old."
	continueTooOldMessage        = "The provided continue parameter is too old to display a consistent list result. " +
		"You can start a new list without the continue parameter, or use the continue token in this response to " +
		"retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - " +
		"objects that were created, modified, or deleted between the time the first chunk was returned and now may " +
		"show up in the list."
	optimisticLockMessage = "the object has been modified; please apply your changes to the latest version and try again"
)

// NewTooLargeResourceVersionError returns the error the apiserver answers a
// request for a resourceVersion it has not reached yet: a 504 Timeout status
// whose cause has type ResourceVersionTooLarge, which client-go's reflector
// recognises (it then relists from resourceVersion "").
func NewTooLargeResourceVersionError(minimum, current uint64) *apierrors.StatusError {
	err := apierrors.NewTimeoutError(fmt.Sprintf("Too large resource version: %d, current: %d", minimum, current), 1)
	err.ErrStatus.Details.Causes = []metav1.StatusCause{{
		Type:    metav1.CauseTypeResourceVersionTooLarge,
		Message: tooLargeResourceVersionCause,
	}}
	return err
}

// NewConnectionRefusedError returns an error as a client gets when it cannot
// connect to the apiserver. k8s.io/apimachinery/pkg/util/net's
// IsConnectionRefused recognises it, and so does client-go's reflector, which
// retries such watch failures without relisting.
func NewConnectionRefusedError() error {
	return &net.OpError{
		Op:  "dial",
		Net: "tcp",
		Err: os.NewSyscallError("connect", syscall.ECONNREFUSED),
	}
}

// newInvalidOptions is the 422 answer to list options that fail validation.
func newInvalidOptions(errs field.ErrorList) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}, "", errs)
}

// newInvalidResourceVersion is the answer to a resourceVersion that is not
// a number.
func newInvalidResourceVersion(gr schema.GroupResource, rv string, err error) error {
	return apierrors.NewInvalid(schema.GroupKind{Group: gr.Group, Kind: gr.Resource}, "",
		field.ErrorList{field.Invalid(field.NewPath("resourceVersion"), rv, err.Error())})
}
