package podtest

import (
	"encoding/json"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Pod mirrors the shape of core/v1's Pod (this module cannot import
// k8s.io/api): the same JSON field names and Go field types for the fields
// that [JSON]'s Pods set, so that a decoded Pod holds the same strings,
// maps, slices, pointers, quantities and times as a real one. Real Pods
// have more fields, all empty here; their structs are larger.
type Pod struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              PodSpec   `json:"spec,omitempty"`
	Status            PodStatus `json:"status,omitempty"`
}

// DeepCopyObject returns a copy of p that shares nothing mutable with it,
// through a JSON round trip.
func (p *Pod) DeepCopyObject() runtime.Object {
	raw, err := json.Marshal(p)
	if err != nil {
		panic(err) // a Pod always marshals
	}
	out := new(Pod)
	if err := json.Unmarshal(raw, out); err != nil {
		panic(err)
	}
	return out
}

// PodSpec mirrors core/v1's PodSpec.
type PodSpec struct {
	Volumes                       []Volume            `json:"volumes,omitempty"`
	Containers                    []Container         `json:"containers"`
	RestartPolicy                 string              `json:"restartPolicy,omitempty"`
	TerminationGracePeriodSeconds *int64              `json:"terminationGracePeriodSeconds,omitempty"`
	DNSPolicy                     string              `json:"dnsPolicy,omitempty"`
	ServiceAccountName            string              `json:"serviceAccountName,omitempty"`
	DeprecatedServiceAccount      string              `json:"serviceAccount,omitempty"`
	NodeName                      string              `json:"nodeName,omitempty"`
	SecurityContext               *PodSecurityContext `json:"securityContext,omitempty"`
	SchedulerName                 string              `json:"schedulerName,omitempty"`
	Tolerations                   []Toleration        `json:"tolerations,omitempty"`
	Priority                      *int32              `json:"priority,omitempty"`
	EnableServiceLinks            *bool               `json:"enableServiceLinks,omitempty"`
	PreemptionPolicy              *string             `json:"preemptionPolicy,omitempty"`
}

// Volume mirrors core/v1's Volume.
type Volume struct {
	Name         string `json:"name"`
	VolumeSource `json:",inline"`
}

// VolumeSource mirrors core/v1's VolumeSource.
type VolumeSource struct {
	EmptyDir  *EmptyDirVolumeSource  `json:"emptyDir,omitempty"`
	ConfigMap *ConfigMapVolumeSource `json:"configMap,omitempty"`
	Projected *ProjectedVolumeSource `json:"projected,omitempty"`
}

// EmptyDirVolumeSource mirrors core/v1's EmptyDirVolumeSource.
type EmptyDirVolumeSource struct {
	Medium    string             `json:"medium,omitempty"`
	SizeLimit *resource.Quantity `json:"sizeLimit,omitempty"`
}

// LocalObjectReference mirrors core/v1's LocalObjectReference.
type LocalObjectReference struct {
	Name string `json:"name,omitempty"`
}

// ConfigMapVolumeSource mirrors core/v1's ConfigMapVolumeSource.
type ConfigMapVolumeSource struct {
	LocalObjectReference `json:",inline"`
	Items                []KeyToPath `json:"items,omitempty"`
	DefaultMode          *int32      `json:"defaultMode,omitempty"`
}

// KeyToPath mirrors core/v1's KeyToPath.
type KeyToPath struct {
	Key  string `json:"key"`
	Path string `json:"path"`
}

// ProjectedVolumeSource mirrors core/v1's ProjectedVolumeSource.
type ProjectedVolumeSource struct {
	Sources     []VolumeProjection `json:"sources"`
	DefaultMode *int32             `json:"defaultMode,omitempty"`
}

// VolumeProjection mirrors core/v1's VolumeProjection.
type VolumeProjection struct {
	ConfigMap           *ConfigMapProjection           `json:"configMap,omitempty"`
	DownwardAPI         *DownwardAPIProjection         `json:"downwardAPI,omitempty"`
	ServiceAccountToken *ServiceAccountTokenProjection `json:"serviceAccountToken,omitempty"`
}

