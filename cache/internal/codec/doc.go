// Package codec turns the objects of one informer into bytes and back: the
// serialized form that the cache's Encode memory mode keeps instead of the
// objects (issue 23) and that restart snapshots write to disk (issue 24).
//
// A [Codec] is built once per informer from its example object by [New],
// which picks the format from the example's type and fails, with an error
// naming the type, when the type has none:
//
//   - protobuf for types with gogo-style methods, Marshal() ([]byte, error)
//     and Unmarshal([]byte) error, as every k8s.io/api type and the metav1
//     object types have (detected through an interface; this package does
//     not import k8s.io/api);
//   - CBOR (the default) or JSON, through apimachinery, for
//     *unstructured.Unstructured;
//   - JSON for any other type, only when [Options.AllowJSON] is set.
//
// The contract:
//
//   - [Codec.Decode] returns a fresh object that shares no mutable memory
//     with the input bytes or with any other decoded object (strings, being
//     immutable, may be shared): the caller owns it and may mutate it. The
//     input bytes are not retained or modified.
//   - Decode(Encode(obj)) equals obj, TypeMeta included. Protobuf's Marshal
//     of the k8s.io/api types leaves TypeMeta out, so the codec stores the
//     object's apiVersion and kind beside the protobuf bytes (nothing when
//     both are empty) and restores them on decode.
//   - Encoded bytes start with one byte naming the format; decoding bytes of
//     another format, or malformed bytes of any length, is an error, never a
//     panic: a panic inside a type's own Marshal or Unmarshal is recovered
//     and returned as an error.
//   - A Codec is immutable after New and safe for concurrent use; it starts
//     no goroutines.
//
// The bytes are an in-process and on-disk cache format, not a wire format:
// they are only meant to be read by a Codec built for the same type. A
// snapshot records [Codec.Format] so that a file written with another
// format is not read.
package codec
