package kinds

import (
	"bytes"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"

	"github.com/informer-go/informer/internal/benchkit"
)

// TestPodShape checks what NewPod promises: a Pod of a ReplicaSet with two
// containers, their env, mounts, probes and resources, the default
// tolerations, a running status, and managedFields of two managers whose
// sets parse and name the Pod's own list keys.
func TestPodShape(t *testing.T) {
	pod := NewPod(1234, 99)
	if pod.ResourceVersion != "99" || pod.Namespace != benchkit.NamespaceOf(1234) || pod.Name != PodName(1234) {
		t.Errorf("pod %s/%s at %s, want %s/%s at 99", pod.Namespace, pod.Name, pod.ResourceVersion, benchkit.NamespaceOf(1234), PodName(1234))
	}
	if ref := metav1.GetControllerOf(pod); ref == nil || ref.Kind != "ReplicaSet" || pod.GenerateName != ref.Name+"-" {
		t.Errorf("controller %v, generateName %q: want the ReplicaSet the name derives from", ref, pod.GenerateName)
	}
	if got := len(pod.Spec.Containers); got != 2 {
		t.Fatalf("%d containers, want 2", got)
	}
	for _, c := range pod.Spec.Containers {
		if len(c.Env) == 0 || len(c.VolumeMounts) == 0 || c.ReadinessProbe == nil || len(c.Resources.Requests) == 0 {
			t.Errorf("container %s lacks env, volume mounts, a readiness probe or resource requests", c.Name)
		}
	}
	if len(pod.Spec.Tolerations) != 2 || len(pod.Status.Conditions) != 5 || len(pod.Status.ContainerStatuses) != 2 || pod.Status.Phase != corev1.PodRunning {
		t.Errorf("%d tolerations, %d conditions, %d container statuses, phase %s; want 2, 5, 2, Running",
			len(pod.Spec.Tolerations), len(pod.Status.Conditions), len(pod.Status.ContainerStatuses), pod.Status.Phase)
	}
	checkManagedFields(t, pod.ManagedFields, map[string][]string{
		"kube-controller-manager": {`"f:spec"`, `"k:{\"name\":\"` + pod.Spec.Volumes[4].Name + `\"}"`, `"k:{\"uid\":\"` + string(pod.OwnerReferences[0].UID) + `\"}"`},
		"kubelet":                 {`"f:status"`, `"k:{\"ip\":\"` + pod.Status.PodIP + `\"}"`, `"k:{\"ip\":\"` + pod.Status.HostIP + `\"}"`},
	})
	if pod.ManagedFields[1].Subresource != "status" {
		t.Errorf("the kubelet's entry is for subresource %q, want status", pod.ManagedFields[1].Subresource)
	}
}

// TestSecretShape checks what NewSecret promises: a TLS Secret of several
// KiB whose CA certificate is its issuer's, with managedFields of two
// managers.
func TestSecretShape(t *testing.T) {
	s := NewSecret(1234, 99)
	size := 0
	for _, v := range s.Data {
		size += len(v)
	}
	if s.Type != corev1.SecretTypeTLS || len(s.Data) != 3 || size < 5000 || size > 6500 {
		t.Errorf("type %s, %d values of %d bytes; want kubernetes.io/tls, 3 values of about 5.5 KiB", s.Type, len(s.Data), size)
	}
	if other := NewSecret(1234+Issuers, 1); !bytes.Equal(s.Data["ca.crt"], other.Data["ca.crt"]) || bytes.Equal(s.Data["tls.key"], other.Data["tls.key"]) {
		t.Error("two Secrets of one issuer do not share their CA certificate, or share their key")
	}
	checkManagedFields(t, s.ManagedFields, map[string][]string{
		"cert-manager-certificates-issuing":     {`"f:tls.crt"`, `"f:cert-manager.io/issuer-name"`},
		"cert-manager-certificates-key-manager": {`"f:tls.key"`},
	})
}

// checkManagedFields checks that entries has one entry per manager of want,
// whose field set parses and contains the strings want lists.
func checkManagedFields(t *testing.T, entries []metav1.ManagedFieldsEntry, want map[string][]string) {
	t.Helper()
	if len(entries) != len(want) {
		t.Errorf("%d managedFields entries, want %d", len(entries), len(want))
	}
	for _, e := range entries {
		contains, ok := want[e.Manager]
		if !ok {
			t.Errorf("unexpected manager %q", e.Manager)
			continue
		}
		var set fieldpath.Set
		if err := set.FromJSON(e.FieldsV1.GetRawReader()); err != nil {
			t.Errorf("%s: the field set does not parse: %v", e.Manager, err)
		}
		for _, s := range contains {
			if !strings.Contains(e.FieldsV1.GetRawString(), s) {
				t.Errorf("%s: the field set lacks %s:\n%s", e.Manager, s, e.FieldsV1.GetRawString())
			}
		}
	}
}

// TestPodsOfADeploymentShare checks that two Pods of one Deployment differ
// only in the values that differ between replicas.
func TestPodsOfADeploymentShare(t *testing.T) {
	a, b := NewPod(7, 1), NewPod(7+benchkit.Namespaces*DeploymentsPerNamespace, 1)
	if a.GenerateName != b.GenerateName {
		t.Fatalf("Pods of ReplicaSets %q and %q, want one", a.GenerateName, b.GenerateName)
	}
	// Overwrite in b what differs between replicas with a's values.
	b.Name, b.UID, b.CreationTimestamp = a.Name, a.UID, a.CreationTimestamp
	b.Spec.NodeName = a.Spec.NodeName
	tokenVolume := a.Spec.Volumes[4].Name
	b.Spec.Volumes[4].Name = tokenVolume
	for k := range b.Spec.Containers {
		b.Spec.Containers[k].VolumeMounts[len(b.Spec.Containers[k].VolumeMounts)-1].Name = tokenVolume
	}
	b.Status = a.Status
	b.ManagedFields = a.ManagedFields
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("Pods of one Deployment differ beyond the values of a replica (-a +b):\n%s", diff)
	}
}

// TestNamesDistinct checks that the objects of a list of a million have
// distinct keys, so that no two of them are one object.
func TestNamesDistinct(t *testing.T) {
	if testing.Short() {
		t.Skip("names a million objects")
	}
	for _, tc := range []struct {
		kind   string
		nameOf func(int) string
	}{{"pod", PodName}, {"secret", SecretName}} {
		seen := make(map[string]int, 1_000_000)
		for i := range 1_000_000 {
			key := benchkit.NamespaceOf(i) + "/" + tc.nameOf(i)
			if j, dup := seen[key]; dup {
				t.Fatalf("%ss %d and %d are both %s", tc.kind, j, i, key)
			}
			seen[key] = i
		}
	}
}
