package kinds

import (
	"fmt"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"github.com/informer-go/informer/internal/benchkit"
)

// DeploymentsPerNamespace is the number of Deployments of every namespace:
// Pod i belongs to Deployment [DeploymentOf](i) of namespace
// benchkit.NamespaceOf(i), so a list of n Pods has
// n/(benchkit.Namespaces*DeploymentsPerNamespace) replicas per Deployment.
const DeploymentsPerNamespace = 10

// Nodes is the number of nodes the Pods run on.
const Nodes = 50

// DeploymentOf returns the number, within its namespace, of the Deployment
// of Pod i.
func DeploymentOf(i int) int { return i / benchkit.Namespaces % DeploymentsPerNamespace }

// app is the template of the Pods of the Deployments of one application.
type app struct {
	name, team, version string
	port                int32
	cpu, memory         string // requests; the memory is also the limit
	logLevel            string
}

// apps are the applications the Deployments of a namespace run, in turn:
// Deployment d runs apps[d%len(apps)].
var apps = []app{
	{name: "web", team: "storefront", version: "2.14.3", port: 8080, cpu: "250m", memory: "512Mi", logLevel: "info"},
	{name: "api", team: "platform", version: "1.31.0", port: 8443, cpu: "500m", memory: "1Gi", logLevel: "info"},
	{name: "worker", team: "payments", version: "0.9.12", port: 9000, cpu: "1", memory: "2Gi", logLevel: "warn"},
	{name: "cache-proxy", team: "platform", version: "3.2.1", port: 6380, cpu: "100m", memory: "256Mi", logLevel: "error"},
}

// deployment is one Deployment: its app, its name and its ReplicaSet's.
type deployment struct {
	app
	appIndex       int // in apps
	name, rs, hash string
	index          int // among all Deployments
}

// deploymentOf returns the Deployment of Pod i.
func deploymentOf(i int) deployment {
	d := DeploymentOf(i)
	a := apps[d%len(apps)]
	index := i%benchkit.Namespaces*DeploymentsPerNamespace + d
	name := a.name + "-" + strconv.Itoa(d/len(apps))
	hash := templateHash(index)
	return deployment{app: a, appIndex: d % len(apps), name: name, rs: name + "-" + hash, hash: hash, index: index}
}

// PodName returns the name of Pod i, "<deployment>-<hash>-<suffix>" as a
// ReplicaSet names its Pods. The names of Pods 0 to 14 million are
// distinct, even across namespaces.
func PodName(i int) string { return deploymentOf(i).rs + "-" + suffix(0, i) }

// NewPod returns Pod i at resourceVersion rv as kube-apiserver returns a
// running Pod of a Deployment: created by kube-controller-manager (labels,
// annotations, a controller owner reference to its ReplicaSet, two
// containers with env, ports, probes, resources and volume mounts, the
// service account token volume and the default tolerations admission adds)
// and scheduled, its status written by the kubelet through the status
// subresource (conditions, IPs, two running container statuses), with the
// managedFields of those two managers.
func NewPod(i, rv int) *corev1.Pod {
	pod := podFor(i, deploymentOf(i))
	pod.ResourceVersion = strconv.Itoa(rv)
	pod.ManagedFields = podManagedFields(pod, i)
	return pod
}

