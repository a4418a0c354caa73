package cache

import "fmt"

// TransactionType is the kind of write a [Transaction] makes.
type TransactionType string

// The kinds of write of a [Transaction].
const (
	// TransactionTypeAdd stores the object under its key.
	TransactionTypeAdd TransactionType = "Add"
	// TransactionTypeUpdate stores the object under its key, like Add.
	TransactionTypeUpdate TransactionType = "Update"
	// TransactionTypeDelete removes the object's key.
	TransactionTypeDelete TransactionType = "Delete"
)

// Transaction is one write of a batch given to [TransactionStore.Transaction]:
// what to do and the object to do it with.
type Transaction struct {
	Object any
	Type   TransactionType
}

// TransactionStore is implemented by stores that can apply a batch of writes
// while taking their lock only once, so a writer under read contention still
// makes progress. The stores of [NewStore] and [NewIndexer] implement it.
type TransactionStore interface {
	// Transaction applies txns in order while holding the store lock once,
	// then records the resource version of the last applied write's object
	// as the store's. Objects are stored as given: a store's transformer is
	// not applied. A write whose key cannot be computed is skipped; so is,
	// unlike client-go (which panics or ignores it), a write of an unknown
	// type, or an add or update of a nil object or of one an index function
	// fails on. The result is nil when every write was applied, and
	// otherwise lists the applied ones.
	Transaction(txns ...Transaction) *TransactionError
}

// ThreadSafeStoreTransaction is a [Transaction] with its key already
// computed, for [ThreadSafeStoreWithTransaction.Transaction].
type ThreadSafeStoreTransaction struct {
	Transaction
	Key string
}

var _ error = (*TransactionError)(nil)

// TransactionError is the result of a [TransactionStore.Transaction] in which
// some writes were not applied.
type TransactionError struct {
	// SuccessfulIndices lists, ascending, the positions in the batch of the
	// writes that were applied.
	SuccessfulIndices []int
	// TotalTransactions is the size of the batch.
	TotalTransactions int
	// Errors holds one error per write that was not applied, in batch
	// order.
	Errors []error
}

// Error counts the writes that were not applied and lists why.
func (t *TransactionError) Error() string {
	return fmt.Sprintf("failed to execute (%d/%d) transactions failed due to: %v",
		t.TotalTransactions-len(t.SuccessfulIndices), t.TotalTransactions, t.Errors)
}

// Unwrap returns Errors, for [errors.Is] and [errors.As].
func (t *TransactionError) Unwrap() []error {
	return t.Errors
}