// ConfigMapProjection mirrors core/v1's ConfigMapProjection.
type ConfigMapProjection struct {
	LocalObjectReference `json:",inline"`
	Items                []KeyToPath `json:"items,omitempty"`
}

// DownwardAPIProjection mirrors core/v1's DownwardAPIProjection.
type DownwardAPIProjection struct {
	Items []DownwardAPIVolumeFile `json:"items,omitempty"`
}

// DownwardAPIVolumeFile mirrors core/v1's DownwardAPIVolumeFile.
type DownwardAPIVolumeFile struct {
	Path     string               `json:"path"`
	FieldRef *ObjectFieldSelector `json:"fieldRef,omitempty"`
}

// ServiceAccountTokenProjection mirrors core/v1's ServiceAccountTokenProjection.
type ServiceAccountTokenProjection struct {
	ExpirationSeconds *int64 `json:"expirationSeconds,omitempty"`
	Path              string `json:"path"`
}

// Container mirrors core/v1's Container.
type Container struct {
	Name                     string               `json:"name"`
	Image                    string               `json:"image,omitempty"`
	Command                  []string             `json:"command,omitempty"`
	Args                     []string             `json:"args,omitempty"`
	Ports                    []ContainerPort      `json:"ports,omitempty"`
	Env                      []EnvVar             `json:"env,omitempty"`
	Resources                ResourceRequirements `json:"resources,omitempty"`
	VolumeMounts             []VolumeMount        `json:"volumeMounts,omitempty"`
	LivenessProbe            *Probe               `json:"livenessProbe,omitempty"`
	ReadinessProbe           *Probe               `json:"readinessProbe,omitempty"`
	TerminationMessagePath   string               `json:"terminationMessagePath,omitempty"`
	TerminationMessagePolicy string               `json:"terminationMessagePolicy,omitempty"`
	ImagePullPolicy          string               `json:"imagePullPolicy,omitempty"`
	SecurityContext          *SecurityContext     `json:"securityContext,omitempty"`
}

// ContainerPort mirrors core/v1's ContainerPort.
type ContainerPort struct {
	Name          string `json:"name,omitempty"`
	ContainerPort int32  `json:"containerPort"`
	Protocol      string `json:"protocol,omitempty"`
}

// EnvVar mirrors core/v1's EnvVar.
type EnvVar struct {
	Name      string        `json:"name"`
	Value     string        `json:"value,omitempty"`
	ValueFrom *EnvVarSource `json:"valueFrom,omitempty"`
}

// EnvVarSource mirrors core/v1's EnvVarSource.
type EnvVarSource struct {
	FieldRef     *ObjectFieldSelector `json:"fieldRef,omitempty"`
	SecretKeyRef *SecretKeySelector   `json:"secretKeyRef,omitempty"`
}

// ObjectFieldSelector mirrors core/v1's ObjectFieldSelector.
type ObjectFieldSelector struct {
	APIVersion string `json:"apiVersion,omitempty"`
	FieldPath  string `json:"fieldPath"`
}

// SecretKeySelector mirrors core/v1's SecretKeySelector.
type SecretKeySelector struct {
	LocalObjectReference `json:",inline"`
	Key                  string `json:"key"`
}

// ResourceName mirrors core/v1's ResourceName, a named string type: a
// ResourceList is a map whose key type is not string itself.
type ResourceName string

// ResourceList mirrors core/v1's ResourceList.
type ResourceList map[ResourceName]resource.Quantity

// ResourceRequirements mirrors core/v1's ResourceRequirements.
type ResourceRequirements struct {
	Limits   ResourceList `json:"limits,omitempty"`
	Requests ResourceList `json:"requests,omitempty"`
}

