package kinds

import (
	"encoding/pem"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/informer-go/informer/internal/benchkit"
)

// Issuers is the number of certificate issuers: Secret i was issued by
// issuer i%Issuers, whose CA certificate and intermediate it holds.
const Issuers = 4

// SecretName returns the name of Secret i.
func SecretName(i int) string {
	return apps[i/benchkit.Namespaces%len(apps)].name + "-" + strconv.Itoa(i/benchkit.Namespaces) + "-tls"
}

// NewSecret returns Secret i at resourceVersion rv as kube-apiserver
// returns a TLS Secret that cert-manager issued: the labels and annotations
// cert-manager writes, the managedFields of its two controllers, and about
// 5.5 KiB of data: the issuer's CA certificate (ca.crt, the same for every
// Secret of the issuer), a leaf certificate followed by the issuer's
// intermediate (tls.crt) and an RSA 2048 private key (tls.key), in PEM.
// Certificates and keys are random bytes of their DER sizes.
func NewSecret(i, rv int) *corev1.Secret {
	s := secretFor(i)
	s.ResourceVersion = strconv.Itoa(rv)
	sets := secretFieldSets()
	s.ManagedFields = []metav1.ManagedFieldsEntry{
		{
			Manager: "cert-manager-certificates-key-manager", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1",
			Time: &s.CreationTimestamp, FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(sets[1]),
		},
		{
			Manager: "cert-manager-certificates-issuing", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1",
			Time: ptr.To(metav1.NewTime(s.CreationTimestamp.Add(3 * time.Second))), FieldsType: "FieldsV1", FieldsV1: metav1.NewFieldsV1(sets[0]),
		},
	}
	return s
}

// secretFor returns Secret i without its resourceVersion and managedFields.
func secretFor(i int) *corev1.Secret {
	ns := benchkit.NamespaceOf(i)
	name := SecretName(i)
	issuer := i % Issuers
	issuerName := "issuer-" + strconv.Itoa(issuer)
	dnsName := name + "." + ns + ".svc"
	created := metav1.NewTime(epoch.Add(time.Duration(i) * time.Second))
	leaf := pemOf("CERTIFICATE", 100, i, 1010)
	chain := make([]byte, 0, len(leaf)+1300)
	chain = append(append(chain, leaf...), pemOf("CERTIFICATE", 101, issuer, 910)...)
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name:              name,
			Namespace:         ns,
			UID:               benchkit.UID(30, i),
			CreationTimestamp: created,
			Labels: map[string]string{
				"controller.cert-manager.io/fao": "true",
				"app.kubernetes.io/name":         apps[i/benchkit.Namespaces%len(apps)].name,
			},
			Annotations: map[string]string{
				"cert-manager.io/alt-names":        dnsName + "," + dnsName + ".cluster.local",
				"cert-manager.io/certificate-name": name,
				"cert-manager.io/common-name":      dnsName,
				"cert-manager.io/ip-sans":          "",
				"cert-manager.io/issuer-group":     "cert-manager.io",
				"cert-manager.io/issuer-kind":      "ClusterIssuer",
				"cert-manager.io/issuer-name":      issuerName,
				"cert-manager.io/uri-sans":         "",
			},
		},
		Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{
			"ca.crt":  pemOf("CERTIFICATE", 102, issuer, 850),
			"tls.crt": chain,
			"tls.key": pemOf("RSA PRIVATE KEY", 103, i, 1192),
		},
	}
}

// pemOf returns a PEM block of type typ holding size random bytes derived
// from (space, i).
func pemOf(typ string, space, i, size int) []byte {
	r := rand.New(rand.NewPCG(uint64(space), uint64(i)))
	der := make([]byte, size)
	for k := range der {
		der[k] = byte(r.Uint32())
	}
	return pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
}

// secretFieldSets are the managed-fields sets of the two managers of every
// Secret, which set the same fields of every Secret.
var secretFieldSets = sync.OnceValue(func() [2]string {
	s := secretFor(0)
	issuing, err := fieldsV1(map[string]any{
		"metadata": map[string]any{"annotations": s.Annotations, "labels": s.Labels},
		"data":     s.Data,
		"type":     s.Type,
	})
	if err != nil {
		panic(fmt.Sprintf("managed fields of a Secret: %v", err)) // a bug in this package's Secrets
	}
	keyManager, err := fieldsV1(map[string]any{
		"metadata": map[string]any{"labels": map[string]string{"controller.cert-manager.io/fao": "true"}},
		"data":     map[string][]byte{"tls.key": nil},
	})
	if err != nil {
		panic(fmt.Sprintf("managed fields of a Secret: %v", err))
	}
	return [2]string{string(issuing), string(keyManager)}
})
