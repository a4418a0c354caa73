package framework

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// continueAPIVersion versions the continue token, as the apiserver's does.
const continueAPIVersion = "meta.k8s.io/v1"

// continueToken is the decoded form of a list's continue parameter. It has
// the apiserver's layout: base64url (unpadded) JSON with the version, the
// resourceVersion of the first page and the key to start from, relative to
// the listed range. Clients must treat it as opaque.
type continueToken struct {
	APIVersion string `json:"v"`
	// ResourceVersion is the snapshot the pages are read from; -1 means "the
	// current one", as in the fresh token of a 410 for an expired token.
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

// encodeContinue returns the token that continues a list of the range under
// prefix from startKey (inclusive), at resourceVersion rv.
func encodeContinue(prefix, startKey string, rv int64) (string, error) {
	data, err := json.Marshal(continueToken{
		APIVersion:      continueAPIVersion,
		ResourceVersion: rv,
		StartKey:        strings.TrimPrefix(startKey, prefix),
	})
	if err != nil {
		return "", fmt.Errorf("encode continue token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(data), nil
}

// decodeContinue parses token into the absolute start key and the
// resourceVersion (-1 for "current"). A malformed token is a 400 Bad Request.
func decodeContinue(token, prefix string) (startKey string, rv int64, err error) {
	fail := func(reason string) (string, int64, error) {
		return "", 0, apierrors.NewBadRequest(fmt.Sprintf("invalid continue token: %s", reason))
	}
	data, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return fail(fmt.Sprintf("continue key is not valid: %v", err))
	}
	var c continueToken
	if err := json.Unmarshal(data, &c); err != nil {
		return fail(fmt.Sprintf("continue key is not valid: %v", err))
	}
	switch {
	case c.APIVersion != continueAPIVersion:
		return fail(fmt.Sprintf("continue key is not valid: server does not recognize this encoded key (version %q)", c.APIVersion))
	case c.ResourceVersion == 0 || c.ResourceVersion < -1:
		return fail(fmt.Sprintf("continue key is not valid: incorrect encoded start resourceVersion (version %s)", continueAPIVersion))
	case c.StartKey == "":
		return fail(fmt.Sprintf("continue key is not valid: encoded start key empty (version %s)", continueAPIVersion))
	}
	return prefix + c.StartKey, c.ResourceVersion, nil
}