// podFor returns Pod i of Deployment d, without its resourceVersion and
// managedFields.
func podFor(i int, d deployment) *corev1.Pod {
	ns := benchkit.NamespaceOf(i)
	created := epoch.Add(time.Duration(d.index)*time.Minute + time.Duration(i%97)*time.Second)
	started := metav1.NewTime(created.Add(2 * time.Second))
	ready := metav1.NewTime(created.Add(9 * time.Second))
	node := i * 7919 % Nodes
	podIP, hostIP := ip(10, 1<<16+i), ip(172, 16<<16+node)
	tokenVolume := "kube-api-access-" + suffix(1, i)
	image := "registry.example.com/" + d.team + "/" + d.app.name + ":" + d.version
	sidecarImage := "registry.example.com/observability/log-shipper:4.0.7"

	conditions := make([]corev1.PodCondition, 0, 5)
	for k, t := range []corev1.PodConditionType{"PodReadyToStartContainers", corev1.PodInitialized, corev1.PodReady, corev1.ContainersReady, corev1.PodScheduled} {
		at := ready
		if k == 1 || k == 4 {
			at = metav1.NewTime(created)
		}
		conditions = append(conditions, corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: at, ObservedGeneration: 1})
	}

	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:              PodName(i),
			GenerateName:      d.rs + "-",
			Namespace:         ns,
			UID:               benchkit.UID(10, i),
			Generation:        1,
			CreationTimestamp: metav1.NewTime(created),
			Labels: map[string]string{
				"app":                          d.app.name,
				"pod-template-hash":            d.hash,
				"app.kubernetes.io/name":       d.app.name,
				"app.kubernetes.io/instance":   d.name,
				"app.kubernetes.io/version":    d.version,
				"app.kubernetes.io/part-of":    d.team,
				"app.kubernetes.io/managed-by": "helm",
			},
			Annotations: map[string]string{
				"prometheus.io/scrape":              "true",
				"prometheus.io/port":                "9102",
				"kubectl.kubernetes.io/restartedAt": epoch.Add(time.Duration(d.index) * time.Minute).Format(time.RFC3339),
				"checksum/config":                   hexOf(20, d.index, 64),
			},
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion:         "apps/v1",
				Kind:               "ReplicaSet",
				Name:               d.rs,
				UID:                benchkit.UID(11, d.index),
				Controller:         ptr.To(true),
				BlockOwnerDeletion: ptr.To(true),
			}},
		},
		Spec: corev1.PodSpec{
			Volumes: []corev1.Volume{
				{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: d.name + "-config"}, DefaultMode: ptr.To[int32](420)}}},
				{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
				{Name: "logs", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: ptr.To(resource.MustParse("1Gi"))}}},
				{Name: "log-shipper-config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
					LocalObjectReference: corev1.LocalObjectReference{Name: "log-shipper"}, DefaultMode: ptr.To[int32](420)}}},
				tokenVolumeOf(tokenVolume),
			},
			Containers: []corev1.Container{
				{
					Name:  d.app.name,
					Image: image,
					Args:  []string{"--config=/etc/" + d.app.name + "/config.yaml", "--listen=:" + strconv.Itoa(int(d.port))},
					Ports: []corev1.ContainerPort{
						{Name: "http", ContainerPort: d.port, Protocol: corev1.ProtocolTCP},
						{Name: "metrics", ContainerPort: 9102, Protocol: corev1.ProtocolTCP},
					},
					Env: []corev1.EnvVar{
						{Name: "LOG_LEVEL", Value: d.logLevel},
						{Name: "LISTEN_PORT", Value: strconv.Itoa(int(d.port))},
						{Name: "DATABASE_URL", Value: "postgres://" + d.app.name + "@postgres." + ns + ".svc.cluster.local:5432/" + d.app.name + "?sslmode=require"},
						{Name: "CACHE_ADDR", Value: "redis-master." + ns + ".svc.cluster.local:6379"},
						{Name: "FEATURE_FLAGS", Value: "checkout-v2,async-billing,new-search"},
						{Name: "OTEL_EXPORTER_OTLP_ENDPOINT", Value: "http://otel-collector.observability.svc:4317"},
						fieldEnv("POD_NAME", "metadata.name"),
						fieldEnv("POD_NAMESPACE", "metadata.namespace"),
						fieldEnv("POD_IP", "status.podIP"),
						{Name: "API_TOKEN", ValueFrom: &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
							LocalObjectReference: corev1.LocalObjectReference{Name: d.name + "-credentials"}, Key: "api-token"}}},
					},
					Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(d.cpu), corev1.ResourceMemory: resource.MustParse(d.memory)},
						Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse(d.memory)},
					},
					VolumeMounts: []corev1.VolumeMount{
						{Name: "config", MountPath: "/etc/" + d.app.name, ReadOnly: true},
						{Name: "tmp", MountPath: "/tmp"},
						{Name: "logs", MountPath: "/var/log/" + d.app.name},
						{Name: tokenVolume, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true},
					},
					LivenessProbe:            httpProbe("/healthz", "http", 10),
					ReadinessProbe:           httpProbe("/ready", "http", 5),
					TerminationMessagePath:   corev1.TerminationMessagePathDefault,
					TerminationMessagePolicy: corev1.TerminationMessageReadFile,
					ImagePullPolicy:          corev1.PullIfNotPresent,
					SecurityContext: &corev1.SecurityContext{
						RunAsNonRoot:             ptr.To(true),
						ReadOnlyRootFilesystem:   ptr.To(true),
						AllowPrivilegeEscalation: ptr.To(false),
						Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
					},
				},
				{
					Name:  "log-shipper",
					Image: sidecarImage,
					Args:  []string{"--config=/fluent-bit/etc/fluent-bit.conf"},
					Ports: []corev1.ContainerPort{{Name: "shipper-metrics", ContainerPort: 2020, Protocol: corev1.ProtocolTCP}},
					Env: []corev1.EnvVar{
						{Name: "LOG_PATH", Value: "/var/log/" + d.app.name},
						{Name: "OUTPUT_HOST", Value: "logs.observability.svc.cluster.local"},
						fieldEnv("NODE_NAME", "spec.nodeName"),
					},
					Resources: corev1.ResourceRequirements{
						Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("50m"), corev1.ResourceMemory: resource.MustParse("64Mi")},
						Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("128Mi")},
					},
					VolumeMounts: []corev1.VolumeMount{
						{Name: "logs", MountPath: "/var/log/" + d.app.name, ReadOnly: true},
						{Name: "log-shipper-config", MountPath: "/fluent-bit/etc", ReadOnly: true},
						{Name: tokenVolume, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true},
					},
					ReadinessProbe:           httpProbe("/api/v1/health", "shipper-metrics", 10),
					TerminationMessagePath:   corev1.TerminationMessagePathDefault,
					TerminationMessagePolicy: corev1.TerminationMessageReadFile,
					ImagePullPolicy:          corev1.PullIfNotPresent,
				},
			},
			RestartPolicy:                 corev1.RestartPolicyAlways,
			TerminationGracePeriodSeconds: ptr.To[int64](30),
			DNSPolicy:                     corev1.DNSClusterFirst,
			ServiceAccountName:            "default",
			DeprecatedServiceAccount:      "default",
			NodeName:                      "node-" + strconv.Itoa(node),
			SecurityContext:               &corev1.PodSecurityContext{RunAsUser: ptr.To[int64](10001), FSGroup: ptr.To[int64](10001)},
			SchedulerName:                 corev1.DefaultSchedulerName,
			Tolerations: []corev1.Toleration{
				{Key: corev1.TaintNodeNotReady, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)},
				{Key: corev1.TaintNodeUnreachable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: ptr.To[int64](300)},
			},
			Priority:           ptr.To[int32](0),
			EnableServiceLinks: ptr.To(true),
			PreemptionPolicy:   ptr.To(corev1.PreemptLowerPriority),
		},
		Status: corev1.PodStatus{
			ObservedGeneration: 1,
			Phase:              corev1.PodRunning,
			Conditions:         conditions,
			HostIP:             hostIP,
			HostIPs:            []corev1.HostIP{{IP: hostIP}},
			PodIP:              podIP,
			PodIPs:             []corev1.PodIP{{IP: podIP}},
			StartTime:          &started,
			ContainerStatuses: []corev1.ContainerStatus{
				runningStatus(d.app.name, image, "registry.example.com/"+d.team+"/"+d.app.name+"@sha256:"+hexOf(21, d.appIndex, 64), hexOf(22, 2*i, 64), started, "/etc/"+d.app.name, tokenVolume),
				runningStatus("log-shipper", sidecarImage, "registry.example.com/observability/log-shipper@sha256:"+hexOf(23, 0, 64), hexOf(22, 2*i+1, 64), started, "/fluent-bit/etc", tokenVolume),
			},
			QOSClass: corev1.PodQOSBurstable,
		},
	}
}

