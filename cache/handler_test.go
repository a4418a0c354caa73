package cache

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// handlerLog is a ResourceEventHandler that records the calls it gets.
type handlerLog struct{ calls []string }

func (h *handlerLog) OnAdd(obj any, isInInitialList bool) {
	h.calls = append(h.calls, fmt.Sprintf("add %s initial=%v", testObjString(obj), isInInitialList))
}
func (h *handlerLog) OnUpdate(oldObj, newObj any) {
	h.calls = append(h.calls, fmt.Sprintf("update %s -> %s", testObjString(oldObj), testObjString(newObj)))
}
func (h *handlerLog) OnDelete(obj any) {
	if d, ok := obj.(DeletedFinalStateUnknown); ok {
		h.calls = append(h.calls, fmt.Sprintf("delete tombstone %s (%s)", d.Key, describeOrNil(d.Obj)))
		return
	}
	h.calls = append(h.calls, "delete "+testObjString(obj))
}

func describeOrNil(obj any) string {
	if obj == nil {
		return "nil"
	}
	return testObjString(obj)
}

func TestResourceEventHandlerFuncs(t *testing.T) {
	var got []string
	funcs := ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { got = append(got, "add "+testObjString(obj)) },
		UpdateFunc: func(o, n any) { got = append(got, "update "+testObjString(o)+" -> "+testObjString(n)) },
		DeleteFunc: func(obj any) { got = append(got, "delete "+testObjString(obj)) },
	}
	detailed := ResourceEventHandlerDetailedFuncs{
		AddFunc: func(obj any, initial bool) {
			got = append(got, fmt.Sprintf("add %s initial=%v", testObjString(obj), initial))
		},
		UpdateFunc: funcs.UpdateFunc,
		DeleteFunc: funcs.DeleteFunc,
	}
	a1, a2 := pom("a", "1"), pom("a", "2")
	for _, h := range []ResourceEventHandler{funcs, detailed, ResourceEventHandlerFuncs{}, ResourceEventHandlerDetailedFuncs{}} {
		h.OnAdd(a1, true)
		h.OnUpdate(a1, a2)
		h.OnDelete(a2)
	}
	want := []string{
		"add ns/a@1", "update ns/a@1 -> ns/a@2", "delete ns/a@2",
		"add ns/a@1 initial=true", "update ns/a@1 -> ns/a@2", "delete ns/a@2",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestFilteringResourceEventHandler(t *testing.T) {
	keep := func(obj any) bool {
		if d, ok := obj.(DeletedFinalStateUnknown); ok {
			return d.Key == "ns/keep"
		}
		return testObjString(obj) != "ns/a@drop"
	}
	inOld, inNew := pom("a", "in1"), pom("a", "in2")
	out := pom("a", "drop")
	tests := []struct {
		name   string
		filter func(any) bool
		nilH   bool
		call   func(h ResourceEventHandler)
		want   []string
	}{
		{name: "add passing", filter: keep, call: func(h ResourceEventHandler) { h.OnAdd(inOld, true) }, want: []string{"add ns/a@in1 initial=true"}},
		{name: "add failing", filter: keep, call: func(h ResourceEventHandler) { h.OnAdd(out, true) }},
		{name: "update both pass", filter: keep, call: func(h ResourceEventHandler) { h.OnUpdate(inOld, inNew) }, want: []string{"update ns/a@in1 -> ns/a@in2"}},
		{name: "update starts passing", filter: keep, call: func(h ResourceEventHandler) { h.OnUpdate(out, inNew) }, want: []string{"add ns/a@in2 initial=false"}},
		{name: "update stops passing", filter: keep, call: func(h ResourceEventHandler) { h.OnUpdate(inOld, out) }, want: []string{"delete ns/a@in1"}},
		{name: "update neither passes", filter: keep, call: func(h ResourceEventHandler) { h.OnUpdate(out, out) }},
		{name: "delete passing", filter: keep, call: func(h ResourceEventHandler) { h.OnDelete(inOld) }, want: []string{"delete ns/a@in1"}},
		{name: "delete failing", filter: keep, call: func(h ResourceEventHandler) { h.OnDelete(out) }},
		{
			name: "the filter sees tombstones themselves", filter: keep,
			call: func(h ResourceEventHandler) {
				h.OnDelete(DeletedFinalStateUnknown{Key: "ns/keep", Obj: out})
				h.OnDelete(DeletedFinalStateUnknown{Key: "ns/other", Obj: inOld})
			},
			want: []string{"delete tombstone ns/keep (ns/a@drop)"},
		},
		{name: "a nil filter passes everything", call: func(h ResourceEventHandler) { h.OnUpdate(out, inNew) }, want: []string{"update ns/a@drop -> ns/a@in2"}},
		{name: "a nil handler drops everything", nilH: true, filter: keep, call: func(h ResourceEventHandler) {
			h.OnAdd(inOld, false)
			h.OnUpdate(inOld, inNew)
			h.OnDelete(inOld)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			log := &handlerLog{}
			f := FilteringResourceEventHandler{FilterFunc: tc.filter, Handler: log}
			if tc.nilH {
				f.Handler = nil
			}
			tc.call(f)
			if diff := cmp.Diff(tc.want, log.calls); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}
