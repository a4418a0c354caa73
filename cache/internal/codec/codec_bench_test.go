package codec

import (
	"bytes"
	"compress/flate"
	"fmt"
	"io"
	"testing"

	"github.com/informer-go/informer/internal/benchkit"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// benchObjects is the number of distinct objects a benchmark cycles over.
const benchObjects = 1000

// benchCases are the codecs of the benchmarks with their objects: the
// ~1 KiB ConfigMap-shaped benchmark object in each format, and its
// metadata with two managers' managedFields.
func benchCases() []struct {
	name    string
	example runtime.Object
	opts    Options
	obj     func(i int) runtime.Object
} {
	return []struct {
		name    string
		example runtime.Object
		opts    Options
		obj     func(i int) runtime.Object
	}{
		{"metadata/protobuf", &metav1.PartialObjectMetadata{}, Options{}, func(i int) runtime.Object { return newMetadata(i, false) }},
		{"configmap/protobuf", &configMap{}, Options{}, func(i int) runtime.Object { return newConfigMap(i, true) }},
		{"configmap/json", &plain{}, Options{AllowJSON: true}, func(i int) runtime.Object { return newPlain(i) }},
		{"unstructured/cbor", &unstructured.Unstructured{}, Options{Unstructured: CBOR}, func(i int) runtime.Object { return newUnstructured(i) }},
		{"unstructured/json", &unstructured.Unstructured{}, Options{Unstructured: JSON}, func(i int) runtime.Object { return newUnstructured(i) }},
		{"pod/cbor", &unstructured.Unstructured{}, Options{Unstructured: CBOR}, func(i int) runtime.Object { return newPod(i) }},
		{"pod/json", &unstructured.Unstructured{}, Options{Unstructured: JSON}, func(i int) runtime.Object { return newPod(i) }},
	}
}

// podJSON is a Pod as kube-apiserver returns it, with managedFields of two
// managers, two containers, probes, resources, tolerations and status;
// %[1]d is the Pod's number.
const podJSON = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-7d4b9c8f6d-%[1]d","generateName":"web-7d4b9c8f6d-","namespace":"ns-%[1]d","uid":"0b7c2f4e-6a1d-4c8e-9f3a-%012[1]d","resourceVersion":"%[1]d","creationTimestamp":"2026-01-02T03:04:05Z","labels":{"app":"web","pod-template-hash":"7d4b9c8f6d","tier":"frontend"},"annotations":{"kubectl.kubernetes.io/restartedAt":"2026-01-01T00:00:00Z"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"web-7d4b9c8f6d","uid":"5e2d1c3b-7a8f-4e6d-9c0b-1a2b3c4d5e6f","controller":true,"blockOwnerDeletion":true}],"managedFields":[{"manager":"kube-controller-manager","operation":"Update","apiVersion":"v1","time":"2026-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:generateName":{},"f:labels":{".":{},"f:app":{},"f:pod-template-hash":{}},"f:ownerReferences":{".":{},"k:{\"uid\":\"5e2d1c3b\"}":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"web\"}":{".":{},"f:image":{},"f:name":{},"f:ports":{}}}}}},{"manager":"kubelet","operation":"Update","apiVersion":"v1","time":"2026-01-02T03:04:15Z","fieldsType":"FieldsV1","fieldsV1":{"f:status":{"f:conditions":{},"f:containerStatuses":{},"f:hostIP":{},"f:phase":{},"f:podIP":{},"f:startTime":{}}},"subresource":"status"}]},"spec":{"containers":[{"name":"web","image":"registry.example.com/web:1.2.3","ports":[{"name":"http","containerPort":8080,"protocol":"TCP"}],"env":[{"name":"LOG_LEVEL","value":"info"},{"name":"POD_NAME","valueFrom":{"fieldRef":{"apiVersion":"v1","fieldPath":"metadata.name"}}}],"resources":{"limits":{"cpu":"500m","memory":"256Mi"},"requests":{"cpu":"100m","memory":"128Mi"}},"volumeMounts":[{"name":"kube-api-access-abcde","readOnly":true,"mountPath":"/var/run/secrets/kubernetes.io/serviceaccount"}],"livenessProbe":{"httpGet":{"path":"/healthz","port":8080,"scheme":"HTTP"},"initialDelaySeconds":10,"timeoutSeconds":1,"periodSeconds":10,"successThreshold":1,"failureThreshold":3},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"},{"name":"sidecar","image":"registry.example.com/proxy:0.9","resources":{"requests":{"cpu":"10m","memory":"16Mi"}},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File","imagePullPolicy":"IfNotPresent"}],"restartPolicy":"Always","terminationGracePeriodSeconds":30,"dnsPolicy":"ClusterFirst","serviceAccountName":"default","nodeName":"node-%[1]d","securityContext":{},"schedulerName":"default-scheduler","tolerations":[{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}],"priority":0,"enableServiceLinks":true,"preemptionPolicy":"PreemptLowerPriority"},"status":{"phase":"Running","conditions":[{"type":"Initialized","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-02T03:04:05Z"},{"type":"Ready","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-02T03:04:15Z"},{"type":"ContainersReady","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-02T03:04:15Z"},{"type":"PodScheduled","status":"True","lastProbeTime":null,"lastTransitionTime":"2026-01-02T03:04:05Z"}],"hostIP":"10.0.0.%[1]d","podIP":"10.244.1.%[1]d","startTime":"2026-01-02T03:04:05Z","containerStatuses":[{"name":"web","state":{"running":{"startedAt":"2026-01-02T03:04:10Z"}},"ready":true,"restartCount":0,"image":"registry.example.com/web:1.2.3","imageID":"registry.example.com/web@sha256:%064[1]d","containerID":"containerd://%064[1]d","started":true}],"qosClass":"Burstable"}}`

// newPod returns Pod i as a client decodes it from kube-apiserver's JSON
// into an *unstructured.Unstructured.
func newPod(i int) *unstructured.Unstructured {
	var content map[string]any
	if err := utiljson.Unmarshal(fmt.Appendf(nil, podJSON, i), &content); err != nil {
		panic(err)
	}
	return &unstructured.Unstructured{Object: content}
}

// reportCPU reports the process's CPU time per operation since start, a
// figure that other processes on the machine disturb less than the time.
func reportCPU(b *testing.B, start benchkit.Usage) {
	b.ReportMetric(float64(start.Spent().CPU.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// newPlain returns a typed object without protobuf methods holding as much
// as benchmark object i.
func newPlain(i int) *plain {
	cm := newConfigMap(i, true)
	sel := map[string]string{}
	for k, v := range cm.Data {
		sel[k] = v
	}
	return &plain{TypeMeta: cm.TypeMeta, ObjectMeta: cm.ObjectMeta, Spec: plainSpec{Replicas: int64(i), Ratio: 0.5, Selector: sel}}
}

func BenchmarkEncode(b *testing.B) {
	for _, bc := range benchCases() {
		b.Run(bc.name, func(b *testing.B) {
			c := mustNew(b, bc.example, bc.opts)
			objs := make([]runtime.Object, benchObjects)
			size := 0
			for i := range objs {
				objs[i] = bc.obj(i)
				enc, err := c.Encode(objs[i])
				if err != nil {
					b.Fatal(err)
				}
				size += len(enc)
			}
			b.ReportAllocs()
			start := benchkit.ReadUsage()
			for i := 0; b.Loop(); i++ {
				if _, err := c.Encode(objs[i%len(objs)]); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
			b.ReportMetric(float64(size)/float64(len(objs)), "bytes/obj")
		})
	}
}

func BenchmarkDecode(b *testing.B) {
	for _, bc := range benchCases() {
		b.Run(bc.name, func(b *testing.B) {
			c := mustNew(b, bc.example, bc.opts)
			encs := encodeAll(b, c, bc.obj)
			b.ReportAllocs()
			start := benchkit.ReadUsage()
			for i := 0; b.Loop(); i++ {
				if _, err := c.Decode(encs[i%len(encs)]); err != nil {
					b.Fatal(err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// encodeAll returns the encodings of benchObjects objects.
func encodeAll(b *testing.B, c *Codec, obj func(int) runtime.Object) [][]byte {
	b.Helper()
	encs := make([][]byte, benchObjects)
	for i := range encs {
		enc, err := c.Encode(obj(i))
		if err != nil {
			b.Fatal(err)
		}
		encs[i] = enc
	}
	return encs
}

// BenchmarkDictionary measures what a shared compression dictionary (issue
// 23's stretch goal, not built) would give: DEFLATE with a preset
// dictionary made of 8 other objects' encodings, per object, and the CPU of
// compressing and decompressing one. It only measures.
func BenchmarkDictionary(b *testing.B) {
	for _, bc := range benchCases() {
		c := mustNew(b, bc.example, bc.opts)
		encs := encodeAll(b, c, bc.obj)
		var dict []byte
		for i := range 8 {
			dict = append(dict, c.mustEncode(b, bc.obj(benchObjects+i))...)
		}
		dict = dict[max(0, len(dict)-32<<10):]
		var compressed [][]byte
		raw, packed := 0, 0
		var buf bytes.Buffer
		w, err := flate.NewWriterDict(&buf, flate.BestSpeed, dict)
		if err != nil {
			b.Fatal(err)
		}
		compress := func(enc []byte) []byte {
			buf.Reset()
			w.Reset(&buf)
			_, _ = w.Write(enc)
			_ = w.Close()
			return bytes.Clone(buf.Bytes())
		}
		for _, enc := range encs {
			z := compress(enc)
			compressed = append(compressed, z)
			raw += len(enc)
			packed += len(z)
		}
		b.Run(bc.name+"/compress", func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				compress(encs[i%len(encs)])
			}
			b.ReportMetric(float64(packed)/float64(len(encs)), "bytes/obj")
			b.ReportMetric(float64(packed)/float64(raw), "ratio")
		})
		b.Run(bc.name+"/decompress", func(b *testing.B) {
			r := flate.NewReaderDict(bytes.NewReader(nil), dict)
			out := make([]byte, 0, 64<<10)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				_ = r.(flate.Resetter).Reset(bytes.NewReader(compressed[i%len(compressed)]), dict)
				out = out[:0]
				var err error
				if out, err = readAll(r, out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// mustEncode returns c.Encode(obj) or fails the benchmark.
func (c *Codec) mustEncode(b *testing.B, obj runtime.Object) []byte {
	b.Helper()
	enc, err := c.Encode(obj)
	if err != nil {
		b.Fatal(err)
	}
	return enc
}

// readAll reads r to its end into buf.
func readAll(r io.Reader, buf []byte) ([]byte, error) {
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := r.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return buf, err
		}
	}
}