// tokenVolumeOf returns the service account token volume that admission
// adds to every Pod.
func tokenVolumeOf(name string) corev1.Volume {
	return corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: ptr.To[int64](3607), Path: "token"}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: "kube-root-ca.crt"},
				Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace",
				FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		},
		DefaultMode: ptr.To[int32](420),
	}}}
}

func fieldEnv(name, path string) corev1.EnvVar {
	return corev1.EnvVar{Name: name, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: path}}}
}

func httpProbe(path, port string, period int32) *corev1.Probe {
	return &corev1.Probe{
		ProbeHandler:     corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString(port), Scheme: corev1.URISchemeHTTP}},
		TimeoutSeconds:   1,
		PeriodSeconds:    period,
		SuccessThreshold: 1,
		FailureThreshold: 3,
	}
}

// runningStatus returns the status of a running, ready container that
// mounts config read-only at configPath and the token volume.
func runningStatus(name, image, imageID, id string, started metav1.Time, configPath, tokenVolume string) corev1.ContainerStatus {
	return corev1.ContainerStatus{
		Name:        name,
		State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: started}},
		Ready:       true,
		Image:       image,
		ImageID:     imageID,
		ContainerID: "containerd://" + id,
		Started:     ptr.To(true),
		User:        &corev1.ContainerUser{Linux: &corev1.LinuxContainerUser{UID: 10001, GID: 10001, SupplementalGroups: []int64{10001}}},
		VolumeMounts: []corev1.VolumeMountStatus{
			{Name: "config", MountPath: configPath, ReadOnly: true, RecursiveReadOnly: ptr.To(corev1.RecursiveReadOnlyDisabled)},
			{Name: tokenVolume, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount", ReadOnly: true, RecursiveReadOnly: ptr.To(corev1.RecursiveReadOnlyDisabled)},
		},
	}
}

