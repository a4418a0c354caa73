package compare

import (
	"context"
	"fmt"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/informer-go/informer/internal/benchkit"
)

// The media types of the wire, as kube-apiserver serves them.
const (
	// WireProtobuf is what kube-controller-manager and the other
	// components of Kubernetes ask for built-in kinds.
	WireProtobuf = runtime.ContentTypeProtobuf
	// WireJSON is what a client-go clientset asks for unless its
	// rest.Config says otherwise.
	WireJSON = runtime.ContentTypeJSON
)

// wireCodecs are the codecs of the kinds of core/v1.
var wireCodecs = func() serializer.CodecFactory {
	scheme := runtime.NewScheme()
	if err := corev1.AddToScheme(scheme); err != nil {
		panic(err) // registers a fixed set of types: fails only if k8s.io/api is broken
	}
	return serializer.NewCodecFactory(scheme)
}()

// wire is a serialization of objects of core/v1 as kube-apiserver writes
// them and a client reads them.
type wire struct {
	mediaType string
	encoder   runtime.Encoder
	decoder   runtime.Decoder
}

// newWire returns the wire of mediaType: the encoder of kube-apiserver, and
// the decoder of a clientset, which leaves the decoded objects' TypeMeta
// empty.
func newWire(mediaType string) (*wire, error) {
	info, ok := runtime.SerializerInfoForMediaType(wireCodecs.SupportedMediaTypes(), mediaType)
	if !ok {
		return nil, fmt.Errorf("no serializer for media type %q (want %s or %s)", mediaType, WireProtobuf, WireJSON)
	}
	return &wire{
		mediaType: mediaType,
		encoder:   wireCodecs.EncoderForVersion(info.Serializer, corev1.SchemeGroupVersion),
		decoder:   wireCodecs.WithoutConversion().DecoderToVersion(info.Serializer, corev1.SchemeGroupVersion),
	}, nil
}

func (w *wire) encode(obj runtime.Object) ([]byte, error) {
	return runtime.Encode(w.encoder, obj)
}

func (w *wire) decode(data []byte) (runtime.Object, error) {
	obj, _, err := w.decoder.Decode(data, nil, nil)
	return obj, err
}

// encoded wraps the bytes of an object sent as a watch event: a wireSource's
// watch decodes it into a new object.
func (w *wire) encoded(obj runtime.Object) (*runtime.Unknown, error) {
	data, err := w.encode(obj)
	if err != nil {
		return nil, err
	}
	return &runtime.Unknown{Raw: data, ContentType: w.mediaType}, nil
}

// wireSource is a ListerWatcher of both libraries that serves a serialized
// list and serialized watch events and decodes each of them into new
// objects as it hands them out, as a client does: the informer is the only
// holder of what it gets. Its watches take their events from the
// benchkit.Source it wraps, whose Events carry *runtime.Unknown objects
// (see wire.encoded); a goroutine per watch decodes them, as a client's
// watch decoder does.
type wireSource struct {
	*benchkit.Source
	wire *wire
	list []byte
}

// newWireSource returns a source that lists list, a list encoded on w.
func newWireSource(w *wire, list []byte) *wireSource {
	return &wireSource{Source: benchkit.NewSource(nil), wire: w, list: list}
}

// List decodes the list into new objects.
func (s *wireSource) List(metav1.ListOptions) (runtime.Object, error) {
	return s.wire.decode(s.list)
}

// ListWithContext is List.
func (s *wireSource) ListWithContext(_ context.Context, opts metav1.ListOptions) (runtime.Object, error) {
	return s.List(opts)
}

// Watch returns a watch of the events of the wrapped source, decoded.
func (s *wireSource) Watch(opts metav1.ListOptions) (watch.Interface, error) {
	in, err := s.Source.Watch(opts)
	if err != nil {
		return nil, err
	}
	w := &decodingWatch{in: in, out: make(chan watch.Event), stopped: make(chan struct{})}
	w.done.Add(1)
	go w.run(s.wire) // exits once stopped; Stop waits on w.done
	return w, nil
}

// WatchWithContext is Watch.
func (s *wireSource) WatchWithContext(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	return s.Watch(opts)
}

// decodingWatch decodes the events of in, whose objects are
// *runtime.Unknown, into new objects.
type decodingWatch struct {
	in       watch.Interface
	out      chan watch.Event
	stopOnce sync.Once
	stopped  chan struct{}
	done     sync.WaitGroup
}

func (w *decodingWatch) run(wire *wire) {
	defer w.done.Done()
	defer close(w.out)
	for {
		var e watch.Event
		select {
		case e = <-w.in.ResultChan():
		case <-w.stopped:
			return
		}
		if raw, ok := e.Object.(*runtime.Unknown); ok {
			obj, err := wire.decode(raw.Raw)
			if err != nil {
				e = watch.Event{Type: watch.Error, Object: &metav1.Status{Status: metav1.StatusFailure, Message: "decode a watch event: " + err.Error()}}
			} else {
				e.Object = obj
			}
		}
		select {
		case w.out <- e:
		case <-w.stopped:
			return
		}
	}
}

func (w *decodingWatch) ResultChan() <-chan watch.Event { return w.out }

// Stop stops the watch and waits until its decoding goroutine returned.
func (w *decodingWatch) Stop() {
	w.stopOnce.Do(func() {
		close(w.stopped)
		w.in.Stop()
	})
	w.done.Wait()
}
