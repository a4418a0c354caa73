package generate

import (
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/informer-go/informer/clientgo/internal/typesload"
)

// TestAPI checks the drop-in package against client-go v0.37.2's
// tools/cache: the same exported names, no more, no fewer; each type an
// alias denoting client-go's type (generic ones with the same type
// parameters); each constant of the same type and value; each variable and
// function of an identical type.
func TestAPI(t *testing.T) {
	pkgs, err := typesload.Load(clientGoCache, dropInCache)
	if err != nil {
		t.Fatal(err)
	}
	cg, dropIn := pkgs[clientGoCache], pkgs[dropInCache]
	exported := func(p *types.Package) []string {
		var names []string
		for _, name := range p.Scope().Names() {
			if p.Scope().Lookup(name).Exported() {
				names = append(names, name)
			}
		}
		return names
	}
	cgNames, dropInNames := exported(cg), exported(dropIn)
	if len(cgNames) < 190 {
		t.Fatalf("client-go's tools/cache has %d exported names; the loader missed some", len(cgNames))
	}
	for _, name := range dropInNames {
		if cg.Scope().Lookup(name) == nil {
			t.Errorf("%s is not a name of client-go's tools/cache", name)
		}
	}
	for _, name := range cgNames {
		want := cg.Scope().Lookup(name)
		got := dropIn.Scope().Lookup(name)
		if got == nil {
			t.Errorf("missing: %s", name)
			continue
		}
		if problem := compare(want, got); problem != "" {
			t.Errorf("%s: %s", name, problem)
		}
	}
	t.Logf("%d of client-go's %d exported names checked", len(dropInNames), len(cgNames))
}

// compare returns what is wrong with got, the drop-in's object of client-go's
// object want, or "".
func compare(want, got types.Object) string {
	switch want := want.(type) {
	case *types.TypeName:
		got, ok := got.(*types.TypeName)
		if !ok || !got.IsAlias() {
			return "not a type alias"
		}
		alias, ok := got.Type().(*types.Alias)
		if !ok {
			return "not a type alias"
		}
		rhs := alias.Rhs()
		if wantAlias, ok := want.Type().(*types.Alias); ok && want.IsAlias() {
			// client-go's own alias (StoreOption = func(*cache)): the same
			// alias or what it denotes.
			if rhs != types.Type(wantAlias) && !types.Identical(types.Unalias(rhs), types.Unalias(wantAlias)) {
				return "denotes " + rhs.String() + ", not " + wantAlias.String()
			}
			return ""
		}
		named, ok := types.Unalias(rhs).(*types.Named)
		if !ok || named.Origin() != want.Type() {
			return "denotes " + rhs.String() + ", not " + want.Type().String()
		}
		tparams := alias.TypeParams()
		wantParams := want.Type().(*types.Named).TypeParams()
		if tparams.Len() != wantParams.Len() || named.TypeArgs().Len() != tparams.Len() {
			return "type parameters differ"
		}
		for i := range tparams.Len() {
			if named.TypeArgs().At(i) != tparams.At(i) {
				return "type arguments are not the alias's own parameters in order"
			}
			if !types.Identical(types.Unalias(tparams.At(i).Constraint()), types.Unalias(wantParams.At(i).Constraint())) {
				return "constraint of " + tparams.At(i).String() + " differs"
			}
		}
	case *types.Const:
		got, ok := got.(*types.Const)
		if !ok {
			return "not a constant"
		}
		if !types.Identical(got.Type(), want.Type()) || !constant.Compare(got.Val(), token.EQL, want.Val()) {
			return "constant " + got.Val().String() + " of " + got.Type().String() + ", want " + want.Val().String() + " of " + want.Type().String()
		}
	case *types.Var:
		got, ok := got.(*types.Var)
		if !ok || !types.Identical(got.Type(), want.Type()) {
			return "not a variable of type " + want.Type().String()
		}
	case *types.Func:
		got, ok := got.(*types.Func)
		if !ok || !types.Identical(got.Type(), want.Type()) {
			return "not a function of type " + want.Type().String()
		}
	default:
		return "unexpected object"
	}
	return ""
}

// TestHandWrittenNames lists the names the drop-in declares itself: those
// whose informers run on informer-go, the ListWatch constructors and the
// metrics provider. The package documentation lists the same.
func TestHandWrittenNames(t *testing.T) {
	written, err := handWritten()
	if err != nil {
		t.Fatal(err)
	}
	var exported []string
	for name := range written {
		if token.IsExported(name) {
			exported = append(exported, name)
		}
	}
	slices.Sort(exported)
	want := []string{
		"NewFilteredListWatchFromClient", "NewIndexerInformer", "NewInformer", "NewInformerWithOptions",
		"NewListWatchFromClient", "NewSharedIndexInformer", "NewSharedIndexInformerWithOptions",
		"NewSharedInformer", "NewTransformingIndexerInformer", "NewTransformingInformer",
		"SetInformerMetricsProvider",
	}
	if !slices.Equal(exported, want) {
		t.Errorf("hand-written names %v, want %v (update the package documentation and this test)", exported, want)
	}
}

// TestDeprecations checks that the drop-in deprecates the package-level
// names client-go deprecates, and no others, so that linters warn on the
// same uses.
func TestDeprecations(t *testing.T) {
	want, err := deprecatedNames(clientGoCache)
	if err != nil {
		t.Fatal(err)
	}
	got, err := deprecatedNames(dropInCache)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) == 0 {
		t.Fatal("client-go deprecates nothing; the parser missed its comments")
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("deprecated names (-client-go +drop-in):\n%s", diff)
	}
}
