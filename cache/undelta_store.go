package cache

// UndeltaStore is a [Store] that hands its complete contents to PushFunc after
// every change, so a consumer of whole states can be fed by a [Reflector].
// After each successful Add, Update, Delete and Replace (not Resync) it calls
// PushFunc with Store.List(), synchronously.
//
// It is safe for concurrent use when the embedded Store is, and every change
// leads to one call of PushFunc; but the change and the List are not atomic,
// so two concurrent changes can both push the same state, which includes
// both. PushFunc must be safe for concurrent use. Build it with
// [NewUndeltaStore]; a nil PushFunc pushes nothing.
type UndeltaStore struct {
	Store
	PushFunc func([]any)
}

var _ Store = (*UndeltaStore)(nil)

// Add stores obj and pushes the contents.
func (u *UndeltaStore) Add(obj any) error {
	if err := u.Store.Add(obj); err != nil {
		return err
	}
	u.push()
	return nil
}

// Update stores obj and pushes the contents.
func (u *UndeltaStore) Update(obj any) error {
	if err := u.Store.Update(obj); err != nil {
		return err
	}
	u.push()
	return nil
}

// Delete removes obj and pushes the contents.
func (u *UndeltaStore) Delete(obj any) error {
	if err := u.Store.Delete(obj); err != nil {
		return err
	}
	u.push()
	return nil
}

// Replace replaces the contents with list, taking ownership of it, and pushes
// the new contents.
func (u *UndeltaStore) Replace(list []any, resourceVersion string) error {
	if err := u.Store.Replace(list, resourceVersion); err != nil {
		return err
	}
	u.push()
	return nil
}

func (u *UndeltaStore) push() {
	if u.PushFunc != nil {
		u.PushFunc(u.Store.List())
	}
}

// NewUndeltaStore returns an [UndeltaStore] over [NewStore](keyFunc) that
// pushes to pushFunc.
func NewUndeltaStore(pushFunc func([]any), keyFunc KeyFunc) *UndeltaStore {
	return &UndeltaStore{Store: NewStore(keyFunc), PushFunc: pushFunc}
}
