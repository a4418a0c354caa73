package podtest

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// Namespaces and DeploymentsPerNamespace spread the Pods: Pod i lives in
// namespace "ns-<i%Namespaces>" and belongs to Deployment
// i/Namespaces%DeploymentsPerNamespace of it. Nodes is the number of nodes
// they run on.
const (
	Namespaces              = 100
	DeploymentsPerNamespace = 10
	Nodes                   = 50
)

// app is the template of the Pods of one application.
type app struct {
	name, team, version string
	port                int32
	cpu, memory         string
	logLevel            string
}

var apps = []app{
	{name: "web", team: "storefront", version: "2.14.3", port: 8080, cpu: "250m", memory: "512Mi", logLevel: "info"},
	{name: "api", team: "platform", version: "1.31.0", port: 8443, cpu: "500m", memory: "1Gi", logLevel: "info"},
	{name: "worker", team: "payments", version: "0.9.12", port: 9000, cpu: "1", memory: "2Gi", logLevel: "warn"},
	{name: "cache-proxy", team: "platform", version: "3.2.1", port: 6380, cpu: "100m", memory: "256Mi", logLevel: "error"},
}

// epoch is when the first Deployment was created.
var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// Typed returns Pod i decoded from [JSON](i).
func Typed(i int) *Pod {
	p := new(Pod)
	if err := json.Unmarshal(JSON(i), p); err != nil {
		panic(err) // a bug in this package
	}
	return p
}

// Unstructured returns Pod i decoded from [JSON](i), as a dynamic client
// decodes it.
func Unstructured(i int) *unstructured.Unstructured {
	u := new(unstructured.Unstructured)
	if err := u.UnmarshalJSON(JSON(i)); err != nil {
		panic(err)
	}
	return u
}

// JSON returns Pod i at resourceVersion i+1 as kube-apiserver serializes
// it, managedFields included.
func JSON(i int) []byte {
	pod := build(i)
	pod.ManagedFields = managedFields(pod)
	raw, err := json.Marshal(pod)
	if err != nil {
		panic(err)
	}
	return raw
}

