package cache

import (
	"context"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// recordingClient is a typed resource client: List returns its own list
// type, and both calls record the options they got.
type recordingClient struct {
	lists, watches []metav1.ListOptions
}

func (c *recordingClient) List(_ context.Context, opts metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
	c.lists = append(c.lists, opts)
	return &metav1.PartialObjectMetadataList{ListMeta: metav1.ListMeta{ResourceVersion: "3"}}, nil
}

func (c *recordingClient) Watch(_ context.Context, opts metav1.ListOptions) (watch.Interface, error) {
	c.watches = append(c.watches, opts)
	return watch.NewEmptyWatch(), nil
}

// optingOutClient says it does not support streaming lists, as client-go's
// fake clientsets do.
type optingOutClient struct{ recordingClient }

func (*optingOutClient) IsWatchListSemanticsUnSupported() bool { return true }

// Fake has the name of client-go's action recorder but not its package.
type Fake struct{}

// lookalikeFakeClient holds a type named Fake from another package.
type lookalikeFakeClient struct {
	recordingClient
	*Fake
}

// cyclicClient refers to itself through pointers and a struct field.
type cyclicClient struct {
	recordingClient
	next *cyclicClient //lint:ignore U1000 only its type matters
}

func TestNewListWatchFromTypedClientAppliesOptionsModifier(t *testing.T) {
	tests := []struct {
		name     string
		modifier func(*metav1.ListOptions)
		want     metav1.ListOptions
	}{
		{name: "nil modifier", want: metav1.ListOptions{ResourceVersion: "7"}},
		{
			name:     "selector",
			modifier: func(o *metav1.ListOptions) { o.LabelSelector = "app=a" },
			want:     metav1.ListOptions{ResourceVersion: "7", LabelSelector: "app=a"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := &recordingClient{}
			lw := NewListWatchFromTypedClient(client, tc.modifier)
			options := metav1.ListOptions{ResourceVersion: "7"}
			if _, err := lw.List(options); err != nil {
				t.Fatalf("List: %v", err)
			}
			w, err := ToListerWatcherWithContext(lw).WatchWithContext(t.Context(), options)
			if err != nil {
				t.Fatalf("WatchWithContext: %v", err)
			}
			w.Stop()
			if diff := cmp.Diff([]metav1.ListOptions{tc.want}, client.lists); diff != "" {
				t.Errorf("list options (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]metav1.ListOptions{tc.want}, client.watches); diff != "" {
				t.Errorf("watch options (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(metav1.ListOptions{ResourceVersion: "7"}, options); diff != "" {
				t.Errorf("the caller's options changed (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewListWatchFromTypedClientNilClient(t *testing.T) {
	tests := []struct {
		name   string
		client TypedListerWatcherClient[*metav1.PartialObjectMetadataList]
	}{
		{name: "nil interface"},
		{name: "nil pointer", client: (*recordingClient)(nil)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lw := ToListerWatcherWithContext(NewListWatchFromTypedClient(tc.client, nil))
			if _, err := lw.ListWithContext(t.Context(), metav1.ListOptions{}); !errors.Is(err, errNilTypedClient) {
				t.Errorf("ListWithContext error = %v, want %v", err, errNilTypedClient)
			}
			if _, err := lw.WatchWithContext(t.Context(), metav1.ListOptions{}); !errors.Is(err, errNilTypedClient) {
				t.Errorf("WatchWithContext error = %v, want %v", err, errNilTypedClient)
			}
		})
	}
}

func TestNewListWatchFromTypedClientWatchListSemantics(t *testing.T) {
	tests := []struct {
		name            string
		client          TypedListerWatcherClient[*metav1.PartialObjectMetadataList]
		wantUnsupported bool
	}{
		{name: "plain client", client: &recordingClient{}},
		{name: "client opting out", client: &optingOutClient{}, wantUnsupported: true},
		{name: "Fake of another package", client: &lookalikeFakeClient{}},
		{name: "self-referential client", client: &cyclicClient{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			lw := NewListWatchFromTypedClient(tc.client, nil)
			if got := clientLacksWatchListSemantics(lw); got != tc.wantUnsupported {
				t.Errorf("streaming lists unsupported = %v, want %v", got, tc.wantUnsupported)
			}
		})
	}
}
