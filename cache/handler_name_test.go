package cache

import "testing"

type namedHandler struct{ ResourceEventHandlerFuncs }

func (namedController) onAdd(any)         {}
func (namedController) onUpdate(any, any) {}

type namedController struct{}

func TestNameForHandler(t *testing.T) {
	ctl := namedController{}
	tests := []struct {
		name    string
		handler ResourceEventHandler
		want    string
	}{
		{name: "nil", handler: nil, want: "<nil>"},
		{name: "struct type", handler: namedHandler{}, want: "github.com/informer-go/informer/cache.namedHandler"},
		{name: "pointer to struct type", handler: &namedHandler{}, want: "github.com/informer-go/informer/cache.namedHandler"},
		{name: "nil pointer", handler: (*namedHandler)(nil), want: "*cache.namedHandler"},
		{name: "funcs of one type", handler: ResourceEventHandlerFuncs{AddFunc: ctl.onAdd, UpdateFunc: ctl.onUpdate},
			want: "github.com/informer-go/informer/cache.namedController"},
		{name: "pointer to funcs", handler: &ResourceEventHandlerFuncs{AddFunc: ctl.onAdd},
			want: "github.com/informer-go/informer/cache.namedController"},
		{name: "funcs from different places", handler: ResourceEventHandlerFuncs{AddFunc: ctl.onAdd, DeleteFunc: topLevelDelete},
			want: "github.com/informer-go/informer/cache.namedController.onAdd-fm+github.com/informer-go/informer/cache.topLevelDelete"},
		{name: "no funcs", handler: ResourceEventHandlerFuncs{}, want: "cache.ResourceEventHandlerFuncs"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := nameForHandler(tc.handler); got != tc.want {
				t.Errorf("nameForHandler = %q, want %q", got, tc.want)
			}
		})
	}
}

func topLevelDelete(any) {}
