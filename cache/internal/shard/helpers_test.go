package shard

// byteSource returns a source of numbers read from fuzz input: each call
// takes one byte, modulo n, and yields 0 once the bytes run out.
func byteSource(data []byte) func(n int) int {
	return func(n int) int {
		if len(data) == 0 {
			return 0
		}
		v := int(data[0]) % n
		data = data[1:]
		return v
	}
}
