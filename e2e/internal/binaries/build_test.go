package binaries

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestStagingModules(t *testing.T) {
	tests := []struct {
		name  string
		gomod string
		want  []string
	}{
		{
			name:  "no replaces",
			gomod: "module k8s.io/kubernetes\n\nrequire k8s.io/api v0.0.0\n",
		},
		{
			name: "block",
			gomod: `module k8s.io/kubernetes

replace (
	k8s.io/api => ./staging/src/k8s.io/api
	k8s.io/apimachinery => ./staging/src/k8s.io/apimachinery
	github.com/other/mod => github.com/fork/mod v1.0.0
)
`,
			want: []string{"k8s.io/api", "k8s.io/apimachinery"},
		},
		{
			name:  "single line",
			gomod: "replace k8s.io/client-go => ./staging/src/k8s.io/client-go\n",
			want:  []string{"k8s.io/client-go"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, stagingModules(tc.gomod)); diff != "" {
				t.Errorf("stagingModules (-want +got):\n%s", diff)
			}
		})
	}
}

func TestCacheDirOverride(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(EnvBinDir, dir)
	got, err := CacheDir()
	if err != nil {
		t.Fatal(err)
	}
	if got != dir {
		t.Errorf("CacheDir() = %q, want %q", got, dir)
	}
}

func TestEnsureFromAssets(t *testing.T) {
	t.Run("missing binaries", func(t *testing.T) {
		t.Setenv(EnvAssets, t.TempDir())
		if _, err := Ensure(t.Context(), nil); err == nil {
			t.Error("Ensure with an empty $KUBEBUILDER_ASSETS succeeded, want an error")
		}
	})
}
