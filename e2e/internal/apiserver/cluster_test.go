package apiserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestNamespacePrefix(t *testing.T) {
	tests := []struct {
		name     string
		testName string
		want     string
	}{
		{name: "plain", testName: "TestX", want: "testx-"},
		{name: "subtest", testName: "TestConformance/list/rv=0", want: "testconformance-list-rv-0-"},
		{name: "leading separator", testName: "/a", want: "a-"},
		{name: "long", testName: "TestAVeryLongNameThatGoesOnAndOnAndOnBeyondTheLimitOfNamespaces", want: "testaverylongnamethatgoesonandonandonbeyondthelimi-"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, namespacePrefix(tc.testName)); diff != "" {
				t.Errorf("namespacePrefix(%q) (-want +got):\n%s", tc.testName, diff)
			}
		})
	}
}

func TestTail(t *testing.T) {
	tests := []struct {
		name string
		data string
		n    int
		want string
	}{
		{name: "empty", data: "", n: 3, want: "\n"},
		{name: "fewer lines", data: "a\nb\n", n: 3, want: "a\nb\n"},
		{name: "more lines", data: "a\nb\nc\nd\n", n: 2, want: "c\nd\n"},
		{name: "no final newline", data: "a\nb\nc", n: 2, want: "b\nc\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, string(tail([]byte(tc.data), tc.n))); diff != "" {
				t.Errorf("tail (-want +got):\n%s", diff)
			}
		})
	}
}