// build returns Pod i without managedFields.
func build(i int) *Pod {
	ns := "ns-" + strconv.Itoa(i%Namespaces)
	d := i / Namespaces % DeploymentsPerNamespace
	a := apps[d%len(apps)]
	index := i%Namespaces*DeploymentsPerNamespace + d
	deploy := a.name + "-" + strconv.Itoa(d/len(apps))
	hash := hexOf(1, index, 10)
	rs := deploy + "-" + hash
	created := epoch.Add(time.Duration(index)*time.Minute + time.Duration(i%97)*time.Second)
	started := metav1.NewTime(created.Add(2 * time.Second))
	ready := metav1.NewTime(created.Add(9 * time.Second))
	node := i * 7919 % Nodes
	podIP := fmt.Sprintf("10.%d.%d.%d", 1+i>>16&255, i>>8&255, i&255)
	hostIP := fmt.Sprintf("172.16.%d.%d", node>>8, node&255)
	token := "kube-api-access-" + hexOf(2, i, 5)
	image := "registry.example.com/" + a.team + "/" + a.name + ":" + a.version
	sidecar := "registry.example.com/observability/log-shipper:4.0.7"
	port := strconv.Itoa(int(a.port))

	var conditions []PodCondition
	for k, t := range []string{"PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled"} {
		at := ready
		if k == 1 || k == 4 {
			at = metav1.NewTime(created)
		}
		conditions = append(conditions, PodCondition{Type: t, Status: "True", LastTransitionTime: at, ObservedGeneration: 1})
	}
	fieldEnv := func(name, path string) EnvVar {
		return EnvVar{Name: name, ValueFrom: &EnvVarSource{FieldRef: &ObjectFieldSelector{APIVersion: "v1", FieldPath: path}}}
	}
	probe := func(path, port string, period int32) *Probe {
		return &Probe{
			ProbeHandler:   ProbeHandler{HTTPGet: &HTTPGetAction{Path: path, Port: intstr.FromString(port), Scheme: "HTTP"}},
			TimeoutSeconds: 1, PeriodSeconds: period, SuccessThreshold: 1, FailureThreshold: 3,
		}
	}
	status := func(name, image, imageID, id, config string) ContainerStatus {
		return ContainerStatus{
			Name: name, State: ContainerState{Running: &ContainerStateRunning{StartedAt: started}}, Ready: true,
			Image: image, ImageID: imageID, ContainerID: "containerd://" + id, Started: ptr.To(true),
			VolumeMounts: []VolumeMountStatus{
				{Name: "config", MountPath: config, ReadOnly: true},
				{Name: token, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true},
			},
		}
	}
	return &Pod{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              rs + "-" + hexOf(3, i, 5),
			GenerateName:      rs + "-",
			Namespace:         ns,
			UID:               uid(10, i),
			ResourceVersion:   strconv.Itoa(i + 1),
			Generation:        1,
			CreationTimestamp: metav1.NewTime(created),
			Labels: map[string]string{
				"app":                          a.name,
				"pod-template-hash":            hash,
				"app.kubernetes.io/name":       a.name,
				"app.kubernetes.io/instance":   deploy,
				"app.kubernetes.io/version":    a.version,
				"app.kubernetes.io/part-of":    a.team,
				"app.kubernetes.io/managed-by": "helm",
			},
			Annotations: map[string]string{
				"prometheus.io/scrape":              "true",
				"prometheus.io/port":                "9102",
				"kubectl.kubernetes.io/restartedAt": epoch.Add(time.Duration(index) * time.Minute).Format(time.RFC3339),
				"checksum/config":                   hexOf(4, index, 64),
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: "apps/v1", Kind: "ReplicaSet", Name: rs, UID: uid(11, index),
				Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: PodSpec{
			Volumes: []Volume{
				{Name: "config", VolumeSource: VolumeSource{ConfigMap: &ConfigMapVolumeSource{LocalObjectReference: LocalObjectReference{Name: deploy + "-config"}, DefaultMode: ptr.To[int32](420)}}},
				{Name: "tmp", VolumeSource: VolumeSource{EmptyDir: &EmptyDirVolumeSource{}}},
				{Name: "logs", VolumeSource: VolumeSource{EmptyDir: &EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("1Gi"))}}},
				{Name: "log-shipper-config", VolumeSource: VolumeSource{ConfigMap: &ConfigMapVolumeSource{LocalObjectReference: LocalObjectReference{Name: "log-shipper"}, DefaultMode: ptr.To[int32](420)}}},
				{Name: token, VolumeSource: VolumeSource{Projected: &ProjectedVolumeSource{
					Sources: []VolumeProjection{
						{ServiceAccountToken: &ServiceAccountTokenProjection{ExpirationSeconds: ptr.To[int64](3607), Path: "token"}},
						{ConfigMap: &ConfigMapProjection{LocalObjectReference: LocalObjectReference{Name: "kube-root-ca.crt"}, Items: []KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
						{DownwardAPI: &DownwardAPIProjection{Items: []DownwardAPIVolumeFile{{Path: "namespace", FieldRef: &ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
					},
					DefaultMode: ptr.To[int32](420),
				}}},
			},
			Containers: []Container{
				{
					Name:  a.name,
					Image: image,
					Args:  []string{"--config=/etc/" + a.name + "/config.yaml", "--listen=:" + port},
					Ports: []ContainerPort{{Name: "http", ContainerPort: a.port, Protocol: "TCP"}, {Name: "metrics", ContainerPort: 9102, Protocol: "TCP"}},
					Env: []EnvVar{
						{Name: "LOG_LEVEL", Value: a.logLevel},
						{Name: "LISTEN_PORT", Value: port},
						{Name: "DATABASE_URL", Value: "postgres://" + a.name + "@postgres." + ns + ".svc.cluster.local:5432/" + a.name + "?sslmode=require"},
						{Name: "CACHE_ADDR", Value: "redis-master." + ns + ".svc.cluster.local:6379"},
						{Name: "FEATURE_FLAGS", Value: "checkout-v2,async-billing,new-search"},
						{Name: "OTEL_EXPORTER_OTLP_ENDPOINT", Value: "http://otel-collector.observability.svc:4317"},
						fieldEnv("POD_NAME", "metadata.name"),
						fieldEnv("POD_NAMESPACE", "metadata.namespace"),
						fieldEnv("POD_IP", "status.podIP"),
						{Name: "API_TOKEN", ValueFrom: &EnvVarSource{SecretKeyRef: &SecretKeySelector{LocalObjectReference: LocalObjectReference{Name: deploy + "-credentials"}, Key: "api-token"}}},
					},
					Resources: ResourceRequirements{
						Requests: ResourceList{"cpu": resource.MustParse(a.cpu), "memory": resource.MustParse(a.memory)},
						Limits:   ResourceList{"memory": resource.MustParse(a.memory)},
					},
					VolumeMounts: []VolumeMount{
						{Name: "config", MountPath: "/etc/" + a.name, ReadOnly: true},
						{Name: "tmp", MountPath: "/tmp"},
						{Name: "logs", MountPath: "/var/log/" + a.name},
						{Name: token, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true},
					},
					LivenessProbe:            probe("/healthz", "http", 10),
					ReadinessProbe:           probe("/ready", "http", 5),
					TerminationMessagePath:   "/dev/termination-log",
					TerminationMessagePolicy: "File",
					ImagePullPolicy:          "IfNotPresent",
					SecurityContext: &SecurityContext{
						RunAsNonRoot: ptr.To(true), ReadOnlyRootFilesystem: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false),
						Capabilities: &Capabilities{Drop: []string{"ALL"}},
					},
				},
				{
					Name:  "log-shipper",
					Image: sidecar,
					Args:  []string{"--config=/fluent-bit/etc/fluent-bit.conf"},
					Ports: []ContainerPort{{Name: "shipper-metrics", ContainerPort: 2020, Protocol: "TCP"}},
					Env: []EnvVar{
						{Name: "LOG_PATH", Value: "/var/log/" + a.name},
						{Name: "OUTPUT_HOST", Value: "logs.observability.svc.cluster.local"},
						fieldEnv("NODE_NAME", "spec.nodeName"),
					},
					Resources: ResourceRequirements{
						Requests: ResourceList{"cpu": resource.MustParse("50m"), "memory": resource.MustParse("64Mi")},
						Limits:   ResourceList{"memory": resource.MustParse("128Mi")},
					},
					VolumeMounts: []VolumeMount{
						{Name: "logs", MountPath: "/var/log/" + a.name, ReadOnly: true},
						{Name: "log-shipper-config", MountPath: "/fluent-bit/etc", ReadOnly: true},
						{Name: token, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true},
					},
					ReadinessProbe:           probe("/api/v1/health", "shipper-metrics", 10),
					TerminationMessagePath:   "/dev/termination-log",
					TerminationMessagePolicy: "File",
					ImagePullPolicy:          "IfNotPresent",
				},
			},
			RestartPolicy:                 "Always",
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			DNSPolicy:                     "ClusterFirst",
			ServiceAccountName:            "default",
			DeprecatedServiceAccount:      "default",
			NodeName:                      "node-" + strconv.Itoa(node),
			SecurityContext:               &PodSecurityContext{RunAsUser: ptr.To[int64](10001), FSGroup: ptr.To[int64](10001)},
			SchedulerName:                 "default-scheduler",
			Tolerations: []Toleration{
				{Key: "node.kubernetes.io/not-ready", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: ptr.To[int64](300)},
				{Key: "node.kubernetes.io/unreachable", Operator: "Exists", Effect: "NoExecute", TolerationSeconds: ptr.To[int64](300)},
			},
			Priority:           ptr.To[int32](0),
			EnableServiceLinks: ptr.To(true),
			PreemptionPolicy:   ptr.To("PreemptLowerPriority"),
		},
		Status: PodStatus{
			ObservedGeneration: 1,
			Phase:              "Running",
			Conditions:         conditions,
			HostIP:             hostIP,
			HostIPs:            []HostIP{{IP: hostIP}},
			PodIP:              podIP,
			PodIPs:             []HostIP{{IP: podIP}},
			StartTime:          &started,
			ContainerStatuses: []ContainerStatus{
				status(a.name, image, "registry.example.com/"+a.team+"/"+a.name+"@sha256:"+hexOf(5, d%len(apps), 64), hexOf(6, 2*i, 64), "/etc/"+a.name),
				status("log-shipper", sidecar, "registry.example.com/observability/log-shipper@sha256:"+hexOf(7, 0, 64), hexOf(6, 2*i+1, 64), "/fluent-bit/etc"),
			},
			QOSClass: "Burstable",
		},
	}
}

// managedFields returns the managedFields of pod: what kube-controller-
// manager set when it created the Pod, and what the kubelet set through
// the status subresource.
func managedFields(pod *Pod) []metav1.ManagedFieldsEntry {
	meta := map[string]any{
		"generateName": pod.GenerateName, "labels": pod.Labels,
		"annotations": pod.Annotations, "ownerReferences": pod.OwnerReferences,
	}
	created := pod.CreationTimestamp
	return []metav1.ManagedFieldsEntry{
		{
			Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			Time: &created, FieldsType: "FieldsV1",
			FieldsV1: metav1.NewFieldsV1(string(fieldSet(map[string]any{"metadata": meta, "spec": pod.Spec}))),
		},
		{
			Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			Time: ptr.To(pod.Status.Conditions[2].LastTransitionTime), FieldsType: "FieldsV1",
			FieldsV1:    metav1.NewFieldsV1(string(fieldSet(map[string]any{"status": pod.Status}))),
			Subresource: "status",
		},
	}
}

// listKeys are the key fields of the associative lists of a Pod, as
// core/v1's schema declares them; every other list is atomic.
var listKeys = map[string][]string{
	"containers": {"name"}, "env": {"name"}, "ports": {"containerPort", "protocol"},
	"volumeMounts": {"mountPath"}, "volumes": {"name"}, "ownerReferences": {"uid"},
	"conditions": {"type"}, "podIPs": {"ip"}, "hostIPs": {"ip"},
}

// fieldSet returns the FieldsV1 JSON of a manager that set every field of
// v, which marshals to a JSON object.
func fieldSet(v any) []byte {
	raw, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var tree map[string]any
	if err := json.Unmarshal(raw, &tree); err != nil {
		panic(err)
	}
	set := map[string]any{}
	for name, child := range tree {
		set["f:"+name] = fieldsOf(name, child, false)
	}
	out, err := json.Marshal(set) // sorted keys
	if err != nil {
		panic(err)
	}
	return out
}

// fieldsOf returns the set of the fields of value, the value of field
// name; whole lists the field's own entry (".").
func fieldsOf(name string, value any, whole bool) map[string]any {
	set := map[string]any{}
	switch v := value.(type) {
	case map[string]any:
		if len(v) == 0 {
			return set
		}
		if whole {
			set["."] = map[string]any{}
		}
		for k, child := range v {
			set["f:"+k] = fieldsOf(k, child, true)
		}
	case []any:
		keys, ok := listKeys[name]
		if !ok || len(v) == 0 {
			return set
		}
		if whole {
			set["."] = map[string]any{}
		}
		for _, item := range v {
			m, _ := item.(map[string]any)
			key := map[string]any{}
			for _, k := range keys {
				key[k] = m[k]
			}
			kj, _ := json.Marshal(key)
			set["k:"+string(kj)] = fieldsOf("", item, true)
		}
	}
	return set
}

// uid returns a uid derived from (space, i).
func uid(space, i int) types.UID {
	h := hexOf(space, i, 32)
	return types.UID(strings.Join([]string{h[:8], h[8:12], "4" + h[13:16], "8" + h[17:20], h[20:]}, "-"))
}

// hexOf returns n hexadecimal digits derived from (space, i).
func hexOf(space, i, n int) string {
	b := make([]byte, 0, n+16)
	for k := 0; len(b) < n; k++ {
		b = fmt.Appendf(b, "%016x", mix(uint64(space)<<40^uint64(i)<<8^uint64(k)))
	}
	return string(b[:n])
}

// mix scrambles v (splitmix64's finalizer).
func mix(v uint64) uint64 {
	v ^= v >> 30
	v *= 0xbf58476d1ce4e5b9
	v ^= v >> 27
	v *= 0x94d049bb133111eb
	return v ^ v>>31
}

// Name returns the name of Pod i.
func Name(i int) string { return build(i).Name }

// List returns the numbers of the Pods of the first namespaces namespaces,
// replicas Pods for each of their Deployments, in the order of their keys
// (namespace/name), the order in which kube-apiserver lists them: the Pods
// of one Deployment are next to each other.
func List(namespaces, replicas int) []int {
	var ids []int
	for r := range replicas {
		for d := range DeploymentsPerNamespace {
			for ns := range min(namespaces, Namespaces) {
				ids = append(ids, r*Namespaces*DeploymentsPerNamespace+d*Namespaces+ns)
			}
		}
	}
	keys := make(map[int]string, len(ids))
	for _, i := range ids {
		keys[i] = "ns-" + strconv.Itoa(i%Namespaces) + "/" + Name(i)
	}
	slices.SortFunc(ids, func(a, b int) int { return strings.Compare(keys[a], keys[b]) })
	return ids
}
