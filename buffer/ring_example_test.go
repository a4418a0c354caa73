package buffer_test

import (
	"fmt"

	"github.com/informer-go/informer/buffer"
)

func ExampleRing() {
	r := buffer.NewRing[string](buffer.RingOptions{InitialSize: 2, NormalSize: 2})
	for _, s := range []string{"a", "b", "c"} {
		r.WriteOne(s) // the third write doubles the capacity
	}
	fmt.Println("len", r.Len(), "cap", r.Cap())
	var read []string
	for s, ok := r.ReadOne(); ok; s, ok = r.ReadOne() {
		read = append(read, s)
	}
	fmt.Println(read)
	fmt.Println("after drain: len", r.Len(), "cap", r.Cap())
	// Output:
	// len 3 cap 4
	// [a b c]
	// after drain: len 0 cap 2
}

func ExampleTypedRingFixed() {
	r, err := buffer.NewTypedRingFixed[byte](8)
	if err != nil {
		panic(err)
	}
	fmt.Fprint(r, "first line\n")
	fmt.Fprint(r, "second\n")
	fmt.Printf("%q, %d bytes written\n", r.Slice(), r.TotalWritten())
	// Output:
	// "\nsecond\n", 18 bytes written
}
