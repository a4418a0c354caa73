package kinds

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// suffixAlphabet is the alphabet of the random suffixes of generated names
// (a ReplicaSet's pod-template-hash, a Pod's name): no vowels and no digits
// that read as them.
const suffixAlphabet = "bcdfghjklmnpqrstvwxz2456789"

// suffixSpace is the number of distinct 5-character suffixes, 27^5 = 3^15.
const suffixSpace = 14_348_907

// suffix returns a 5-character suffix for i in space: a bijection of i
// modulo suffixSpace for every space, so that objects i < suffixSpace have
// distinct suffixes, scattered as generated ones are.
func suffix(space, i int) string {
	// Multiplying by a number prime to 3 permutes the residues modulo 3^15.
	v := (uint64(i)*2_654_435_761 + uint64(space)*7_777_777) % suffixSpace
	return encodeSuffix(v, 5)
}

// encodeSuffix writes v in base 27 with suffixAlphabet, in width characters.
func encodeSuffix(v uint64, width int) string {
	b := make([]byte, width)
	for k := width - 1; k >= 0; k-- {
		b[k] = suffixAlphabet[v%uint64(len(suffixAlphabet))]
		v /= uint64(len(suffixAlphabet))
	}
	return string(b)
}

// templateHash returns the 10-character pod-template-hash of ReplicaSet i.
func templateHash(i int) string {
	return encodeSuffix(mix(uint64(i)+1)%(suffixSpace*suffixSpace), 10)
}

// mix scrambles v (splitmix64's finalizer).
func mix(v uint64) uint64 {
	v ^= v >> 30
	v *= 0xbf58476d1ce4e5b9
	v ^= v >> 27
	v *= 0x94d049bb133111eb
	return v ^ v>>31
}

// hexOf returns n hexadecimal digits derived from (space, i), like a
// sha256 sum or a container id.
func hexOf(space, i, n int) string {
	b := make([]byte, 0, n+16)
	for k := 0; len(b) < n; k++ {
		b = fmt.Appendf(b, "%016x", mix(uint64(space)<<40^uint64(i)<<8^uint64(k)))
	}
	return string(b[:n])
}

// ip returns the IPv4 address base.x.y.z that is the n-th after base.0.0.0
// (base is the first octet, n < 2^24).
func ip(base, n int) string {
	var b strings.Builder
	b.Grow(15)
	for k, v := range []int{base, n >> 16 & 255, n >> 8 & 255, n & 255} {
		if k > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strconv.Itoa(v))
	}
	return b.String()
}

// epoch is the creation time of the first object; later ones follow it.
var epoch = time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)
