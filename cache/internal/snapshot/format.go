package snapshot

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"strings"
)

// FormatVersion is the version of the file format this package writes and
// the only one it loads.
const FormatVersion = 1

const (
	magic    = "\x89ISNAP\r\n"
	endMagic = "\x89IEND\r\n\x1a"
	// preambleLen is the length of magic, version and headerLen.
	preambleLen = len(magic) + 4 + 4
	// maxHeaderLen bounds the header a loader reads.
	maxHeaderLen = 1 << 20
	// trailerLen is the length of count, itemsCRC and end.
	trailerLen = 8 + 4 + len(endMagic)
)

// castagnoli is the CRC-32C table, which CPUs compute in hardware.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Identity is what a snapshot is a snapshot of. A loader refuses a file
// whose identity differs from the one it expects in any field, so every
// field that changes what the informer would list must be here. The
// strings are the caller's; compare them as the caller builds them (for
// example, selectors in their canonical String form).
type Identity struct {
	// Cluster identifies the cluster, as the caller knows it (for example
	// the API server's URL and the kube-system namespace's uid).
	Cluster string `json:"cluster"`
	// Type identifies the objects' type (for example "v1, Kind=Pod", or
	// the Go type of the informer's example object).
	Type string `json:"type"`
	// Encoding names the encoding of the items (for example the codec's
	// format, "protobuf"), so that a decoder never sees bytes of another.
	Encoding string `json:"encoding"`
	// Namespace is the namespace the informer lists, empty for all.
	Namespace string `json:"namespace,omitempty"`
	// LabelSelector is the label selector of the list and watch.
	LabelSelector string `json:"labelSelector,omitempty"`
	// FieldSelector is the field selector of the list and watch.
	FieldSelector string `json:"fieldSelector,omitempty"`
	// ShardSelector is the shard selector of the list and watch.
	ShardSelector string `json:"shardSelector,omitempty"`
}

// mismatch describes the first field in which got differs from want, or
// returns "" when they are equal.
func (want Identity) mismatch(got Identity) string {
	fields := []struct {
		name      string
		got, want string
	}{
		{"cluster", got.Cluster, want.Cluster},
		{"type", got.Type, want.Type},
		{"encoding", got.Encoding, want.Encoding},
		{"namespace", got.Namespace, want.Namespace},
		{"label selector", got.LabelSelector, want.LabelSelector},
		{"field selector", got.FieldSelector, want.FieldSelector},
		{"shard selector", got.ShardSelector, want.ShardSelector},
	}
	var diffs []string
	for _, f := range fields {
		if f.got != f.want {
			diffs = append(diffs, fmt.Sprintf("%s is %q, want %q", f.name, f.got, f.want))
		}
	}
	return strings.Join(diffs, ", ")
}

// Header is the description at the start of a snapshot file.
type Header struct {
	Identity
	// ResourceVersion is the resourceVersion the items are current at: the
	// version to resume watching from.
	ResourceVersion string `json:"resourceVersion"`
	// Items is the number of items. [Writer.Write] sets it from its items.
	Items int `json:"items"`
}

// appendPreamble appends magic, version, header length, header and header
// CRC for h.
func appendPreamble(b []byte, h Header) ([]byte, error) {
	header, err := json.Marshal(h)
	if err != nil {
		return nil, err
	}
	if len(header) > maxHeaderLen {
		return nil, fmt.Errorf("header of %d bytes is longer than %d", len(header), maxHeaderLen)
	}
	start := len(b)
	b = append(b, magic...)
	b = binary.LittleEndian.AppendUint32(b, FormatVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(header)))
	b = append(b, header...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b[start:], castagnoli)), nil
}

// appendTrailer appends the trailer of a file of count items whose items
// section has the CRC crc.
func appendTrailer(b []byte, count int, crc uint32) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(count))
	b = binary.LittleEndian.AppendUint32(b, crc)
	return append(b, endMagic...)
}