// Placeholders of the values that vary between the managed fields of the
// Pods of one app.
const (
	phOwner  = "@@owner-uid@@"
	phToken  = "@@token-volume@@"
	phPodIP  = "@@pod-ip@@"
	phHostIP = "@@host-ip@@"
)

// podFieldSets caches, per app, the managed-fields sets of the two managers
// of its Pods.
var podFieldSets sync.Map // app name → *[2]placeholders

// podManagedFields returns the managedFields of pod, Pod i: the fields
// kube-controller-manager set when it created the Pod, and those the
// kubelet set through the status subresource.
func podManagedFields(pod *corev1.Pod, i int) []metav1.ManagedFieldsEntry {
	sets := podFieldSetsOf(deploymentOf(i))
	created := pod.CreationTimestamp
	return []metav1.ManagedFieldsEntry{
		{
			Manager: "kube-controller-manager", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			Time: &created, FieldsType: "FieldsV1",
			FieldsV1: sets[0].replace(string(pod.OwnerReferences[0].UID), pod.Spec.Volumes[len(pod.Spec.Volumes)-1].Name),
		},
		{
			Manager: "kubelet", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1",
			Time: ptr.To(pod.Status.Conditions[2].LastTransitionTime), FieldsType: "FieldsV1",
			FieldsV1:    sets[1].replace(pod.Status.PodIP, pod.Status.HostIP),
			Subresource: "status",
		},
	}
}

// podFieldSetsOf returns the managed-fields sets of the Pods of d's app,
// computed once from a prototype Pod whose varying values are placeholders.
func podFieldSetsOf(d deployment) *[2]placeholders {
	if sets, ok := podFieldSets.Load(d.app.name); ok {
		return sets.(*[2]placeholders)
	}
	proto := podFor(0, d)
	proto.OwnerReferences[0].UID = phOwner
	proto.Spec.Volumes[len(proto.Spec.Volumes)-1].Name = phToken
	proto.Status.PodIP, proto.Status.PodIPs[0].IP = phPodIP, phPodIP
	proto.Status.HostIP, proto.Status.HostIPs[0].IP = phHostIP, phHostIP
	meta := map[string]any{
		"generateName":    proto.GenerateName,
		"labels":          proto.Labels,
		"annotations":     proto.Annotations,
		"ownerReferences": proto.OwnerReferences,
	}
	spec, err := fieldsV1(map[string]any{"metadata": meta, "spec": proto.Spec})
	if err != nil {
		panic(fmt.Sprintf("managed fields of a Pod's spec: %v", err)) // a bug in this package's Pods
	}
	status, err := fieldsV1(map[string]any{"status": proto.Status})
	if err != nil {
		panic(fmt.Sprintf("managed fields of a Pod's status: %v", err))
	}
	sets := &[2]placeholders{
		{names: []string{phOwner, phToken}, proto: string(spec)},
		{names: []string{phPodIP, phHostIP}, proto: string(status)},
	}
	for _, s := range sets {
		if err := s.check(); err != nil {
			panic(err)
		}
	}
	actual, _ := podFieldSets.LoadOrStore(d.app.name, sets)
	return actual.(*[2]placeholders)
}