// VolumeMount mirrors core/v1's VolumeMount.
type VolumeMount struct {
	Name      string `json:"name"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
	MountPath string `json:"mountPath"`
}

// Probe mirrors core/v1's Probe.
type Probe struct {
	ProbeHandler     `json:",inline"`
	TimeoutSeconds   int32 `json:"timeoutSeconds,omitempty"`
	PeriodSeconds    int32 `json:"periodSeconds,omitempty"`
	SuccessThreshold int32 `json:"successThreshold,omitempty"`
	FailureThreshold int32 `json:"failureThreshold,omitempty"`
}

// ProbeHandler mirrors core/v1's ProbeHandler.
type ProbeHandler struct {
	HTTPGet *HTTPGetAction `json:"httpGet,omitempty"`
}

// HTTPGetAction mirrors core/v1's HTTPGetAction.
type HTTPGetAction struct {
	Path   string             `json:"path,omitempty"`
	Port   intstr.IntOrString `json:"port"`
	Scheme string             `json:"scheme,omitempty"`
}

// Capabilities mirrors core/v1's Capabilities.
type Capabilities struct {
	Drop []string `json:"drop,omitempty"`
}

// SecurityContext mirrors core/v1's SecurityContext.
type SecurityContext struct {
	Capabilities             *Capabilities `json:"capabilities,omitempty"`
	RunAsNonRoot             *bool         `json:"runAsNonRoot,omitempty"`
	ReadOnlyRootFilesystem   *bool         `json:"readOnlyRootFilesystem,omitempty"`
	AllowPrivilegeEscalation *bool         `json:"allowPrivilegeEscalation,omitempty"`
}

// PodSecurityContext mirrors core/v1's PodSecurityContext.
type PodSecurityContext struct {
	RunAsUser *int64 `json:"runAsUser,omitempty"`
	FSGroup   *int64 `json:"fsGroup,omitempty"`
}

// Toleration mirrors core/v1's Toleration.
type Toleration struct {
	Key               string `json:"key,omitempty"`
	Operator          string `json:"operator,omitempty"`
	Value             string `json:"value,omitempty"`
	Effect            string `json:"effect,omitempty"`
	TolerationSeconds *int64 `json:"tolerationSeconds,omitempty"`
}

// PodStatus mirrors core/v1's PodStatus.
type PodStatus struct {
	ObservedGeneration int64             `json:"observedGeneration,omitempty"`
	Phase              string            `json:"phase,omitempty"`
	Conditions         []PodCondition    `json:"conditions,omitempty"`
	HostIP             string            `json:"hostIP,omitempty"`
	HostIPs            []HostIP          `json:"hostIPs,omitempty"`
	PodIP              string            `json:"podIP,omitempty"`
	PodIPs             []HostIP          `json:"podIPs,omitempty"`
	StartTime          *metav1.Time      `json:"startTime,omitempty"`
	ContainerStatuses  []ContainerStatus `json:"containerStatuses,omitempty"`
	QOSClass           string            `json:"qosClass,omitempty"`
}

// PodCondition mirrors core/v1's PodCondition.
type PodCondition struct {
	Type               string      `json:"type"`
	ObservedGeneration int64       `json:"observedGeneration,omitempty"`
	Status             string      `json:"status"`
	LastProbeTime      metav1.Time `json:"lastProbeTime,omitempty"`
	LastTransitionTime metav1.Time `json:"lastTransitionTime,omitempty"`
}

// HostIP mirrors core/v1's HostIP.
type HostIP struct {
	IP string `json:"ip"`
}

// ContainerStatus mirrors core/v1's ContainerStatus.
type ContainerStatus struct {
	Name         string              `json:"name"`
	State        ContainerState      `json:"state,omitempty"`
	Ready        bool                `json:"ready"`
	RestartCount int32               `json:"restartCount"`
	Image        string              `json:"image"`
	ImageID      string              `json:"imageID"`
	ContainerID  string              `json:"containerID,omitempty"`
	Started      *bool               `json:"started,omitempty"`
	VolumeMounts []VolumeMountStatus `json:"volumeMounts,omitempty"`
}

// ContainerState mirrors core/v1's ContainerState.
type ContainerState struct {
	Running *ContainerStateRunning `json:"running,omitempty"`
}

// ContainerStateRunning mirrors core/v1's ContainerStateRunning.
type ContainerStateRunning struct {
	StartedAt metav1.Time `json:"startedAt,omitempty"`
}

// VolumeMountStatus mirrors core/v1's VolumeMountStatus.
type VolumeMountStatus struct {
	Name      string `json:"name"`
	MountPath string `json:"mountPath"`
	ReadOnly  bool   `json:"readOnly,omitempty"`
}
