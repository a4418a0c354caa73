// Package snapshot writes and loads the files in which an informer keeps
// its cache across restarts (issue 24): the objects of one
// list-and-watch, as encoded bytes, with the resourceVersion they are
// current at and what they are a snapshot of. It knows nothing of codecs
// or informers: items are encoded by an [Encoder] and decoded by a
// [Decoder] that the caller supplies (a *codec.Codec is both), or handed
// out as raw bytes.
//
// # Writing
//
// [NewWriter] takes an exclusive lock on a snapshot path for the writer's
// lifetime, so that two writers pointed at one path are refused with
// [ErrLocked] instead of interleaving. Each [Writer.Write] streams the
// items one by one into a temporary file in the same directory (0600),
// syncs it, renames it over the path and syncs the directory: a reader
// sees the previous complete snapshot or the new complete one, never a
// part, and a crash or a failed write (a full disk) leaves the previous
// snapshot in place. The directory is created 0700 when missing; a
// directory that others may write to (group or world write permission) is
// refused, since whoever can write there can plant a snapshot.
//
// The lock is flock(2) on <path>.lock on Linux, the BSDs, macOS and
// illumos: the kernel releases it when the process dies, however it dies.
// Elsewhere (Windows, Solaris, AIX, ...) the lock is the existence of
// <path>.lock, created exclusively and removed by [Writer.Close]: a
// process that dies holding it leaves the file behind, and the next
// writer is refused until someone removes it. The lock file is never
// removed on flock platforms (removing a file others may hold open races
// with their locking).
//
// A write encodes every item on the calling goroutine and ends with two
// fsyncs: call it off any lock and off the pipeline's hot path.
//
// # Loading
//
// [Load] reads a snapshot and validates all of it before returning
// anything: magic, format version, header checksum, the identity the
// caller expects, the framing of every item and the items' checksum. Each
// failure is a [*LoadError] whose [Reason] names its class (missing,
// truncated, corrupt, foreign, format, ...), for one log line and a metric
// per class. The items come back as raw bytes, to decode lazily, or
// decoded in parallel by [Snapshot.Decode]. Load takes no lock (a file is
// only ever replaced whole); a process that both loads and writes a path
// takes its [Writer] first, so that a second process pointed at the same
// path is refused before it reads anything.
//
// # File format (version 1)
//
// All integers are little-endian. CRC is CRC-32C (Castagnoli).
//
//	magic      8 bytes  "\x89ISNAP\r\n"
//	version    uint32   format version, 1
//	headerLen  uint32   length of header, at most 1 MiB
//	header     JSON     [Header]: identity, resourceVersion, item count
//	headerCRC  uint32   CRC of every byte before it
//	items      count × (uvarint length, bytes)
//	count      uint64   number of items, again
//	itemsCRC   uint32   CRC of the items section
//	end        8 bytes  "\x89IEND\r\n\x1a"
//
// Nothing in this package starts a goroutine that outlives a call:
// [Snapshot.Decode]'s workers are done when it returns.
package snapshot
